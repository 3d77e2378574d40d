import { describe, expect, it } from 'vitest';
import type { WorkflowInput } from '../api/types';
import { collectInputs, initialValue, inputChoices, inputType } from './StartRun';

const inputs: WorkflowInput[] = [
  { name: 'topic', type: 'string', required: true, default: null },
  { name: 'count', type: 'integer', required: false, default: 3 },
  { name: 'ratio', type: 'number', required: false, default: null },
  { name: 'loud', type: 'boolean', required: false, default: true },
  { name: 'words', type: 'array', required: false, default: ['a', 'b'] },
  { name: 'opts', type: 'object', required: false, default: null },
  { name: 'mode', type: null, required: false, default: 'fast', schema: { type: 'string', enum: ['fast', 'slow'] } },
];

describe('the start form', () => {
  it('starts every field at the input’s default, by type', () => {
    expect(inputs.map(initialValue)).toEqual(['', '3', '', true, '[\n  "a",\n  "b"\n]', '', 'fast']);
    expect(inputType(inputs[6]!)).toBe('string');
    expect(inputChoices(inputs[6]!)).toEqual(['fast', 'slow']);
  });

  it('turns fields into typed inputs and leaves empty optional ones out', () => {
    const values = Object.fromEntries(inputs.map((i) => [i.name, initialValue(i)]));
    values.topic = 'loops';
    values.ratio = '0.5';
    expect(collectInputs(inputs, values)).toEqual({
      inputs: { topic: 'loops', count: 3, ratio: 0.5, loud: true, words: ['a', 'b'], mode: 'fast' },
      errors: {},
    });
  });

  it.each([
    ['topic', '', "'topic' is required."],
    ['count', '2.5', "'count' must be a whole number, not “2.5”."],
    ['count', 'twelve', "'count' must be a whole number, not “twelve”."],
    ['ratio', '1e400', "'ratio' must be a number, not “1e400”."],
    ['words', '{"a": 1}', "'words' must be a JSON array."],
    ['opts', '[1]', "'opts' must be a JSON object."],
    ['opts', '{oops', "'opts' is not valid JSON."],
  ])('says what is wrong with %s = %j', (name, value, message) => {
    const values = Object.fromEntries(inputs.map((i) => [i.name, initialValue(i)]));
    values.topic = 'x';
    values[name] = value;
    expect(collectInputs(inputs, values).errors).toEqual({ [name]: message });
  });

  it('keeps hostile text as the value it is', () => {
    const r = collectInputs([{ name: 't', type: 'string' }], { t: '<img src=x onerror=alert(1)> {{ 7*7 }} $(rm -rf ~)' });
    expect(r.inputs).toEqual({ t: '<img src=x onerror=alert(1)> {{ 7*7 }} $(rm -rf ~)' });
  });
});

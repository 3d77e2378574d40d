import { describe, expect, it } from 'vitest';
import { MAX_CHOICES, MAX_FIELDS, answerForm, checkDraft, initialDraft } from './answerForm';

const release = {
  type: 'object',
  title: 'Release',
  required: ['version', 'channel'],
  properties: {
    version: { type: 'string', title: 'Version', description: 'semver', minLength: 1, maxLength: 10 },
    replicas: { type: 'integer', minimum: 1, maximum: 9, default: 2 },
    ratio: { type: 'number' },
    canary: { type: 'boolean', default: true },
    channel: { enum: ['stable', 'beta', 3], default: 'beta' },
  },
};

describe('answer form', () => {
  it('draws each field with its label, description, kind, required mark and default', () => {
    const f = answerForm(release)!;
    expect(f.title).toBe('Release');
    expect(f.fields.map((x) => [x.name, x.label, x.kind, x.required])).toEqual([
      ['version', 'Version', 'string', true],
      ['replicas', 'replicas', 'integer', false],
      ['ratio', 'ratio', 'number', false],
      ['canary', 'canary', 'boolean', false],
      ['channel', 'channel', 'enum', true],
    ]);
    expect(f.fields[0]!.description).toBe('semver');
    expect(f.fields[4]!.choices.map((c) => c.text)).toEqual(['stable', 'beta', '3']);
    expect(initialDraft(f)).toEqual({ version: '', replicas: '2', ratio: '', canary: true, channel: '1' });
  });

  it('reads a draft as typed values, leaving out empty optional fields', () => {
    const f = answerForm(release)!;
    const d = { ...initialDraft(f), version: '1.2', ratio: '0.5', channel: '2' };
    expect(checkDraft(f, d)).toEqual({ values: { version: '1.2', replicas: 2, ratio: 0.5, canary: true, channel: 3 }, problems: {} });
    const empty = { ...initialDraft(f), replicas: '', channel: '' };
    expect(checkDraft(f, empty).values).toEqual({ canary: true });
  });

  it.each([
    [{ version: '' }, 'version', 'Required.'],
    [{ version: 'x'.repeat(11) }, 'version', 'At most 10 characters.'],
    [{ replicas: '1.5' }, 'replicas', 'Enter a whole number.'],
    [{ replicas: '0' }, 'replicas', 'At least 1.'],
    [{ replicas: '10' }, 'replicas', 'At most 9.'],
    [{ ratio: 'abc' }, 'ratio', 'Enter a number.'],
    [{ ratio: 'Infinity' }, 'ratio', 'Enter a number.'],
    [{ channel: '' }, 'channel', 'Required.'],
    [{ channel: '99' }, 'channel', 'Choose one of the options.'],
  ])('says what is wrong with %j', (change, field, problem) => {
    const f = answerForm(release)!;
    const { problems, values } = checkDraft(f, { ...initialDraft(f), version: 'ok', ...change });
    expect(problems[field]).toBe(problem);
    expect(field in values).toBe(false);
  });

  it('has no form without a schema or drawable fields', () => {
    for (const s of [undefined, null, 'x', 3, [], {}, { properties: [] }, { properties: { a: { type: 'object' } } }, { properties: { a: { enum: [] } } }]) {
      expect(answerForm(s)).toBeUndefined();
    }
  });

  it('draws hostile schemas as bounded plain text', () => {
    const many: Record<string, unknown> = {};
    for (let i = 0; i < 5000; i++) many['f' + i] = { type: 'string', title: '<img src=x onerror=alert(1)>' + 'x'.repeat(5000) };
    const f = answerForm({ type: 'object', properties: many })!;
    expect(f.fields).toHaveLength(MAX_FIELDS);
    expect(f.omitted).toBe(5000 - MAX_FIELDS);
    expect(f.fields[0]!.label.length).toBeLessThanOrEqual(201);
    expect(f.fields[0]!.label.startsWith('<img src=x onerror=alert(1)>')).toBe(true); // text, drawn as text

    const huge = answerForm({ properties: { e: { enum: Array.from({ length: 100_000 }, (_, i) => 'c' + i) } } })!;
    expect(huge.fields[0]!.choices).toHaveLength(MAX_CHOICES);

    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 10_000; i++) deep = { type: 'object', properties: { x: deep } };
    const nested = answerForm({ properties: { a: deep, b: { type: 'boolean', title: 'line\nbreak\u2028and\u0007bell' } } })!;
    expect(nested.fields.map((x) => x.name)).toEqual(['b']);
    expect(nested.omitted).toBe(1);
    expect(nested.fields[0]!.label).toBe('line break and bell');

    const odd = answerForm({ properties: { a: { type: 'string', title: 42, description: { x: 1 }, default: 7, minLength: 'no' }, b: { enum: [{}, null, NaN, 'ok'] } } })!;
    expect(odd.fields[0]!).toMatchObject({ label: 'a', description: '', initial: undefined, minLength: undefined });
    expect(odd.fields[1]!.choices.map((c) => c.text)).toEqual(['ok']);
  });

  it('keeps a field called __proto__ a plain value', () => {
    const f = answerForm(JSON.parse('{"properties": {"__proto__": {"type": "string"}, "b": {"type": "integer"}}}'))!;
    expect(f.fields.map((x) => x.name)).toEqual(['__proto__', 'b']);
    const d = initialDraft(f);
    d['__proto__'] = 'polluted?';
    const { values } = checkDraft(f, d);
    expect(JSON.stringify(values)).toBe('{"__proto__":"polluted?"}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

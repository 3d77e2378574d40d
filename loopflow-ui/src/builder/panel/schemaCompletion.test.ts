import { describe, expect, it } from 'vitest';
import { schemaCompletion } from './schemaCompletion';
import { schema } from './testCatalog';

const s = schema();

/** The completion where `|` is in `doc` (the bar removed). */
function at(doc: string) {
  const pos = doc.indexOf('|');
  return schemaCompletion(doc.slice(0, pos) + doc.slice(pos + 1), pos, s);
}
const labels = (doc: string) => at(doc)?.options.map((o) => o.label) ?? [];

describe('YAML pane completion from the schema', () => {
  it('top-level keys, without those already there', () => {
    const l = labels('name: x\n|');
    expect(l).toEqual(expect.arrayContaining(['nodes', 'edges', 'input', 'budget', 'defaults']));
    expect(l).not.toContain('name');
    expect(labels('nam|')).toContain('name');
    expect(at('nam|')?.from).toBe(0);
  });

  it('a loop node’s fields, by its type', () => {
    const l = labels('nodes:\n  - id: refine\n    type: loop\n    |\n');
    expect(l).toEqual(expect.arrayContaining(['maxIterations', 'exitCondition', 'stabilityThreshold', 'feedbackMode', 'depends_on', 'when']));
    expect(l).not.toContain('type');
    expect(l).not.toContain('prompt');
    expect(l).not.toContain('retry');
    const detail = at('nodes:\n  - id: refine\n    type: loop\n    max|\n')?.options.find((o) => o.label === 'maxIterations')?.detail;
    expect(detail).toContain('passes');
  });

  it('a type alias and a shorthand key choose the kind', () => {
    expect(labels('nodes:\n  - id: s\n    type: bash\n    |')).toEqual(expect.arrayContaining(['command', 'env']));
    const llm = labels('nodes:\n  - id: d\n    prompt: hi\n    |');
    expect(llm).toEqual(expect.arrayContaining(['model', 'temperature', 'system']));
    expect(llm).not.toContain('command');
  });

  it('values of a choice, of type, and booleans', () => {
    expect(labels('nodes:\n  - id: r\n    type: loop\n    exitCondition: |')).toEqual(expect.arrayContaining(['max_iterations', 'evaluator', 'stable_output']));
    expect(labels('nodes:\n  - id: r\n    type: loop\n    feedbackMode: re|')).toEqual(['replace', 'append']);
    expect(labels('nodes:\n  - id: r\n    type: |')).toEqual(expect.arrayContaining(['loop', 'exit', 'while_loop', 'loop_group', 'llm', 'bash']));
    expect(labels('nodes:\n  - id: r\n    type: shell\n    allow_failure: |')).toEqual(['true', 'false']);
    expect(at('nodes:\n  - id: r\n    type: loop\n    feedbackMode: "re|')?.from).toBe('nodes:\n  - id: r\n    type: loop\n    feedbackMode: '.length);
  });

  it('nested bodies: a loop_group’s nodes and a while_loop’s body', () => {
    const group = 'nodes:\n  - id: g\n    loop_group:\n      max_iterations: 3\n      nodes:\n        - id: t\n          bash: echo\n          |\n';
    expect(labels(group)).toEqual(expect.arrayContaining(['depends_on', 'env', 'timeout']));
    const body = 'nodes:\n  - id: w\n    type: while_loop\n    max_iterations: 3\n    condition: x\n    body:\n      - id: i\n        type: loop\n        |\n';
    expect(labels(body)).toContain('maxIterations');
  });

  it('sections: retry’s fields, a budget’s', () => {
    expect(labels('nodes:\n  - id: s\n    bash: x\n    retry:\n      |')).toEqual(expect.arrayContaining(['max_attempts', 'delay']));
    expect(labels('budget:\n  |')).toEqual(expect.arrayContaining(['max_usd', 'max_llm_calls']));
  });

  it.each([
    ['a comment', '# nodes|'],
    ['inside a value', 'name: "a|b"'],
    ['a key the schema does not know', 'nodes:\n  - id: s\n    bash: x\n    nonsense:\n      |'],
    ['a value with no choices', 'name: |'],
    ['mid-key with text after', 'na|me: x'],
    ['broken YAML', 'nodes: [\n  {id: a,\n|'],
    ['tabs and junk', '\t\t- - - :\n|'],
  ])('%s: nothing, and no error', (_what, doc) => {
    expect(() => at(doc)).not.toThrow();
    if (_what !== 'broken YAML' && _what !== 'tabs and junk') expect(at(doc)).toBeUndefined();
  });

  it('no schema, a hostile schema, a huge document: nothing and no error', () => {
    expect(schemaCompletion('nodes:\n  - ', 11, null)).toBeUndefined();
    const loop: Record<string, unknown> = { $defs: { a: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a', properties: { x: { $ref: '#/$defs/a' } } };
    expect(() => schemaCompletion('x:\n  ', 5, loop)).not.toThrow();
    const proto = { properties: { __proto__: { enum: ['x'] } }, $defs: { constructor: 1 } };
    expect(() => schemaCompletion('a: ', 3, proto)).not.toThrow();
    const huge = 'name: x\n' + '# filler\n'.repeat(200_000);
    expect(schemaCompletion(huge, huge.length, s)).toBeUndefined();
  });
});

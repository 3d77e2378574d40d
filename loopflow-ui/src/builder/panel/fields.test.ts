import { describe, expect, it } from 'vitest';
import type { FieldDescription } from '../contract';
import {
  checkNodeId,
  conflictingGroups,
  controlFor,
  displayText,
  fieldValue,
  fieldsOf,
  holderKey,
  kindDescription,
  missingGroups,
  nodeFieldEdit,
  nodeFieldName,
  nodeFieldValue,
  parseCode,
  parseDuration,
  parseInput,
  parseNumber,
  presentName,
  resolveKind,
  withSubfield,
  type ControlKind,
} from './fields';
import { sameValue } from './ConfigPanel';
import { allFields, catalog, field } from './testCatalog';

const c = catalog();
const maxIterations = field(c, 'loop', 'maxIterations');

describe('controls come from the catalog', () => {
  const expected: Record<string, ControlKind> = {
    STRING: 'text',
    TEMPLATE: 'template',
    CONDITION: 'template',
    INTEGER: 'number',
    NUMBER: 'number',
    BOOLEAN: 'checkbox',
    CHOICE: 'select',
    DURATION: 'duration',
    NODE_ID: 'nodeId',
    NODE_IDS: 'nodeIds',
    SECTION: 'section',
    NODES: 'nodes',
    LIST: 'code',
    MAP: 'code',
    JSON_SCHEMA: 'code',
    ANY: 'code',
    ONE_OF: 'code',
  };

  it.each(allFields(c))('%s gets the control of its type', (_where, f) => {
    expect(expected[f.type]).toBeDefined();
    const textAlternative = f.type === 'ONE_OF' && f.alternatives.some((a) => a.type === 'TEMPLATE' || a.type === 'STRING');
    expect(controlFor(f)).toBe(textAlternative ? controlFor(f.alternatives.find((a) => a.type === 'TEMPLATE' || a.type === 'STRING')!) : expected[f.type]);
  });

  it('a template typed into a text-or-structure field stays the template text_bugTemplateSavedAsAMapping', () => {
    // transform.template is text or any value; a shell command is text or a list. `{{ x }}` read as YAML is the
    // mapping {"{ x }": null}, which loads and is the wrong value.
    for (const [kind, name] of [['transform', 'template'], ['shell', 'command'], ['shell', 'bash']] as const) {
      const f = field(c, kind, name);
      expect(controlFor(f)).toBe('template');
      expect(controlFor(f, 'echo {{ input.x }}')).toBe('template');
      expect(controlFor(f, ['echo', 'hi'])).toBe('code');
      for (const raw of ['{{ x }}', '{{ a.text }} and more', '{% if x %}y{% endif %}', '  {# note #}{{ x }}']) {
        expect(parseInput(f, controlFor(f), raw, c)).toEqual({ ok: true, value: raw });
        expect(parseCode(f, raw)).toEqual({ ok: true, value: raw });
      }
    }
  });

  it('every kind of the loader is in the catalog, with Loop and Exit', () => {
    const kinds = c.kinds.map((k) => k.kind);
    for (const k of ['loop', 'exit', 'while_loop', 'loop_group', 'iterator', 'aggregator', 'router', 'approval', 'transform', 'validator', 'llm', 'agent', 'shell', 'script', 'http', 'input', 'output']) {
      expect(kinds).toContain(k);
    }
  });

  it('the loop settings are the loader’s: max iterations 1..50, exit condition, threshold, feedback mode', () => {
    expect(maxIterations).toMatchObject({ type: 'INTEGER', minimum: 1, maximum: 50, aliases: ['max_iterations'] });
    expect(field(c, 'loop', 'exitCondition').values).toEqual(expect.arrayContaining(['max_iterations', 'evaluator', 'stable_output']));
    expect(field(c, 'loop', 'stabilityThreshold')).toMatchObject({ minimum: 0, maximum: 1 });
    expect(field(c, 'loop', 'feedbackMode').values).toEqual(['replace', 'append']);
  });

  it.each([
    ['a template in a number field', maxIterations, '{{ input.n }}'],
    ['a structured condition', field(c, 'while_loop', 'condition'), { not: { equals: { var: 'a.b', value: true } } }],
    ['a value outside a choice', field(c, 'loop', 'exitCondition'), 'sometimes'],
    ['a list in a text field', field(c, 'common', 'description'), ['a', 'b']],
    ['text in a checkbox field', field(c, 'common', 'allow_failure'), 'yes'],
    ['a number in a node id field', field(c, 'loop', 'exit'), 3],
    ['a list in a section field', field(c, 'loop', 'budget'), [1]],
    ['NaN in a number field', maxIterations, Number.NaN],
  ])('%s is kept as YAML text, never coerced', (_what, f, value) => {
    expect(controlFor(f, value)).toBe('code');
  });

  it('a boolean condition stays a condition', () => {
    expect(controlFor(field(c, 'while_loop', 'condition'), true)).toBe('template');
  });

  it('a kind’s own field replaces the common one of the same name, and loops take no retry', () => {
    for (const k of c.kinds) {
      const { own, common } = fieldsOf(c, k.kind);
      const ownNames = own.flatMap((f) => [f.name, ...f.aliases]);
      for (const f of common) expect(ownNames, `${k.kind}.${f.name}`).not.toContain(f.name);
      expect(own).toEqual(k.fields);
    }
    expect(fieldsOf(c, 'loop').common.map((f) => f.name)).not.toContain('retry');
    expect(fieldsOf(c, 'shell').common.map((f) => f.name)).toContain('retry');
    expect(fieldsOf(c, 'bash').own).toEqual(fieldsOf(c, 'shell').own);
    expect(fieldsOf(c, 'no-such-kind').own).toEqual([]);
  });

  it('type aliases resolve to their kind', () => {
    expect(resolveKind(c, 'bash')).toBe('shell');
    expect(resolveKind(c, 'claude.agent')).toBe('llm');
    expect(resolveKind(c, '__proto__')).toBe('__proto__');
    expect(resolveKind(c, 'constructor')).toBe('constructor');
    expect(kindDescription(c, 'toString')).toBeUndefined();
  });
});

describe('numbers', () => {
  it.each([
    ['1', 1],
    ['50', 50],
    [' 3 ', 3],
    ['+7', 7],
    ['', undefined],
    ['   ', undefined],
  ])('maxIterations %j is %j', (raw, value) => {
    expect(parseNumber(maxIterations, raw)).toEqual({ ok: true, value });
  });

  it.each(['0', '51', '-1', '3.5', '1e3', 'abc', 'NaN', 'Infinity', '-Infinity', '0x10', '9'.repeat(400), '1,5', '5;rm -rf /', '</script>', '\u202e5', '٣'])(
    'maxIterations %j is refused in words and not sent',
    (raw) => {
      const r = parseNumber(maxIterations, raw);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error).toContain("'maxIterations'");
        expect(r.error.length).toBeLessThan(200);
      }
    },
  );

  it('a NUMBER field takes decimals within its range', () => {
    const t = field(c, 'loop', 'stabilityThreshold');
    expect(parseNumber(t, '0.95')).toEqual({ ok: true, value: 0.95 });
    expect(parseNumber(t, '.5')).toEqual({ ok: true, value: 0.5 });
    expect(parseNumber(t, '1.01').ok).toBe(false);
    expect(parseNumber(t, '-0.1').ok).toBe(false);
  });

  it('out of range says the range', () => {
    const r = parseNumber(maxIterations, '51');
    expect(r).toEqual({ ok: false, error: "'maxIterations' must be 1 to 50, not 51." });
  });

  it('every bounded number field of the catalog refuses one past each bound', () => {
    for (const [where, f] of allFields(c)) {
      if (f.type !== 'INTEGER' && f.type !== 'NUMBER') continue;
      if (f.minimum !== null) expect(parseNumber(f, String(f.minimum - 1)).ok, where).toBe(false);
      if (f.maximum !== null && f.maximum < Number.MAX_SAFE_INTEGER) expect(parseNumber(f, String(f.maximum + 1)).ok, where).toBe(false);
      if (f.minimum !== null) expect(parseNumber(f, String(f.minimum)).ok, where).toBe(true);
    }
  });
});

describe('durations', () => {
  const timeout = field(c, 'common', 'timeout');
  it.each([
    ['30s', '30s'],
    ['1h30m', '1h30m'],
    ['500ms', '500ms'],
    [' 5m ', '5m'],
    ['2H', '2H'],
    ['30', 30],
    ['1.5', 1.5],
    ['', undefined],
  ])('%j is %j', (raw, value) => {
    expect(parseDuration(timeout, raw, c)).toEqual({ ok: true, value });
  });

  it.each(['0', '0s', '-5s', '5 minutes', 'soon', '</script>', '30s; rm -rf /', '1e3', '\u202e30s', 'ms', '5x', '0ms0s'])('%j is refused', (raw) => {
    expect(parseDuration(timeout, raw, c).ok).toBe(false);
  });

  it('the catalog’s pattern is what is checked', () => {
    expect(c.durationPattern).toBeTruthy();
    const strict = { ...c, durationPattern: '^[0-9]+s$' };
    expect(parseDuration(timeout, '5m', strict).ok).toBe(false);
    expect(parseDuration(timeout, '5s', strict).ok).toBe(true);
    // A pattern this browser cannot read falls back to the loader's format.
    expect(parseDuration(timeout, '5m', { ...c, durationPattern: '(' }).ok).toBe(true);
  });
});

describe('node ids', () => {
  it.each(['draft', '_x', 'a-b_2', 'A'])('%j is a node id', (id) => {
    expect(checkNodeId(id, c)).toBeUndefined();
  });

  it.each(['', '2x', 'a b', 'a.b', '</script>', 'a\u202eb', 'é', 'x'.repeat(10) + '\n', ' a', '-a', '{{ x }}'])('%j is refused in words', (id) => {
    const why = checkNodeId(id, c);
    expect(why).toBeTruthy();
    expect(why!.length).toBeLessThan(200);
  });

  it('reserved and taken ids are refused', () => {
    for (const r of c.reservedIds ?? []) expect(checkNodeId(r, c)).toContain('reserved');
    expect(c.reservedIds).toContain('input');
    expect(checkNodeId('critique', c, ['draft', 'critique'])).toContain('already');
  });

  it('a huge id is refused with a short message', () => {
    const why = checkNodeId('!'.repeat(100_000), c);
    expect(why!.length).toBeLessThan(200);
  });
});

describe('structured values', () => {
  const mapField = field(c, 'common', 'with');
  const schemaField = c.kinds.flatMap((k) => k.fields).find((f) => f.type === 'JSON_SCHEMA') as FieldDescription;
  const retry = field(c, 'common', 'retry');

  it('YAML or JSON of the right shape is taken', () => {
    expect(parseCode(mapField, 'model: gpt-4o\ntemperature: 0')).toEqual({ ok: true, value: { model: 'gpt-4o', temperature: 0 } });
    expect(parseCode(mapField, '{"a": 1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseCode(schemaField, 'type: object\nrequired: [a]')).toEqual({ ok: true, value: { type: 'object', required: ['a'] } });
    expect(parseCode(retry, '3')).toEqual({ ok: true, value: 3 });
    expect(parseCode(retry, 'max_attempts: 3\ndelay: 2s')).toEqual({ ok: true, value: { max_attempts: 3, delay: '2s' } });
    expect(parseCode(mapField, '')).toEqual({ ok: true, value: undefined });
    expect(parseCode(mapField, '~')).toEqual({ ok: true, value: undefined });
  });

  it.each([
    ['a: [', 'not valid YAML'],
    ['a: 1\na: 2', 'not valid YAML'],
    ['- a\n- b', 'must be a mapping'],
    ['just text', 'must be a mapping'],
    ['a: "unterminated', 'not valid YAML'],
    ['\t- x:\n\t\t- y', 'not valid YAML'],
  ])('%j is refused (%s)', (raw, why) => {
    const r = parseCode(mapField, raw);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain(why);
  });

  it('retry must be a count in range or the section', () => {
    expect(parseCode(retry, '1000').ok).toBe(false);
    expect(parseCode(retry, 'many').ok).toBe(false);
  });

  it('an alias bomb is refused, not expanded', () => {
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 9; i++) bomb.push(`${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`);
    const r = parseCode(mapField, bomb.join('\n'));
    expect(r.ok).toBe(false);
  });

  it('hostile text is kept as text', () => {
    const hostile = '</script><img src=x onerror=alert(1)>\u202e\u0000' + 'x'.repeat(100_000);
    expect(parseCode(mapField, `k: ${JSON.stringify(hostile)}`)).toEqual({ ok: true, value: { k: hostile } });
    expect(displayText(hostile)).toBe(hostile);
  });
});

describe('edits', () => {
  const desc = field(c, 'common', 'description');
  it('clearing a field removes the key', () => {
    expect(parseInput(desc, 'text', '', c, 'old')).toEqual({ ok: true, value: undefined });
    expect(parseInput(maxIterations, 'number', '', c, 3)).toEqual({ ok: true, value: undefined });
    expect(parseInput(field(c, 'loop', 'exitCondition'), 'select', '', c, 'evaluator')).toEqual({ ok: true, value: undefined });
  });

  it('a select only takes its values', () => {
    expect(parseInput(field(c, 'loop', 'feedbackMode'), 'select', 'append', c)).toEqual({ ok: true, value: 'append' });
    expect(parseInput(field(c, 'loop', 'feedbackMode'), 'select', 'prepend', c).ok).toBe(false);
  });

  it('a number written in a text field stays a number when unchanged', () => {
    expect(parseInput(desc, 'text', '2024', c, 2024)).toEqual({ ok: true, value: 2024 });
    expect(parseInput(desc, 'text', '2025', c, 2024)).toEqual({ ok: true, value: '2025' });
  });

  it('depends_on keeps one id as written, several as a list', () => {
    const deps = field(c, 'common', 'depends_on');
    expect(parseInput(deps, 'nodeIds', ['a'], c, 'a')).toEqual({ ok: true, value: 'a' });
    expect(parseInput(deps, 'nodeIds', ['a'], c, ['a', 'b'])).toEqual({ ok: true, value: ['a'] });
    expect(parseInput(deps, 'nodeIds', ['a', 'b'], c, 'a')).toEqual({ ok: true, value: ['a', 'b'] });
    expect(parseInput(deps, 'nodeIds', [], c, 'a')).toEqual({ ok: true, value: undefined });
  });

  it('a section’s last field removed removes the section', () => {
    expect(withSubfield({ max_usd: 1 }, 'max_usd', undefined)).toBeUndefined();
    expect(withSubfield({ max_usd: 1 }, 'max_llm_calls', 3)).toEqual({ max_usd: 1, max_llm_calls: 3 });
    expect(withSubfield(undefined, 'max_usd', 1)).toEqual({ max_usd: 1 });
    expect(withSubfield('junk', 'max_usd', 1)).toEqual({ max_usd: 1 });
  });

  it('sameValue compares plain values deeply', () => {
    expect(sameValue({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true);
    expect(sameValue({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(sameValue([1], { 0: 1 })).toBe(false);
    expect(sameValue(null, {})).toBe(false);
  });
});

describe('names as the file writes them', () => {
  it('an alias in the file is the name shown and written', () => {
    const values = { id: 'r', type: 'loop', max_iterations: 3 };
    expect(presentName(maxIterations, values)).toBe('max_iterations');
    expect(fieldValue(maxIterations, values)).toBe(3);
    expect(nodeFieldEdit(maxIterations, 4, values, undefined, true)).toEqual({ key: 'max_iterations', value: 4 });
    expect(presentName(maxIterations, { id: 'r' })).toBe('maxIterations');
    expect(presentName(maxIterations, Object.create({ max_iterations: 1 }) as Record<string, unknown>)).toBe('maxIterations');
  });

  it('fields under uses/with, a typed input mapping and the loop_group shorthand are read and written there', () => {
    const llm = kindDescription(c, 'llm');
    const prompt = field(c, 'llm', 'prompt');
    const model = field(c, 'llm', 'model');
    const withNode = { id: 'g', uses: 'llm.call', with: { model: 'gpt-4o', messages: [] } };
    expect(holderKey(withNode, llm)).toBe('with');
    expect(nodeFieldValue(model, withNode, 'with')).toBe('gpt-4o');
    expect(nodeFieldEdit(model, 'gpt-5', withNode, 'with', true)).toEqual({ key: 'with', value: { model: 'gpt-5', messages: [] } });
    expect(nodeFieldEdit(prompt, 'hi', withNode, 'with', true)).toEqual({ key: 'with', value: { model: 'gpt-4o', messages: [], prompt: 'hi' } });
    expect(nodeFieldEdit(model, undefined, withNode, 'with', true)).toEqual({ key: 'with', value: { messages: [] } });

    const typed = { id: 'coder', type: 'claude.agent', input: { prompt: 'Implement' } };
    expect(holderKey(typed, llm)).toBe('input');
    expect(nodeFieldValue(prompt, typed, 'input')).toBe('Implement');
    // A common field goes on the node even when the kind's fields are in a holder.
    expect(nodeFieldEdit(field(c, 'common', 'timeout'), '5m', typed, 'input', false)).toEqual({ key: 'timeout', value: '5m' });

    const groupKind = kindDescription(c, 'loop_group');
    const group = { id: 'g', loop_group: { until: 'DONE', max_iterations: 5, nodes: [] } };
    const until = field(c, 'loop_group', 'until');
    expect(holderKey(group, groupKind)).toBe('loop_group');
    expect(nodeFieldName(field(c, 'loop_group', 'max_iterations'), group, 'loop_group')).toBe('max_iterations');
    expect(nodeFieldEdit(until, undefined, group, 'loop_group', true)).toEqual({ key: 'loop_group', value: { max_iterations: 5, nodes: [] } });

    // A loop's input is its own template field, not a holder.
    expect(holderKey({ id: 'r', type: 'loop', input: 'text' }, kindDescription(c, 'loop'))).toBeUndefined();
  });

  it('groups of which one is needed, or at most one allowed, are said', () => {
    expect(missingGroups(kindDescription(c, 'llm'), { id: 'a', type: 'llm' }).join()).toContain('prompt');
    expect(missingGroups(kindDescription(c, 'llm'), { id: 'a', prompt: 'x' })).toEqual([]);
    expect(conflictingGroups(kindDescription(c, 'loop_group'), { until_command: 'a', until_bash: 'b' })).toHaveLength(1);
  });
});

import { describe, expect, it } from 'vitest';
import { buildForkSet, editValue, passPoint, valueKind } from './fork';

describe('editValue: JSON when it parses, else text (the command line’s --set rule)', () => {
  it('reads JSON values', () => {
    expect(editValue('100')).toBe(100);
    expect(editValue(' true ')).toBe(true);
    expect(editValue('null')).toBe(null);
    expect(editValue('{"a": [1, 2]}')).toEqual({ a: [1, 2] });
    expect(editValue('"quoted"')).toBe('quoted');
  });

  it('keeps anything else as the text written, spaces included', () => {
    expect(editValue('hello world')).toBe('hello world');
    expect(editValue(' a draft \n')).toBe(' a draft \n');
    expect(editValue('')).toBe('');
    expect(editValue('   ')).toBe('   ');
    expect(editValue('{not json')).toBe('{not json');
    expect(editValue('<img src=x onerror=alert(1)>')).toBe('<img src=x onerror=alert(1)>');
  });

  it('names what a value is read as', () => {
    expect(valueKind('100')).toBe('number');
    expect(valueKind('[1]')).toBe('JSON array');
    expect(valueKind('{}')).toBe('JSON object');
    expect(valueKind('false')).toBe('boolean');
    expect(valueKind('null')).toBe('null');
    expect(valueKind('"x"')).toBe('text');
    expect(valueKind('x y')).toBe('text');
  });
});

describe('passPoint', () => {
  it('names a pass of a top-level loop as LOOP:PASS', () => {
    expect(passPoint('refine', 3)).toBe('refine:3');
  });

  it('names a pass of a nested loop with the passes around it, outermost first', () => {
    expect(passPoint('outer[2].inner', 3)).toBe('outer:2/inner:3');
    expect(passPoint('a[1].b[4].c', 2)).toBe('a:1/b:4/c:2');
  });
});

describe('buildForkSet', () => {
  it('turns rows into the request’s set, values read by the --set rule', () => {
    const r = buildForkSet(
      [
        { target: 'state', key: 'count', value: '100' },
        { target: 'state', key: 'draft.title', value: 'A title' },
        { target: 'output', key: 'draft', value: 'New text' },
      ],
      { enabled: true, value: '{"topic": "x"}' },
    );
    expect(r).toEqual({
      set: { 'state.count': 100, 'state.draft.title': 'A title', 'draft.output': 'New text', 'loop.input': { topic: 'x' } },
      problems: [],
    });
  });

  it('leaves out rows with neither key nor value, and the loop input when not asked for', () => {
    expect(buildForkSet([{ target: 'state', key: '', value: '' }], { enabled: false, value: 'x' })).toEqual({ set: {}, problems: [] });
  });

  it('refuses keys that are not keys, and a key given twice, in words', () => {
    const r = buildForkSet(
      [
        { target: 'state', key: 'bad key', value: '1' },
        { target: 'state', key: 'a..b', value: '1' },
        { target: 'output', key: 'x.y', value: '1' },
        { target: 'state', key: 'n', value: '1' },
        { target: 'state', key: 'n', value: '2' },
        { target: 'state', key: '', value: '5' },
        { target: 'state', key: '__proto__', value: '1' },
      ],
      { enabled: false, value: '' },
    );
    expect(r.problems).toEqual([
      'state.bad key: a state key is letters, digits, _ and -, dotted for nested keys (state.draft.title)',
      'state.a..b: a state key is letters, digits, _ and -, dotted for nested keys (state.draft.title)',
      'x.y.output: a node id is letters, digits, _ and -',
      'state.n is set twice',
      'row 6: give a key',
    ]);
    // a key such as __proto__ is an ordinary key of the request (its path starts with state.)
    expect(Object.keys(r.set)).toEqual(['state.n', 'state.__proto__']);
    expect(JSON.parse(JSON.stringify(r.set))).toEqual({ 'state.n': 1, 'state.__proto__': 1 });
  });
});

import { describe, expect, it } from 'vitest';
import { minimalChange, problemMarks } from './yamlSync';

function apply(text: string, c: { from: number; to: number; insert: string } | undefined): string {
  return c ? text.slice(0, c.from) + c.insert + text.slice(c.to) : text;
}

/** A small deterministic generator, so the corpus is the same on every run. */
function rng(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    return x / 0x7fffffff;
  };
}

describe('external text changes', () => {
  it('equal texts need no change', () => {
    expect(minimalChange('a: 1\n', 'a: 1\n')).toBeUndefined();
  });

  it('a canvas edit of one value changes only that value, so a cursor elsewhere stays', () => {
    const before = 'nodes:\n  - id: refine\n    maxIterations: 3\n  - id: draft\n    prompt: hi\n';
    const after = before.replace('maxIterations: 3', 'maxIterations: 5');
    expect(minimalChange(before, after)).toEqual({ from: before.indexOf('3\n'), to: before.indexOf('3\n') + 1, insert: '5' });
  });

  const alphabet = ['a', 'b', '\n', ' ', ':', '-', '😀', '\u202e', '<', '/', 'é', '\u0000', '{{'];
  const r = rng(42);
  const word = (n: number) => Array.from({ length: n }, () => alphabet[Math.floor(r() * alphabet.length)]).join('');
  const corpus: [string, string][] = [];
  for (let i = 0; i < 300; i++) {
    // Cut at code point boundaries: both texts are well-formed, as an editor's are.
    const base = Array.from(word(Math.floor(r() * 30)));
    const at = Math.floor(r() * (base.length + 1));
    const cut = Math.floor(r() * 5);
    corpus.push([base.join(''), base.slice(0, at).join('') + word(Math.floor(r() * 4)) + base.slice(at + cut).join('')]);
  }
  corpus.push(['😀', '😁'], ['a😀b', 'a😁b'], ['', 'x'], ['x', ''], ['aaa', 'aa'], ['😀😀', '😀']);

  it.each(corpus)('%j → %j round-trips without splitting a character', (a, b) => {
    const c = minimalChange(a, b);
    expect(apply(a, c)).toBe(b);
    if (c) {
      for (const off of [c.from, c.to]) {
        const code = a.charCodeAt(off);
        expect(code >= 0xdc00 && code <= 0xdfff, `offset ${off} splits a pair`).toBe(false);
      }
      const ins = c.insert.charCodeAt(0);
      expect(ins >= 0xdc00 && ins <= 0xdfff).toBe(false);
    }
  });
});

describe('problem marks', () => {
  const text = 'name: x\nnodes:\n  - id: a\n    depnds_on: [b]\n';
  it('line and column place the mark on the word', () => {
    const [m] = problemMarks(text, [{ line: 4, col: 5, path: 'nodes.a.depnds_on', message: "unknown field 'depnds_on'" }]);
    expect(text.slice(m!.from, m!.to)).toBe('depnds_on');
    expect(m!.message).toBe("unknown field 'depnds_on' (nodes.a.depnds_on)");
  });

  it.each([
    [0, 0],
    [-3, 1],
    [999, 1],
    [2, 999],
    [Number.NaN, Number.NaN],
    [Infinity, -Infinity],
    [1.7, 2.2],
  ])('line %s col %s is clamped into the text', (line, col) => {
    const [m] = problemMarks(text, [{ line, col, path: '', message: 'x' }]);
    expect(m!.from).toBeGreaterThanOrEqual(0);
    expect(m!.to).toBeLessThanOrEqual(text.length);
    expect(m!.from).toBeLessThanOrEqual(m!.to);
  });

  it('an empty text still gets its marks', () => {
    expect(problemMarks('', [{ line: 5, col: 5, path: '', message: 'empty' }])).toEqual([{ from: 0, to: 0, message: 'empty' }]);
  });
});

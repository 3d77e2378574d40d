import { describe, expect, it } from 'vitest';
import { JSON_CLIP, JSON_PAGE, asTree, clipLeaf, jsonChildren, jsonKind, jsonSummary, leafText, shownCount } from './jsonTree';

describe('json tree', () => {
  it('tells kinds apart and summarises folded nodes', () => {
    expect([{}, [], 'a', 1, true, null, undefined].map(jsonKind)).toEqual(['object', 'array', 'string', 'number', 'boolean', 'null', 'null']);
    expect(jsonSummary({ a: 1, b: 2 })).toBe('{2 keys}');
    expect(jsonSummary([1])).toBe('[1 item]');
    expect(jsonSummary(new Array(1200).fill(0))).toBe('[1,200 items]');
  });

  it('writes leaves as JSON, missing values as null', () => {
    expect(leafText('a"b')).toBe('"a\\"b"');
    expect(leafText(undefined)).toBe('null');
    expect(leafText(3.5)).toBe('3.5');
  });

  it('clips long strings', () => {
    const c = clipLeaf('x'.repeat(JSON_CLIP + 10));
    expect(c.clipped).toBe(true);
    expect(c.text).toBe('"' + 'x'.repeat(JSON_CLIP) + '…"');
    expect(clipLeaf('short')).toEqual({ text: '"short"', clipped: false });
  });

  it('pages big arrays', () => {
    expect(shownCount(5000, 1)).toBe(JSON_PAGE);
    expect(shownCount(5000, 2)).toBe(2 * JSON_PAGE);
    expect(shownCount(150, 2)).toBe(150);
    expect(jsonChildren(['a', 'b'])).toEqual([['0', 'a'], ['1', 'b']]);
    expect(jsonChildren({ '<img src=x onerror=alert(1)>': 1 })).toEqual([['<img src=x onerror=alert(1)>', 1]]);
  });

  it('parses a string holding JSON, and nothing else', () => {
    expect(asTree('{"a": [1, 2]}')).toEqual({ a: [1, 2] });
    expect(asTree('[not json]')).toBeUndefined();
    expect(asTree('plain')).toBeUndefined();
    expect(asTree(42)).toBeUndefined();
    expect(asTree({ a: 1 })).toEqual({ a: 1 });
  });
});

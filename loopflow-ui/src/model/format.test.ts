import { describe, expect, it } from 'vitest';
import { fmtCost, fmtDuration, fmtInt, fmtTime, fmtTimeShort, fmtTokens, valueText, words } from './format';

describe('formatting never shows null or undefined', () => {
  const fns: [string, (v: never) => string][] = [
    ['fmtDuration', fmtDuration as never],
    ['fmtCost', fmtCost as never],
    ['fmtInt', fmtInt as never],
    ['fmtTime', fmtTime as never],
    ['valueText', valueText as never],
    ['words', words as never],
  ];
  it.each(fns)('%s of a missing value is empty', (_name, f) => {
    for (const v of [null, undefined]) expect(f(v as never)).toBe('');
  });
  it.each([NaN, Infinity, -5])('a duration of %s is empty', (v) => {
    expect(fmtDuration(v)).toBe('');
  });
  it('says durations, costs and tokens in words a person reads', () => {
    expect(fmtDuration(25)).toBe('25 ms');
    expect(fmtDuration(3094)).toBe('3.09 s');
    expect(fmtDuration(61_000)).toBe('1 min 1 s');
    expect(fmtCost(0)).toBe('$0.0000');
    expect(fmtCost(0.000123)).toBe('$0.000123');
    expect(fmtTokens(139, 30)).toBe('139 in / 30 out');
    expect(fmtTokens(0, 0)).toBe('');
    expect(fmtTokens(null, undefined)).toBe('');
    expect(words('condition_false')).toBe('condition false');
  });
  it('keeps hostile text as it is (the views render it as text)', () => {
    expect(valueText('<img src=x onerror=alert(1)>')).toBe('<img src=x onerror=alert(1)>');
    expect(valueText({ a: '<script>' })).toBe('{\n  "a": "<script>"\n}');
  });
});

describe('fmtTimeShort', () => {
  it('runHeaderFactsFitOnOneLine_bugFactsWrapped: a start on the same day shows only its time, another day in full', () => {
    const at = '2026-11-24T04:16:00Z';
    const now = Date.parse(at) + 60_000;
    expect(fmtTimeShort(at, now)).toBe(fmtTime(at).slice(11));
    expect(fmtTimeShort(at, now)).toMatch(/^\d\d:\d\d:\d\d$/);
    expect(fmtTimeShort(at, now + 3 * 86_400_000)).toBe(fmtTime(at));
    expect(fmtTimeShort(null, now)).toBe('');
    expect(fmtTimeShort('nonsense', now)).toBe('');
  });
});

import { describe, expect, it } from 'vitest';
import { DIFF_MAX_LINES, lineDiff, splitLines, unified } from './lineDiff';

const text = (d: ReturnType<typeof lineDiff>) => d.lines.map((l) => (l.kind === 'add' ? '+' : l.kind === 'del' ? '-' : ' ') + l.text);

describe('splitLines', () => {
  it('splits on LF and CRLF and drops the empty line after a final newline', () => {
    expect(splitLines('a\nb\r\nc\n')).toEqual(['a', 'b', 'c']);
    expect(splitLines('')).toEqual([]);
    expect(splitLines('\n')).toEqual(['']);
    expect(splitLines('one')).toEqual(['one']);
  });
});

describe('lineDiff', () => {
  it('marks equal texts as equal, every line the same', () => {
    const d = lineDiff('a\nb', 'a\nb');
    expect(d.equal).toBe(true);
    expect(text(d)).toEqual([' a', ' b']);
  });

  it('finds a longest common subsequence: a changed middle line is one delete and one add', () => {
    const d = lineDiff('title\nfirst draft\nend', 'title\nsecond draft\nend');
    expect(d.equal).toBe(false);
    expect(text(d)).toEqual([' title', '-first draft', '+second draft', ' end']);
  });

  it('handles insertions and deletions at both ends and empty sides', () => {
    expect(text(lineDiff('', 'x\ny'))).toEqual(['+x', '+y']);
    expect(text(lineDiff('x\ny', ''))).toEqual(['-x', '-y']);
    expect(text(lineDiff('b\nc', 'a\nb\nc\nd'))).toEqual(['+a', ' b', ' c', '+d']);
    expect(text(lineDiff('a\nb\nc', 'a\nc'))).toEqual([' a', '-b', ' c']);
  });

  it('keeps as many common lines as there are (LCS, not a greedy match)', () => {
    const d = lineDiff('a\nb\nc\nd\ne', 'b\nx\nc\nd\ny\ne');
    expect(d.lines.filter((l) => l.kind === 'same').map((l) => l.text)).toEqual(['b', 'c', 'd', 'e']);
    // every line of each side appears once, in order
    expect(d.lines.filter((l) => l.kind !== 'add').map((l) => l.text)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(d.lines.filter((l) => l.kind !== 'del').map((l) => l.text)).toEqual(['b', 'x', 'c', 'd', 'y', 'e']);
  });

  it('numbers lines on each side', () => {
    const d = lineDiff('a\nb', 'a\nc');
    expect(d.lines.map((l) => [l.left ?? null, l.right ?? null])).toEqual([
      [1, 1],
      [2, null],
      [null, 2],
    ]);
  });

  it('treats lines that differ only in a carriage return as the same line', () => {
    expect(lineDiff('a\r\nb\r\n', 'a\nb').equal).toBe(true);
  });

  it(`caps each side at ${DIFF_MAX_LINES} lines and says so`, () => {
    const many = Array.from({ length: 50_000 }, (_, i) => `line ${i}`).join('\n');
    const other = Array.from({ length: 50_000 }, (_, i) => `line ${i % 3 === 0 ? 'x' : ''}${i}`).join('\n');
    const started = Date.now();
    const d = lineDiff(many, other);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(d.truncated).toBe(true);
    expect(d.leftLines).toBe(50_000);
    expect(d.rightLines).toBe(50_000);
    expect(d.lines.filter((l) => l.kind !== 'add').length).toBe(DIFF_MAX_LINES);
    expect(d.lines.filter((l) => l.kind !== 'del').length).toBe(DIFF_MAX_LINES);
  });

  it('diffs two entirely different texts at the cap in bounded time', () => {
    const a = Array.from({ length: DIFF_MAX_LINES }, (_, i) => `a${i}`).join('\n');
    const b = Array.from({ length: DIFF_MAX_LINES }, (_, i) => `b${i}`).join('\n');
    const started = Date.now();
    const d = lineDiff(a, b);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(d.truncated).toBe(false);
    expect(d.lines.length).toBe(2 * DIFF_MAX_LINES);
  });

  it('compares very long lines whole but cuts what it shows of them', () => {
    const long = 'x'.repeat(1_000_000);
    const d = lineDiff(long + '\nend', long + 'y\nend');
    expect(d.equal).toBe(false);
    expect(d.lines.filter((l) => l.kind === 'same').map((l) => l.text)).toEqual(['end']);
    for (const l of d.lines) expect(l.text.length).toBeLessThanOrEqual(2001);
    expect(d.lines.some((l) => l.cut)).toBe(true);
  });

  it('keeps hostile text as it is (it is rendered as text, never as markup)', () => {
    const d = lineDiff('<img src=x onerror=alert(1)>', '</script><script>window.__xss=1</script>');
    expect(text(d)).toEqual(['-<img src=x onerror=alert(1)>', '+</script><script>window.__xss=1</script>']);
  });

  it('does not mistake lines named like Object.prototype keys for common lines', () => {
    expect(text(lineDiff('__proto__\nconstructor', 'toString\n__proto__'))).toEqual(['+toString', ' __proto__', '-constructor']);
  });
});

describe('unified', () => {
  it('folds long unchanged runs, keeping context around each change', () => {
    const a = Array.from({ length: 30 }, (_, i) => `l${i}`);
    const b = a.slice();
    b[15] = 'changed';
    const u = unified(lineDiff(a.join('\n'), b.join('\n')), 3);
    const shown = u.map((x) => ('skip' in x ? `…${x.skip}` : x.text));
    expect(shown).toEqual(['…12', 'l12', 'l13', 'l14', 'l15', 'changed', 'l16', 'l17', 'l18', '…11']);
  });

  it('shows equal texts as one fold', () => {
    expect(unified(lineDiff('a\nb', 'a\nb'), 3)).toEqual([{ skip: 2 }]);
  });
});

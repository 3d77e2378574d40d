// A unified line diff of two texts (two drafts of a refine loop): a longest common subsequence of their lines, so
// every line of each side appears once, in order, as unchanged, removed or added. Node outputs come from anywhere, so
// the work is bounded: at most DIFF_MAX_LINES lines of each side are compared (the diff says when it stopped there),
// lines are compared whole but shown cut at DIFF_MAX_LINE_CHARS, and the lines both sides start and end with are
// matched before the quadratic part runs.

/** The most lines of each side compared; the rest are left out and the diff says so. */
export const DIFF_MAX_LINES = 2000;
/** The most characters of one line shown (lines are compared whole). */
export const DIFF_MAX_LINE_CHARS = 2000;

export interface DiffLine {
  kind: 'same' | 'del' | 'add';
  text: string;
  /** the line's number on the left side (from 1), for unchanged and removed lines */
  left?: number;
  /** the line's number on the right side, for unchanged and added lines */
  right?: number;
  /** true when the line was longer than DIFF_MAX_LINE_CHARS and `text` holds its start */
  cut?: boolean;
}

export interface LineDiff {
  lines: DiffLine[];
  /** true when neither side changed (within the lines compared) */
  equal: boolean;
  /** true when a side had more than `maxLines` lines and only its first `maxLines` were compared */
  truncated: boolean;
  leftLines: number;
  rightLines: number;
  maxLines: number;
}

/** The lines of a text: split at LF or CRLF, without the empty line a final newline would leave. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function shown(kind: DiffLine['kind'], text: string, left?: number, right?: number): DiffLine {
  const l: DiffLine = { kind, text: text.length > DIFF_MAX_LINE_CHARS ? text.slice(0, DIFF_MAX_LINE_CHARS) + '…' : text };
  if (left !== undefined) l.left = left;
  if (right !== undefined) l.right = right;
  if (text.length > DIFF_MAX_LINE_CHARS) l.cut = true;
  return l;
}

export function lineDiff(left: string, right: string, maxLines = DIFF_MAX_LINES): LineDiff {
  const allA = splitLines(left);
  const allB = splitLines(right);
  const a = allA.slice(0, maxLines);
  const b = allB.slice(0, maxLines);
  // lines as numbers, so the table compares numbers, not (possibly huge) strings
  const ids = new Map<string, number>();
  const id = (s: string) => {
    let n = ids.get(s);
    if (n === undefined) {
      n = ids.size;
      ids.set(s, n);
    }
    return n;
  };
  const ia = a.map(id);
  const ib = b.map(id);

  let pre = 0;
  while (pre < ia.length && pre < ib.length && ia[pre] === ib[pre]) pre++;
  let suf = 0;
  while (suf < ia.length - pre && suf < ib.length - pre && ia[ia.length - 1 - suf] === ib[ib.length - 1 - suf]) suf++;

  const lines: DiffLine[] = [];
  for (let k = 0; k < pre; k++) lines.push(shown('same', a[k]!, k + 1, k + 1));

  // the middle: lcs[i][j] = length of a longest common subsequence of ma[i..] and mb[j..]
  const ma = ia.slice(pre, ia.length - suf);
  const mb = ib.slice(pre, ib.length - suf);
  const n = ma.length;
  const m = mb.length;
  const w = m + 1;
  const lcs = n && m ? (maxLines < 65_535 ? new Uint16Array((n + 1) * w) : new Uint32Array((n + 1) * w)) : undefined;
  if (lcs) {
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i * w + j] = ma[i] === mb[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
      }
    }
  }
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && ma[i] === mb[j]) {
      lines.push(shown('same', a[pre + i]!, pre + i + 1, pre + j + 1));
      i++;
      j++;
    } else if (i < n && (j >= m || !lcs || lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!)) {
      lines.push(shown('del', a[pre + i]!, pre + i + 1));
      i++;
    } else {
      lines.push(shown('add', b[pre + j]!, undefined, pre + j + 1));
      j++;
    }
  }

  for (let k = 0; k < suf; k++) {
    lines.push(shown('same', a[a.length - suf + k]!, a.length - suf + k + 1, b.length - suf + k + 1));
  }
  return {
    lines,
    equal: lines.every((l) => l.kind === 'same'),
    truncated: allA.length > maxLines || allB.length > maxLines,
    leftLines: allA.length,
    rightLines: allB.length,
    maxLines,
  };
}

/** A diff's lines with unchanged runs folded to `{skip: n}`, keeping `context` unchanged lines around each change. */
export function unified(d: LineDiff, context = 3): (DiffLine | { skip: number })[] {
  const keep = new Array<boolean>(d.lines.length).fill(false);
  d.lines.forEach((l, k) => {
    if (l.kind === 'same') return;
    for (let x = Math.max(0, k - context); x <= Math.min(d.lines.length - 1, k + context); x++) keep[x] = true;
  });
  const out: (DiffLine | { skip: number })[] = [];
  let skipped = 0;
  d.lines.forEach((l, k) => {
    if (keep[k]) {
      if (skipped) out.push({ skip: skipped });
      skipped = 0;
      out.push(l);
    } else skipped++;
  });
  if (skipped) out.push({ skip: skipped });
  return out;
}

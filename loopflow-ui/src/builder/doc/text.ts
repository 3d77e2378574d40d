// Text-level helpers for editing a YAML file in place: positions of lines and columns, splicing, and rendering a value
// in block or flow style. The builder never re-prints a whole file: an edit replaces only the characters of what it
// changes, so comments, blank lines, quoting and key order everywhere else stay exactly as the user wrote them.
import { stringify } from 'yaml';

export interface Splice {
  start: number;
  end: number;
  text: string;
}

/** Applies non-overlapping splices (any order); throws when two overlap, since the result would be ambiguous. */
export function applySplices(text: string, splices: Splice[]): string {
  const sorted = [...splices].sort((a, b) => b.start - a.start || b.end - a.end);
  let out = text;
  let limit = Infinity;
  for (const s of sorted) {
    if (s.end > limit) throw new Error('internal: overlapping edits');
    out = out.slice(0, s.start) + s.text + out.slice(s.end);
    limit = s.start;
  }
  return out;
}

export function lineStart(text: string, pos: number): number {
  return text.lastIndexOf('\n', Math.max(0, pos - 1)) + 1;
}

/** The index just past the end of pos's line, its newline included (the text's length on the last line). */
export function lineEndIncl(text: string, pos: number): number {
  const i = text.indexOf('\n', pos);
  return i < 0 ? text.length : i + 1;
}

/** The index of pos's line's newline (or the text's length). */
export function lineEndExcl(text: string, pos: number): number {
  const i = text.indexOf('\n', pos);
  if (i < 0) return text.length;
  return i > 0 && text[i - 1] === '\r' ? i - 1 : i;
}

export function columnOf(text: string, pos: number): number {
  return pos - lineStart(text, pos);
}

/** Whether only blanks (and list dashes, when allowed) stand between pos's line start and pos. */
export function onlyIndentBefore(text: string, pos: number, allowDash = false): boolean {
  const before = text.slice(lineStart(text, pos), pos);
  return allowDash ? /^[ \t-]*$/.test(before) : /^[ \t]*$/.test(before);
}

export function eolOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

const OPTS = { lineWidth: 0, minContentWidth: 0, indent: 2 } as const;

/** `key: value` in block style; lines after the first indented by `col`; no final newline. */
export function blockPair(key: string, value: unknown, col: number, eol: string): string {
  const s = stringify(new Map([[key, value]]), OPTS).replace(/\n$/, '');
  return indentRest(s, col, eol);
}

/** `- value` in block style, every line indented by `col` (the dash's column), with a final newline. */
export function blockItem(value: unknown, col: number, eol: string): string {
  const s = stringify([value], OPTS).replace(/\n$/, '');
  return s
    .split('\n')
    .map((l) => (l ? ' '.repeat(col) + l : l))
    .join(eol) + eol;
}

function indentRest(s: string, col: number, eol: string): string {
  return s
    .split('\n')
    .map((l, i) => (i === 0 || !l ? l : ' '.repeat(col) + l))
    .join(eol);
}

/** A value in flow style, on one line (strings that would need a block are written double-quoted, as JSON). */
export function flowValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : JSON.stringify(String(v));
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return flowString(v);
  if (Array.isArray(v)) return '[' + v.map(flowValue).join(', ') + ']';
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>);
    return '{' + entries.map(([k, x]) => `${flowString(k)}: ${flowValue(x)}`).join(', ') + '}';
  }
  return JSON.stringify(String(v));
}

function flowString(s: string): string {
  if (/[\n\r,[\]{}#]/.test(s) || s.includes(': ') || s.endsWith(':')) return JSON.stringify(s);
  const plain = stringify(s, OPTS).replace(/\n$/, '');
  return plain.includes('\n') ? JSON.stringify(s) : plain;
}

/** A scalar written on one line for a block context: plain when YAML allows it, else quoted. */
export function inlineScalar(v: unknown): string | undefined {
  if (v !== null && typeof v === 'object') return undefined;
  if (typeof v === 'string' && /[\n\r]/.test(v)) return undefined;
  const s = stringify(v, OPTS).replace(/\n$/, '');
  return s.includes('\n') ? undefined : s;
}

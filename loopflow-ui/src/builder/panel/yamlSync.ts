// The YAML pane's rules, apart from CodeMirror: how a new text from outside (a canvas edit) becomes one small change
// of the editor's document (so the cursor and the undo history stay where they were, wherever the change is not),
// and where the loader's line:col problems are in the text.
import type { Problem } from '../contract';

/** One replacement: the text from `from` to `to` of the old text becomes `insert`. */
export interface TextChange {
  from: number;
  to: number;
  insert: string;
}

/**
 * The smallest single replacement turning `oldText` into `newText`: their common start and end are kept (never
 * splitting a UTF-16 surrogate pair). Undefined when they are equal.
 */
export function minimalChange(oldText: string, newText: string): TextChange | undefined {
  if (oldText === newText) return undefined;
  const max = Math.min(oldText.length, newText.length);
  let start = 0;
  while (start < max && oldText.charCodeAt(start) === newText.charCodeAt(start)) start++;
  if (start > 0 && isHighSurrogate(oldText.charCodeAt(start - 1))) start--;
  let endOld = oldText.length;
  let endNew = newText.length;
  while (endOld > start && endNew > start && oldText.charCodeAt(endOld - 1) === newText.charCodeAt(endNew - 1)) {
    endOld--;
    endNew--;
  }
  if (endOld < oldText.length && isLowSurrogate(oldText.charCodeAt(endOld))) {
    endOld++;
    endNew++;
  }
  return { from: start, to: endOld, insert: newText.slice(start, endNew) };
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** A problem placed in the text: offsets of what to mark (at least one character where there is one). */
export interface TextMark {
  from: number;
  to: number;
  message: string;
}

/**
 * Where each problem is in `text`: its line (1-based; clamped into the text) and column (1-based, in characters;
 * clamped into the line), marking from there to the end of the word. A problem without a usable line marks the
 * first line. The message is the problem's, with its field path when it has one.
 */
export function problemMarks(text: string, problems: readonly Problem[]): TextMark[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  const marks: TextMark[] = [];
  for (const p of problems) {
    const line = Number.isFinite(p.line) ? Math.min(Math.max(1, Math.trunc(p.line)), starts.length) : 1;
    const lineStart = starts[line - 1] ?? 0;
    const lineEnd = line < starts.length ? (starts[line] ?? text.length) - 1 : text.length;
    const col = Number.isFinite(p.col) ? Math.max(1, Math.trunc(p.col)) : 1;
    const from = Math.min(lineStart + col - 1, lineEnd);
    let to = from;
    while (to < lineEnd && /[^\s:,{}[\]]/.test(text.charAt(to))) to++;
    if (to === from && to < lineEnd) to++;
    const message = p.path ? `${p.message} (${p.path})` : `${p.message ?? ''}`;
    marks.push({ from, to, message });
  }
  return marks;
}

// Forking a run from a pass: the fork point of a pass, and the edits a person writes turned into the request's `set`
// by the command line's rule (a value is JSON when it parses as JSON, else the text as written).
import { parsePath } from './paths';

/** A value as `loopflow fork --set PATH=VALUE` reads it: JSON when the text (trimmed) is JSON, else the text itself. */
export function editValue(text: string): unknown {
  const t = text.trim();
  if (t === '') return text;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return text;
  }
}

/** What editValue reads a text as, in words, to show beside the field. */
export function valueKind(text: string): string {
  const v = editValue(text);
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'JSON array';
  if (typeof v === 'object') return 'JSON object';
  return typeof v === 'string' ? 'text' : typeof v;
}

/**
 * The fork point (and the diff's pass) of pass `iteration` of the loop instance at `loopPath`: `refine:3`, or for a
 * nested loop the passes around it, outermost first: `outer[2].inner` → `outer:2/inner:3`.
 */
export function passPoint(loopPath: string, iteration: number): string {
  const segs = parsePath(loopPath);
  const parts = segs.filter((s, i) => i === segs.length - 1 || s.iteration !== undefined);
  return parts.map((s, i) => `${s.name}:${i === parts.length - 1 ? iteration : s.iteration}`).join('/');
}

export interface EditRow {
  /** `state`: state.KEY; `output`: NODE.output */
  target: 'state' | 'output';
  key: string;
  value: string;
}

const ID = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const STATE_KEY = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$/;

/**
 * The request's `set` from the rows (`state.KEY`, `NODE.output`) and the loop input, with the problems that stop it
 * being sent, in words. Rows with neither key nor value are left out.
 */
export function buildForkSet(rows: readonly EditRow[], loopInput: { enabled: boolean; value: string }): { set: Record<string, unknown>; problems: string[] } {
  const set: Record<string, unknown> = {};
  const problems: string[] = [];
  rows.forEach((r, i) => {
    const key = r.key.trim();
    if (!key && !r.value) return;
    if (!key) {
      problems.push(`row ${i + 1}: give a key`);
      return;
    }
    const path = r.target === 'state' ? `state.${key}` : `${key}.output`;
    if (r.target === 'state' && !STATE_KEY.test(key)) {
      problems.push(`${path}: a state key is letters, digits, _ and -, dotted for nested keys (state.draft.title)`);
      return;
    }
    if (r.target === 'output' && !ID.test(key)) {
      problems.push(`${path}: a node id is letters, digits, _ and -`);
      return;
    }
    if (Object.prototype.hasOwnProperty.call(set, path)) {
      problems.push(`${path} is set twice`);
      return;
    }
    set[path] = editValue(r.value);
  });
  if (loopInput.enabled) set['loop.input'] = editValue(loopInput.value);
  return { set, problems };
}

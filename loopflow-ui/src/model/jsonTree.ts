// What the JSON tree view shows of a value: its kind, a one-line summary for a folded node, and which children a page
// holds. Every bound lives here so the tree never draws more than a page of children per node, a clipped string per
// leaf and JSON_MAX_DEPTH levels (deeper values are shown as their JSON text, clipped).

export const JSON_PAGE = 100;
export const JSON_CLIP = 300;
export const JSON_MAX_DEPTH = 20;

export type JsonKind = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

export function jsonKind(v: unknown): JsonKind {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number' || typeof v === 'bigint') return 'number';
  if (typeof v === 'boolean') return 'boolean';
  return 'string';
}

/** The children of an object or array as [key, value], keys as text (array indexes as numbers written out). */
export function jsonChildren(v: unknown): [string, unknown][] {
  if (Array.isArray(v)) return v.map((x, i) => [String(i), x]);
  if (v && typeof v === 'object') return Object.entries(v as Record<string, unknown>);
  return [];
}

/** A folded object or array in a few words: `{3 keys}`, `[120 items]`. */
export function jsonSummary(v: unknown): string {
  if (Array.isArray(v)) return `[${v.length.toLocaleString('en-US')} ${v.length === 1 ? 'item' : 'items'}]`;
  if (v && typeof v === 'object') {
    const n = Object.keys(v).length;
    return `{${n.toLocaleString('en-US')} ${n === 1 ? 'key' : 'keys'}}`;
  }
  return leafText(v);
}

/** A leaf as written in JSON (a string quoted); missing values as `null`, the JSON word, never "undefined". */
export function leafText(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint') return v.toString();
  return String(v);
}

/** A string leaf's text cut to `limit` characters (the quotes kept), and whether it was cut. */
export function clipLeaf(v: string, limit = JSON_CLIP): { text: string; clipped: boolean } {
  if (v.length <= limit) return { text: JSON.stringify(v), clipped: false };
  return { text: JSON.stringify(v.slice(0, limit)).slice(0, -1) + '…"', clipped: true };
}

/** How many children the first `pages` pages show. */
export function shownCount(total: number, pages: number): number {
  return Math.min(total, Math.max(1, pages) * JSON_PAGE);
}

/** A value the tree can draw as a tree: an object or an array (a string holding JSON is parsed when asked). */
export function asTree(v: unknown): unknown {
  if (typeof v === 'string') {
    const t = v.trim();
    if ((t.startsWith('{') && t.endsWith('}')) || (t.startsWith('[') && t.endsWith(']'))) {
      try {
        return JSON.parse(t) as unknown;
      } catch {
        return undefined;
      }
    }
    return undefined;
  }
  return v && typeof v === 'object' ? v : undefined;
}

// Key and value completion for the YAML pane, from the workflow JSON Schema (GET /api/schema). Where the cursor is
// in the document is found by the `yaml` parser itself: the name being typed is replaced by a marker, the text is
// parsed (it may be half-written; the parser recovers), and the marker's path of keys and list positions is walked
// through the schema. The schema's node definition picks a kind with `if`/`then` on `type`, `uses` or a shorthand
// key; the few keywords those conditions use (required, properties/const, not, anyOf) are evaluated here against
// the node as written, so the keys offered are that kind's.
import { isMap, isPair, isScalar, isSeq, parseDocument, visit, type Document, type Node, type Pair } from 'yaml';

type Schema = Record<string, unknown>;

/** One completion: a key (`maxIterations`) or a value (`evaluator`), with the schema's description. */
export interface SchemaOption {
  label: string;
  kind: 'property' | 'value';
  detail?: string;
}

/** Where the options apply: they replace text from `from` to `to`. */
export interface SchemaCompletion {
  from: number;
  to: number;
  options: SchemaOption[];
}

const KEY_MARK = 'lfcompletekey0';
const VALUE_MARK = 'lfcompletevalue0';
/** Nested definitions are followed this deep at most (a schema may refer to itself). */
const MAX_DEPTH = 40;
/** Longer documents are not re-parsed for completion (each keystroke would parse them). */
const MAX_TEXT = 1_000_000;

function isObj(v: unknown): v is Schema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `s` with its `$ref` (to `#/$defs/...` of `root`) followed; `{}` when it leads nowhere. */
export function resolve(root: Schema, s: unknown, depth = 0): Schema {
  if (!isObj(s)) return {};
  const ref = s.$ref;
  if (typeof ref !== 'string' || depth > MAX_DEPTH) return s;
  const m = /^#\/\$defs\/(.+)$/.exec(ref);
  const defs = root.$defs;
  if (!m || !isObj(defs)) return {};
  const name = decodeURIComponent((m[1] ?? '').replace(/~1/g, '/').replace(/~0/g, '~'));
  return Object.prototype.hasOwnProperty.call(defs, name) ? resolve(root, defs[name], depth + 1) : {};
}

/** Whether `value` (the mapping as written) meets the condition `cond`, for the keywords node dispatch uses. */
function holds(root: Schema, cond: unknown, value: Record<string, unknown>, depth = 0): boolean {
  const c = resolve(root, cond, depth);
  if (depth > MAX_DEPTH) return false;
  const req = c.required;
  if (Array.isArray(req) && !req.every((k) => typeof k === 'string' && Object.prototype.hasOwnProperty.call(value, k))) return false;
  if (isObj(c.properties)) {
    for (const [k, ps] of Object.entries(c.properties)) {
      if (!Object.prototype.hasOwnProperty.call(value, k) || !isObj(ps)) continue;
      if ('const' in ps && value[k] !== ps.const) return false;
      if (Array.isArray(ps.enum) && !ps.enum.includes(value[k])) return false;
    }
  }
  if (c.not !== undefined && holds(root, c.not, value, depth + 1)) return false;
  if (Array.isArray(c.anyOf) && !c.anyOf.some((a) => holds(root, a, value, depth + 1))) return false;
  if (Array.isArray(c.allOf) && !c.allOf.every((a) => holds(root, a, value, depth + 1))) return false;
  return true;
}

/**
 * The object schemas that apply to a mapping: `s` itself, the `then` of each `if` the mapping meets (the first only:
 * the node definition's conditions are in precedence order), and the object alternatives of an `anyOf`/`oneOf`.
 */
function objectSchemas(root: Schema, s: unknown, value: Record<string, unknown>, depth = 0): Schema[] {
  const r = resolve(root, s, depth);
  if (depth > MAX_DEPTH) return [];
  const out: Schema[] = [r];
  if (Array.isArray(r.allOf)) {
    const branches = r.allOf.filter((b) => isObj(b) && 'if' in b && 'then' in b) as Schema[];
    const chosen = branches.find((b) => holds(root, b.if, value));
    if (chosen) out.push(...objectSchemas(root, chosen.then, value, depth + 1));
    for (const b of r.allOf) if (isObj(b) && !('if' in b) && isObj(b.properties)) out.push(...objectSchemas(root, b, value, depth + 1));
  }
  for (const alts of [r.anyOf, r.oneOf]) {
    if (!Array.isArray(alts)) continue;
    for (const a of alts) {
      const ra = resolve(root, a, depth + 1);
      if (isObj(ra.properties) || ra.type === 'object' || ra.allOf) out.push(...objectSchemas(root, ra, value, depth + 1));
    }
  }
  return out;
}

/** The schema of key `key` in a mapping described by `s` holding `value`; undefined when no schema names it. */
function propertySchema(root: Schema, s: unknown, value: Record<string, unknown>, key: string): Schema | undefined {
  for (const o of objectSchemas(root, s, value).reverse()) {
    const props = o.properties;
    if (isObj(props) && Object.prototype.hasOwnProperty.call(props, key)) return resolve(root, props[key]);
  }
  for (const o of objectSchemas(root, s, value)) {
    if (isObj(o.additionalProperties)) return resolve(root, o.additionalProperties);
  }
  return undefined;
}

/** The schema of a list's items. */
function itemSchema(root: Schema, s: unknown): Schema | undefined {
  const r = resolve(root, s);
  if (r.items !== undefined) return resolve(root, r.items);
  for (const alts of [r.anyOf, r.oneOf]) {
    if (!Array.isArray(alts)) continue;
    for (const a of alts) {
      const ra = resolve(root, a);
      if (ra.items !== undefined) return resolve(root, ra.items);
    }
  }
  return undefined;
}

/** The keys a mapping described by `s` may have, with their descriptions, the more specific schema's first. */
function keysOf(root: Schema, s: unknown, value: Record<string, unknown>): SchemaOption[] {
  const out = new Map<string, SchemaOption>();
  for (const o of objectSchemas(root, s, value).reverse()) {
    if (!isObj(o.properties)) continue;
    for (const [k, ps] of Object.entries(o.properties)) {
      if (out.has(k)) continue;
      const d = resolve(root, ps).description;
      out.set(k, { label: k, kind: 'property', detail: typeof d === 'string' ? d : undefined });
    }
  }
  return [...out.values()];
}

/** The values a scalar described by `s` may take: its enum or const, its alternatives', true/false for booleans. */
function valuesOf(root: Schema, s: unknown, depth = 0): string[] {
  const r = resolve(root, s, depth);
  if (depth > MAX_DEPTH) return [];
  const out: string[] = [];
  if (Array.isArray(r.enum)) for (const v of r.enum) if (['string', 'number', 'boolean'].includes(typeof v)) out.push(String(v));
  if (r.const !== undefined && ['string', 'number', 'boolean'].includes(typeof r.const)) out.push(String(r.const));
  if (r.type === 'boolean' || (Array.isArray(r.type) && r.type.includes('boolean'))) out.push('true', 'false');
  for (const alts of [r.anyOf, r.oneOf]) if (Array.isArray(alts)) for (const a of alts) out.push(...valuesOf(root, a, depth + 1));
  return [...new Set(out)];
}

type Step = { key: string; map: Record<string, unknown> } | { index: number };

/** The steps from the document's root to the marker, and the mapping holding it. */
function findMarker(doc: Document, mark: string, asKey: boolean): { steps: Step[]; holder: Record<string, unknown> } | undefined {
  let found: readonly (Document | Node | Pair)[] | undefined;
  visit(doc, {
    Scalar(key, node, path) {
      if (node.value === mark && (asKey ? key === 'key' : key === 'value')) {
        found = path;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  if (!found) return undefined;
  const steps: Step[] = [];
  for (let i = 0; i < found.length; i++) {
    const a = found[i];
    const next = found[i + 1];
    if (isPair(a) && isScalar(a.key) && (i + 1 < found.length || !asKey)) {
      const parent = found[i - 1];
      steps.push({ key: String(a.key.value), map: isMap(parent) ? mapValue(parent) : {} });
    } else if (isSeq(a) && next !== undefined) {
      steps.push({ index: a.items.indexOf(next as never) });
    }
  }
  const holderNode = found[found.length - 2];
  return { steps, holder: isMap(holderNode) ? mapValue(holderNode) : {} };
}

/** A mapping's scalar entries as plain values (the marker's own entry left out): what `if` conditions test. */
function mapValue(m: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isMap(m)) return out;
  for (const p of m.items) {
    if (!isScalar(p.key)) continue;
    const k = String(p.key.value);
    if (k === KEY_MARK) continue;
    out[k] = isScalar(p.value) ? p.value.value : p.value === null ? null : {};
  }
  return out;
}

/**
 * The completion at `pos`: keys when the cursor is where a key is written (an empty line, `- `, a partial key),
 * values when it is after `key: `; undefined elsewhere, when the schema says nothing there, or with no schema.
 */
export function schemaCompletion(text: string, pos: number, schema: object | null): SchemaCompletion | undefined {
  if (!isObj(schema) || text.length > MAX_TEXT) return undefined;
  const at = Math.max(0, Math.min(pos, text.length));
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  let lineEnd = text.indexOf('\n', at);
  if (lineEnd < 0) lineEnd = text.length;
  const before = text.slice(lineStart, at);
  const after = text.slice(at, lineEnd);
  if (/^\s*#/.test(before)) return undefined;

  const keyMatch = /^(\s*(?:-\s+)*)([A-Za-z_][A-Za-z0-9_.-]*)?$/.exec(before);
  if (keyMatch && !/^\s*[A-Za-z0-9_.-]*\s*:/.test(after) && after.trim() === '') {
    const typed = keyMatch[2] ?? '';
    const from = at - typed.length;
    const patched = text.slice(0, from) + `${KEY_MARK}: ~` + text.slice(lineEnd);
    const where = locate(patched, KEY_MARK, true);
    if (!where) return undefined;
    const s = schemaAt(schema, where.steps);
    if (!s) return undefined;
    const present = new Set(Object.keys(where.holder));
    const options = keysOf(schema, s, where.holder).filter((o) => !present.has(o.label));
    return options.length ? { from, to: at, options } : undefined;
  }

  const valueMatch = /^(\s*(?:-\s+)*)([A-Za-z_][A-Za-z0-9_.-]*):[ \t]+(["']?)([^"'#{}[\],]*)$/.exec(before);
  if (valueMatch) {
    const typed = valueMatch[4] ?? '';
    const quote = valueMatch[3] ?? '';
    const from = at - typed.length - quote.length;
    const patched = text.slice(0, from) + VALUE_MARK + text.slice(lineEnd);
    const where = locate(patched, VALUE_MARK, false);
    if (!where) return undefined;
    const s = schemaAt(schema, where.steps);
    if (!s) return undefined;
    const options = valuesOf(schema, s).map((v): SchemaOption => ({ label: v, kind: 'value' }));
    return options.length ? { from, to: at + (after.trim() === '' ? after.length : 0), options } : undefined;
  }
  return undefined;
}

function locate(patched: string, mark: string, asKey: boolean) {
  let doc: Document;
  try {
    doc = parseDocument(patched, { uniqueKeys: false, strict: false });
  } catch {
    return undefined;
  }
  return findMarker(doc, mark, asKey);
}

/** The schema at a path of keys and list positions from the root; undefined when the schema does not reach it. */
function schemaAt(root: Schema, steps: Step[]): Schema | undefined {
  let s: Schema | undefined = root;
  for (const step of steps) {
    if (!s) return undefined;
    if ('index' in step) s = itemSchema(root, s);
    else s = propertySchema(root, s, step.map, step.key);
  }
  return s;
}

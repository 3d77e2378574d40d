// The config panel's rules, apart from React: which control edits a field (from the field's description in the
// node-kinds catalog, never from a list of field names), how a value written in the file is shown in it, and how
// what the person typed becomes the value written back — or an error in words, in which case nothing is sent.
import YAML from 'yaml';
import type { FieldDescription, NodeKindCatalog, NodeKindDescription } from '../contract';

/** The control that edits a field. */
export type ControlKind =
  | 'text' // one line of text (STRING)
  | 'template' // multi-line text with {{ }} completion (TEMPLATE, CONDITION given as text)
  | 'number' // INTEGER, NUMBER: a number input with the field's bounds
  | 'checkbox' // BOOLEAN
  | 'select' // CHOICE
  | 'duration' // DURATION: text checked against the duration format
  | 'nodeId' // NODE_ID: a select of the node ids
  | 'nodeIds' // NODE_IDS: a set of the node ids
  | 'section' // SECTION: a nested fieldset of its fields
  | 'code' // LIST, MAP, JSON_SCHEMA, ANY, ONE_OF, and any value the plain control cannot show: YAML text
  | 'nodes'; // NODES: a nested body, edited on the canvas

/** The kind a `type:` value stands for (`bash` is `shell`); the value itself when it is no alias. */
export function resolveKind(catalog: NodeKindCatalog | null, type: string): string {
  const aliases = catalog?.typeAliases;
  return aliases && Object.prototype.hasOwnProperty.call(aliases, type) ? (aliases[type] ?? type) : type;
}

/** The catalog's description of `kind` (aliases resolved); undefined when the server does not know it. */
export function kindDescription(catalog: NodeKindCatalog | null, kind: string): NodeKindDescription | undefined {
  const k = resolveKind(catalog, kind);
  return catalog?.kinds.find((d) => d.kind === k);
}

/**
 * The fields a node of `kind` shows, in two groups: its own, and the common ones ("General") less those its own
 * fields replace (a loop_group's `output`, a router's `model`) — the same rule the loader and the schema apply.
 */
export function fieldsOf(catalog: NodeKindCatalog | null, kind: string): { own: FieldDescription[]; common: FieldDescription[] } {
  const d = kindDescription(catalog, kind);
  const own = d?.fields ?? [];
  const ownNames = new Set(own.flatMap((f) => [f.name, ...f.aliases]));
  const takes = d?.common ? new Set(d.common) : undefined;
  const common = (catalog?.common ?? []).filter((f) => ![f.name, ...f.aliases].some((n) => ownNames.has(n)) && (!takes || takes.has(f.name)));
  return { own, common };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The control for `field` holding `value` (undefined: not set). A value the field's plain control cannot show
 * without changing it — a template `{{ }}` in a number field, a structured condition, a number out of a choice —
 * gets the YAML text editor, so it is kept exactly as written.
 */
export function controlFor(field: FieldDescription, value?: unknown): ControlKind {
  const fits = (c: ControlKind): ControlKind => (value === undefined || value === null || valueFits(c, field, value) ? c : 'code');
  switch (field.type) {
    case 'STRING':
      return fits('text');
    case 'TEMPLATE':
    case 'CONDITION':
      return fits('template');
    case 'INTEGER':
    case 'NUMBER':
      return fits('number');
    case 'BOOLEAN':
      return fits('checkbox');
    case 'CHOICE':
      return fits('select');
    case 'DURATION':
      return fits('duration');
    case 'NODE_ID':
      return fits('nodeId');
    case 'NODE_IDS':
      return fits('nodeIds');
    case 'SECTION':
      return fits('section');
    case 'NODES':
      return 'nodes';
    case 'ONE_OF': {
      // A field that may be text or a structure (a transform's template, a shell command) is edited as text while
      // it is text: in a YAML editor `{{ x }}` would read as a mapping and be saved as one.
      const text = field.alternatives.find((a) => a.type === 'TEMPLATE' || a.type === 'STRING');
      if (text && (value === undefined || value === null || typeof value === 'string' || typeof value === 'number')) {
        return text.type === 'TEMPLATE' ? 'template' : 'text';
      }
      return 'code';
    }
    default:
      return 'code';
  }
}

function valueFits(c: ControlKind, field: FieldDescription, v: unknown): boolean {
  switch (c) {
    case 'text':
      return typeof v === 'string' || typeof v === 'number';
    case 'template':
      return typeof v === 'string' || typeof v === 'number' || (field.type === 'CONDITION' && typeof v === 'boolean');
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'checkbox':
      return typeof v === 'boolean';
    case 'select':
      return typeof v === 'string' && field.values.includes(v);
    case 'duration':
      return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
    case 'nodeId':
      return typeof v === 'string';
    case 'nodeIds':
      return typeof v === 'string' || (Array.isArray(v) && v.every((x) => typeof x === 'string'));
    case 'section':
      return isPlainObject(v);
    default:
      return true;
  }
}

/** The name the file uses for `field` among `values`' keys (an alias when written so), else the field's name. */
export function presentName(field: FieldDescription, values: Record<string, unknown> | undefined): string {
  if (values) {
    for (const n of [field.name, ...field.aliases]) {
      if (Object.prototype.hasOwnProperty.call(values, n)) return n;
    }
  }
  return field.name;
}

/** The value of `field` in `values`, under whichever of its names the file uses. */
export function fieldValue(field: FieldDescription, values: Record<string, unknown> | undefined): unknown {
  if (!values) return undefined;
  const n = presentName(field, values);
  return Object.prototype.hasOwnProperty.call(values, n) ? values[n] : undefined;
}

/** A value as YAML text for the text editor of a structured value; empty for an unset one. */
export function yamlText(value: unknown): string {
  if (value === undefined) return '';
  const s = YAML.stringify(value, { lineWidth: 0 });
  return s.endsWith('\n') ? s.slice(0, -1) : s;
}

/** A value as a one-line or multi-line control shows it: text, never "null" or "undefined". */
export function displayText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return yamlText(value);
}

/** What an edit gives: the value to write (undefined: remove the key), or why it cannot be written. */
export type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

const ok = (value: unknown): Parsed => ({ ok: true, value });
const fail = (error: string): Parsed => ({ ok: false, error });

/** The least and greatest value of a number field, as the form says them. */
export function rangeText(field: FieldDescription): string {
  const lo = field.minimum;
  // A bound at the integer limit is the store's, not a setting's: not worth saying (it is still checked).
  const hi = field.maximum !== null && field.maximum >= 2147483647 ? null : field.maximum;
  if (lo !== null && hi !== null) return `${lo} to ${hi}`;
  if (lo !== null) return `at least ${lo}`;
  if (hi !== null) return `at most ${hi}`;
  return '';
}

/** A number typed into a number field; empty is unset. Out of range or not whole (INTEGER) is an error. */
export function parseNumber(field: FieldDescription, raw: string): Parsed {
  const t = raw.trim();
  if (t === '') return ok(undefined);
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(t)) return fail(`'${field.name}' must be a number, not “${clip(t)}”.`);
  const n = Number(t);
  if (!Number.isFinite(n)) return fail(`'${field.name}' must be a finite number.`);
  if (field.type === 'INTEGER' && !Number.isInteger(n)) return fail(`'${field.name}' must be a whole number, not ${clip(t)}.`);
  if ((field.minimum !== null && n < field.minimum) || (field.maximum !== null && n > field.maximum)) {
    return fail(`'${field.name}' must be ${rangeText(field)}, not ${clip(t)}.`);
  }
  return ok(n);
}

/** The durations the loader reads, when the catalog does not say: a number of seconds or amounts with units. */
const DEFAULT_DURATION = /^ *([0-9]+(\.[0-9]+)?|([0-9]+(\.[0-9]+)? *(ms|s|m|h|d) *)+) *$/i;

function durationRegex(catalog: NodeKindCatalog | null): RegExp {
  const p = catalog?.durationPattern;
  if (p) {
    try {
      return new RegExp(p);
    } catch {
      // a pattern this browser cannot read: the default says the same
    }
  }
  return DEFAULT_DURATION;
}

/** A duration: `30s`, `1h30m`, `500ms`; a bare number is seconds (written as a number). Must be positive. */
export function parseDuration(field: FieldDescription, raw: string, catalog: NodeKindCatalog | null): Parsed {
  const t = raw.trim();
  if (t === '') return ok(undefined);
  if (/^[0-9]+(\.[0-9]+)?$/.test(t)) {
    const n = Number(t);
    return n > 0 ? ok(n) : fail(`'${field.name}' must be a positive duration, not ${clip(t)}.`);
  }
  if (!durationRegex(catalog).test(t)) {
    return fail(`'${field.name}' must be a duration such as 30s, 5m, 1h30m or 500ms, not “${clip(t)}”.`);
  }
  if (!/[1-9]/.test(t)) return fail(`'${field.name}' must be a positive duration, not ${clip(t)}.`);
  return ok(t);
}

/** A node id typed in the id field (the node's rename): the loader's format, not reserved, not taken. */
export function checkNodeId(raw: string, catalog: NodeKindCatalog | null, taken: string[] = []): string | undefined {
  const id = raw;
  if (id === '') return 'A node needs an id.';
  let pattern = /^[A-Za-z_][A-Za-z0-9_-]*$/;
  if (catalog?.idPattern) {
    try {
      pattern = new RegExp(catalog.idPattern);
    } catch {
      // keep the default, which is the loader's
    }
  }
  if (!pattern.test(id)) return `“${clip(id)}” is not a node id: start with a letter or '_', then letters, digits, '_' and '-'.`;
  if ((catalog?.reservedIds ?? []).includes(id)) return `“${id}” is reserved and cannot be a node id.`;
  if (taken.includes(id)) return `Another node is already called “${id}”.`;
  return undefined;
}

/** YAML (or JSON) text of a structured value; empty is unset; text that does not parse is refused, in words. */
export function parseCode(field: FieldDescription, raw: string): Parsed {
  if (raw.trim() === '') return ok(undefined);
  // Text that starts like a template is the template, not a YAML flow mapping, where the field takes text.
  if (/^\s*\{[{%#]/.test(raw) && field.type === 'ONE_OF' && field.alternatives.some((a) => a.type === 'TEMPLATE' || a.type === 'STRING')) {
    return ok(raw);
  }
  let doc: YAML.Document.Parsed;
  try {
    doc = YAML.parseDocument(raw, { uniqueKeys: true });
  } catch (e) {
    return fail(`'${field.name}' is not valid YAML: ${firstLine(e)}`);
  }
  if (doc.errors.length > 0) return fail(`'${field.name}' is not valid YAML: ${firstLine(doc.errors[0])}`);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    return fail(`'${field.name}' is not valid YAML: ${firstLine(e)}`);
  }
  if (value === null || value === undefined) return ok(undefined);
  const wrong = shapeError(field, value);
  return wrong ? fail(wrong) : ok(value);
}

/** Whether a parsed value has the shape the field's type needs (the loader checks the rest when the file loads). */
function shapeError(field: FieldDescription, v: unknown): string | undefined {
  switch (field.type) {
    case 'LIST':
      return Array.isArray(v) ? undefined : `'${field.name}' must be a list.`;
    case 'MAP':
    case 'SECTION':
      return isPlainObject(v) ? undefined : `'${field.name}' must be a mapping (key: value lines).`;
    case 'JSON_SCHEMA':
      return isPlainObject(v) || typeof v === 'boolean' || typeof v === 'string' ? undefined : `'${field.name}' must be a JSON Schema: a mapping.`;
    case 'ONE_OF':
      return field.alternatives.length === 0 || field.alternatives.some((a) => !shapeError(a, v) && fitsScalar(a, v))
        ? undefined
        : `'${field.name}' must be ${field.alternatives.map(typeWords).join(' or ')}.`;
    default:
      return undefined;
  }
}

function fitsScalar(f: FieldDescription, v: unknown): boolean {
  switch (f.type) {
    case 'INTEGER':
      return typeof v === 'number' && Number.isInteger(v) && (f.minimum === null || v >= f.minimum) && (f.maximum === null || v <= f.maximum);
    case 'NUMBER':
      return typeof v === 'number';
    case 'BOOLEAN':
      return typeof v === 'boolean';
    case 'STRING':
    case 'TEMPLATE':
      return typeof v === 'string' || typeof v === 'number';
    case 'CHOICE':
      return typeof v === 'string' && f.values.includes(v);
    default:
      return true;
  }
}

function typeWords(f: FieldDescription): string {
  switch (f.type) {
    case 'INTEGER':
      return `a whole number${f.minimum !== null || f.maximum !== null ? ` (${rangeText(f)})` : ''}`;
    case 'NUMBER':
      return 'a number';
    case 'BOOLEAN':
      return 'true or false';
    case 'SECTION':
      return `a mapping of ${f.fields.map((x) => x.name).join(', ')}`;
    case 'LIST':
      return 'a list';
    case 'MAP':
      return 'a mapping';
    default:
      return 'text';
  }
}

/**
 * What an edit of `field` gives. `raw` is what the control holds (a checkbox's boolean, a select's value, text
 * otherwise); `previous` is the value in the file, kept when the edit does not change what it means.
 */
export function parseInput(field: FieldDescription, control: ControlKind, raw: string | boolean | string[], catalog: NodeKindCatalog | null, previous?: unknown): Parsed {
  switch (control) {
    case 'checkbox':
      return ok(raw === true ? true : raw === false ? false : undefined);
    case 'number':
      return parseNumber(field, String(raw));
    case 'duration':
      return parseDuration(field, String(raw), catalog);
    case 'select':
    case 'nodeId': {
      const s = String(raw);
      if (s === '') return ok(undefined);
      if (control === 'select' && !field.values.includes(s)) return fail(`'${field.name}' must be one of ${field.values.join(', ')}.`);
      return ok(s);
    }
    case 'nodeIds': {
      const ids = Array.isArray(raw) ? raw.filter((x) => x !== '') : String(raw) === '' ? [] : [String(raw)];
      if (ids.length === 0) return ok(undefined);
      // One id stays as written when the file wrote one (depends_on: a), a list otherwise.
      return ok(ids.length === 1 && typeof previous === 'string' ? ids[0] : ids);
    }
    case 'text':
    case 'template': {
      const s = String(raw);
      if (s === '') return ok(undefined);
      if (typeof previous === 'number' && String(previous) === s) return ok(previous);
      if (typeof previous === 'boolean' && String(previous) === s) return ok(previous);
      return ok(s);
    }
    case 'section':
    case 'code':
      return parseCode(field, String(raw));
    case 'nodes':
      return ok(previous);
  }
}

/**
 * A section's value with one of its fields set or removed (undefined); undefined when nothing is left, so an
 * emptied section is removed rather than written as `{}`.
 */
export function withSubfield(section: unknown, key: string, value: unknown): Record<string, unknown> | undefined {
  const base: Record<string, unknown> = isPlainObject(section) ? { ...section } : {};
  if (value === undefined) delete base[key];
  else base[key] = value;
  return Object.keys(base).length === 0 ? undefined : base;
}

/** The node's groups of which one field must be set and none is, as the form says them. */
export function missingGroups(kind: NodeKindDescription | undefined, values: Record<string, unknown>): string[] {
  if (!kind) return [];
  return kind.oneRequired
    .filter((group) => !group.some((n) => Object.prototype.hasOwnProperty.call(values, n)))
    .map((group) => `Set one of ${group.join(', ')}.`);
}

/** The node's groups of which more than one field is set. */
export function conflictingGroups(kind: NodeKindDescription | undefined, values: Record<string, unknown>): string[] {
  if (!kind) return [];
  return kind.atMostOne
    .filter((group) => group.filter((n) => Object.prototype.hasOwnProperty.call(values, n)).length > 1)
    .map((group) => `Set at most one of ${group.join(', ')}.`);
}

function clip(s: string): string {
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}

function firstLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  const line = m.split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/**
 * Where a node's kind fields are written. A node may hold them in one mapping instead of on itself: `with:` under
 * `uses:`, a mapping `input:` under `type:` (`type: claude.agent` + `input: {prompt: ...}`), or the `loop_group:`
 * shorthand's mapping. The panel reads a field from there when it is there, and writes it back there, so the file
 * keeps its form.
 */
export function holderKey(values: Record<string, unknown>, kind: NodeKindDescription | undefined): string | undefined {
  if (values.uses !== undefined && isPlainObject(values.with)) return 'with';
  if (isPlainObject(values.loop_group)) return 'loop_group';
  const inputIsField = kind?.fields.some((f) => f.type !== 'SECTION' && [f.name, ...f.aliases].includes('input'));
  if (values.type !== undefined && isPlainObject(values.input) && !inputIsField) return 'input';
  return undefined;
}

/** The name under which `field` is written and whether it sits in the holder. */
function location(field: FieldDescription, values: Record<string, unknown>, holder: string | undefined) {
  const inner = holder ? (values[holder] as Record<string, unknown>) : undefined;
  if (inner) {
    for (const n of [field.name, ...field.aliases]) if (Object.prototype.hasOwnProperty.call(inner, n)) return { name: n, inHolder: true };
  }
  for (const n of [field.name, ...field.aliases]) if (Object.prototype.hasOwnProperty.call(values, n)) return { name: n, inHolder: false };
  return undefined;
}

/** A field's value on the node, wherever it is written (on the node, or in its holder). */
export function nodeFieldValue(field: FieldDescription, values: Record<string, unknown>, holder: string | undefined): unknown {
  const at = location(field, values, holder);
  if (!at) return undefined;
  return at.inHolder && holder ? (values[holder] as Record<string, unknown>)[at.name] : values[at.name];
}

/** The name the file uses for the field (the alias it is written under), for its label. */
export function nodeFieldName(field: FieldDescription, values: Record<string, unknown>, holder: string | undefined): string {
  return location(field, values, holder)?.name ?? field.name;
}

/**
 * The top-level key and value to report for an edit of `field` to `value` (undefined: remove): the field itself
 * when it is written on the node (under the name it is written with), the holder with the field changed inside
 * when it is written there, and, for a field not written yet, the holder for the kind's own fields (`own`) when the
 * node has one, the node otherwise. An emptied holder is kept (`loop_group: {}` still says the kind).
 */
export function nodeFieldEdit(field: FieldDescription, value: unknown, values: Record<string, unknown>, holder: string | undefined, own: boolean): { key: string; value: unknown } {
  const at = location(field, values, holder);
  const intoHolder = holder !== undefined && (at ? at.inHolder : own);
  if (!intoHolder || !holder) return { key: at?.name ?? field.name, value };
  const inner = { ...(values[holder] as Record<string, unknown>) };
  const name = at?.name ?? field.name;
  if (value === undefined) delete inner[name];
  else inner[name] = value;
  return { key: holder, value: inner };
}

/** The common fields the General group does not show: how the kind is written, and the id (its own control). */
export const NOT_IN_GENERAL = new Set(['id', 'type', 'uses', 'with']);

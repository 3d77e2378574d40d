// The form a paused human step asks a person to fill, read from its schema (`waiting.schema`: an approval's `schema`,
// an interactive loop gate's `gate_schema`). The engine decides at load what a form may hold and checks every answer
// again before it resumes the run; this only draws the form and checks a draft as a courtesy, so the person hears
// about an empty required field before a round trip. The schema is data from a workflow file and is read
// defensively: only the top level's properties and each field's scalar keywords are looked at (nothing recursive),
// and counts and text lengths are capped, so a hostile schema draws as a bounded form of plain text.

/** The most fields drawn (the engine refuses more at load). */
export const MAX_FIELDS = 100;
/** The most choices an enum field offers (the engine refuses more at load). */
export const MAX_CHOICES = 200;
/** The longest label and description drawn. */
export const MAX_LABEL = 200;
export const MAX_DESCRIPTION = 2000;

export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum';

export interface FormChoice {
  /** what the option shows */
  text: string;
  value: string | number | boolean;
}

export interface FormField {
  name: string;
  /** the title, else the name */
  label: string;
  description: string;
  kind: FieldKind;
  required: boolean;
  choices: FormChoice[];
  /** the field's default, when it fits the field */
  initial: string | number | boolean | undefined;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
}

export interface AnswerForm {
  title: string;
  description: string;
  fields: FormField[];
  /** fields left out: beyond MAX_FIELDS, or of a kind a form does not draw */
  omitted: number;
}

/** What the person has typed: text for text and number inputs, the chosen option's index for an enum ('' none). */
export type Draft = Record<string, string | boolean>;

function record(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** One line of plain text at most `max` characters; anything not text is empty. */
function text(v: unknown, max: number): string {
  if (typeof v !== 'string') return '';
  const t = v.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ');
  return t.length > max ? t.slice(0, max) + '…' : t;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

const own = (o: Record<string, unknown>, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** The form a schema describes; undefined when there is none (no schema, or nothing a form can draw). */
export function answerForm(schema: unknown): AnswerForm | undefined {
  const top = record(schema);
  const props = top && record(top.properties);
  if (!top || !props) return undefined;
  const required = new Set(Array.isArray(top.required) ? top.required.filter((r): r is string => typeof r === 'string').slice(0, 1000) : []);
  const fields: FormField[] = [];
  let omitted = 0;
  let seen = 0;
  for (const name in props) {
    if (!own(props, name)) continue;
    seen++;
    if (fields.length >= MAX_FIELDS) {
      omitted++;
      continue;
    }
    const f = field(name, props[name], required.has(name));
    if (f) fields.push(f);
    else omitted++;
    if (seen > 100_000) break;
  }
  if (fields.length === 0) return undefined;
  return { title: text(top.title, MAX_LABEL), description: text(top.description, MAX_DESCRIPTION), fields, omitted };
}

function field(name: string, spec: unknown, required: boolean): FormField | undefined {
  const s = record(spec);
  if (!s) return undefined;
  let kind: FieldKind;
  const choices: FormChoice[] = [];
  if (Array.isArray(s.enum)) {
    kind = 'enum';
    for (const c of s.enum.slice(0, MAX_CHOICES)) {
      if (typeof c === 'string' || typeof c === 'boolean' || (typeof c === 'number' && Number.isFinite(c))) {
        choices.push({ text: text(String(c), MAX_LABEL), value: c });
      }
    }
    if (choices.length === 0) return undefined;
  } else if (s.type === 'string' || s.type === 'number' || s.type === 'integer' || s.type === 'boolean') {
    kind = s.type;
  } else {
    return undefined;
  }
  const f: FormField = {
    name: text(name, MAX_LABEL),
    label: text(s.title, MAX_LABEL) || text(name, MAX_LABEL),
    description: text(s.description, MAX_DESCRIPTION),
    kind,
    required,
    choices,
    initial: undefined,
    minLength: num(s.minLength),
    maxLength: num(s.maxLength),
    minimum: num(s.minimum),
    maximum: num(s.maximum),
  };
  f.name = name; // the key sent back is the schema's own, never the shortened text
  const d = s.default;
  if (kind === 'enum') {
    if (choices.some((c) => c.value === d)) f.initial = d as string | number | boolean;
  } else if (kind === 'boolean') {
    if (typeof d === 'boolean') f.initial = d;
  } else if (kind === 'string') {
    if (typeof d === 'string') f.initial = d;
  } else if (num(d) !== undefined && (kind === 'number' || Number.isInteger(d))) {
    f.initial = d as number;
  }
  return f;
}

/** The draft the form starts with: each field's default, else empty (a boolean unchecked). */
export function initialDraft(form: AnswerForm): Draft {
  const d: Draft = Object.create(null) as Draft; // a field may be called __proto__
  for (const f of form.fields) {
    if (f.kind === 'boolean') d[f.name] = f.initial === true;
    else if (f.kind === 'enum') d[f.name] = f.initial === undefined ? '' : String(f.choices.findIndex((c) => c.value === f.initial));
    else d[f.name] = f.initial === undefined ? '' : String(f.initial);
  }
  return d;
}

export interface Checked {
  /** the values to send: fields left empty and not required are left out */
  values: Record<string, unknown>;
  /** a problem per field name, in words; empty when the draft can be sent */
  problems: Record<string, string>;
}

/** The draft read as the form's values, with what is wrong with it (the server checks again and decides). */
export function checkDraft(form: AnswerForm, draft: Draft): Checked {
  const values = Object.create(null) as Record<string, unknown>; // a field may be called __proto__
  const problems = Object.create(null) as Record<string, string>;
  for (const f of form.fields) {
    const raw = own(draft, f.name) ? draft[f.name] : undefined;
    if (f.kind === 'boolean') {
      values[f.name] = raw === true;
      continue;
    }
    const s = typeof raw === 'string' ? raw : '';
    if (s === '' || (f.kind !== 'string' && s.trim() === '')) {
      if (f.required) problems[f.name] = 'Required.';
      continue;
    }
    if (f.kind === 'enum') {
      const c = f.choices[Number(s)];
      if (c) values[f.name] = c.value;
      else problems[f.name] = 'Choose one of the options.';
      continue;
    }
    if (f.kind === 'string') {
      if (f.minLength !== undefined && s.length < f.minLength) problems[f.name] = `At least ${f.minLength} characters.`;
      else if (f.maxLength !== undefined && s.length > f.maxLength) problems[f.name] = `At most ${f.maxLength} characters.`;
      else values[f.name] = s;
      continue;
    }
    const n = Number(s.trim());
    if (!Number.isFinite(n)) problems[f.name] = 'Enter a number.';
    else if (f.kind === 'integer' && !Number.isInteger(n)) problems[f.name] = 'Enter a whole number.';
    else if (f.minimum !== undefined && n < f.minimum) problems[f.name] = `At least ${f.minimum}.`;
    else if (f.maximum !== undefined && n > f.maximum) problems[f.name] = `At most ${f.maximum}.`;
    else values[f.name] = n;
  }
  return { values, problems };
}

// The node-kinds catalog and the workflow JSON Schema as the server answers them, from their checked-in copies (a
// server test keeps the catalog's copy current; another keeps the schema's), for the panel's tests.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FieldDescription, NodeKindCatalog } from '../contract';

export function catalog(): NodeKindCatalog {
  return JSON.parse(readFileSync(fileURLToPath(new URL('../../../test-fixtures/node-kinds.json', import.meta.url)), 'utf8')) as NodeKindCatalog;
}

export function schema(): Record<string, unknown> {
  return JSON.parse(readFileSync(fileURLToPath(new URL('../../../../docs/schema/loopflow-workflow.schema.json', import.meta.url)), 'utf8')) as Record<string, unknown>;
}

/** The field `name` of `kind` (its own fields, then the common ones). */
export function field(c: NodeKindCatalog, kind: string, name: string): FieldDescription {
  const k = c.kinds.find((d) => d.kind === kind);
  const f = k?.fields.find((x) => x.name === name) ?? c.common.find((x) => x.name === name);
  if (!f) throw new Error(`no field ${kind}.${name}`);
  return f;
}

/** Every field of the catalog, nested ones included, with where it is. */
export function allFields(c: NodeKindCatalog): [string, FieldDescription][] {
  const out: [string, FieldDescription][] = [];
  const walk = (where: string, f: FieldDescription) => {
    out.push([where, f]);
    f.fields.forEach((s) => walk(`${where}.${s.name}`, s));
    if (f.items) walk(`${where}[]`, f.items);
    f.alternatives.forEach((a, i) => walk(`${where}|${i}`, a));
  };
  c.common.forEach((f) => walk(`common.${f.name}`, f));
  c.kinds.forEach((k) => k.fields.forEach((f) => walk(`${k.kind}.${f.name}`, f)));
  return out;
}

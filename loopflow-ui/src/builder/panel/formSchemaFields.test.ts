import { describe, expect, it } from 'vitest';
import { controlFor, parseCode } from './fields';
import { catalog, field } from './testCatalog';

// The form a paused step asks for is a field of the approval and loop_group kinds in the server's catalog, so the
// config panel edits it as structured code (YAML or JSON), like the validator's schema.
describe('form schema fields', () => {
  const c = catalog();

  it.each([
    ['approval', 'schema'],
    ['loop_group', 'gate_schema'],
  ])('%s.%s is a JSON Schema field edited as code', (kind, name) => {
    const f = field(c, kind, name);
    expect(f.type).toBe('JSON_SCHEMA');
    expect(f.description).toMatch(/form/);
    expect(controlFor(f)).toBe('code');
    expect(parseCode(f, 'type: object\nproperties:\n  version: {type: string}\nrequired: [version]')).toEqual({
      ok: true,
      value: { type: 'object', properties: { version: { type: 'string' } }, required: ['version'] },
    });
  });
});

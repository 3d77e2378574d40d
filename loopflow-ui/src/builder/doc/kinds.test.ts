import { describe, expect, it } from 'vitest';
import { PALETTE, PALETTE_GROUPS, kindOf, paletteFor } from './kinds';
import { project } from './project';
import { WorkflowDoc } from './workflowDoc';

describe('node kinds', () => {
  it('puts Loop and Exit under LOGIC, in the palette’s order', () => {
    const logic = PALETTE.filter((p) => p.group === 'LOGIC').map((p) => p.label);
    expect(logic).toEqual(['Approval', 'Transform', 'Validator', 'Iterator', 'Aggregator', 'Loop', 'Exit', 'Router', 'While loop', 'Loop group', 'Cancel']);
    expect(PALETTE.filter((p) => p.group === 'AI').map((p) => p.label)).toEqual(['LLM', 'Agent']);
    expect(PALETTE.filter((p) => p.group === 'ACTIONS').map((p) => p.label)).toEqual(['Shell', 'Script', 'HTTP']);
    expect(PALETTE.filter((p) => p.group === 'I/O').map((p) => p.label)).toEqual(['Input', 'Output']);
    expect(PALETTE_GROUPS).toEqual(['LOGIC', 'AI', 'ACTIONS', 'I/O', 'OTHER']);
  });

  it('offers the server’s other kinds under OTHER, and nothing that is not a kind name', () => {
    const p = paletteFor(['llm', 'loop', 'github.issue', 'x"><img', '__proto__']);
    expect(p.filter((e) => e.group === 'OTHER').map((e) => e.kind)).toEqual(['github.issue', '__proto__']);
    expect(paletteFor(null)).toEqual(PALETTE);
  });

  it('reads a kind from type (with its aliases), uses, or a shorthand key, in the loader’s order', () => {
    const k = (o: Record<string, unknown>) => kindOf(new Map(Object.entries(o)));
    expect(k({ type: 'bash' })).toBe('shell');
    expect(k({ type: 'claude.agent' })).toBe('llm');
    expect(k({ uses: 'llm.call' })).toBe('llm');
    expect(k({ prompt: 'x', bash: 'y' })).toBe('llm');
    expect(k({ command: 'x', run: 'y' })).toBe('script');
    expect(k({ loop_group: {} })).toBe('loop_group');
    expect(k({ id: 'x' })).toBeUndefined();
  });

  it('draws an empty while_loop or loop_group body as a box to drop nodes into', () => {
    let doc = WorkflowDoc.empty();
    for (const e of PALETTE.filter((p) => p.kind === 'while_loop' || p.kind === 'loop_group')) {
      const r = doc.addNode(e.starter, e.idBase);
      if (!r.ok) throw new Error(r.error);
      doc = r.doc;
    }
    const g = project(doc);
    expect([...g.bodies.keys()]).toEqual(['[while]', '[group]']);
    expect(g.containers.map((c) => c.key)).toEqual(['[while]', '[group]']);
  });
});

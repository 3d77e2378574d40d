import { describe, expect, it } from 'vitest';
import { WorkflowDoc, type Edit } from './workflowDoc';

function ok(e: Edit): WorkflowDoc {
  if (!e.ok) throw new Error(e.error);
  return e.doc;
}

describe('addNode at a place in the list', () => {
  it('inserts before the node at the index, above its comment, and keeps the rest byte for byte', () => {
    const text = 'name: x\nnodes:\n  - id: a\n    type: transform\n    template: a\n  # b says b\n  - id: b\n    type: transform\n    template: b\nedges: []\n';
    const doc = ok(new WorkflowDoc(text).addNode({ type: 'exit' }, 'mid', [], undefined, 1));
    expect(doc.nodes.map((n) => n.id)).toEqual(['a', 'mid', 'b']);
    expect(doc.text).toBe('name: x\nnodes:\n  - id: a\n    type: transform\n    template: a\n  - id: mid\n    type: exit\n  # b says b\n  - id: b\n    type: transform\n    template: b\nedges: []\n');
  });

  it('inserts first, in a flow list too, and appends past the end', () => {
    const block = ok(new WorkflowDoc('name: x\nnodes:\n  - id: a\n    type: exit\n').addNode({ type: 'exit' }, 'first', [], undefined, 0));
    expect(block.nodes.map((n) => n.id)).toEqual(['first', 'a']);
    const flow = ok(new WorkflowDoc('name: x\nnodes: [{id: a, type: exit}]\n').addNode({ type: 'exit' }, 'z', [], undefined, 0));
    expect(flow.nodes.map((n) => n.id)).toEqual(['z', 'a']);
    const end = ok(new WorkflowDoc('name: x\nnodes:\n  - id: a\n    type: exit\n').addNode({ type: 'exit' }, 'last', [], undefined, 5));
    expect(end.nodes.map((n) => n.id)).toEqual(['a', 'last']);
  });

  it('inserts into a nested body at its place', () => {
    const text = 'name: x\nnodes:\n  - id: g\n    loop_group:\n      max_iterations: 2\n      nodes:\n        - id: a\n          type: transform\n          template: a\n';
    const doc = ok(new WorkflowDoc(text).addNode({ type: 'transform', template: 'n' }, 'n', ['g'], undefined, 0));
    expect(doc.level(['g'])!.map((n) => n.id)).toEqual(['n', 'a']);
  });
});

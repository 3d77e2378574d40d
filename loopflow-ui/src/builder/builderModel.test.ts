import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connection, dropIndex, graphKey, loopBound, hasUnsavedWork, placeProblems, reachGraph, selectedNode, siblingIds } from './builderModel';
import { project } from './doc/project';
import { WorkflowDoc } from './doc/workflowDoc';

const ROOT = resolve(__dirname, '../../..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');

describe('builder model', () => {
  const nested = new WorkflowDoc(read('loopflow-ui/e2e/workflows/nested-loops.yaml'));
  const nestedGraph = project(nested);

  it('keys nodes as the projection does and selects a nested body node with its fields as written', () => {
    expect(graphKey(['outer', 'inner'], 'count')).toBe('outer/inner/count');
    const s = selectedNode(nested, nestedGraph, 'outer/inner/count')!;
    expect(s).toMatchObject({ id: 'count', kind: 'transform', path: ['outer', 'inner'] });
    expect(s.values.template).toBe('outer {{ loop.parent.iteration }} inner {{ loop.iteration }}');
    expect(selectedNode(nested, nestedGraph, 'outer/inner/$until')).toBeNull();
    expect(siblingIds(nested, selectedNode(nested, nestedGraph, 'outer/sum'))).toEqual(['inner']);
  });

  it('places problems on the node their path names, nested bodies included, and keeps the rest unplaced', () => {
    const placed = placeProblems(nested, [
      { line: 16, col: 9, path: 'nodes.outer.nodes.sum.template', message: 'unknown reference' },
      { line: 12, col: 15, path: 'nodes.outer.nodes.inner.nodes.count', message: 'bad count' },
      { line: 1, col: 1, path: 'edges[0].to', message: 'not a node' },
    ]);
    expect(placed.byKey.get('outer/sum')?.[0]?.message).toBe('unknown reference');
    expect(placed.byKey.get('outer/inner/count')?.[0]?.message).toBe('bad count');
    expect(placed.unplaced.map((p) => p.message)).toEqual(['not a node']);
  });

  it('gives the reachable-values rule each node’s container and upstream', () => {
    const doc = new WorkflowDoc(read('examples/loop-self-refine.yaml'));
    const r = reachGraph(doc, project(doc));
    expect(r.inputs).toEqual(['topic']);
    expect(r.nodes.find((n) => n.id === 'critique')).toMatchObject({ container: 'refine', upstream: ['draft'] });
    expect(r.nodes.find((n) => n.id === 'final')).toMatchObject({ container: undefined, upstream: ['refine_exit'] });
    const inner = reachGraph(nested, nestedGraph).nodes.find((n) => n.id === 'count');
    expect(inner?.container).toBe('inner');
  });

  it('never makes a drawn connection a loop edge: one back to a node upstream is a cycle to ask about; one between two lists is refused', () => {
    const doc = new WorkflowDoc(read('examples/loop-coder-reviewer.yaml'));
    const g = project(doc);
    expect(connection(doc, g, 'coder', 'reviewer')?.cycle).toBe(false);
    const back = connection(doc, g, 'reviewer', 'coder')!;
    expect(back).toMatchObject({ from: 'reviewer', to: 'coder', cycle: true });
    expect(back).not.toHaveProperty('loopMax');
    expect(connection(nested, nestedGraph, 'outer', 'outer/sum')).toBeNull();
    expect(connection(nested, nestedGraph, 'outer/inner', 'outer/sum')?.cycle).toBe(false);
    expect(connection(nested, nestedGraph, 'outer/sum', 'outer/inner')?.cycle).toBe(true);
  });

  it('reads a loop edge bound as typed, inventing none', () => {
    expect(loopBound('')).toMatchObject({ ok: false });
    expect(loopBound('2.5')).toMatchObject({ ok: false });
    expect(loopBound('0')).toMatchObject({ ok: false });
    expect(loopBound(' 4 ')).toEqual({ ok: true, max: 4 });
  });

  it('places a dropped node among its siblings top to bottom, then left to right within a row', () => {
    const sib = (x: number, y: number) => ({ center: { x, y } });
    // the user's order: LLM dropped low, Loop above it, Exit below both
    expect(dropIndex([], { x: 0, y: 0 }, 64)).toBe(0);
    expect(dropIndex([sib(100, 300)], { x: 100, y: 100 }, 64)).toBe(0);
    expect(dropIndex([sib(100, 100), sib(100, 300)], { x: 100, y: 500 }, 64)).toBe(2);
    expect(dropIndex([sib(100, 100), sib(100, 300)], { x: 100, y: 200 }, 64)).toBe(1);
    // one row: left to right
    expect(dropIndex([sib(100, 100), sib(400, 110)], { x: 250, y: 90 }, 64)).toBe(1);
    // a sibling with no place on the canvas does not decide
    expect(dropIndex([{ center: undefined }, sib(100, 300)], { x: 100, y: 400 }, 64)).toBe(2);
  });
});

describe('unsaved work', () => {
  const empty = WorkflowDoc.empty().text;
  it.each([
    ['a new, untouched workflow', empty, null, false],
    ['a new workflow with a node', empty + '  - id: a\n', null, true],
    ['a template loaded, never saved', 'name: t\nnodes: []\n', null, true],
    ['a file as saved', 'name: f\n', 'name: f\n', false],
    ['a file edited', 'name: g\n', 'name: f\n', true],
    ['a file edited back to its saved text', 'name: f\n', 'name: f\n', false],
    ['a file emptied to the empty document', empty, 'name: f\n', true],
  ] as const)('%s', (_, text, saved, expected) => {
    expect(hasUnsavedWork(text, saved, empty)).toBe(expected);
  });
});

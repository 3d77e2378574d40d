// Pins the builder's in-browser projection to the server's graph: BuilderProjectionTest (loopflow-server) writes, for
// every example and bundled template, the file's text and the server's graph JSON into LOOPFLOW_PROJECTION_DIR and
// runs this test, which fails naming the file and the first difference. Without that variable it has nothing to
// compare and is skipped (a plain `vitest run` does not build the server's graphs).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { project } from './project';
import { WorkflowDoc } from './workflowDoc';

const dir = process.env.LOOPFLOW_PROJECTION_DIR;

interface G {
  nodes: { key: string; kind: string | null; parent: string | null; role: string }[];
  containers: { key: string; node: string | null; construct: string; max: number | null; parent: string | null }[];
  edges: { from: string; to: string; kind: string; max: number | null; label: string | null }[];
}

/** What must agree: nodes with kind, parent and role; containers with their loop, construct, bound and parent; edges. */
export function comparable(g: G) {
  return {
    nodes: g.nodes.map((n) => `${n.key} kind=${n.kind} parent=${n.parent} role=${n.role}`).sort(),
    containers: g.containers.map((c) => `${c.key} node=${c.node} ${c.construct} max=${c.max} parent=${c.parent}`).sort(),
    // labels of loop-backs and branches are compared; a `when` label is the condition's source, which the server
    // prints in its own normal form for structured conditions, so it is left out
    edges: g.edges
      .map((e) => `${e.from} -> ${e.to} ${e.kind} max=${e.max}${e.kind === 'branch' || (e.kind === 'loop_back' && e.label?.startsWith('next')) ? ` ${e.label}` : ''}`)
      .sort(),
  };
}

describe.skipIf(!dir)('the projection agrees with the server graph', () => {
  const files = dir ? readdirSync(dir).filter((f) => f.endsWith('.yaml')) : [];
  it('has files to compare', () => expect(files.length).toBeGreaterThan(0));
  for (const f of files) {
    it(f, () => {
      const text = readFileSync(join(dir!, f), 'utf8');
      const server = JSON.parse(readFileSync(join(dir!, f.replace(/\.yaml$/, '.graph.json')), 'utf8')) as G;
      const mine = project(new WorkflowDoc(text)) as unknown as G;
      expect(comparable(mine)).toEqual(comparable(server));
    });
  }
});

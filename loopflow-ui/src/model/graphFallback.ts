// A graph drawn from a run's own events, for when the server has none for it: one node per position (passes
// stripped), loop bodies as boxes, and edges in the order the nodes first ran. It is marked as approximate.
import type { GraphContainer, GraphEdge, GraphNode, RunGraph } from '../api/types';
import { lastName } from './paths';
import type { RunLive } from './runState';

export function graphFromRun(run: RunLive): RunGraph {
  const loopStatics = new Set(run.loopOrder.map((p) => run.loops[p]!.staticPath));
  const nodes: GraphNode[] = [];
  const containers: GraphContainer[] = [];
  const seen = new Set<string>();
  const containerOf = (staticPath: string): string | null => {
    const parts = staticPath.split('.');
    for (let i = parts.length - 1; i >= 1; i--) {
      const prefix = parts.slice(0, i).join('.');
      if (loopStatics.has(prefix)) return prefix + '/body';
    }
    return null;
  };
  for (const p of run.loopOrder) {
    const l = run.loops[p]!;
    if (containers.some((c) => c.key === l.staticPath + '/body')) continue;
    containers.push({
      key: l.staticPath + '/body',
      node: l.staticPath,
      title: l.node,
      construct: l.construct ?? null,
      max: l.max ?? null,
      parent: containerOf(l.staticPath),
    });
  }
  const order = [...run.execOrder].sort((a, b) => run.execs[a]!.firstSeq - run.execs[b]!.firstSeq);
  for (const p of order) {
    const x = run.execs[p]!;
    if (x.path.includes('~') || seen.has(x.staticPath)) continue;
    seen.add(x.staticPath);
    nodes.push({
      key: x.staticPath,
      id: lastName(x.path),
      title: lastName(x.path),
      kind: x.kind ?? null,
      parent: containerOf(x.staticPath),
      path: x.staticPath,
      loop: null,
    });
  }
  const edges: GraphEdge[] = [];
  const lastIn = new Map<string, string>();
  for (const n of nodes) {
    const scope = n.parent ?? '';
    const prev = lastIn.get(scope);
    if (prev) edges.push({ from: prev, to: n.key, kind: 'next' });
    lastIn.set(scope, n.key);
  }
  return { workflow: run.workflow ?? null, nodes, containers, edges, restart: null };
}

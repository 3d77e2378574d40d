// Positions for the run graph: dagre lays out the forward edges top to bottom, loop bodies as clusters (nested loops
// as nested clusters). Back edges (a loop's next pass, a restart) are left out of the layout and drawn around it.
import dagre from '@dagrejs/dagre';
import type { GraphEdge, RunGraph } from '../api/types';

export const NODE_W = 200;
export const NODE_H = 64;
/** room above a loop body for its title and pass badge */
export const HEADER = 34;
const PAD = 16;

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Layout {
  /** top-left corner and size of every node, absolute */
  nodes: Map<string, Box>;
  /** of every container, absolute */
  containers: Map<string, Box>;
  width: number;
  height: number;
}

export function isBackEdge(e: GraphEdge): boolean {
  return e.kind === 'loop_back' || e.kind === 'restart';
}

export function layoutGraph(graph: RunGraph): Layout {
  const g = new dagre.graphlib.Graph({ compound: true, multigraph: true });
  g.setGraph({ rankdir: 'TB', nodesep: 36, ranksep: 56, marginx: 24, marginy: 24 });
  g.setDefaultEdgeLabel(() => ({}));
  const containers = new Map((graph.containers ?? []).map((c) => [c.key, c]));
  const nodeKeys = new Set<string>();
  for (const c of containers.values()) g.setNode('c:' + c.key, {});
  for (const n of graph.nodes) {
    nodeKeys.add(n.key);
    g.setNode('n:' + n.key, { width: NODE_W, height: NODE_H });
  }
  // dagre sizes a cluster to its members; an empty body still gets a box through a placeholder
  for (const c of containers.values()) {
    const hasMember = graph.nodes.some((n) => n.parent === c.key) || [...containers.values()].some((d) => d.parent === c.key);
    if (!hasMember) {
      g.setNode('e:' + c.key, { width: NODE_W, height: 24 });
      g.setParent('e:' + c.key, 'c:' + c.key);
    }
  }
  for (const c of containers.values()) {
    if (c.parent && containers.has(c.parent) && c.parent !== c.key) g.setParent('c:' + c.key, 'c:' + c.parent);
  }
  for (const n of graph.nodes) {
    if (n.parent && containers.has(n.parent)) g.setParent('n:' + n.key, 'c:' + n.parent);
  }
  // A header node at the top of each cluster keeps room for the title: it is ranked above the cluster's members.
  for (const c of containers.values()) {
    g.setNode('h:' + c.key, { width: NODE_W, height: HEADER - PAD });
    g.setParent('h:' + c.key, 'c:' + c.key);
  }
  const memberTops = new Map<string, string[]>();
  for (const n of graph.nodes) {
    if (n.parent && containers.has(n.parent)) memberTops.set(n.parent, [...(memberTops.get(n.parent) ?? []), 'n:' + n.key]);
  }
  for (const [c, members] of memberTops) for (const m of members) g.setEdge('h:' + c, m, { weight: 0, minlen: 1 }, 'hdr:' + m);

  let i = 0;
  for (const e of graph.edges ?? []) {
    if (isBackEdge(e)) continue;
    const from = endpoint(e.from, nodeKeys, containers);
    const to = endpoint(e.to, nodeKeys, containers);
    if (!from || !to || from === to) continue;
    g.setEdge(from, to, { weight: 1, minlen: 1 }, 'e' + i++);
  }
  dagre.layout(g);

  const nodes = new Map<string, Box>();
  for (const n of graph.nodes) {
    const v = g.node('n:' + n.key) as { x: number; y: number; width: number; height: number } | undefined;
    if (v) nodes.set(n.key, { x: v.x - NODE_W / 2, y: v.y - NODE_H / 2, width: NODE_W, height: NODE_H });
  }
  const boxes = new Map<string, Box>();
  for (const c of containers.values()) {
    const v = g.node('c:' + c.key) as { x: number; y: number; width: number; height: number } | undefined;
    if (v && Number.isFinite(v.width)) boxes.set(c.key, { x: v.x - v.width / 2, y: v.y - v.height / 2, width: v.width, height: v.height });
  }
  const gg = g.graph() as { width?: number; height?: number };
  return { nodes, containers: boxes, width: gg.width ?? 0, height: gg.height ?? 0 };
}

/**
 * An edge may touch a container (a loop node feeding its body): for the layout it goes to the container's first
 * member instead, since dagre cannot attach edges to a cluster.
 */
function endpoint(key: string, nodeKeys: Set<string>, containers: Map<string, { key: string }>): string | undefined {
  if (nodeKeys.has(key)) return 'n:' + key;
  if (containers.has(key)) return 'h:' + key;
  return undefined;
}

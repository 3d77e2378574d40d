// Positions for the run graph: dagre lays out the forward edges top to bottom, loop bodies as clusters (nested loops
// as nested clusters). Back edges (a loop's next pass, a restart) are left out of the layout and drawn around it.
import dagre from '@dagrejs/dagre';
import type { GraphEdge, RunGraph } from '../api/types';

export const NODE_W = 200;
export const NODE_H = 64;
/** room above a loop body for its title and pass badge */
export const HEADER = 34;
const PAD = 16;
/** space between a loop body's header and its first node */
const HEADER_GAP = 10;

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

/**
 * Where a forward edge is drawn from. An edge leaving a loop node for a node outside the loop's body (`fix -> ship`)
 * is taken after the last pass, so it is drawn from the body's box, and laid out below it; every other edge keeps
 * its ends.
 */
export function drawnSource(graph: RunGraph, e: GraphEdge): string {
  if (isBackEdge(e)) return e.from;
  const body = (graph.containers ?? []).find((c) => c.node === e.from);
  if (!body || e.to === body.key || isInside(graph, e.to, body.key)) return e.from;
  return body.key;
}

/** True when the node or container `key` sits in the container `containerKey`, at any depth. */
function isInside(graph: RunGraph, key: string, containerKey: string): boolean {
  const parentOf = (k: string): string | null | undefined =>
    graph.nodes.find((n) => n.key === k)?.parent ?? (graph.containers ?? []).find((c) => c.key === k)?.parent;
  const seen = new Set<string>();
  let p = parentOf(key);
  while (p && !seen.has(p)) {
    if (p === containerKey) return true;
    seen.add(p);
    p = parentOf(p);
  }
  return false;
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
    // wider than a node, so the title and the pass badge fit on one line
    g.setNode('h:' + c.key, { width: NODE_W + 90, height: HEADER - PAD });
    g.setParent('h:' + c.key, 'c:' + c.key);
  }
  // the header sits above the body's first nodes (those no other body node leads to); the body's last nodes (those
  // that lead to no other body node) sit above whatever follows the loop
  const forward = (graph.edges ?? []).filter((e) => !isBackEdge(e));
  const members = new Map<string, string[]>();
  for (const n of graph.nodes) {
    if (n.parent && containers.has(n.parent)) members.set(n.parent, [...(members.get(n.parent) ?? []), n.key]);
  }
  const firsts = (c: string) => {
    const m = members.get(c) ?? [];
    return m.filter((k) => !forward.some((e) => e.to === k && m.includes(e.from)));
  };
  const lasts = (c: string) => {
    const m = members.get(c) ?? [];
    return m.filter((k) => !forward.some((e) => e.from === k && m.includes(e.to)));
  };
  for (const c of containers.keys()) for (const m of firsts(c)) g.setEdge('h:' + c, 'n:' + m, { weight: 0, minlen: 1 }, 'hdr:' + m);

  let i = 0;
  for (const e of forward) {
    const source = drawnSource(graph, e);
    const to = endpoint(e.to, nodeKeys, containers);
    if (!to) continue;
    const froms = containers.has(source) && source !== e.from ? lasts(source).map((k) => 'n:' + k) : [endpoint(source, nodeKeys, containers)];
    for (const from of froms) {
      if (!from || from === to) continue;
      g.setEdge(from, to, { weight: 1, minlen: 1 }, 'e' + i++);
    }
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
  tightenHeaders(graph, nodes, boxes);
  const gg = g.graph() as { width?: number; height?: number };
  return { nodes, containers: boxes, width: gg.width ?? 0, height: gg.height ?? 0 };
}

/**
 * dagre puts a whole rank (`ranksep`) between a body's header placeholder and its first nodes, which left some 70 px
 * of empty box under the title. The box's top is pulled down to just above its content instead (never up, so it
 * keeps clear of what is above it; inner boxes first, so an outer box follows its inner ones). Nodes do not move.
 */
function tightenHeaders(graph: RunGraph, nodes: Map<string, Box>, boxes: Map<string, Box>): void {
  const parentOf = new Map((graph.containers ?? []).map((c) => [c.key, c.parent ?? undefined]));
  const depth = (k: string) => {
    let d = 0;
    const seen = new Set<string>();
    for (let p = parentOf.get(k); p && !seen.has(p); p = parentOf.get(p)) {
      seen.add(p);
      d++;
    }
    return d;
  };
  const keys = [...boxes.keys()].sort((a, b) => depth(b) - depth(a));
  for (const key of keys) {
    const box = boxes.get(key)!;
    const tops = [
      ...graph.nodes.filter((n) => n.parent === key).map((n) => nodes.get(n.key)?.y),
      ...[...boxes.keys()].filter((k) => k !== key && parentOf.get(k) === key).map((k) => boxes.get(k)!.y),
    ].filter((y): y is number => y !== undefined && Number.isFinite(y));
    if (tops.length === 0) continue;
    const top = Math.min(...tops) - HEADER - HEADER_GAP;
    if (top <= box.y) continue;
    boxes.set(key, { ...box, y: top, height: box.height - (top - box.y) });
  }
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

// What the builder page derives from its document for the parts it feeds: the config panel's selected node and
// reachable values, the places of the loader's problems, and what a canvas connection means. Kept apart from the
// page so each rule is testable without a browser.
import { isMap, isScalar } from 'yaml';
import type { Problem, SelectedNode } from './contract';
import type { Projection } from './doc/project';
import { valueOf, type DocNode, type WorkflowDoc } from './doc/workflowDoc';
import { nodeKey, problemsByNode, type NodePlace } from './panel/problems';
import type { ReachGraph } from './panel/reachable';

/** The canvas key of a document node: its containers' keys and id joined by '/', as the projection names them. */
export function graphKey(path: readonly string[], id: string): string {
  return [...path, id].join('/');
}

export function selectedNode(doc: WorkflowDoc, graph: Projection, key: string | null): SelectedNode | null {
  const ref = key ? graph.docNodes.get(key) : undefined;
  const node = ref ? doc.find(ref.path, ref.id) : undefined;
  if (!node) return null;
  return { id: node.id, kind: node.kind ?? '', path: node.path, values: doc.values(node) };
}

/** Where each node is, for placing problems: its list, position and the lines it spans. */
export function nodePlaces(doc: WorkflowDoc): NodePlace[] {
  return doc.allNodes().map((n: DocNode) => {
    const r = n.map.range;
    return {
      id: n.id,
      path: n.path,
      index: n.list.items.indexOf(n.map),
      startLine: r ? doc.lineAt(r[0]) : undefined,
      endLine: r ? doc.lineAt(Math.max(r[0], r[1] - 1)) : undefined,
    };
  });
}

/** The loader's problems by canvas key (messages), and the ones that belong to no node. */
export function placeProblems(doc: WorkflowDoc, problems: Problem[]): { byKey: Map<string, Problem[]>; unplaced: Problem[] } {
  const places = nodePlaces(doc);
  const placed = problemsByNode(problems, places);
  const byKey = new Map<string, Problem[]>();
  for (const p of places) {
    const list = placed.byNode.get(nodeKey(p.path, p.id));
    if (list) byKey.set(graphKey(p.path, p.id), list);
  }
  return { byKey, unplaced: placed.unplaced };
}

/** The workflow as the reachable-values rule reads it: declared inputs, and each node's container and upstream. */
export function reachGraph(doc: WorkflowDoc, graph: Projection): ReachGraph {
  const root = doc.yaml?.contents;
  const input = isMap(root) ? valueOf(root, 'input') : undefined;
  const inputs = isMap(input) ? input.items.map((p) => (isScalar(p.key) ? String(p.key.value) : '')).filter(Boolean) : [];
  const containerOf = new Map<string, string | undefined>();
  const boxes = new Map(graph.containers.map((c) => [c.key, c]));
  for (const n of graph.nodes) {
    // the innermost container that is a loop node's body (a loop edge's region has no node: look further out)
    let c = n.parent ? boxes.get(n.parent) : undefined;
    while (c && !c.node) c = c.parent ? boxes.get(c.parent) : undefined;
    containerOf.set(n.key, c?.node ? c.node.split('/').pop() : undefined);
  }
  const nodes = doc.allNodes().map((n) => ({
    id: n.id,
    kind: n.kind ?? '',
    container: containerOf.get(graphKey(n.path, n.id)),
    upstream: doc
      .edges(n.path)
      .filter((e) => e.to === n.id)
      .map((e) => e.from),
  }));
  return { inputs, nodes };
}

/** The ids a NODE_ID field of a node may name: the other nodes of its list. */
export function siblingIds(doc: WorkflowDoc, node: SelectedNode | null): string[] {
  if (!node) return [];
  return (doc.level(node.path) ?? []).map((n) => n.id).filter((id) => id && id !== node.id);
}

/**
 * What connecting two canvas nodes means: null when they are not in one list. An edge drawn on the canvas is always a
 * forward edge (a dependency); `cycle` says the target already leads to the source, so a forward edge would close a
 * cycle and is not written: the page asks whether a loop edge is meant, and for its bound (none is made up here).
 */
export function connection(doc: WorkflowDoc, graph: Projection, fromKey: string, toKey: string): { path: string[]; from: string; to: string; cycle: boolean } | null {
  const a = graph.docNodes.get(fromKey);
  const b = graph.docNodes.get(toKey);
  if (!a || !b || a.path.join('\u0000') !== b.path.join('\u0000')) return null;
  const forward = doc.edges(a.path).filter((e) => !e.loop);
  const seen = new Set<string>();
  const todo = [b.id];
  while (todo.length) {
    const x = todo.pop()!;
    if (x === a.id) return { path: a.path, from: a.id, to: b.id, cycle: true };
    if (seen.has(x)) continue;
    seen.add(x);
    for (const e of forward) if (e.from === x) todo.push(e.to);
  }
  return { path: a.path, from: a.id, to: b.id, cycle: false };
}

/** A loop edge's bound as typed: a whole number of passes from 1 to 100, or why not. */
export function loopBound(text: string): { ok: true; max: number } | { ok: false; error: string } {
  const t = text.trim();
  if (!t) return { ok: false, error: 'give the most passes the loop edge may run' };
  if (!/^[0-9]+$/.test(t)) return { ok: false, error: 'the bound is a whole number of passes' };
  const max = Number(t);
  if (max < 1 || max > 100) return { ok: false, error: 'the bound is from 1 to 100 passes' };
  return { ok: true, max };
}

/**
 * Where a node dropped at `at` goes in its list: before the first sibling that comes after the drop point on the
 * canvas, reading top to bottom and, within a row (centres less than half a node's height apart), left to right.
 * `siblings` are the list's nodes in file order with their centres on the canvas; the answer is a list index.
 */
export function dropIndex(siblings: { center: { x: number; y: number } | undefined }[], at: { x: number; y: number }, rowHeight: number): number {
  const before = (p: { x: number; y: number }, q: { x: number; y: number }) => (Math.abs(p.y - q.y) < rowHeight / 2 ? p.x < q.x : p.y < q.y);
  const placed = siblings.map((s, i) => ({ c: s.center, i })).filter((s): s is { c: { x: number; y: number }; i: number } => !!s.c);
  const after = placed.filter((s) => before(at, s.c)).map((s) => s.i);
  return after.length ? Math.min(...after) : siblings.length;
}

/** The id a graph key names (its last segment). */
export function idOfKey(key: string): string {
  return key.split('/').pop() ?? key;
}

/**
 * True when leaving would lose work: a file's text differs from what was saved, or a new workflow holds more than the
 * empty document it started as (a template loaded counts: it is not in the workflows folder yet).
 */
export function hasUnsavedWork(text: string, saved: string | null, emptyText: string): boolean {
  return saved === null ? text !== emptyText : text !== saved;
}

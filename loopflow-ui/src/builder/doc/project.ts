// The canvas graph of a workflow document, computed in the browser so that a half-built or invalid workflow still
// draws. It has the shape of the server's graph JSON (docs/graph.md) and follows the same rules: which nodes a loop
// repeats, where nested bodies sit, which dependencies the file states (edges, depends_on, or listed order). Because
// it restates the loader's rule, a test pins it to the server's graph for every example and template
// (BuilderProjectionTest in loopflow-server, fed by the JSON this module's test writes).
import { isMap, isScalar, isSeq, type Node as YNode, type YAMLMap } from 'yaml';
import type { GraphContainer, GraphEdge, GraphNode, RunGraph } from '../../api/types';
import { GRAPH_FORM_PARTNER, LOOP_KINDS } from './kinds';
import { valueOf, type DocEdge, type DocNode, type WorkflowDoc } from './workflowDoc';

const START = '__start__';
const END = '__end__';

export interface Projection extends RunGraph {
  nodes: GraphNode[];
  containers: GraphContainer[];
  edges: ProjectedEdge[];
  /** graph key → the document node it draws (absent for start, end and a loop_group's pass steps) */
  docNodes: Map<string, { path: string[]; id: string }>;
  /** container key → the container node's path and id, for nested bodies (drop targets) */
  bodies: Map<string, { path: string[]; id: string }>;
}

/** An edge, and for the ones the file states: how (edges item, depends_on, listed order) and in which list. */
export interface ProjectedEdge extends GraphEdge {
  origin?: DocEdge['source'];
  list?: string[];
}

export function project(doc: WorkflowDoc): Projection {
  const out: Projection = { workflow: workflowName(doc), nodes: [], containers: [], edges: [], restart: null, docNodes: new Map(), bodies: new Map() };
  const pipeline = pipelineStages(doc);
  if (pipeline) {
    projectPipeline(doc, pipeline, out);
  } else {
    level(doc, doc.nodes, [], '', null, out);
    restartEdges(out, restartPolicy(doc));
  }
  if (out.edges.some((e) => e.from === START)) out.nodes.unshift({ key: START, id: START, title: 'start', kind: null, parent: null, role: 'start' });
  if (out.edges.some((e) => e.to === END)) out.nodes.push({ key: END, id: END, title: 'end', kind: null, parent: null, role: 'end' });
  return out;
}

function workflowName(doc: WorkflowDoc): string | null {
  const root = doc.yaml?.contents;
  if (!isMap(root)) return null;
  const n = valueOf(root, 'name');
  return isScalar(n) && typeof n.value === 'string' ? n.value : null;
}

function field(node: DocNode, ...names: string[]): YNode | null | undefined {
  for (const m of [node.map, node.fieldsMap]) {
    if (!m) continue;
    for (const name of names) {
      const v = valueOf(m, name);
      if (v !== undefined) return v;
    }
  }
  return undefined;
}

function num(n: YNode | null | undefined): number | null {
  return isScalar(n) && typeof n.value === 'number' ? n.value : null;
}

/** A loop's bound as the loader reads it (a `loop` node's default is 5; an iterator has none). */
function bound(node: DocNode): number | null {
  if (node.kind === 'iterator') return null;
  const v = num(field(node, 'maxIterations', 'max_iterations'));
  return v ?? (node.kind === 'loop' ? 5 : null);
}

function downstream(from: string, forward: DocEdge[]): Set<string> {
  const seen = new Set<string>();
  const todo = [from];
  while (todo.length) {
    const x = todo.pop()!;
    for (const e of forward) if (e.from === x && !seen.has(e.to)) (seen.add(e.to), todo.push(e.to));
  }
  return seen;
}

function upstream(to: string, forward: DocEdge[]): Set<string> {
  const seen = new Set<string>();
  const todo = [to];
  while (todo.length) {
    const x = todo.pop()!;
    for (const e of forward) if (e.to === x && !seen.has(e.from)) (seen.add(e.from), todo.push(e.from));
  }
  return seen;
}

interface Formed {
  key: string;
  node: string | null;
  members: Set<string>;
  container: GraphContainer;
  again: string;
}

/** One list (the top level or a nested body): graph-form loop bodies and loop-edge regions, nodes, edges. */
function level(doc: WorkflowDoc, nodes: DocNode[], path: string[], prefix: string, parent: string | null, out: Projection): void {
  const deps = doc.edges(path);
  const forward = deps.filter((e) => !e.loop);
  // the loader pairs a loop with its exit (an iterator with its aggregator) through stated dependencies only
  const stated = forward.filter((e) => e.source !== 'order');
  const ids = new Set(nodes.map((n) => n.id).filter(Boolean));
  const formed: Formed[] = [];
  for (const n of nodes) {
    const partnerKind = n.kind ? GRAPH_FORM_PARTNER[n.kind] : undefined;
    if (!partnerKind || !n.id) continue;
    const down = downstream(n.id, stated);
    const named = field(n, partnerKind);
    let partner = isScalar(named) && typeof named.value === 'string' ? named.value : undefined;
    if (!partner) {
      const found = nodes.filter((m) => m.kind === partnerKind && down.has(m.id));
      partner = found.length === 1 ? found[0]!.id : undefined;
    }
    const after = partner ? downstream(partner, stated) : new Set<string>();
    const members = new Set([...down].filter((x) => ids.has(x) && x !== partner && !after.has(x) && x !== n.id));
    if (members.size === 0) continue;
    const max = bound(n);
    formed.push({
      key: `[${prefix}${n.id}]`,
      node: prefix + n.id,
      members,
      again: n.kind === 'iterator' ? 'next item' : 'next pass',
      container: { key: `[${prefix}${n.id}]`, node: prefix + n.id, title: bodyTitle(n, max), construct: n.kind!, max, parent: null, path: null },
    });
  }
  for (const e of deps) {
    if (!e.loop || !ids.has(e.from) || !ids.has(e.to)) continue;
    const fromT = downstream(e.to, forward);
    fromT.add(e.to);
    const toS = upstream(e.from, forward);
    toS.add(e.from);
    const members = new Set([...fromT].filter((x) => toS.has(x)));
    if (!members.has(e.from)) continue;
    const id = `${e.from}->${e.to}`;
    formed.push({
      key: `[${prefix}${id}]`,
      node: null,
      members,
      again: '',
      container: { key: `[${prefix}${id}]`, node: null, title: `${e.from} -> ${e.to} (loop edge, max ${e.max ?? '?'})`, construct: 'loop_edge', max: e.max, parent: null, path: null },
    });
  }
  // a node sits in the smallest body holding it; a body sits in the smallest other body holding its loop node
  // (graph form) or all of its members (a loop edge's region)
  const smallestHolding = (x: string, except: Formed | null) => {
    let best: Formed | undefined;
    for (const f of formed) if (f !== except && f.members.has(x) && (!best || f.members.size < best.members.size)) best = f;
    return best;
  };
  for (const f of formed) {
    let holder: Formed | undefined;
    if (f.node !== null) holder = smallestHolding(f.node.slice(prefix.length), f);
    else {
      for (const g of formed)
        if (g !== f && g.members.size > f.members.size && [...f.members].every((m) => g.members.has(m)) && (!holder || g.members.size < holder.members.size)) holder = g;
    }
    f.container.parent = holder ? holder.key : parent;
  }
  const order = new Map(nodes.map((n, i) => [prefix + n.id, i]));
  formed.sort((a, b) => (a.node === null ? Infinity : order.get(a.node)!) - (b.node === null ? Infinity : order.get(b.node)!));
  out.containers.push(...formed.map((f) => f.container));
  const graphForm = new Set(formed.filter((f) => f.node !== null).map((f) => f.node!));

  for (const n of nodes) {
    if (!n.id) continue;
    const key = prefix + n.id;
    const holder = smallestHolding(n.id, null);
    const myParent = holder ? holder.key : parent;
    const isLoop = !!n.kind && LOOP_KINDS.has(n.kind);
    out.nodes.push({ key, id: n.id, title: n.id, kind: n.kind ?? null, parent: myParent, role: 'node', loop: isLoop ? { construct: n.kind, max: bound(n) } : null });
    out.docNodes.set(key, { path: n.path, id: n.id });
    if (!isLoop) continue;
    if (graphForm.has(key)) {
      const f = formed.find((x) => x.node === key)!;
      out.edges.push({ from: f.key, to: key, label: f.again, kind: 'loop_back', max: bound(n) });
    } else if (n.children) {
      const box = `[${key}]`;
      out.containers.push({ key: box, node: key, title: bodyTitle(n, bound(n)), construct: n.kind!, max: bound(n), parent: myParent, path: null });
      out.bodies.set(box, { path: n.path, id: n.id });
      out.edges.push({ from: key, to: box, label: null, kind: 'next', max: null });
      level(doc, n.children, [...n.path, n.id], key + '/', box, out);
      if (n.kind === 'loop_group') passSteps(n, key, box, out);
      out.edges.push({ from: box, to: key, label: 'next pass', kind: 'loop_back', max: bound(n) });
    }
  }
  for (const e of deps) {
    if (e.from === START && path.length > 0) continue;
    const from = e.from === START ? START : prefix + e.from;
    const to = e.to === END ? END : prefix + e.to;
    const how = { origin: e.source, list: path };
    if (e.loop) out.edges.push({ from, to, label: e.when, kind: 'loop_back', max: e.max, ...how });
    else if (e.branch !== null) out.edges.push({ from, to, label: e.branch, kind: 'branch', max: null, ...how });
    else out.edges.push({ from, to, label: e.when, kind: 'next', max: null, ...how });
  }
}

function passSteps(n: DocNode, key: string, box: string, out: Projection): void {
  if (field(n, 'until_command', 'until_bash') != null) {
    out.nodes.push({ key: `${key}/$until`, id: '$until', title: 'until', kind: 'shell', parent: box, role: 'until_command' });
  }
  const interactive = field(n, 'interactive');
  if (isScalar(interactive) && interactive.value === true) {
    out.nodes.push({ key: `${key}/gate`, id: 'gate', title: 'gate', kind: 'gate', parent: box, role: 'gate' });
  }
}

function bodyTitle(n: DocNode, max: number | null): string {
  return `${n.id} body (${n.kind}, ${n.kind === 'iterator' ? 'one pass per item' : `max ${max ?? '?'}`})`;
}

interface Policy {
  enabled: boolean;
  max: number | null;
  triggers: string[];
  targets: string[];
}

function strings(n: YNode | null | undefined): string[] {
  if (isSeq(n)) return n.items.map((i) => (isScalar(i) ? String(i.value) : '')).filter(Boolean);
  if (isScalar(n) && typeof n.value === 'string') return [n.value];
  return [];
}

function restartPolicy(doc: WorkflowDoc, holder?: YAMLMap | null): Policy | null {
  const root = doc.yaml?.contents;
  const where = holder ?? (isMap(root) ? root : null);
  if (!where) return null;
  const p = valueOf(where, 'restart_policy');
  if (!isMap(p)) return null;
  const enabled = valueOf(p, 'enabled');
  return {
    enabled: isScalar(enabled) && enabled.value === true,
    max: num(valueOf(p, 'max_iterations')) ?? num(valueOf(where, 'max_iterations')) ?? 3,
    triggers: strings(valueOf(p, 'restart_triggers') ?? valueOf(where, 'restart_triggers')),
    targets: strings(valueOf(p, 'restartable_stages')),
  };
}

function restartEdges(out: Projection, p: Policy | null): void {
  if (!p) return;
  out.restart = { enabled: p.enabled, targets: [], triggers: [], max_iterations: p.max, path: 'restart' };
  if (!p.enabled) return;
  const top = out.nodes.filter((n) => n.parent === null && n.role === 'node' && !n.key.includes('/')).map((n) => n.id);
  const forward = out.edges.filter((e) => e.kind === 'next' || e.kind === 'branch').filter((e) => top.includes(e.from) && top.includes(e.to));
  const deps: DocEdge[] = forward.map((e) => ({ from: e.from, to: e.to, source: 'edge', loop: false, max: null, branch: null, when: null }));
  const triggers = p.triggers.length ? p.triggers : top.filter((id) => !deps.some((d) => d.from === id));
  const targets = p.targets.length ? p.targets : top.filter((id) => !deps.some((d) => d.to === id));
  out.restart.triggers = triggers;
  out.restart.targets = targets;
  for (const from of triggers)
    for (const to of targets) if (from !== to && downstream(to, deps).has(from)) out.edges.push({ from, to, label: 'restart', kind: 'restart', max: p.max });
}

/** An iterative pipeline (`workflow_pattern.iterative`): its stage ids, in order, and where its settings are. */
function pipelineStages(doc: WorkflowDoc): { stages: string[]; iterative: YAMLMap } | null {
  const root = doc.yaml?.contents;
  if (!isMap(root)) return null;
  const wp = valueOf(root, 'workflow_pattern');
  const it = isMap(wp) ? valueOf(wp, 'iterative') : undefined;
  if (!isMap(it)) return null;
  const pipe = valueOf(it, 'pipeline');
  const stages = isMap(pipe) ? valueOf(pipe, 'stages') : undefined;
  const ids = isSeq(stages) ? stages.items.map((s) => (isMap(s) ? valueOf(s, 'agent_id') : undefined)).map((v) => (isScalar(v) ? String(v.value) : '')) : [];
  return { stages: ids.filter(Boolean), iterative: it };
}

/** A pipeline's stages run one after the other as agent nodes; they are drawn, not edited on the canvas. */
function projectPipeline(doc: WorkflowDoc, p: { stages: string[]; iterative: YAMLMap }, out: Projection): void {
  p.stages.forEach((id, i) => {
    out.nodes.push({ key: id, id, title: id, kind: 'agent', parent: null, role: 'node', loop: null });
    if (i > 0) out.edges.push({ from: p.stages[i - 1]!, to: id, label: null, kind: 'next', max: null });
  });
  const policy = restartPolicy(doc, p.iterative) ?? { enabled: false, max: num(valueOf(p.iterative, 'max_iterations')) ?? 3, triggers: [], targets: [] };
  policy.max = num(valueOf(p.iterative, 'max_iterations')) ?? 3;
  restartEdges(out, policy);
}

// From executions to the graph: which graph node an execution belongs to, which pass of every loop the page shows,
// and the state each graph node has in those passes.
import type { GraphContainer, GraphNode, RunGraph } from '../api/types';
import { lastName, staticPath } from './paths';
import type { ExecLive, LoopLive, NodeStatus, RunLive } from './runState';

export interface GraphIndex {
  graph: RunGraph;
  byKey: Map<string, GraphNode>;
  byPath: Map<string, GraphNode>;
  byId: Map<string, GraphNode[]>;
  containers: Map<string, GraphContainer>;
}

export function indexGraph(graph: RunGraph): GraphIndex {
  const byKey = new Map<string, GraphNode>();
  const byPath = new Map<string, GraphNode>();
  const byId = new Map<string, GraphNode[]>();
  for (const n of graph.nodes ?? []) {
    if (!n || typeof n.key !== 'string') continue;
    byKey.set(n.key, n);
    byPath.set(n.path ?? n.key, n);
    const list = byId.get(n.id) ?? [];
    list.push(n);
    byId.set(n.id, list);
  }
  const containers = new Map<string, GraphContainer>();
  for (const c of graph.containers ?? []) if (c && typeof c.key === 'string') containers.set(c.key, c);
  return { graph, byKey, byPath, byId, containers };
}

/**
 * The graph node an execution path (or a loop's path) belongs to. The graph's node paths are event paths without
 * their passes; when the engine puts a position inside a loop the graph draws differently (a pipeline's stages run
 * in `restart[k]`, a loop edge's region in `from->to[k]`), the longest suffix that names a graph node wins, then a
 * node id that only one graph node has.
 */
export function graphNodeFor(index: GraphIndex, path: string): GraphNode | undefined {
  const sp = staticPath(path);
  const exact = index.byPath.get(sp);
  if (exact) return exact;
  const parts = sp.split('.');
  for (let i = 1; i < parts.length; i++) {
    const n = index.byPath.get(parts.slice(i).join('.'));
    if (n) return n;
  }
  const candidates = index.byId.get(lastName(path));
  return candidates && candidates.length === 1 ? candidates[0] : undefined;
}

/** The container drawn for a loop (its body box), found through the loop's node or, for a loop edge, its id. */
export function containerFor(index: GraphIndex, loop: { staticPath: string; node: string }): GraphContainer | undefined {
  for (const c of index.containers.values()) if (c.path === loop.staticPath) return c;
  const loopNode = graphNodeFor(index, loop.staticPath);
  for (const c of index.containers.values()) {
    if (loopNode && (c.node === loopNode.key || c.node === loopNode.path)) return c;
  }
  for (const c of index.containers.values()) {
    if (c.key === loop.staticPath || c.node === loop.staticPath || c.node === loop.node || c.key === loop.node) return c;
  }
  return undefined;
}

/** The pass the page shows for each loop of the workflow: loop's static path → the chosen pass (when chosen). */
export type PassSelection = Record<string, number>;

export interface EffectivePass {
  loopStatic: string;
  instance: LoopLive;
  /** undefined before the loop's first pass */
  iteration: number | undefined;
}

/**
 * For every loop, the instance and pass shown: the chosen pass when that instance has it, else the latest. A nested
 * loop's instance is the one inside the shown pass of each enclosing loop, so picking pass 1 of `outer` shows the
 * `outer[1].inner` instance and its passes.
 */
export function effectivePasses(run: RunLive, selection: PassSelection): Map<string, EffectivePass> {
  const result = new Map<string, EffectivePass>();
  const loops = run.loopOrder.map((p) => run.loops[p]!).filter(Boolean);
  const byDepth = [...loops].sort((a, b) => a.enclosing.length - b.enclosing.length);
  const statics: string[] = [];
  for (const l of byDepth) if (!statics.includes(l.staticPath)) statics.push(l.staticPath);
  for (const st of statics) {
    const candidates = loops.filter((l) => l.staticPath === st && matchesContext(l.enclosing, result));
    const instance = candidates[candidates.length - 1];
    if (!instance) continue;
    const chosen = selection[st];
    const has = chosen !== undefined && instance.passes.some((p) => p.iteration === chosen);
    const latest = instance.passes.length ? instance.passes[instance.passes.length - 1]!.iteration : undefined;
    result.set(st, { loopStatic: st, instance, iteration: has ? chosen : latest });
  }
  return result;
}

function matchesContext(passes: { loopPath: string; loopStatic: string; iteration: number }[], eff: Map<string, EffectivePass>): boolean {
  return passes.every((p) => {
    const e = eff.get(p.loopStatic);
    return e !== undefined && e.instance.path === p.loopPath && e.iteration === p.iteration;
  });
}

export type DisplayStatus = NodeStatus | 'not_run';

export interface NodeView {
  status: DisplayStatus;
  /**
   * set when the shown execution ran in an earlier iteration of a restart loop and was carried over (a restart
   * reruns the target and what follows it; the nodes before keep their results): that iteration
   */
  carriedFrom?: number;
  /** the execution shown, in the shown passes */
  exec?: ExecLive;
  /** every execution of this node in the run (all passes) */
  executions: ExecLive[];
  /** set when this node failed in some pass (not necessarily the shown one): the first failure */
  failure?: ExecLive;
  carried?: ExecLive;
}

const RESTART_CONSTRUCTS = new Set(['pipeline', 'restart']);

/**
 * The earlier restart iteration an execution is carried over from, when it differs from the shown passes only by
 * running in an earlier iteration of a restart loop; undefined otherwise.
 */
function carriedIteration(x: ExecLive, eff: Map<string, EffectivePass>): number | undefined {
  let from: number | undefined;
  for (const p of x.passes) {
    const e = eff.get(p.loopStatic);
    if (e && e.instance.path === p.loopPath && e.iteration === p.iteration) continue;
    if (e && RESTART_CONSTRUCTS.has(e.instance.construct ?? '') && e.iteration !== undefined && p.iteration < e.iteration) {
      from = p.iteration;
      continue;
    }
    return undefined;
  }
  return from;
}

/** Positions the engine makes that are not nodes of the graph (restart decisions). */
function isEngineRecord(path: string): boolean {
  return path.includes('~');
}

/** The state of every graph node in the shown passes. */
export function nodeViews(run: RunLive, index: GraphIndex, selection: PassSelection): Map<string, NodeView> {
  const eff = effectivePasses(run, selection);
  const views = new Map<string, NodeView>();
  for (const n of index.byKey.values()) views.set(n.key, { status: 'pending', executions: [] });
  for (const path of run.execOrder) {
    if (isEngineRecord(path)) continue;
    const x = run.execs[path]!;
    const n = graphNodeFor(index, path);
    if (!n) continue;
    const v = views.get(n.key)!;
    v.executions.push(x);
    if (x.status === 'failed' && !x.error?.allowed && !v.failure) v.failure = x;
    if (matchesContext(x.passes, eff)) v.exec = x;
    else {
      const from = carriedIteration(x, eff);
      if (from !== undefined && (v.carriedFrom === undefined || from >= v.carriedFrom) && !v.exec) {
        v.carried = x;
        v.carriedFrom = from;
      }
    }
  }
  const pausedAt = run.status === 'paused' && run.paused?.path ? graphNodeFor(index, run.paused.path)?.key : undefined;
  for (const [key, v] of views) {
    const node = index.byKey.get(key)!;
    if (v.exec) {
      v.carried = undefined;
      v.carriedFrom = undefined;
    } else if (v.carried) {
      v.exec = v.carried;
    }
    v.status = displayStatus(run, node, v, key === pausedAt, eff);
  }
  return views;
}

function displayStatus(run: RunLive, node: GraphNode, v: NodeView, gateWaiting: boolean, eff: Map<string, EffectivePass>): DisplayStatus {
  if (node.role === 'start') return run.status === 'unknown' ? 'pending' : 'completed';
  if (node.role === 'end') {
    if (run.status === 'completed') return 'completed';
    return run.status === 'running' || run.status === 'paused' || run.status === 'unknown' ? 'pending' : 'not_run';
  }
  const x = v.exec;
  if (x) {
    const p = run.paused?.path;
    const waitsInside = run.status === 'paused' && p && (p === x.path || p.startsWith(x.path + '[') || p.startsWith(x.path + '.'));
    return x.status === 'running' && waitsInside ? 'paused' : x.status;
  }
  // an interactive loop's gate has no execution of its own: the pause is its state
  if (gateWaiting) return 'paused';
  return notRunStatus(run, node, eff);
}

/** A node with no execution in the shown passes: pending while its pass (or the run) can still reach it. */
function notRunStatus(run: RunLive, node: GraphNode, eff: Map<string, EffectivePass>): DisplayStatus {
  const runOver = run.status === 'completed' || run.status === 'failed' || run.status === 'cancelled';
  if (runOver) return 'not_run';
  const segs = (node.path ?? node.key).split('.');
  for (let i = segs.length - 1; i >= 1; i--) {
    const e = eff.get(segs.slice(0, i).join('.'));
    if (!e) continue;
    if (e.iteration === undefined) return 'pending';
    const pass = e.instance.passes.find((p) => p.iteration === e.iteration);
    return pass?.endedAt ? 'not_run' : 'pending';
  }
  return 'pending';
}

/** The failing execution that ended the run, to pin the run's error to a node and pass. */
export function failingExecution(run: RunLive, errorPath?: string | null): ExecLive | undefined {
  if (errorPath && run.execs[errorPath]) return run.execs[errorPath];
  let found: ExecLive | undefined;
  for (const p of run.execOrder) {
    const x = run.execs[p]!;
    // the innermost failure: a loop fails after its body node did, and the body node is the cause
    if (x.status === 'failed' && !x.error?.allowed && (!found || x.passes.length > found.passes.length)) found = x;
  }
  return found;
}

/** A selection that shows the passes an execution ran in (to open the failing pass). */
export function selectionFor(x: ExecLive): PassSelection {
  const sel: PassSelection = {};
  for (const p of x.passes) sel[p.loopStatic] = p.iteration;
  return sel;
}

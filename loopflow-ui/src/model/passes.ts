// What one pass of one loop did: the executions directly in it (nested loops appear as their loop node, and are
// opened on their own), with what each received, produced and changed in `state`.
import type { Execution } from '../api/types';
import { innermostPass } from './paths';
import type { ExecLive, LoopLive, LoopPassLive, RunLive } from './runState';

export interface PassItem {
  path: string;
  node: string;
  kind?: string;
  status: string;
  live?: ExecLive;
  /** the journaled execution (inputs, result, state change), once the server has it */
  record?: Execution;
  /** every journaled execution of this position (a node run again after a resume or a failure) */
  records: Execution[];
  /** set when this item is a loop of its own inside the pass */
  loop?: LoopLive;
}

export interface PassView {
  loop: LoopLive;
  pass?: LoopPassLive;
  iteration: number;
  items: PassItem[];
  /** the keys this pass merged into `state`, in order (a later node's value wins) */
  stateChange: Record<string, unknown>;
  failed: boolean;
}

/** Journaled executions by path; the last one of a path is its latest. */
export function recordsByPath(records: readonly Execution[]): Map<string, Execution[]> {
  const m = new Map<string, Execution[]>();
  for (const r of records) {
    if (!r || typeof r.path !== 'string') continue;
    const list = m.get(r.path) ?? [];
    list.push(r);
    m.set(r.path, list);
  }
  return m;
}

export function passView(run: RunLive, records: Map<string, Execution[]>, loop: LoopLive, iteration: number): PassView {
  const inPass = (path: string) => {
    const p = innermostPass(path);
    return p !== undefined && p.loopPath === loop.path && p.iteration === iteration;
  };
  const items = new Map<string, PassItem>();
  const order: string[] = [];
  const add = (path: string, node: string) => {
    let it = items.get(path);
    if (!it) {
      it = { path, node, status: 'pending', records: [] };
      items.set(path, it);
      order.push(path);
    }
    return it;
  };
  for (const path of run.execOrder) {
    if (!inPass(path)) continue;
    const x = run.execs[path]!;
    const it = add(path, x.node);
    it.live = x;
    it.kind = x.kind;
    it.status = x.status;
  }
  for (const [path, recs] of records) {
    if (!inPass(path)) continue;
    const last = recs[recs.length - 1]!;
    const it = add(path, last.node);
    it.record = last;
    it.records = recs;
    it.kind = it.kind ?? last.kind ?? undefined;
    if (!it.live && last.status) it.status = last.status;
  }
  for (const path of order) {
    const l = run.loops[path];
    if (l) items.get(path)!.loop = l;
  }
  const list = order.map((p) => items.get(p)!);
  const stateChange: Record<string, unknown> = {};
  for (const it of list) {
    const patch = it.record?.state_patch;
    if (patch && typeof patch === 'object') Object.assign(stateChange, patch);
  }
  return {
    loop,
    pass: loop.passes.find((p) => p.iteration === iteration),
    iteration,
    items: list,
    stateChange,
    failed: list.some((i) => i.status === 'failed' && !i.live?.error?.allowed),
  };
}

/**
 * The passes of a loop that hold a failure, to mark them and move between them: a body node that failed, allowed to
 * or not (an allowed failure let the run go on, but the node did fail). The server's pass summaries count the same
 * way, so a pass known from its summary and the same pass loaded are marked alike.
 */
export function failedPasses(run: RunLive, loop: LoopLive): Set<number> {
  const s = new Set<number>();
  for (const p of run.execOrder) {
    const x = run.execs[p]!;
    if (x.status !== 'failed') continue;
    const ref = x.passes.find((r) => r.loopPath === loop.path);
    if (ref) s.add(ref.iteration);
  }
  return s;
}

// A run page holds a window of each loop, not every pass. The event stream's first replay carries each loop
// instance's recent passes (the server's `recent_passes`); the passes before are known from the server's summary of
// the loop (status, times, cost) and loaded one at a time, events and executions, when the page shows them. This
// folds the three into the one run the page draws: the streamed run, the loaded passes, and a summary entry for every
// other pass, so that the navigator, the strip and the graph see every pass while the page holds the details of few.
import type { Execution, PassSummary, RunEvent } from '../api/types';
import { passChain } from './paths';
import { applyEvents, emptyRun, type LoopPassLive, type PassSummaryLive, type RunLive } from './runState';

/** One pass loaded on its own: its events folded apart from the stream's, and its journaled executions. */
export interface LoadedPass {
  loopPath: string;
  iteration: number;
  run: RunLive;
  records: Execution[];
}

export function loadedPass(loopPath: string, iteration: number, events: readonly RunEvent[], records: readonly Execution[]): LoadedPass {
  const list = Array.isArray(events) ? events.filter((e) => e && typeof e === 'object') : [];
  return {
    loopPath,
    iteration,
    run: applyEvents(emptyRun(), list),
    records: Array.isArray(records) ? records.filter((r) => r && typeof r.path === 'string') : [],
  };
}

export const passKey = (loopPath: string, iteration: number) => `${loopPath}[${iteration}]`;

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

function summaryOf(s: PassSummary): PassSummaryLive {
  return {
    status: str(s.status) ?? 'completed',
    durationMs: num(s.duration_ms),
    costUsd: s.cost_usd === null ? null : num(s.cost_usd),
    llmCalls: num(s.llm_calls),
    executions: num(s.executions),
  };
}

/**
 * The streamed run with the loaded passes and the summarised ones. What the stream holds wins (it is the latest);
 * a loaded pass adds the executions and nested loops the stream left out; a summary adds a pass neither has. The
 * same object comes back when there is nothing to add.
 */
export function withPasses(
  run: RunLive,
  loaded: readonly LoadedPass[],
  summaries: ReadonlyMap<string, readonly PassSummary[]>,
  reusedFrom?: string,
): RunLive {
  if (loaded.length === 0 && summaries.size === 0) return run;
  const execs = { ...run.execs };
  const loops = { ...run.loops };
  const execOrder = run.execOrder.slice();
  const loopOrder = run.loopOrder.slice();
  const touched = new Set<string>();
  const passesOf = (path: string): LoopPassLive[] => {
    const l = loops[path]!;
    if (!touched.has(path)) {
      loops[path] = { ...l, passes: l.passes.slice() };
      touched.add(path);
    }
    return loops[path]!.passes;
  };
  for (const p of loaded) {
    for (const path of p.run.execOrder) {
      if (execs[path]) continue;
      execs[path] = p.run.execs[path]!;
      execOrder.push(path);
    }
    for (const path of p.run.loopOrder) {
      const add = p.run.loops[path]!;
      if (!loops[path]) {
        const list = summaries.get(path);
        loops[path] = list ? { ...add, passes: add.passes.map((x) => ended(x, list)) } : add;
        loopOrder.push(path);
        continue;
      }
      // a pass the run knows from a summary alone (a live loop's older pass, let go) takes the loaded one's place
      const have = new Map(loops[path]!.passes.map((x, i) => [x.iteration, i]));
      for (const x of add.passes) {
        const i = have.get(x.iteration);
        if (i === undefined) {
          passesOf(path).push(ended(x, summaries.get(path)));
        } else {
          const known = loops[path]!.passes[i]!;
          if (known.summary) passesOf(path)[i] = { ...x, endedAt: x.endedAt ?? known.endedAt };
        }
      }
    }
  }
  for (const [path, list] of summaries) {
    if (!loops[path] || list.length === 0) continue;
    const have = new Set(loops[path]!.passes.map((x) => x.iteration));
    const add: LoopPassLive[] = [];
    for (const s of list) {
      const iteration = num(s?.pass);
      if (iteration === undefined || have.has(iteration)) continue;
      have.add(iteration);
      add.push({
        iteration,
        startedAt: str(s.started_at),
        endedAt: str(s.finished_at) ?? str(s.started_at),
        summary: summaryOf(s),
        reusedFrom: s.reused ? (reusedFrom ?? 'origin') : undefined,
      });
    }
    if (add.length) passesOf(path).push(...add);
  }
  for (const path of touched) loops[path]!.passes.sort((a, b) => a.iteration - b.iteration);
  return { ...run, execs, loops, execOrder, loopOrder };
}

/**
 * A loaded pass of a sequential loop has no end of its own (the next pass's start ends it, and that was not loaded):
 * the summary's end is its end.
 */
function ended(p: LoopPassLive, list: readonly PassSummary[] | undefined): LoopPassLive {
  if (p.endedAt !== undefined || !list) return p;
  const s = list.find((x) => x?.pass === p.iteration);
  const end = s ? str(s.finished_at) : undefined;
  return end ? { ...p, endedAt: end } : p;
}

/**
 * The passes (outermost first) a path lies in whose details the run lacks: known from a summary only, or not at all.
 * Loading them, in order, brings the path's execution.
 */
export function missingPasses(run: RunLive, path: string): { loopPath: string; iteration: number }[] {
  const out: { loopPath: string; iteration: number }[] = [];
  for (const ref of passChain(path)) {
    const l = run.loops[ref.loopPath];
    const p = l?.passes.find((x) => x.iteration === ref.iteration);
    if (!p || p.summary) out.push({ loopPath: ref.loopPath, iteration: ref.iteration });
  }
  return out;
}

/** True when the pass is shown from the server's summary alone: its details must be loaded. */
export function isSummaryOnly(run: RunLive, loopPath: string, iteration: number): boolean {
  const p = run.loops[loopPath]?.passes.find((x) => x.iteration === iteration);
  return Boolean(p?.summary);
}

/** The executions of the stream's window and of the loaded passes, each path's rows once, in the order read. */
export function allRecords(window: readonly Execution[], loaded: readonly LoadedPass[]): Execution[] {
  if (loaded.length === 0) return window as Execution[];
  const seen = new Set(window.map((r) => r.path));
  const out = window.slice();
  for (const p of loaded) {
    const mine = p.records.filter((r) => !seen.has(r.path));
    for (const r of mine) out.push(r);
    for (const r of mine) seen.add(r.path);
  }
  return out;
}

/**
 * The run with the details of each loop's older passes let go: when a loop instance holds the details of more than
 * `keep + slack` passes (a live loop, watched for long), the ended passes before its last `keep` keep only a summary
 * (status, cost, executions), their executions and nested loops dropped, to be loaded again if shown. A chosen pass
 * (`pinned`, as `loop[k]`) keeps its details. The same object comes back when nothing is let go, so a live page's
 * work per batch stays bounded by the window, not by how long it has watched.
 */
export function pruned(run: RunLive, keep: number, slack: number, pinned: ReadonlySet<string> = new Set()): RunLive {
  const drop = new Set<string>();
  for (const path of run.loopOrder) {
    const l = run.loops[path]!;
    const detailed = l.passes.filter((p) => !p.summary);
    if (detailed.length <= keep + slack) continue;
    for (const p of detailed.slice(0, detailed.length - keep)) {
      const key = passKey(l.path, p.iteration);
      if (p.endedAt !== undefined && !pinned.has(key)) drop.add(key);
    }
  }
  if (drop.size === 0) return run;
  const inDropped = (chain: readonly { loopPath: string; iteration: number }[]) => chain.find((r) => drop.has(passKey(r.loopPath, r.iteration)));
  const summary = new Map<string, PassSummaryLive>();
  const execs: RunLive['execs'] = {};
  const execOrder: string[] = [];
  for (const path of run.execOrder) {
    const x = run.execs[path]!;
    const ref = inDropped(x.passes);
    if (!ref) {
      execs[path] = x;
      execOrder.push(path);
      continue;
    }
    const key = passKey(ref.loopPath, ref.iteration);
    const s = summary.get(key) ?? { status: 'completed', executions: 0 };
    s.executions = (s.executions ?? 0) + 1;
    // a pass holds a failure when a node in it failed, allowed or not (as the server's summary counts it)
    if (x.status === 'failed') s.status = 'failed';
    if (typeof x.costUsd === 'number') s.costUsd = (s.costUsd ?? 0) + x.costUsd;
    summary.set(key, s);
  }
  const loops: RunLive['loops'] = {};
  const loopOrder: string[] = [];
  for (const path of run.loopOrder) {
    const l = run.loops[path]!;
    if (inDropped(l.enclosing)) continue;
    const passes = l.passes.some((p) => drop.has(passKey(l.path, p.iteration)))
      ? l.passes.map((p) => {
          const key = passKey(l.path, p.iteration);
          if (!drop.has(key)) return p;
          const s = summary.get(key) ?? { status: 'completed', executions: 0 };
          return { ...p, summary: { ...s, durationMs: durationOf(p.startedAt, p.endedAt) } };
        })
      : l.passes;
    loops[path] = passes === l.passes ? l : { ...l, passes };
    loopOrder.push(path);
  }
  return { ...run, execs, execOrder, loops, loopOrder };
}

function durationOf(from?: string, to?: string): number | undefined {
  const a = from ? Date.parse(from) : NaN;
  const b = to ? Date.parse(to) : NaN;
  return Number.isFinite(a) && Number.isFinite(b) && b >= a ? b - a : undefined;
}

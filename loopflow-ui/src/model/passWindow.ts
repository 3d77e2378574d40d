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
      const have = new Set(loops[path]!.passes.map((x) => x.iteration));
      const missing = add.passes.filter((x) => !have.has(x.iteration));
      if (missing.length) passesOf(path).push(...missing.map((x) => ended(x, summaries.get(path))));
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

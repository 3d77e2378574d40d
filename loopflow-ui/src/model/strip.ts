// The strip of a loop's passes: every pass's status, duration and cost at one glance, however many there are. A
// strip of N passes drawn W pixels wide puts ceil(N / W) passes in each column; a column shows the worst status
// among its passes, its longest duration and its summed cost, so a failure or a slow pass is never averaged away.
import { durationBetween } from './format';
import type { LoopLive, RunLive } from './runState';

export type StripStatus = 'completed' | 'failed' | 'running' | 'cancelled' | 'paused' | 'skipped';

export interface StripPass {
  iteration: number;
  status: StripStatus;
  durationMs?: number;
  costUsd?: number;
  reused: boolean;
}

export interface StripColumn {
  /** the first and last pass of the column (iterations) */
  from: number;
  to: number;
  /** index of the first pass of the column in the strip's list */
  index: number;
  count: number;
  status: StripStatus;
  durationMs?: number;
  costUsd?: number;
  reused: boolean;
}

const RANK: Record<StripStatus, number> = { completed: 0, skipped: 0, running: 1, paused: 2, cancelled: 3, failed: 4 };

function stripStatus(s: string | undefined): StripStatus {
  switch (s) {
    case 'failed':
    case 'running':
    case 'cancelled':
    case 'paused':
    case 'skipped':
      return s;
    default:
      return 'completed';
  }
}

/**
 * Every pass of a loop instance as the strip draws it. `failed` holds the passes with a failure the run's events
 * show; a pass known from a summary alone brings its own status, duration and cost. Costs of streamed passes are
 * summed from their executions in one walk.
 */
export function stripPasses(run: RunLive, loop: LoopLive, failed: ReadonlySet<number>): StripPass[] {
  const cost = new Map<number, number>();
  const prefix = loop.path + '[';
  for (const path of run.execOrder) {
    if (!path.startsWith(prefix)) continue;
    const x = run.execs[path]!;
    const ref = x.passes.find((r) => r.loopPath === loop.path);
    if (!ref || typeof x.costUsd !== 'number') continue;
    cost.set(ref.iteration, (cost.get(ref.iteration) ?? 0) + x.costUsd);
  }
  const running = run.status === 'running';
  return loop.passes.map((p) => {
    const s = p.summary;
    const status: StripStatus = failed.has(p.iteration)
      ? 'failed'
      : s
        ? stripStatus(s.status)
        : !p.endedAt && running
          ? 'running'
          : 'completed';
    return {
      iteration: p.iteration,
      status,
      durationMs: durationBetween(p.startedAt, p.endedAt) ?? s?.durationMs,
      costUsd: s ? (s.costUsd ?? undefined) : cost.get(p.iteration),
      reused: Boolean(p.reusedFrom),
    };
  });
}

/** The strip's columns for `width` pixels: one pass per column while they fit, else groups of consecutive passes. */
export function stripColumns(passes: readonly StripPass[], width: number): StripColumn[] {
  const n = passes.length;
  if (n === 0 || width < 1) return [];
  const per = Math.max(1, Math.ceil(n / Math.floor(width)));
  const out: StripColumn[] = [];
  for (let i = 0; i < n; i += per) {
    const first = passes[i]!;
    const col: StripColumn = {
      from: first.iteration,
      to: first.iteration,
      index: i,
      count: 0,
      status: first.status,
      reused: true,
    };
    for (let j = i; j < Math.min(n, i + per); j++) {
      const p = passes[j]!;
      col.to = p.iteration;
      col.count++;
      if (RANK[p.status] > RANK[col.status]) col.status = p.status;
      if (p.durationMs !== undefined) col.durationMs = Math.max(col.durationMs ?? 0, p.durationMs);
      if (p.costUsd !== undefined) col.costUsd = (col.costUsd ?? 0) + p.costUsd;
      col.reused &&= p.reused;
    }
    out.push(col);
  }
  return out;
}

/** The column a horizontal position (0..width) falls in. */
export function columnAt(columns: readonly StripColumn[], x: number, width: number): StripColumn | undefined {
  if (columns.length === 0 || width <= 0) return undefined;
  const i = Math.min(columns.length - 1, Math.max(0, Math.floor((x / width) * columns.length)));
  return columns[i];
}

// A fork's page shows its origin's executions that it reuses. The fork's event stream holds only what the fork
// executed itself; the executions it reuses come from `GET /api/runs/{id}/executions`, each with `reused_from`. This
// adds them to the run folded from events: their executions (before the fork's own), the passes they ran in, and the
// loop instances that ran only in the origin, each marked with the run it was reused from.
import type { Execution } from '../api/types';
import { lastName, passChain, staticPath } from './paths';
import type { ExecLive, LoopLive, NodeStatus, RunLive } from './runState';

const STATUSES = new Set<NodeStatus>(['pending', 'running', 'retrying', 'completed', 'failed', 'skipped', 'cancelled', 'paused']);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** The run with the executions it reuses from its origin; the same object when it reuses none. */
export function withReused(run: RunLive, records: readonly Execution[]): RunLive {
  const reused = records.filter((r) => r && typeof r.path === 'string' && r.path && str(r.reused_from));
  if (reused.length === 0) return run;
  const execs = { ...run.execs };
  const loops = { ...run.loops };
  const order: string[] = [];
  const newLoops: string[] = [];
  for (const r of reused) {
    const from = r.reused_from as string;
    // a position the fork executed again (a node point) is shown as the fork ran it
    if (!run.execs[r.path] && !execs[r.path]) {
      const status = STATUSES.has(r.status as NodeStatus) ? (r.status as NodeStatus) : 'completed';
      const x: ExecLive = {
        path: r.path,
        staticPath: staticPath(r.path),
        node: str(r.node) ?? lastName(r.path),
        kind: str(r.kind),
        status,
        attempt: num(r.attempts) ?? 1,
        startedAt: str(r.started_at),
        finishedAt: str(r.finished_at),
        durationMs: num(r.duration_ms),
        error: r.error ? { code: str(r.error.code), message: str(r.error.message) } : undefined,
        passes: passChain(r.path),
        llmCalls: [],
        steps: [],
        streamText: '',
        streamReply: 0,
        inputTokens: num(r.usage?.input_tokens),
        outputTokens: num(r.usage?.output_tokens),
        costUsd: r.usage?.cost_usd ?? undefined,
        firstSeq: 0,
        reusedFrom: from,
      };
      execs[r.path] = x;
      order.push(r.path);
    }
    for (const ref of passChain(r.path)) {
      let l = loops[ref.loopPath];
      if (!l) {
        const made: LoopLive = {
          path: ref.loopPath,
          staticPath: ref.loopStatic,
          node: lastName(ref.loopPath),
          startedAt: str(r.started_at),
          passes: [],
          enclosing: passChain(ref.loopPath),
          loopBacks: [],
          firstSeq: 0,
          reusedFrom: from,
        };
        newLoops.push(ref.loopPath);
        l = made;
      } else if (l === run.loops[ref.loopPath]) {
        l = { ...l };
      }
      const i = l.passes.findIndex((p) => p.iteration === ref.iteration);
      const end = str(r.finished_at);
      if (i < 0) {
        l.passes = [...l.passes, { iteration: ref.iteration, startedAt: str(r.started_at), endedAt: end, reusedFrom: from }].sort(
          (a, b) => a.iteration - b.iteration,
        );
      } else if (l.passes[i]!.reusedFrom && end && (!l.passes[i]!.endedAt || end > l.passes[i]!.endedAt!)) {
        l.passes = l.passes.map((p, j) => (j === i ? { ...p, endedAt: end } : p));
      }
      loops[ref.loopPath] = l;
    }
  }
  // a loop that ran only in the origin ended there: its own execution says how, when its result has it
  for (const p of newLoops) {
    const own = execs[p];
    const rec = reused.filter((r) => r.path === p).pop();
    const result = rec?.result;
    if (own && result && (str(result.exit_reason) || num(result.count) !== undefined)) {
      loops[p] = { ...loops[p]!, construct: own.kind, endedAt: own.finishedAt, completed: { iterationsRun: num(result.count), exitReason: str(result.exit_reason) } };
    } else if (own) {
      loops[p] = { ...loops[p]!, construct: own.kind };
    }
  }
  const added = new Set(order);
  return {
    ...run,
    execs,
    loops,
    execOrder: [...order, ...run.execOrder.filter((p) => !added.has(p))],
    loopOrder: [...newLoops, ...run.loopOrder],
  };
}

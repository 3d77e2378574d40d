// The timeline: one row per node execution and per loop pass, passes nested under their loop and executions under
// their pass, in the order they began. Times are milliseconds from the run's start.
import type { EffectivePass, PassSelection } from './graphMap';
import { passPath } from './paths';
import type { ExecLive, LoopLive, RunLive } from './runState';
import { parseTime } from './time';

/** The passes of each loop instance the timeline draws: the latest ones, and any chosen in the navigator. */
export const TIMELINE_PASSES = 20;

export interface TimelineRow {
  key: string;
  /** `gap`: passes of a loop not drawn (more than TIMELINE_PASSES), in one row that says how many */
  type: 'exec' | 'loop' | 'pass' | 'gap';
  depth: number;
  label: string;
  path: string;
  status: string;
  start: number;
  end: number;
  running: boolean;
  exec?: ExecLive;
  loop?: LoopLive;
  iteration?: number;
}

export interface Timeline {
  rows: TimelineRow[];
  /** the span shown, in ms from the run's start */
  span: number;
}

/**
 * The rows of the timeline. A loop draws its last TIMELINE_PASSES passes and the chosen ones (`chosen`: pass row
 * keys); the passes between are one `gap` row, so a loop of thousands of passes is a few dozen rows.
 */
export function timelineRows(run: RunLive, now: number, chosen?: ReadonlySet<string>): Timeline {
  const times: number[] = [];
  for (const x of Object.values(run.execs)) {
    const t = parseTime(x.startedAt) ?? parseTime(x.finishedAt);
    if (t !== undefined) times.push(t);
  }
  for (const l of Object.values(run.loops)) {
    const t = parseTime(l.startedAt) ?? parseTime(l.passes[0]?.startedAt);
    if (t !== undefined) times.push(t);
  }
  const t0 = parseTime(run.startedAt) ?? (times.length ? times.reduce((a, b) => Math.min(a, b)) : now);
  const over = run.status === 'completed' || run.status === 'failed' || run.status === 'cancelled' || run.status === 'paused';
  // a running run ends "now", but never before its latest event: the page's clock ticks once a second
  const latest = parseTime(run.lastAt);
  const endOfRun = over
    ? (parseTime(run.finishedAt) ?? parseTime(run.paused?.at) ?? latest ?? now)
    : Math.max(now, latest ?? now);
  const rows: TimelineRow[] = [];
  let span = Math.max(0, endOfRun - t0);

  const rel = (t: number | undefined) => (t === undefined ? undefined : Math.max(0, t - t0));
  const push = (r: TimelineRow) => {
    rows.push(r);
    span = Math.max(span, r.end);
  };

  // Entries inside each pass (or at the top level, key ''), by when they began: grouped in one walk.
  const byPass = new Map<string, { seq: number; exec?: ExecLive; loop?: LoopLive }[]>();
  const entry = (key: string, e: { seq: number; exec?: ExecLive; loop?: LoopLive }) => {
    const list = byPass.get(key);
    if (list) list.push(e);
    else byPass.set(key, [e]);
  };
  for (const p of run.execOrder) {
    const x = run.execs[p]!;
    if (x.path.includes('~')) continue;
    const inner = x.passes[x.passes.length - 1];
    entry(inner ? passPath(inner.loopPath, inner.iteration) : '', { seq: x.firstSeq, exec: x });
  }
  for (const p of run.loopOrder) {
    const l = run.loops[p]!;
    if (run.execs[l.path]) continue; // drawn under its loop node's execution
    const inner = l.enclosing[l.enclosing.length - 1];
    entry(inner ? passPath(inner.loopPath, inner.iteration) : '', { seq: l.firstSeq, loop: l });
  }
  for (const list of byPass.values()) list.sort((a, b) => a.seq - b.seq);
  const entries = (passKey: string | undefined) => byPass.get(passKey ?? '') ?? [];

  const execEnd = (x: ExecLive, start: number) => {
    const f = rel(parseTime(x.finishedAt));
    if (f !== undefined) return f;
    if (x.durationMs !== undefined) return start + x.durationMs;
    const running = x.status === 'running' || x.status === 'retrying' || x.status === 'paused';
    return running ? Math.max(start, endOfRun - t0) : start;
  };

  const passes = (l: LoopLive, depth: number) => {
    const firstDrawn = Math.max(0, l.passes.length - TIMELINE_PASSES);
    let gap: { from: number; to: number; count: number; start: number; end: number } | undefined;
    const closeGap = () => {
      if (!gap) return;
      push({
        key: `gap:${l.path}:${gap.from}`,
        type: 'gap',
        depth,
        label: gap.count === 1 ? `pass ${gap.from} not drawn` : `${gap.count} passes (${gap.from}–${gap.to}) not drawn`,
        path: l.path,
        status: 'completed',
        start: gap.start,
        end: Math.max(gap.start, gap.end),
        running: false,
        loop: l,
      });
      gap = undefined;
    };
    for (let i = 0; i < l.passes.length; i++) {
      const p = l.passes[i]!;
      const start = rel(parseTime(p.startedAt)) ?? 0;
      const key = passPath(l.path, p.iteration);
      if (i < firstDrawn && !chosen?.has('pass:' + key)) {
        const end = rel(parseTime(p.endedAt)) ?? start;
        if (gap) {
          gap.to = p.iteration;
          gap.count++;
          gap.end = Math.max(gap.end, end);
        } else gap = { from: p.iteration, to: p.iteration, count: 1, start, end };
        continue;
      }
      closeGap();
      const before = rows.length;
      const row: TimelineRow = {
        key: 'pass:' + key,
        type: 'pass',
        depth,
        label: `pass ${p.iteration}${l.max ? ' of ' + l.max : ''}`,
        path: key,
        status: p.endedAt ? 'completed' : 'running',
        start,
        end: start,
        running: !p.endedAt,
        loop: l,
        iteration: p.iteration,
      };
      push(row);
      walk(key, depth + 1);
      let end = rel(parseTime(p.endedAt));
      // an iterator's items overlap: an item's pass ends with its last execution
      if (l.construct === 'iterator' || end === undefined) {
        const childEnds = rows.slice(before + 1).map((r) => r.end);
        const childEnd = childEnds.length ? Math.max(...childEnds) : undefined;
        end = !p.endedAt ? Math.max(start, endOfRun - t0) : (childEnd ?? end ?? start);
      }
      row.end = Math.max(start, end);
      if (rows.slice(before + 1).some((r) => r.status === 'failed' && r.depth === depth + 1)) row.status = 'failed';
      span = Math.max(span, row.end);
    }
    closeGap();
  };

  const walk = (passKey: string | undefined, depth: number) => {
    for (const e of entries(passKey)) {
      if (e.exec) {
        const x = e.exec;
        const start = rel(parseTime(x.startedAt)) ?? rel(parseTime(x.finishedAt)) ?? 0;
        const end = execEnd(x, start);
        push({
          key: 'exec:' + x.path,
          type: 'exec',
          depth,
          label: x.node,
          path: x.path,
          status: x.status,
          start,
          end: Math.max(start, end),
          running: x.status === 'running' || x.status === 'retrying',
          exec: x,
        });
        const l = run.loops[x.path];
        if (l) passes(l, depth + 1);
      } else if (e.loop) {
        const l = e.loop;
        const start = rel(parseTime(l.startedAt)) ?? rel(parseTime(l.passes[0]?.startedAt)) ?? 0;
        const endT = rel(parseTime(l.endedAt));
        const row: TimelineRow = {
          key: 'loop:' + l.path,
          type: 'loop',
          depth,
          label: l.node,
          path: l.path,
          status: l.completed ? (isFailure(l.completed.exitReason) ? 'failed' : 'completed') : 'running',
          start,
          end: endT ?? Math.max(start, endOfRun - t0),
          running: !l.completed,
          loop: l,
        };
        push(row);
        passes(l, depth + 1);
      }
    }
  };

  walk(undefined, 0);
  return { rows, span };
}

function isFailure(exitReason: string | undefined): boolean {
  return exitReason === 'error' || exitReason === 'budget' || exitReason === 'cancelled';
}

/**
 * The pass rows to highlight: for every loop whose pass was chosen in the navigator, the pass shown (a nested loop's
 * choice lands on its instance inside the enclosing loop's shown pass). Keys are pass row keys.
 */
export function chosenPassKeys(effective: Map<string, EffectivePass>, selection: PassSelection): Set<string> {
  const keys = new Set<string>();
  for (const [st, e] of effective) {
    if (selection[st] === undefined || e.iteration === undefined) continue;
    keys.add('pass:' + passPath(e.instance.path, e.iteration));
  }
  return keys;
}

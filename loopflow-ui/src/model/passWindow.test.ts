import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../api/types';
import { effectivePasses } from './graphMap';
import { allRecords, isSummaryOnly, loadedPass, missingPasses, withPasses } from './passWindow';
import { applyEvents, emptyRun } from './runState';
import { stripColumns, stripPasses } from './strip';
import { TIMELINE_PASSES, timelineRows } from './timeline';

const at = (ms: number) => new Date(Date.UTC(2026, 10, 28, 12, 0, 0, ms)).toISOString();

/** A top-level loop `refine` with passes from..to, each with one `draft` node; seq numbers go up from `seq`. */
function loopEvents(from: number, to: number, seq = 10, extra: Partial<RunEvent> = {}): RunEvent[] {
  const out: RunEvent[] = [];
  for (let k = from; k <= to; k++) {
    out.push({ type: 'loop.iteration', seq: seq++, at: at(k * 10), node: 'refine', path: 'refine', construct: 'loop_group', iteration: k, max: 1000, ...extra });
    out.push({ type: 'node.started', seq: seq++, at: at(k * 10 + 1), node: 'draft', path: `refine[${k}].draft`, kind: 'transform' });
    out.push({ type: 'node.completed', seq: seq++, at: at(k * 10 + 5), node: 'draft', path: `refine[${k}].draft`, kind: 'transform', cost_usd: 0.01 });
  }
  return out;
}

function windowed(): ReturnType<typeof applyEvents> {
  // the stream's first replay: the run, the loop's node, and only passes 981..1000 of 1000
  return applyEvents(emptyRun(), [
    { type: 'run.started', seq: 1, at: at(0), run_id: 'r', workflow: 'w' },
    { type: 'node.started', seq: 2, at: at(1), node: 'refine', path: 'refine', kind: 'loop_group' },
    { type: 'loop.started', seq: 3, at: at(2), node: 'refine', path: 'refine', construct: 'loop_group', max: 1000 },
    ...loopEvents(981, 1000, 5000),
  ]);
}

const summaries = (n: number, failed = new Set<number>()) =>
  Array.from({ length: n }, (_, i) => ({
    pass: i + 1,
    status: failed.has(i + 1) ? 'failed' : 'completed',
    started_at: at((i + 1) * 10),
    finished_at: at((i + 1) * 10 + 6),
    duration_ms: 6,
    cost_usd: 0.01,
    executions: 1,
  }));

describe('a run page holds a window of each loop', () => {
  it('adds a summary entry for every pass the stream left out, keeping the streamed ones', () => {
    const own = windowed();
    const merged = withPasses(own, [], new Map([['refine', summaries(1000)]]));
    const passes = merged.loops['refine']!.passes;
    expect(passes.map((p) => p.iteration)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    expect(passes.filter((p) => p.summary).length).toBe(980);
    expect(passes[999]!.summary).toBeUndefined();
    expect(isSummaryOnly(merged, 'refine', 500)).toBe(true);
    expect(isSummaryOnly(merged, 'refine', 990)).toBe(false);
    // the streamed run itself is untouched
    expect(own.loops['refine']!.passes.length).toBe(20);
  });

  it('shows a chosen pass outside the window, and its execution once the pass is loaded', () => {
    const own = windowed();
    const sums = new Map([['refine', summaries(1000)]]);
    const before = withPasses(own, [], sums);
    expect(effectivePasses(before, { refine: 500 }).get('refine')?.iteration).toBe(500);
    expect(before.execs['refine[500].draft']).toBeUndefined();
    const p = loadedPass('refine', 500, loopEvents(500, 500, 1500), [{ node: 'draft', path: 'refine[500].draft', status: 'completed' }]);
    const after = withPasses(own, [p], sums);
    expect(after.execs['refine[500].draft']?.status).toBe('completed');
    expect(isSummaryOnly(after, 'refine', 500)).toBe(false);
    expect(allRecords([], [p]).map((r) => r.path)).toEqual(['refine[500].draft']);
  });

  it('never lets a loaded pass replace what the stream holds', () => {
    const own = windowed();
    const stale = loadedPass('refine', 990, loopEvents(990, 990, 1).map((e) => (e.type === 'node.completed' ? { ...e, type: 'node.failed' } : e)), []);
    const merged = withPasses(own, [stale], new Map());
    expect(merged.execs['refine[990].draft']?.status).toBe('completed');
  });

  it('names the passes to load for a path outside the window, outermost first', () => {
    const own = windowed();
    expect(missingPasses(own, 'refine[3].draft')).toEqual([{ loopPath: 'refine', iteration: 3 }]);
    expect(missingPasses(own, 'refine[999].draft')).toEqual([]);
    expect(missingPasses(own, 'outer[2].inner[7].x')).toEqual([
      { loopPath: 'outer', iteration: 2 },
      { loopPath: 'outer[2].inner', iteration: 7 },
    ]);
  });

  it('ignores hostile or broken pass data instead of failing', () => {
    const own = windowed();
    const bad = [{ pass: 'x' }, { pass: null }, {}, { pass: 2, status: '<img src=x onerror=alert(1)>' }] as never[];
    const merged = withPasses(own, [loadedPass('refine', 1, null as never, null as never)], new Map([['refine', bad]]));
    expect(merged.loops['refine']!.passes[0]!.iteration).toBe(2);
    expect(stripPasses(merged, merged.loops['refine']!, new Set())[0]!.status).toBe('completed');
  });
});

describe('the strip of a loop', () => {
  it('puts every pass in a column, or groups when there are more passes than pixels, never hiding a failure', () => {
    const merged = withPasses(windowed(), [], new Map([['refine', summaries(1000, new Set([437]))]]));
    const passes = stripPasses(merged, merged.loops['refine']!, new Set());
    expect(passes).toHaveLength(1000);
    expect(passes[436]!.status).toBe('failed');
    expect(passes[999]!.costUsd).toBeCloseTo(0.01);
    const wide = stripColumns(passes, 2000);
    expect(wide).toHaveLength(1000);
    const narrow = stripColumns(passes, 300);
    expect(narrow.length).toBeLessThanOrEqual(300);
    expect(narrow.reduce((n, c) => n + c.count, 0)).toBe(1000);
    const withFailure = narrow.find((c) => c.from <= 437 && c.to >= 437)!;
    expect(withFailure.status).toBe('failed');
    expect(narrow.filter((c) => c.status === 'failed')).toHaveLength(1);
    expect(stripColumns([], 300)).toEqual([]);
  });
});

describe('the timeline of a long loop', () => {
  it('draws the latest passes and the chosen one, and says how many it left out', () => {
    const run = applyEvents(emptyRun(), [
      { type: 'run.started', seq: 1, at: at(0) },
      { type: 'loop.started', seq: 2, at: at(1), node: 'refine', path: 'refine', construct: 'loop_group' },
      ...loopEvents(1, 300, 3),
    ]);
    const t = timelineRows(run, Date.now(), new Set(['pass:refine[7]']));
    const passRows = t.rows.filter((r) => r.type === 'pass').map((r) => r.iteration);
    expect(passRows).toEqual([7, ...Array.from({ length: TIMELINE_PASSES }, (_, i) => 300 - TIMELINE_PASSES + 1 + i)]);
    const gaps = t.rows.filter((r) => r.type === 'gap').map((r) => r.label);
    expect(gaps).toEqual(['6 passes (1–6) not drawn', '273 passes (8–280) not drawn']);
  });
});

describe('a loaded pass', () => {
  it('ends when its summary says, as the next pass that would end it was not loaded', () => {
    const own = windowed();
    const p = loadedPass('refine', 500, loopEvents(500, 500, 1500), []);
    expect(p.run.loops['refine']!.passes[0]!.endedAt).toBeUndefined();
    const merged = withPasses(own, [p], new Map([['refine', summaries(1000)]]));
    const pass = merged.loops['refine']!.passes.find((x) => x.iteration === 500)!;
    expect(pass.endedAt).toBe(at(5006));
    const strip = stripPasses(merged, merged.loops['refine']!, new Set());
    expect(strip[499]!.durationMs).toBe(6);
  });
});

describe('a live loop watched for long', () => {
  it('lets go of the details of its older passes, keeping a summary of each and the chosen one', async () => {
    const { pruned } = await import('./passWindow');
    const run = applyEvents(emptyRun(), [
      { type: 'run.started', seq: 1, at: at(0) },
      { type: 'loop.started', seq: 2, at: at(1), node: 'refine', path: 'refine', construct: 'loop_group' },
      ...loopEvents(1, 100, 3),
    ]);
    expect(pruned(run, 20, 100)).toBe(run);
    const p = pruned(run, 20, 40, new Set(['refine[7]']));
    const passes = p.loops['refine']!.passes;
    expect(passes).toHaveLength(100);
    expect(passes.filter((x) => !x.summary).map((x) => x.iteration)).toEqual([7, ...Array.from({ length: 20 }, (_, i) => 81 + i)]);
    expect(passes[0]!.summary).toMatchObject({ status: 'completed', executions: 1, costUsd: 0.01 });
    expect(p.execs['refine[1].draft']).toBeUndefined();
    expect(p.execs['refine[7].draft']).toBeDefined();
    expect(p.execOrder).toHaveLength(21);
    // the running pass is never let go, and pruning again lets go of nothing more
    expect(pruned(p, 20, 40, new Set(['refine[7]']))).toBe(p);
    expect(isSummaryOnly(p, 'refine', 3)).toBe(true);
    const strip = stripPasses(p, p.loops['refine']!, new Set());
    expect(strip.slice(0, 99).every((x) => x.status === 'completed')).toBe(true);
    expect(strip[99]!.status).toBe('running');
  });
});

describe('a pass let go and shown again', () => {
  it('is no longer summary-only once loaded, so its details show (regression: it stayed "loading" for ever)', async () => {
    const { pruned } = await import('./passWindow');
    const run = applyEvents(emptyRun(), [
      { type: 'run.started', seq: 1, at: at(0) },
      { type: 'loop.started', seq: 2, at: at(1), node: 'refine', path: 'refine', construct: 'loop_group' },
      ...loopEvents(1, 100, 3),
    ]);
    const p = pruned(run, 20, 40);
    expect(isSummaryOnly(p, 'refine', 10)).toBe(true);
    const merged = withPasses(p, [loadedPass('refine', 10, loopEvents(10, 10, 5000), [])], new Map());
    expect(isSummaryOnly(merged, 'refine', 10)).toBe(false);
    expect(merged.execs['refine[10].draft']?.status).toBe('completed');
    expect(merged.loops['refine']!.passes.find((x) => x.iteration === 10)!.endedAt).toBeDefined();
  });
});

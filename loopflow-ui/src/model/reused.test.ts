import { describe, expect, it } from 'vitest';
import type { Execution, RunEvent } from '../api/types';
import { effectivePasses } from './graphMap';
import { passView, recordsByPath } from './passes';
import { withReused } from './reused';
import { applyEvents, emptyRun } from './runState';

const at = (s: number) => `2026-11-28T12:00:${String(s).padStart(2, '0')}Z`;
const loops = (iteration: number) => [{ loopId: 'refine', iteration }];

/** A fork at refine:2 as the server shows it: its own events start with pass 2; its executions start with pass 1, reused. */
function fork() {
  const events: RunEvent[] = [
    { type: 'run.started', seq: 9, at: at(10), run_id: 'f1', workflow: 'fork-draft' },
    { type: 'node.started', seq: 10, at: at(10), node: 'refine', path: 'refine', kind: 'while_loop' },
    { type: 'loop.iteration', seq: 11, at: at(10), node: 'refine', path: 'refine', construct: 'while_loop', iteration: 2, max: 4 },
    { type: 'node.started', seq: 12, at: at(11), node: 'step', path: 'refine[2].step', loops: loops(2), kind: 'script' },
    { type: 'node.completed', seq: 13, at: at(11), node: 'step', path: 'refine[2].step', loops: loops(2), kind: 'script' },
  ];
  const rec = (path: string, extra: Partial<Execution> = {}): Execution => ({
    node: path.split('.').pop()!,
    path,
    kind: 'script',
    status: 'completed',
    started_at: at(1),
    finished_at: at(2),
    result: { output: path },
    ...extra,
  });
  const records: Execution[] = [
    rec('first[1].a', { reused_from: 'o1', result: { output: 'x' } }),
    rec('first', { reused_from: 'o1', kind: 'loop_group', result: { count: 1, exit_reason: 'max_iterations' } }),
    rec('refine[1].step', { reused_from: 'o1', state_patch: { count: 1 } }),
    rec('refine[1].write', { reused_from: 'o1', kind: 'transform', finished_at: at(3) }),
    rec('refine[2].step', { started_at: at(11), finished_at: at(11) }),
  ];
  return { run: applyEvents(emptyRun(), events), records };
}

describe('a fork’s reused executions', () => {
  it('adds the reused passes to the loops the fork continues, marked with the origin', () => {
    const { run, records } = fork();
    expect(run.loops['refine']!.passes.map((p) => p.iteration)).toEqual([2]);
    const shown = withReused(run, records);
    const refine = shown.loops['refine']!;
    expect(refine.passes.map((p) => [p.iteration, p.reusedFrom ?? null])).toEqual([
      [1, 'o1'],
      [2, null],
    ]);
    expect(refine.passes[0]!.endedAt).toBe(at(3));
    expect(refine.construct).toBe('while_loop');
    expect(shown.execs['refine[1].write']!.reusedFrom).toBe('o1');
    expect(shown.execs['refine[2].step']!.reusedFrom).toBeUndefined();
    // reused first, in journal order, then the fork's own
    expect(shown.execOrder).toEqual(['first[1].a', 'first', 'refine[1].step', 'refine[1].write', 'refine', 'refine[2].step']);
    // the run folded from events is not changed
    expect(run.loops['refine']!.passes).toHaveLength(1);
    expect(run.execs['refine[1].step']).toBeUndefined();
  });

  it('adds a loop that ran only in the origin, with how it ended', () => {
    const { run, records } = fork();
    const first = withReused(run, records).loops['first']!;
    expect(first.reusedFrom).toBe('o1');
    expect(first.passes.map((p) => p.iteration)).toEqual([1]);
    expect(first.completed).toEqual({ iterationsRun: 1, exitReason: 'max_iterations' });
    expect(first.construct).toBe('loop_group');
  });

  it('shows a reused pass in the loop navigator’s pass view with its journaled records', () => {
    const { run, records } = fork();
    const shown = withReused(run, records);
    const v = passView(shown, recordsByPath(records), shown.loops['refine']!, 1);
    expect(v.items.map((i) => [i.path, i.status, i.record?.reused_from])).toEqual([
      ['refine[1].step', 'completed', 'o1'],
      ['refine[1].write', 'completed', 'o1'],
    ]);
    expect(v.stateChange).toEqual({ count: 1 });
    // choosing pass 1 of the fork works like any pass
    expect(effectivePasses(shown, { refine: 1 }).get('refine')?.iteration).toBe(1);
  });

  it('changes nothing for a run that reuses nothing', () => {
    const { run } = fork();
    expect(withReused(run, [{ node: 'a', path: 'a', status: 'completed' }])).toBe(run);
    expect(withReused(run, [])).toBe(run);
  });
});

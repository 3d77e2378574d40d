import { describe, expect, it } from 'vitest';
import { fixture } from '../test-support';
import { applyEvents, emptyRun, loopInstances } from './runState';

describe('run state from events', () => {
  it('folds a loop_group run: every pass, every body node, the exit reason', () => {
    const f = fixture('fix-until-pass');
    const run = applyEvents(emptyRun(), f.events);
    expect(run.status).toBe('completed');
    const loop = run.loops['fix_until_pass']!;
    expect(loop.passes.map((p) => p.iteration)).toEqual([1, 2]);
    expect(loop.max).toBe(5);
    expect(loop.completed?.exitReason).toBe('signal');
    expect(loop.passes.every((p) => p.endedAt)).toBe(true);
    expect(run.execs['fix_until_pass[2].review']?.status).toBe('completed');
    expect(run.execs['fix_until_pass[1].implement']?.llmCalls).toHaveLength(1);
    expect(run.execs['fix_until_pass[1].implement']?.llmCalls[0]?.mock).toBe(true);
    expect(run.usage.llmCalls).toBe(4);
  });

  it('ignores events it already applied, so a resumed stream duplicates nothing', () => {
    const f = fixture('fix-until-pass');
    const once = applyEvents(emptyRun(), f.events);
    const cut = 11;
    const replayed = applyEvents(applyEvents(emptyRun(), f.events.slice(0, cut)), f.events.slice(cut - 5));
    const twice = applyEvents(once, f.events);
    expect(replayed).toEqual(once);
    expect(twice).toBe(once);
    expect(once.execs['fix_until_pass[1].implement']!.llmCalls).toHaveLength(1);
  });

  it('does not change the state it was given', () => {
    const f = fixture('fix-until-pass');
    const half = applyEvents(emptyRun(), f.events.slice(0, 12));
    const snapshot = JSON.parse(JSON.stringify(half));
    applyEvents(half, f.events.slice(12));
    expect(JSON.parse(JSON.stringify(half))).toEqual(snapshot);
  });

  it('keeps nested loop instances apart, one per outer pass', () => {
    const run = applyEvents(emptyRun(), fixture('nested-fail').events);
    const inner = loopInstances(run, 'outer.inner');
    expect(inner.map((l) => l.path)).toEqual(['outer[1].inner', 'outer[2].inner']);
    expect(inner[0]!.passes).toHaveLength(2);
    expect(inner[1]!.passes).toHaveLength(0);
    expect(inner[1]!.completed?.exitReason).toBe('condition_false');
    expect(run.status).toBe('failed');
    expect(run.execs['outer[2].boom']?.status).toBe('failed');
    expect(run.execs['outer[2].boom']?.error?.message).toContain('<b>badly</b>');
    expect(run.loops['outer']!.completed?.exitReason).toBe('error');
  });

  it('appends streamed text per reply and starts afresh at a new reply; streamed events have no seq', () => {
    let run = applyEvents(emptyRun(), [
      { type: 'run.started', seq: 1, at: '2026-01-01T00:00:00Z' },
      { type: 'node.started', seq: 2, node: 'a', path: 'a', kind: 'llm', attempt: 1 },
    ]);
    run = applyEvents(run, [
      { type: 'node.streaming', node: 'a', path: 'a', reply: 1, tokens: 'Hel' },
      { type: 'node.streaming', node: 'a', path: 'a', reply: 1, tokens: 'lo' },
    ]);
    expect(run.execs['a']!.streamText).toBe('Hello');
    run = applyEvents(run, [{ type: 'node.streaming', node: 'a', path: 'a', reply: 2, tokens: 'Bye' }]);
    expect(run.execs['a']!.streamText).toBe('Bye');
    expect(run.lastSeq).toBe(2);
    run = applyEvents(run, [{ type: 'node.completed', seq: 3, node: 'a', path: 'a', output_preview: 'Bye' }]);
    expect(run.execs['a']!.streamText).toBe('');
  });

  it('marks what waits for a person and clears it on resume', () => {
    const paused = applyEvents(emptyRun(), fixture('deploy-approval').events);
    expect(paused.status).toBe('paused');
    expect(paused.execs['ask']!.status).toBe('paused');
    expect(paused.paused?.message).toBe('Deploy artifact build-42 to production?');
    const resumed = applyEvents(paused, [{ type: 'run.resumed', seq: 6, from: 'paused', waited_at: 'ask' }]);
    expect(resumed.status).toBe('running');
    expect(resumed.paused).toBeUndefined();
  });

  it('records restarts, loop-backs and agent steps', () => {
    const p = applyEvents(emptyRun(), fixture('pipeline-restart-tool').events);
    expect(p.restarts.map((r) => r.type)).toEqual(['requested', 'accepted']);
    expect(p.loops['restart']!.passes).toHaveLength(2);
    const c = applyEvents(emptyRun(), fixture('coder-reviewer-loop').events);
    expect(c.loops['reviewer->coder']!.loopBacks).toEqual([
      expect.objectContaining({ iteration: 1, edgeFrom: 'reviewer', edgeTo: 'coder', maxIterations: 3 }),
    ]);
    const a = applyEvents(emptyRun(), fixture('agent-tools').events);
    expect(a.execs['analyst']!.steps.filter((s) => s.step.type === 'tool')).toHaveLength(3);
  });

  it('theWhileCheckThatEndsALoopIsNoPass_conditionFalseAddsNoPass', () => {
    const run = applyEvents(emptyRun(), [
      { type: 'loop.started', seq: 1, at: '2026-01-01T00:00:00Z', node: 'w', path: 'w', construct: 'while_loop', max: 5 },
      { type: 'loop.iteration', seq: 2, at: '2026-01-01T00:00:01Z', node: 'w', path: 'w', construct: 'while_loop', iteration: 1, max: 5, condition_result: true },
      { type: 'loop.iteration', seq: 3, at: '2026-01-01T00:00:02Z', node: 'w', path: 'w', construct: 'while_loop', iteration: 2, max: 5, condition_result: false },
    ]);
    const loop = run.loops['w']!;
    expect(loop.passes.map((p) => p.iteration)).toEqual([1]);
    expect(loop.passes[0]!.endedAt).toBe('2026-01-01T00:00:02Z');
  });

  it.each([
    [{ type: 'made.up', seq: 1 }],
    [{ seq: 1 }],
    [null],
    [{ type: 'node.completed', seq: 1 }],
    [{ type: 'loop.iteration', seq: 1, path: 'x', iteration: 'two' }],
  ])('survives an unexpected event %j', (e) => {
    expect(() => applyEvents(emptyRun(), [e as never])).not.toThrow();
  });
});

describe('executions across a resume', () => {
  it('aLoopContinuedOnResumeKeepsItsFirstStart_bugBarStartedAtResume', () => {
    const run = applyEvents(emptyRun(), [
      { type: 'run.started', seq: 1, at: '2026-01-01T00:00:00Z' },
      { type: 'node.started', seq: 2, at: '2026-01-01T00:00:01Z', node: 'g', path: 'g', kind: 'loop_group', attempt: 1 },
      { type: 'run.paused', seq: 3, at: '2026-01-01T00:00:02Z', node: 'gate', path: 'g[1].gate' },
      { type: 'run.resumed', seq: 4, at: '2026-01-01T00:30:00Z', from: 'paused' },
      { type: 'node.started', seq: 5, at: '2026-01-01T00:30:00Z', node: 'g', path: 'g', kind: 'loop_group', attempt: 1 },
    ]);
    expect(run.execs['g']!.startedAt).toBe('2026-01-01T00:00:01Z');
  });

  it('a failed node run again on resume starts afresh', () => {
    const run = applyEvents(emptyRun(), [
      { type: 'node.started', seq: 1, at: '2026-01-01T00:00:01Z', node: 'a', path: 'a', attempt: 1 },
      { type: 'node.failed', seq: 2, at: '2026-01-01T00:00:02Z', node: 'a', path: 'a', error_code: 'node_failed', message: 'x' },
      { type: 'run.resumed', seq: 3, at: '2026-01-01T01:00:00Z', from: 'failed' },
      { type: 'node.started', seq: 4, at: '2026-01-01T01:00:00Z', node: 'a', path: 'a', attempt: 1 },
    ]);
    expect(run.execs['a']!.startedAt).toBe('2026-01-01T01:00:00Z');
    expect(run.execs['a']!.status).toBe('running');
    expect(run.execs['a']!.error).toBeUndefined();
  });
});

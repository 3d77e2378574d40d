import { describe, expect, it } from 'vitest';
import { fixture, graphFixture } from '../test-support';
import { effectivePasses, failingExecution, graphNodeFor, indexGraph, nodeViews, selectionFor } from './graphMap';
import { applyEvents, emptyRun } from './runState';

describe('graph node of an execution path', () => {
  const nested = indexGraph(graphFixture('nested-fail'));
  it.each([
    ['outer', 'outer'],
    ['outer[2].prep', 'outer/prep'],
    ['outer[1].inner', 'outer/inner'],
    ['outer[1].inner[2].inc', 'outer/inner/inc'],
    ['outer[3].boom', 'outer/boom'],
    ['after', 'after'],
  ])('%s → %s', (path, key) => {
    expect(graphNodeFor(nested, path)?.key).toBe(key);
  });

  it('finds pipeline stages and loop-edge regions whose graph paths omit the engine loop', () => {
    const p = indexGraph(graphFixture('pipeline-restart-tool'));
    expect(graphNodeFor(p, 'restart[2].discover')?.key).toBe('discover');
    const c = indexGraph(graphFixture('coder-reviewer-loop'));
    expect(graphNodeFor(c, 'reviewer->coder[2].coder')?.key).toBe('coder');
  });

  it.each(['outer[1].gate', 'restart[2].report~restart', 'nothing', '<img src=x onerror=alert(1)>'])(
    'maps %s to no node rather than a wrong one',
    (path) => {
      expect(graphNodeFor(nested, path)).toBeUndefined();
    },
  );
});

describe('node states in the shown passes', () => {
  const f = fixture('nested-fail');
  const run = applyEvents(emptyRun(), f.events);
  const index = indexGraph(graphFixture('nested-fail'));

  it('shows the latest pass of every loop by default', () => {
    const eff = effectivePasses(run, {});
    expect(eff.get('outer')?.iteration).toBe(2);
    expect(eff.get('outer.inner')?.instance.path).toBe('outer[2].inner');
    expect(eff.get('outer.inner')?.iteration).toBeUndefined();
    const v = nodeViews(run, index, {});
    expect(v.get('outer/boom')?.status).toBe('failed');
    expect(v.get('outer/prep')?.status).toBe('completed');
    expect(v.get('outer/inner/inc')?.status).toBe('not_run');
    expect(v.get('after')?.status).toBe('not_run');
    expect(v.get('outer.inner.inc')).toBeUndefined();
  });

  it('follows a chosen outer pass into the inner loop instance of that pass', () => {
    const eff = effectivePasses(run, { outer: 1, 'outer.inner': 1 });
    expect(eff.get('outer.inner')?.instance.path).toBe('outer[1].inner');
    expect(eff.get('outer.inner')?.iteration).toBe(1);
    const v = nodeViews(run, index, { outer: 1, 'outer.inner': 1 });
    expect(v.get('outer/boom')?.status).toBe('completed');
    expect(v.get('outer/inner/inc')?.exec?.path).toBe('outer[1].inner[1].inc');
    expect(v.get('outer/inner/inc')?.executions).toHaveLength(2);
  });

  it('falls back to the latest pass when the chosen one does not exist', () => {
    expect(effectivePasses(run, { outer: 9 }).get('outer')?.iteration).toBe(2);
  });

  it('pins the run error to the failing node and its pass', () => {
    const x = failingExecution(run, f.run.error?.path);
    expect(x?.path).toBe('outer[2].boom');
    expect(failingExecution(run, undefined)?.path).toBe('outer[2].boom');
    expect(selectionFor(x!)).toEqual({ outer: 2 });
    expect(nodeViews(run, index, {}).get('outer/boom')?.failure?.path).toBe('outer[2].boom');
  });

  it('shows a node waiting for a person as paused, and unreached nodes as pending while the run waits', () => {
    const g = indexGraph({
      nodes: [
        { key: 'build', id: 'build', path: 'build' },
        { key: 'ask', id: 'ask', path: 'ask' },
        { key: 'deploy', id: 'deploy', path: 'deploy' },
      ],
    });
    const paused = applyEvents(emptyRun(), fixture('deploy-approval').events);
    const v = nodeViews(paused, g, {});
    expect([v.get('build')?.status, v.get('ask')?.status, v.get('deploy')?.status]).toEqual(['completed', 'paused', 'pending']);
  });

  it('shows the loop node and its gate as paused while the gate waits', () => {
    const g = indexGraph(graphFixture('tagline-with-a-person'));
    const paused = applyEvents(emptyRun(), fixture('tagline-with-a-person-paused').events);
    const v = nodeViews(paused, g, {});
    expect(v.get('tagline')?.status).toBe('paused');
    expect(v.get('tagline/gate')?.status).toBe('paused');
    expect(v.get('tagline/draft')?.status).toBe('completed');
    expect(v.get('tagline/accept')?.status).toBe('skipped');
    expect(v.get('publish')?.status).toBe('pending');
  });

  it('marks the start and end markers by the run', () => {
    const g = indexGraph(graphFixture('counter'));
    const done = applyEvents(emptyRun(), [
      { type: 'run.started', seq: 1 },
      { type: 'run.finished', seq: 2, status: 'completed' },
    ]);
    const v = nodeViews(done, g, {});
    expect([v.get('__start__')?.status, v.get('__end__')?.status]).toEqual(['completed', 'completed']);
  });
});

describe('restart iterations', () => {
  it('showsANodeBeforeTheRestartTargetAsCarriedOver_bugNotRunAfterRestart', () => {
    const g = indexGraph({
      nodes: [
        { key: 'plan', id: 'plan', path: 'restart.plan' },
        { key: 'implement', id: 'implement', path: 'restart.implement' },
      ],
      restart: { targets: ['plan'], path: 'restart' },
    });
    const at = (s: number) => `2026-01-01T00:00:0${s}Z`;
    const run = applyEvents(emptyRun(), [
      { type: 'run.started', seq: 1, at: at(0) },
      { type: 'loop.started', seq: 2, at: at(0), node: 'restart', path: 'restart', construct: 'restart', max: 3 },
      { type: 'loop.iteration', seq: 3, at: at(0), node: 'restart', path: 'restart', construct: 'restart', iteration: 1 },
      { type: 'node.started', seq: 4, at: at(1), node: 'plan', path: 'restart[1].plan' },
      { type: 'node.completed', seq: 5, at: at(2), node: 'plan', path: 'restart[1].plan' },
      { type: 'node.started', seq: 6, at: at(2), node: 'implement', path: 'restart[1].implement' },
      { type: 'node.completed', seq: 7, at: at(3), node: 'implement', path: 'restart[1].implement' },
      { type: 'loop.iteration', seq: 8, at: at(4), node: 'restart', path: 'restart', construct: 'restart', iteration: 2 },
      { type: 'node.started', seq: 9, at: at(5), node: 'implement', path: 'restart[2].implement' },
    ]);
    const v = nodeViews(run, g, {});
    expect(v.get('plan')?.status).toBe('completed');
    expect(v.get('plan')?.carriedFrom).toBe(1);
    expect(v.get('implement')?.status).toBe('running');
    expect(v.get('implement')?.carriedFrom).toBeUndefined();
    // an ordinary loop's earlier pass is never carried into a later one
    const loop = applyEvents(emptyRun(), fixture('nested-fail').events);
    expect(nodeViews(loop, indexGraph(graphFixture('nested-fail')), {}).get('outer/inner/inc')?.status).toBe('not_run');
  });
});

import { describe, expect, it } from 'vitest';
import { graphFixture } from '../test-support';
import { applyEvents, emptyRun } from '../model/runState';
import { restartOutcome, restartTargets } from './Actions';

describe('restart form', () => {
  it('offers the graph restart targets first, then every other top-level stage', () => {
    const g = graphFixture('pipeline-restart-tool');
    expect(restartTargets(g, emptyRun())).toEqual(['discover', 'report']);
    expect(restartTargets({ ...g, restart: { ...g.restart, targets: ['report'] } }, emptyRun())).toEqual(['report', 'discover']);
  });

  it('falls back to the top-level nodes that ran when there is no graph', () => {
    const run = applyEvents(emptyRun(), [
      { type: 'node.started', seq: 1, node: 'plan', path: 'restart[1].plan' },
      { type: 'node.started', seq: 2, node: 'inner', path: 'restart[1].g[1].inner' },
      { type: 'node.started', seq: 3, node: 'plan~restart', path: 'restart[1].plan~restart' },
    ]);
    expect(restartTargets(undefined, run)).toEqual(['plan']);
  });

  it.each([
    [200, { success: true, target_stage_id: 'discover', iteration: 2 }, true, 'Accepted: the run goes back to discover, iteration 2.'],
    [403, { success: false, error: { code: 'stage_not_restartable', message: "stage 'x' not in restartable_stages list" } }, false, "Rejected (stage_not_restartable: that stage may not be restarted): stage 'x' not in restartable_stages list"],
    [429, { success: false, error: { code: 'restart_cooldown_not_elapsed', message: 'cooldown not elapsed (3s remaining)' } }, false, 'Rejected (restart_cooldown_not_elapsed: the stage’s cooldown has not elapsed): cooldown not elapsed (3s remaining)'],
    [500, { success: false, error: { code: 'max_iterations_exceeded', message: 'max iterations exceeded (3 iterations), workflow terminated' } }, false, 'Rejected (max_iterations_exceeded: the run has no iteration left): max iterations exceeded (3 iterations), workflow terminated'],
    [202, { request_seq: 4, pending: true }, true, 'Queued: the run decides it after the node running now completes; its answer will appear among the restart requests.'],
    [409, { error: { code: 'conflict', message: 'run run_1 is not executing' } }, false, 'Not sent (conflict): run run_1 is not executing'],
    [500, undefined, false, 'Not sent (http_500).'],
    [400, { error: { code: 'bad_request', message: '<img src=x onerror=alert(1)>' } }, false, 'Not sent (bad_request): <img src=x onerror=alert(1)>'],
  ])('says a %i answer in words', (status, body, ok, text) => {
    expect(restartOutcome(status, body as never)).toEqual({ ok, text });
  });
});

import { describe, expect, it } from 'vitest';
import { rowDuration, rowError, runDuration } from './runRow';

const started = '2026-11-24T02:00:00Z';
const t0 = Date.parse(started);

describe('run list row', () => {
  it('runningRunShowsElapsedTime_bugEmptyDurationWhileRunning: a running run shows the time so far', () => {
    expect(rowDuration({ run_id: 'r', status: 'running', started_at: started, duration_ms: null }, t0 + 12_300)).toEqual({ text: '12.3 s', soFar: true });
    expect(rowDuration({ run_id: 'r', status: 'running', started_at: started }, t0 + 125_000)).toEqual({ text: '2 min 5 s', soFar: true });
  });

  it('an interrupted run (journaled running, its process gone) shows no time so far: nothing executes it', () => {
    expect(rowDuration({ run_id: 'r', status: 'interrupted', started_at: started, duration_ms: null }, t0 + 99_000)).toEqual({ text: '', soFar: false });
  });

  it('a finished run shows the duration the server gives; missing values stay empty', () => {
    expect(rowDuration({ run_id: 'r', status: 'completed', started_at: started, duration_ms: 450 }, t0 + 99_999)).toEqual({ text: '450 ms', soFar: false });
    for (const r of [
      { run_id: 'r', status: 'paused', started_at: started },
      { run_id: 'r', status: 'running', started_at: null },
      { run_id: 'r', status: 'running', started_at: 'not a time' },
    ]) {
      expect(rowDuration(r, t0).text).toBe('');
    }
    // a clock behind the server never shows a negative time
    expect(rowDuration({ run_id: 'r', status: 'running', started_at: started }, t0 - 5000).text).toBe('0 ms');
  });

  it('errorColumnShowsTheFailingNode_bugOnlyTheCode: the code, the failing node and the message', () => {
    expect(rowError({ run_id: 'r', error: 'NODE_FAILED' }, { code: 'NODE_FAILED', node: 'boom', path: 'outer[2].boom', message: 'exit 3' })).toEqual({
      code: 'NODE_FAILED',
      at: 'outer[2].boom',
      message: 'exit 3',
    });
    expect(rowError({ run_id: 'r', error: 'NODE_FAILED' }, { node: 'boom' }).at).toBe('boom');
    expect(rowError({ run_id: 'r', error: 'TIMEOUT' }, undefined)).toEqual({ code: 'TIMEOUT', at: '', message: '' });
    expect(rowError({ run_id: 'r', error: null }, null)).toEqual({ code: '', at: '', message: '' });
    expect(rowError({ run_id: 'r', error: 'X' }, { path: null, node: 7 as never, message: { m: 1 } as never })).toEqual({ code: 'X', at: '', message: '' });
  });
});

describe('run duration, one rule for the list and the run page', () => {
  it('durationsDifferBetweenListAndRunPage_bug524vs257: a finished run shows the record duration, whatever the events say', () => {
    // the run page used run.started/run.finished event times; the list the record's: one rule now, the record's
    const record = { status: 'completed', started_at: started, duration_ms: 524 };
    expect(runDuration(record, t0 + 99_999)).toEqual({ ms: 524, soFar: false });
    expect(rowDuration({ run_id: 'r', ...record }, t0).text).toBe('524 ms');
  });

  it('a running run counts from the record start; anything else without a duration is empty', () => {
    expect(runDuration({ status: 'running', started_at: started, duration_ms: null }, t0 + 300)).toEqual({ ms: 300, soFar: true });
    expect(runDuration({ status: 'paused', started_at: started }, t0 + 300)).toEqual({ ms: undefined, soFar: false });
    expect(runDuration({ status: 'completed', started_at: undefined, duration_ms: undefined }, t0)).toEqual({ ms: undefined, soFar: false });
    expect(runDuration({ status: 'completed', duration_ms: Number.NaN }, t0).ms).toBeUndefined();
  });
});

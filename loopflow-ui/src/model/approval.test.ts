import { describe, expect, it } from 'vitest';
import { approvalAnswer } from './approval';

describe('approvalAnswer', () => {
  it('approvalCommentIsShown_bugApprovalShowsOnlyApproved: the decision and the comment come from the result', () => {
    const a = approvalAnswer(
      { output: 'approved', decision: 'approved', approved: true, comment: 'Ship it after the smoke test.', message: 'Deploy?', timed_out: false },
      null,
      '2026-11-24T02:51:48.161Z',
    );
    expect(a).toEqual({
      decision: 'approved',
      comment: 'Ship it after the smoke test.',
      message: 'Deploy?',
      timedOut: false,
      values: '',
      by: '',
      at: '2026-11-24T02:51:48.161Z',
    });
  });

  it('a rejection that failed the run is read from the error', () => {
    const a = approvalAnswer(null, { code: 'NODE_FAILED', partial: { decision: 'rejected', approved: false, comment: 'Not during the freeze.', timed_out: true } }, 'x');
    expect(a?.decision).toBe('rejected');
    expect(a?.comment).toBe('Not during the freeze.');
    expect(a?.timedOut).toBe(true);
  });

  it('a still-waiting approval has no decision and no answer time', () => {
    const a = approvalAnswer({ status: 'paused', message: 'Deploy artifact build-42 to production?' }, null, '2026-11-24T02:51:48Z');
    expect(a?.decision).toBe('');
    expect(a?.at).toBe('');
    expect(a?.message).toBe('Deploy artifact build-42 to production?');
  });

  it.each([null, undefined, 'approved', 3, []])('a result without fields (%s) gives nothing, never "null"', (r) => {
    expect(approvalAnswer(r, undefined, null)).toBeUndefined();
  });

  it('who answered is shown only when the result carries it', () => {
    expect(approvalAnswer({ decision: 'approved', by: 'ana' }, null, null)?.by).toBe('ana');
    expect(approvalAnswer({ decision: 'approved', comment: null }, null, null)?.comment).toBe('');
  });

  it('the values of an approval with a form are shown as JSON; an empty object is nothing', () => {
    expect(approvalAnswer({ decision: 'approved', values: { version: 'v2', n: 3 } }, null, 'x')?.values).toBe('{"version":"v2","n":3}');
    expect(approvalAnswer({ decision: 'approved', values: {} }, null, 'x')?.values).toBe('');
    expect(approvalAnswer({ decision: 'approved', values: ['x'] }, null, 'x')?.values).toBe('');
  });
});

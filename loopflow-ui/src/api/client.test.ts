import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RunEvent } from './types';
import { ApiError, followEvents, forkPlan, passDiff, runDiff, startFork, type StreamStatus } from './client';
import { applyEvents, emptyRun } from '../model/runState';

const frame = (e: RunEvent) => `id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
const ev = (seq: number, type = 'node.started'): RunEvent => ({ type, seq, at: '2026-01-01T00:00:00Z', node: 'a', path: `a${seq}` });

/** A response whose body sends the chunks, then ends or breaks as a dropped connection does. */
function sse(chunks: string[], breaks: boolean): Response {
  const enc = new TextEncoder();
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (i < chunks.length) c.enqueue(enc.encode(chunks[i++]));
      else if (breaks) c.error(new TypeError('network error'));
      else c.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
}

describe('following a run’s events', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('reconnects with Last-Event-ID after a network error and counts nothing twice', async () => {
    vi.stubGlobal('window', { sessionStorage: { getItem: () => 'T' } });
    const calls: Headers[] = [];
    const fetchMock = vi.fn(async (_url: string, init: RequestInit) => {
      calls.push(new Headers(init.headers));
      if (calls.length === 1) return sse([frame(ev(1, 'run.started')) + frame(ev(2)), frame(ev(3)).slice(0, 20), frame(ev(3)).slice(20)], true);
      // a server may send the last event again; the model ignores what it applied
      return sse([frame(ev(3)) + frame(ev(4)), 'event: node.streaming\ndata: {"type":"node.streaming","path":"a4","tokens":"x"}\n\n', frame(ev(5, 'run.finished'))], false);
    });
    vi.stubGlobal('fetch', fetchMock);
    const batches: RunEvent[][] = [];
    const statuses: StreamStatus[] = [];
    await new Promise<void>((resolve, reject) => {
      const stop = followEvents('run_1', {
        onEvents: (e) => batches.push(e),
        onStatus: (s) => {
          statuses.push(s);
          if (s === 'closed') resolve();
          if (s === 'error') reject(new Error('stream error'));
        },
      });
      setTimeout(() => {
        stop();
        reject(new Error('timed out'));
      }, 5000);
    });
    expect(calls).toHaveLength(2);
    expect(calls[0]!.get('Authorization')).toBe('Bearer T');
    expect(calls[0]!.get('Last-Event-ID')).toBeNull();
    expect(calls[1]!.get('Last-Event-ID')).toBe('3');
    expect(statuses).toContain('reconnecting');
    const run = applyEvents(emptyRun(), batches.flat());
    expect(run.execOrder).toEqual(['a2', 'a3', 'a4']);
    expect(run.lastSeq).toBe(5);
    expect(run.status).toBe('failed'); // run.finished without a status reads as failed, never as completed
  });

  it('stops at once when the server refuses the token', async () => {
    vi.stubGlobal('window', { sessionStorage: { getItem: () => 'wrong' } });
    const fetchMock = vi.fn(async () => new Response(JSON.stringify({ error: { code: 'unauthorized', message: 'bad token' } }), { status: 401 }));
    vi.stubGlobal('fetch', fetchMock);
    const detail = await new Promise<string | undefined>((resolve) => {
      followEvents('run_1', { onEvents: () => {}, onStatus: (s, d) => s === 'error' && resolve(d) });
    });
    expect(detail).toBe('bad token');
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });
});

describe('forks and diffs', () => {
  afterEach(() => vi.unstubAllGlobals());

  const answer = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

  it('asks for a fork’s plan with dry_run and starts it without', async () => {
    vi.stubGlobal('window', { sessionStorage: { getItem: () => 'T' } });
    const calls: { url: string; init: RequestInit }[] = [];
    vi.stubGlobal('fetch', vi.fn(async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      const body = JSON.parse(String(init.body));
      return body.dry_run ? answer(200, { dry_run: true, origin: 'run a/b', at: 'refine:2', reused: ['refine[1].step'] }) : answer(201, { run_id: 'run_f', status: 'running' });
    }));
    const plan = await forkPlan('run a/b', { at: 'refine:2', set: { 'state.count': 100 } });
    expect(plan.reused).toEqual(['refine[1].step']);
    const started = await startFork('run a/b', { at: 'refine:2', set: { 'state.count': 100 } });
    expect(started.run_id).toBe('run_f');
    expect(calls.map((c) => [c.init.method, c.url])).toEqual([
      ['POST', '/api/runs/run%20a%2Fb/fork'],
      ['POST', '/api/runs/run%20a%2Fb/fork'],
    ]);
    expect(JSON.parse(String(calls[0]!.init.body))).toEqual({ at: 'refine:2', set: { 'state.count': 100 }, dry_run: true });
    expect(JSON.parse(String(calls[1]!.init.body))).toEqual({ at: 'refine:2', set: { 'state.count': 100 } });
    expect(new Headers(calls[1]!.init.headers).get('Authorization')).toBe('Bearer T');
    expect(new Headers(calls[1]!.init.headers).get('Content-Type')).toBe('application/json');
  });

  it('leaves out an empty set and never sends dry_run: false', async () => {
    vi.stubGlobal('window', { sessionStorage: { getItem: () => null } });
    const bodies: unknown[] = [];
    vi.stubGlobal('fetch', vi.fn(async (_u: string, init: RequestInit) => {
      bodies.push(JSON.parse(String(init.body)));
      return answer(201, { run_id: 'x' });
    }));
    await startFork('r', { at: 'loop:1', set: {} });
    expect(bodies).toEqual([{ at: 'loop:1' }]);
  });

  it('gives a refusal as an ApiError with its code and one-line message', async () => {
    vi.stubGlobal('window', { sessionStorage: { getItem: () => 'T' } });
    vi.stubGlobal('fetch', vi.fn(async () => answer(409, { error: { code: 'fork_refused', message: "run 'r' journaled nothing in pass refine:9" } })));
    const e = await forkPlan('r', { at: 'refine:9' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).status).toBe(409);
    expect((e as ApiError).code).toBe('fork_refused');
    expect((e as ApiError).message).toBe("run 'r' journaled nothing in pass refine:9");
  });

  it('asks for the diff of two passes, or of two runs, with the points encoded', async () => {
    vi.stubGlobal('window', { sessionStorage: { getItem: () => 'T' } });
    const urls: string[] = [];
    vi.stubGlobal('fetch', vi.fn(async (url: string, init: RequestInit) => {
      urls.push(`${init.method} ${url}`);
      return answer(200, { left: { label: 'a', state: {}, outputs: {} }, right: { label: 'b', state: {}, outputs: {} } });
    }));
    const d = await passDiff('r&1', 'outer:2/inner:1', 'outer:2/inner:3');
    expect(d.left?.label).toBe('a');
    await runDiff('r', 'fork&x');
    expect(urls).toEqual([
      'GET /api/runs/r%261/diff?a=outer%3A2%2Finner%3A1&b=outer%3A2%2Finner%3A3',
      'GET /api/runs/r/diff?run=fork%26x',
    ]);
  });
});

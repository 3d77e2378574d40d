import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RunEvent } from './types';
import { followEvents, type StreamStatus } from './client';
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

// The loopflow server's API with the session's token. `loopflow server` prints the app's URL with the token in its
// fragment (`#token=T`): the token is kept in session storage and removed from the address bar at once, so it is not
// left in the history, in bookmarks or in what a person shares by copying the URL.
import type { Execution, ForkPlan, ForkRequest, ForkStarted, PassDetail, PassPage, PassSummary, Problem, RunDiff, RunEvent } from './types';
import { SseParser } from './sse';

const TOKEN_KEY = 'loopflow.token';

/** Takes the token from the URL fragment, if any, and returns the session's token (or undefined). */
export function initToken(): string | undefined {
  const hash = window.location.hash;
  if (hash.length > 1) {
    const params = new URLSearchParams(hash.slice(1));
    const t = params.get('token');
    if (t) {
      try {
        window.sessionStorage.setItem(TOKEN_KEY, t);
      } catch {
        memoryToken = t;
      }
      params.delete('token');
      const rest = params.toString();
      window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search + (rest ? '#' + rest : ''));
    }
  }
  return getToken();
}

let memoryToken: string | undefined;

export function getToken(): string | undefined {
  try {
    return window.sessionStorage.getItem(TOKEN_KEY) ?? memoryToken;
  } catch {
    return memoryToken;
  }
}

export function clearToken(): void {
  memoryToken = undefined;
  try {
    window.sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // storage unavailable: nothing was stored
  }
}

/** An error from the server (with its stable code) or from reaching it (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly problems: Problem[] = [],
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Listeners told when the server refuses the token, so the app can say so once, wherever it happened. */
const unauthorizedListeners = new Set<() => void>();
export function onUnauthorized(f: () => void): () => void {
  unauthorizedListeners.add(f);
  return () => unauthorizedListeners.delete(f);
}

function authHeaders(extra: Record<string, string> = {}): Record<string, string> {
  const h: Record<string, string> = { Accept: 'application/json', ...extra };
  const t = getToken();
  if (t) h.Authorization = `Bearer ${t}`;
  return h;
}

async function errorFrom(res: Response): Promise<ApiError> {
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  const err = body && typeof body === 'object' ? (body as { error?: unknown }).error : undefined;
  if (res.status === 401) unauthorizedListeners.forEach((f) => f());
  if (err && typeof err === 'object') {
    const e = err as Record<string, unknown>;
    const problems = Array.isArray(e.problems) ? (e.problems as Problem[]) : [];
    return new ApiError(
      res.status,
      typeof e.code === 'string' ? e.code : `http_${res.status}`,
      typeof e.message === 'string' && e.message ? e.message : statusText(res.status),
      problems,
      e,
    );
  }
  return new ApiError(res.status, `http_${res.status}`, statusText(res.status));
}

export function statusText(status: number): string {
  switch (status) {
    case 400:
      return 'The server refused the request as invalid.';
    case 401:
      return 'The server refused the access token (401). Open the address `loopflow server` printed, with its #token=… part.';
    case 403:
      return 'The server refused the request (403).';
    case 404:
      return 'Not found (404).';
    case 409:
      return 'The request conflicts with the run’s current state (409).';
    case 429:
      return 'Too many requests (429); try again shortly.';
    default:
      return status >= 500 ? `The server failed (${status}).` : `The server answered ${status}.`;
  }
}

async function request<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: authHeaders(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new ApiError(0, 'network', 'Could not reach the loopflow server. Is `loopflow server` still running?');
  }
  if (!res.ok) throw await errorFrom(res);
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  if (!text) return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ApiError(res.status, 'bad_response', 'The server sent a reply that is not JSON.');
  }
}

/** Like request, but a non-2xx reply with a JSON body is returned with its status instead of thrown (signal). */
export async function requestWithStatus<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T | undefined }> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: authHeaders({ 'Content-Type': 'application/json' }),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'network', 'Could not reach the loopflow server. Is `loopflow server` still running?');
  }
  if (res.status === 401) throw await errorFrom(res);
  let parsed: T | undefined;
  try {
    parsed = (await res.json()) as T;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed };
}

export const api = {
  get: <T>(path: string, signal?: AbortSignal) => request<T>('GET', path, undefined, signal),
  post: <T>(path: string, body: unknown) => request<T>('POST', path, body),
};

export const enc = encodeURIComponent;

/** The request as sent: an empty `set` or `inputs` is left out. */
function forkBody(req: ForkRequest): Record<string, unknown> {
  const body: Record<string, unknown> = { at: req.at };
  if (req.set && Object.keys(req.set).length) body.set = req.set;
  if (req.inputs && Object.keys(req.inputs).length) body.inputs = req.inputs;
  if (req.run_id) body.run_id = req.run_id;
  return body;
}

/** What a fork would reuse and execute, and the most it can cost (`dry_run`: nothing starts, nothing is called). */
export function forkPlan(runId: string, req: ForkRequest): Promise<ForkPlan> {
  return api.post<ForkPlan>(`/api/runs/${enc(runId)}/fork`, { ...forkBody(req), dry_run: true });
}

/** Starts the fork; answers the new run's id. */
export function startFork(runId: string, req: ForkRequest): Promise<ForkStarted> {
  return api.post<ForkStarted>(`/api/runs/${enc(runId)}/fork`, forkBody(req));
}

/** Two passes of one run side by side (`a`, `b` as `LOOP:PASS`, nested `OUTER:2/INNER:3`). */
export function passDiff(runId: string, a: string, b: string, signal?: AbortSignal): Promise<RunDiff> {
  return api.get<RunDiff>(`/api/runs/${enc(runId)}/diff?a=${enc(a)}&b=${enc(b)}`, signal);
}

/** The run and another (a fork and its origin) side by side. */
export function runDiff(runId: string, other: string, signal?: AbortSignal): Promise<RunDiff> {
  return api.get<RunDiff>(`/api/runs/${enc(runId)}/diff?run=${enc(other)}`, signal);
}

/** The most passes of each loop instance the run page is first sent (the server's `recent_passes`). */
export const RECENT_PASSES = 20;
/** The largest page of pass summaries the server serves. */
export const PASS_PAGE = 1000;

/** One page of a loop instance's pass summaries. */
export function passPage(runId: string, loopPath: string, offset: number, limit = PASS_PAGE, signal?: AbortSignal): Promise<PassPage> {
  return api.get<PassPage>(`/api/runs/${enc(runId)}/loops/${enc(loopPath)}/passes?offset=${offset}&limit=${limit}`, signal);
}

/** Every pass summary of a loop instance, a page at a time (a loop of 10,000 passes is 10 requests). */
export async function allPassSummaries(runId: string, loopPath: string, signal?: AbortSignal): Promise<PassSummary[]> {
  const out: PassSummary[] = [];
  for (let offset = 0; ; offset += PASS_PAGE) {
    const page = await passPage(runId, loopPath, offset, PASS_PAGE, signal);
    const list = Array.isArray(page?.passes) ? page.passes : [];
    out.push(...list);
    if (list.length < PASS_PAGE || out.length >= (page.total ?? 0)) return out;
  }
}

/** One pass in full: its executions and its events. */
export function passDetail(runId: string, loopPath: string, iteration: number, signal?: AbortSignal): Promise<PassDetail> {
  return api.get<PassDetail>(`/api/runs/${enc(runId)}/loops/${enc(loopPath)}/passes/${iteration}`, signal);
}

/** The journaled executions outside loops and in each loop instance's recent passes. */
export function recentExecutions(runId: string, signal?: AbortSignal): Promise<Execution[]> {
  return api.get<Execution[]>(`/api/runs/${enc(runId)}/executions?recent_passes=${RECENT_PASSES}`, signal);
}

export type StreamStatus = 'connecting' | 'live' | 'reconnecting' | 'closed' | 'error';

export interface StreamHandlers {
  onEvents: (events: RunEvent[]) => void;
  onStatus: (status: StreamStatus, detail?: string) => void;
}

/**
 * Follows a run's events: replays the journal, then live events, until the server closes the stream after
 * `run.finished` or `run.paused`. After a network error it reconnects with Last-Event-ID, so the server resumes
 * after the last event received (nothing is missed and nothing repeated). Returns a function that stops it.
 */
export function followEvents(runId: string, handlers: StreamHandlers, afterSeq = 0, recentPasses = 0): () => void {
  const controller = new AbortController();
  let lastId = afterSeq > 0 ? String(afterSeq) : '';
  let stopped = false;
  let failures = 0;

  const run = async () => {
    while (!stopped) {
      handlers.onStatus(failures === 0 ? 'connecting' : 'reconnecting');
      let ended = false;
      try {
        const headers = authHeaders({ Accept: 'text/event-stream' });
        if (lastId) headers['Last-Event-ID'] = lastId;
        // only a first replay is windowed (the server ignores the window on a stream resumed from an id)
        const query = !lastId && recentPasses > 0 ? `?recent_passes=${recentPasses}` : '';
        const res = await fetch(`/api/runs/${enc(runId)}/events${query}`, { headers, signal: controller.signal, cache: 'no-store' });
        if (!res.ok) {
          const err = await errorFrom(res);
          // a refused token or an unknown run will not get better by asking again
          if (res.status === 401 || res.status === 403 || res.status === 404) {
            handlers.onStatus('error', err.message);
            return;
          }
          throw err;
        }
        if (!res.body) throw new Error('no body');
        handlers.onStatus('live');
        failures = 0;
        const parser = new SseParser();
        if (lastId) parser.lastEventId = lastId;
        const reader = res.body.getReader();
        const decoder = new TextDecoder();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          const messages = parser.feed(decoder.decode(value, { stream: true }));
          const events: RunEvent[] = [];
          for (const m of messages) {
            let e: unknown;
            try {
              e = JSON.parse(m.data);
            } catch {
              continue;
            }
            if (!e || typeof e !== 'object') continue;
            const ev = e as RunEvent;
            if (typeof ev.type !== 'string') ev.type = m.event;
            events.push(ev);
            if (ev.type === 'run.finished' || ev.type === 'run.paused') ended = true;
          }
          if (parser.lastEventId) lastId = parser.lastEventId;
          if (events.length) handlers.onEvents(events);
        }
        if (ended) {
          handlers.onStatus('closed');
          return;
        }
        // The server closed the stream before the run ended (a restart, a proxy): follow it again from here.
        failures = Math.max(failures, 1);
      } catch (e) {
        if (stopped || controller.signal.aborted) return;
        failures++;
        handlers.onStatus('reconnecting', e instanceof Error ? e.message : undefined);
      }
      const delay = Math.min(10_000, 500 * 2 ** Math.min(failures, 5));
      await new Promise((r) => setTimeout(r, delay));
    }
  };
  void run();
  return () => {
    stopped = true;
    controller.abort();
  };
}

/** `DELETE /api/runs/{id}`: the run and everything kept of it; refused (409) while it executes or has forks. */
export function deleteRun(runId: string): Promise<{ run_id?: string; deleted?: boolean }> {
  return request<{ run_id?: string; deleted?: boolean }>('DELETE', `/api/runs/${enc(runId)}`);
}

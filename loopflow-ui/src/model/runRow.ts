// What a run list row shows beyond the server's summary fields: the time a run still going has taken so far, and its
// error as code, failing node and message (the summary carries only the code; the rest comes from the run's detail).
import type { ErrorInfo, RunSummary } from '../api/types';
import { fmtDuration } from './format';
import { parseTime } from './time';

/**
 * A run's duration, the one rule of the run list and the run page: the server's `duration_ms` (the run record's
 * finished_at minus its started_at) once the run has finished; while it is running, the time since the record's
 * started_at. Never a duration from the events' times: run.started is journaled a moment after the record's start,
 * so the two disagreed (the list and the run page showed 524 and 257 ms for one run).
 */
export function runDuration(
  r: { status?: string | null; started_at?: string | null; duration_ms?: number | null },
  nowMs: number,
): { ms: number | undefined; soFar: boolean } {
  if (typeof r.duration_ms === 'number' && Number.isFinite(r.duration_ms)) return { ms: Math.max(0, r.duration_ms), soFar: false };
  const started = parseTime(r.started_at);
  if (r.status !== 'running' || started === undefined) return { ms: undefined, soFar: false };
  return { ms: Math.max(0, nowMs - started), soFar: true };
}

/** The duration cell: the finished run's duration, or for a run still going the time since it started. */
export function rowDuration(r: RunSummary, nowMs: number): { text: string; soFar: boolean } {
  const d = runDuration(r, nowMs);
  return { text: d.ms === undefined ? '' : fmtDuration(d.ms), soFar: d.soFar };
}

/** The error cell: the code, then the failing node (its path when known), and the message for a second line. */
export function rowError(r: RunSummary, detail: ErrorInfo | null | undefined): { code: string; at: string; message: string } {
  const code = r.error ?? detail?.code ?? '';
  if (!code) return { code: '', at: '', message: '' };
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  return { code, at: text(detail?.path) || text(detail?.node), message: text(detail?.message) };
}

// What a run list row shows beyond the server's summary fields: the time a run still going has taken so far, and its
// error as code, failing node and message (the summary carries only the code; the rest comes from the run's detail).
import type { ErrorInfo, RunSummary } from '../api/types';
import { fmtDuration } from './format';
import { parseTime } from './time';

/** The duration cell: the finished run's duration, or for a run still going the time since it started. */
export function rowDuration(r: RunSummary, nowMs: number): { text: string; soFar: boolean } {
  if (r.duration_ms !== null && r.duration_ms !== undefined) return { text: fmtDuration(r.duration_ms), soFar: false };
  const started = parseTime(r.started_at);
  if (r.status !== 'running' || started === undefined) return { text: '', soFar: false };
  return { text: fmtDuration(Math.max(0, nowMs - started)), soFar: true };
}

/** The error cell: the code, then the failing node (its path when known), and the message for a second line. */
export function rowError(r: RunSummary, detail: ErrorInfo | null | undefined): { code: string; at: string; message: string } {
  const code = r.error ?? detail?.code ?? '';
  if (!code) return { code: '', at: '', message: '' };
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  return { code, at: text(detail?.path) || text(detail?.node), message: text(detail?.message) };
}

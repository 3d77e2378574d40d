// Text for numbers, times and values. A missing value is the empty string, never "null" or "undefined".
import { parseTime } from './time';

export function fmtDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  if (m < 60) return `${m} min ${s} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export function fmtCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return '';
  return `$${usd.toFixed(usd !== 0 && Math.abs(usd) < 0.01 ? 6 : 4)}`;
}

export function fmtInt(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '';
  return Math.round(n).toLocaleString('en-US');
}

/** Tokens in and out; empty when none were used (a node that calls no model). */
export function fmtTokens(input: number | null | undefined, output: number | null | undefined): string {
  if (!input && !output) return '';
  return `${fmtInt(input ?? 0)} in / ${fmtInt(output ?? 0)} out`;
}

/** A local date and time, to the second, for an engine instant. */
export function fmtTime(iso: string | null | undefined): string {
  const t = parseTime(iso);
  if (t === undefined) return '';
  const d = new Date(t);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** Like {@link fmtTime}, but only the time of day for an instant on the same local day as `nowMs`. */
export function fmtTimeShort(iso: string | null | undefined, nowMs: number): string {
  const full = fmtTime(iso);
  const today = fmtTime(new Date(nowMs).toISOString());
  return full && today && full.slice(0, 10) === today.slice(0, 10) ? full.slice(11) : full;
}

export function durationBetween(a: string | null | undefined, b: string | null | undefined): number | undefined {
  const x = parseTime(a);
  const y = parseTime(b);
  return x === undefined || y === undefined ? undefined : Math.max(0, y - x);
}

/** A value as text: strings as they are, everything else as indented JSON; missing values as ''. */
export function valueText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v, null, 2) ?? '';
  } catch {
    return String(v);
  }
}

/** Words for a status or an exit reason (`condition_false` → `condition false`). */
export function words(code: string | null | undefined): string {
  return code ? code.replace(/_/g, ' ') : '';
}

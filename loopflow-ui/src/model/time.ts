// Instants from the engine carry nanoseconds (`2026-11-24T02:51:02.249230776Z`); browsers differ on how many
// fraction digits Date.parse accepts, so the fraction is cut to milliseconds first.
export function parseTime(iso: string | null | undefined): number | undefined {
  if (!iso || typeof iso !== 'string') return undefined;
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)?$/.exec(iso.trim());
  const text = m ? `${m[1]}${m[2] ? '.' + (m[2] + '00').slice(0, 3) : ''}${m[3] ?? 'Z'}` : iso;
  const t = Date.parse(text);
  return Number.isFinite(t) ? t : undefined;
}

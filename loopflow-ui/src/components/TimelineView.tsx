// The timeline: a bar per node execution and per loop pass on one time axis, nested loops indented under their pass.
// Hovering or focusing a bar shows its details; activating it shows the execution (or chooses the pass).
import { useMemo, useState } from 'react';
import { fmtDuration, words } from '../model/format';
import type { RunLive } from '../model/runState';
import { timelineRows, type TimelineRow } from '../model/timeline';
import { StatusBadge, cssToken, statusLabel } from './common';

interface Props {
  run: RunLive;
  now: number;
  onShowExecution: (path: string) => void;
  onChoosePass: (loopStatic: string, iteration: number) => void;
  /** pass row keys chosen in the loop navigator, highlighted */
  chosen?: Set<string>;
}

function ticks(span: number): number[] {
  if (span <= 0) return [0];
  const steps = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 30_000, 60_000, 300_000, 600_000, 1_800_000, 3_600_000];
  const step = steps.find((s) => span / s <= 8) ?? 3_600_000;
  const out: number[] = [];
  for (let t = 0; t <= span; t += step) out.push(t);
  return out;
}

export function TimelineView({ run, now, onShowExecution, onChoosePass, chosen }: Props) {
  const { rows, span } = useMemo(() => timelineRows(run, now, chosen), [run, now, chosen]);
  const [hover, setHover] = useState<TimelineRow | undefined>();
  if (rows.length === 0) return <p className="muted">Nothing has run yet.</p>;
  const scale = span > 0 ? span : 1;
  const pct = (t: number) => `${Math.min(100, (t / scale) * 100)}%`;
  const activate = (r: TimelineRow) => {
    if (r.type === 'exec') onShowExecution(r.path);
    else if (r.type === 'pass' && r.loop && r.iteration !== undefined) onChoosePass(r.loop.staticPath, r.iteration);
  };
  const describe = (r: TimelineRow) =>
    `${r.type === 'pass' ? `${r.loop?.node ?? ''} ${r.label}` : r.type === 'loop' ? `loop ${r.label}` : r.label} — ${statusLabel(r.status)}, ${fmtDuration(r.end - r.start) || '0 ms'}, from ${fmtDuration(r.start) || '0 ms'}`;
  return (
    <div className="timeline" data-testid="timeline">
      <div className="timeline-axis" aria-hidden="true">
        <div className="timeline-label-col" />
        <div className="timeline-track">
          {ticks(span).map((t) => (
            <span key={t} className="tick" style={{ left: pct(t) }}>
              {fmtDuration(t) || '0'}
            </span>
          ))}
        </div>
      </div>
      <ul className="timeline-rows">
        {rows.map((r) =>
          r.type === 'gap' ? (
            <li key={r.key} className="timeline-row type-gap" data-testid={`timeline-gap-${r.path}`}>
              <div className="timeline-label-col muted small" style={{ paddingLeft: 4 + r.depth * 14 }}>
                {r.label}: pick one in the loop’s navigator
              </div>
              <div className="timeline-track">
                <span className="timeline-gap" style={{ left: pct(r.start), width: `max(3px, ${pct(r.end - r.start)})` }} />
              </div>
            </li>
          ) : (
          <li key={r.key} className={`timeline-row type-${r.type}${chosen?.has(r.key) ? ' chosen' : ''}`}>
            <div className="timeline-label-col" style={{ paddingLeft: 4 + r.depth * 14 }} title={r.path}>
              {r.type === 'pass' ? <span className="muted">{r.label}</span> : <code>{r.label}</code>}{' '}
              <span className="muted small">{fmtDuration(r.end - r.start)}</span>
            </div>
            <div className="timeline-track">
              <button
                type="button"
                className={`timeline-bar st-${cssToken(r.status)}${r.running ? ' running' : ''} bar-${r.type}${chosen?.has(r.key) ? ' chosen' : ''}`}
                aria-current={chosen?.has(r.key) ? 'true' : undefined}
                style={{ left: `min(${pct(r.start)}, calc(100% - 3px))`, width: `max(3px, ${pct(r.end - r.start)})` }}
                onMouseEnter={() => setHover(r)}
                onMouseLeave={() => setHover((h) => (h === r ? undefined : h))}
                onFocus={() => setHover(r)}
                onBlur={() => setHover((h) => (h === r ? undefined : h))}
                onClick={() => activate(r)}
                aria-label={describe(r)}
                data-testid={`timeline-bar-${r.path}`}
                data-status={r.status}
              />
            </div>
          </li>
          ),
        )}
      </ul>
      <div className="timeline-details" aria-live="polite" data-testid="timeline-details">
        {hover ? (
          <>
            <code>{hover.path}</code> <StatusBadge status={hover.status} compact />{' '}
            <span>{fmtDuration(hover.end - hover.start) || '0 ms'}</span>
            <span className="muted"> from {fmtDuration(hover.start) || '0 ms'} after the start</span>
            {hover.exec?.error?.message ? <span className="st-failed"> {hover.exec.error.message}</span> : null}
            {hover.type === 'loop' && hover.loop?.completed ? <span className="muted"> ended: {words(hover.loop.completed.exitReason)}</span> : null}
          </>
        ) : (
          <span className="muted">Hover over or focus a bar for its details.</span>
        )}
      </div>
    </div>
  );
}

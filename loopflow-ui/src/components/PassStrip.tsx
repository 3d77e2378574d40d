// Every pass of a loop in one strip: a column per pass (or per group of consecutive passes when there are more passes
// than pixels), its colour the worst status in it, its height the longest duration, and a line of cost under it.
// Drawn on a canvas, so a loop of 10,000 passes costs one element. Clicking a column shows its pass; the jump box
// and the buttons around it are the keyboard's way to the same passes.
import { useEffect, useMemo, useRef, useState } from 'react';
import { fmtCost, fmtDuration } from '../model/format';
import { columnAt, stripColumns, type StripColumn, type StripPass } from '../model/strip';

const COLORS: Record<string, string> = {
  completed: '#1a7f37',
  skipped: '#8c959f',
  running: '#0b5cad',
  paused: '#8a5a00',
  cancelled: '#6e7781',
  failed: '#c0232c',
};
const HEIGHT = 34;
const COST_ROW = 5;

interface Props {
  loopStatic: string;
  passes: readonly StripPass[];
  shown?: number;
  onChoose: (iteration: number) => void;
}

export function PassStrip({ loopStatic, passes, shown, onChoose }: Props) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [width, setWidth] = useState(600);
  const [hover, setHover] = useState<StripColumn>();
  useEffect(() => {
    const el = canvas.current?.parentElement;
    if (!el) return;
    const measure = () => setWidth(Math.max(60, Math.floor(el.clientWidth)));
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const columns = useMemo(() => stripColumns(passes, width), [passes, width]);
  const maxDuration = useMemo(() => columns.reduce((m, c) => Math.max(m, c.durationMs ?? 0), 0), [columns]);
  const maxCost = useMemo(() => columns.reduce((m, c) => Math.max(m, c.costUsd ?? 0), 0), [columns]);

  useEffect(() => {
    const c = canvas.current;
    if (!c) return;
    const ratio = window.devicePixelRatio || 1;
    c.width = Math.floor(width * ratio);
    c.height = Math.floor(HEIGHT * ratio);
    const g = c.getContext('2d');
    if (!g) return;
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.clearRect(0, 0, width, HEIGHT);
    const n = columns.length;
    const w = width / Math.max(1, n);
    const barTop = 2;
    const barMax = HEIGHT - COST_ROW - barTop - 2;
    columns.forEach((col, i) => {
      const x = i * w;
      const h = maxDuration > 0 && col.durationMs !== undefined ? Math.max(3, (col.durationMs / maxDuration) * barMax) : barMax;
      g.globalAlpha = col.reused ? 0.45 : 1;
      g.fillStyle = COLORS[col.status] ?? COLORS.completed!;
      g.fillRect(x, barTop + barMax - h, Math.max(1, w - (w > 3 ? 1 : 0)), h);
      if (maxCost > 0 && col.costUsd) {
        g.globalAlpha = Math.min(1, 0.25 + (col.costUsd / maxCost) * 0.75);
        g.fillStyle = '#8a5a00';
        g.fillRect(x, HEIGHT - COST_ROW, Math.max(1, w - (w > 3 ? 1 : 0)), COST_ROW);
      }
      if (shown !== undefined && shown >= col.from && shown <= col.to) {
        g.globalAlpha = 1;
        g.strokeStyle = '#1f2328';
        g.lineWidth = 1.5;
        g.strokeRect(x + 0.75, 0.75, Math.max(2, w - 1.5), HEIGHT - 1.5);
      }
    });
    g.globalAlpha = 1;
  }, [columns, width, maxDuration, maxCost, shown]);

  if (passes.length === 0) return null;
  const failed = passes.filter((p) => p.status === 'failed').length;
  const pick = (e: React.MouseEvent<HTMLCanvasElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    return columnAt(columns, e.clientX - r.left, r.width);
  };
  return (
    <div className="pass-strip" data-testid={`pass-strip-${loopStatic}`}>
      <canvas
        ref={canvas}
        style={{ width: '100%', height: HEIGHT }}
        role="img"
        aria-label={`${passes.length} passes${failed ? `, ${failed} failed` : ''}: height is duration, colour is status, the lower line is cost`}
        onMouseMove={(e) => setHover(pick(e))}
        onMouseLeave={() => setHover(undefined)}
        onClick={(e) => {
          const col = pick(e);
          if (col) onChoose(col.from);
        }}
      />
      <div className="pass-strip-legend muted small" aria-live="polite" data-testid={`pass-strip-hover-${loopStatic}`}>
        {hover ? (
          <>
            {hover.from === hover.to ? `pass ${hover.from}` : `passes ${hover.from}–${hover.to}`}: {hover.status}
            {hover.durationMs !== undefined ? ` · ${hover.count > 1 ? 'longest ' : ''}${fmtDuration(hover.durationMs) || '0 ms'}` : ''}
            {hover.costUsd !== undefined && fmtCost(hover.costUsd) ? ` · ${fmtCost(hover.costUsd)}` : ''}
          </>
        ) : (
          <>
            {passes.length} pass{passes.length === 1 ? '' : 'es'}
            {failed ? `, ${failed} failed` : ''} · bar height: duration · lower line: cost · click a bar to show its pass
          </>
        )}
      </div>
    </div>
  );
}

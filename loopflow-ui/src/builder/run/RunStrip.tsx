// Following a run started from the builder: its events folded by the run viewer's own reducer, the run's graph for
// placing its loops, and a strip with the run's state and a link to its page.
import { ExternalLink } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { api, enc, followEvents } from '../../api/client';
import type { RunDetail, RunGraph } from '../../api/types';
import { runHref } from '../../app/router';
import { Link } from '../../components/common';
import { PassBadgeView, type PassBadge } from '../../components/GraphView';
import { applyEvents, emptyRun, type RunLive } from '../../model/runState';
import { runOver, runPhase } from './liveRun';

const PAUSED_POLL_MS = 3000;

/** The live state and graph of a run, while runId is set; following ends when the run ends or runId is cleared. */
export function useFollowedRun(runId: string | null): { live: RunLive; graph: RunGraph | null } {
  const [live, setLive] = useState<RunLive>(emptyRun);
  const [graph, setGraph] = useState<RunGraph | null>(null);
  const [epoch, setEpoch] = useState(0);
  const lastSeq = useRef(0);
  lastSeq.current = live.lastSeq;

  useEffect(() => {
    setLive(emptyRun());
    setGraph(null);
    lastSeq.current = 0;
    if (!runId) return;
    let on = true;
    api.get<RunGraph>(`/api/runs/${enc(runId)}/graph`).then(
      (g) => on && setGraph(g && Array.isArray(g.nodes) ? g : null),
      () => undefined,
    );
    return () => {
      on = false;
    };
  }, [runId]);

  // the stream ends at a pause or at the end of the run; it is opened again (from the last event applied) when a
  // paused run goes on, answered on its run page or from the command line
  useEffect(() => {
    if (!runId) return;
    return followEvents(runId, { onEvents: (events) => setLive((prev) => applyEvents(prev, events)), onStatus: () => undefined }, lastSeq.current);
  }, [runId, epoch]);

  const paused = live.status === 'paused';
  useEffect(() => {
    if (!runId || !paused) return;
    const t = window.setInterval(async () => {
      try {
        const d = await api.get<RunDetail>(`/api/runs/${enc(runId)}`);
        if (d?.status === 'running') setEpoch((x) => x + 1);
      } catch {
        // asked again at the next tick
      }
    }, PAUSED_POLL_MS);
    return () => window.clearInterval(t);
  }, [runId, paused]);

  return { live, graph };
}

export function RunStrip({ runId, live, unplaced, onClose }: { runId: string; live: RunLive; unplaced: PassBadge[]; onClose: () => void }) {
  const phase = runPhase(live);
  return (
    <div className={`builder-run-strip run-${phase}`} role="status" data-testid="builder-run-strip">
      <span>
        Run <code>{runId}</code>
      </span>
      <span className="builder-run-status" data-testid="builder-run-status">
        {phase}
      </span>
      {live.status === 'paused' ? <span className="muted">waiting for an answer on its run page</span> : null}
      {live.status === 'failed' && live.finished?.message ? <span className="muted">{live.finished.message}</span> : null}
      {unplaced.map((b) => (
        <span key={b.loopStatic}>
          <code>{b.loopStatic}</code> <PassBadgeView badge={b} />
        </span>
      ))}
      <Link href={runHref(runId)} testId="builder-open-run">
        <ExternalLink aria-hidden="true" size={13} /> Open run
      </Link>
      {runOver(live) ? (
        <button type="button" onClick={onClose} data-testid="builder-run-close" title="Clear the pass counters">
          Clear
        </button>
      ) : null}
    </div>
  );
}

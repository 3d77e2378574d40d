// A run: the live graph, a navigator per loop, the timeline, the node details with LLM calls, errors pinned to their
// node and pass, and the actions a person can take. The state is folded from the run's event stream (the journal's
// replay, then live events); inputs, outputs and state changes come from the journaled executions.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ArrowLeft, GitBranch, Radio, WifiOff } from 'lucide-react';
import { ApiError, RECENT_PASSES, allPassSummaries, api, enc, followEvents, passDetail, recentExecutions, runDiff, type StreamStatus } from '../api/client';
import type { Execution, ForkedFrom, ForkInfo, PassSummary, RunDetail, RunDiff, RunEvent, RunGraph } from '../api/types';
import { InlineError } from '../components/ForkPanel';
import { DiffView } from '../components/PassCompare';
import { Link, ErrorMessage, Loading, StatusBadge, ValueBlock, Fact } from '../components/common';
import { GraphView } from '../components/GraphView';
import { LoopNavigators } from '../components/LoopNavigator';
import { TimelineView } from '../components/TimelineView';
import { chosenPassKeys } from '../model/timeline';
import { ExecutionDetails } from '../components/ExecutionDetails';
import { Actions } from '../components/Actions';
import { runDuration } from '../model/runRow';
import { fmtCost, fmtDuration, fmtTime, fmtTimeShort, fmtTokens, words } from '../model/format';
import { graphFromRun } from '../model/graphFallback';
import {
  effectivePasses,
  failingExecution,
  graphNodeFor,
  indexGraph,
  nodeViews,
  selectionFor,
  type NodeView,
  type PassSelection,
} from '../model/graphMap';
import { recordsByPath } from '../model/passes';
import { applyEvents, emptyRun, type RunLive } from '../model/runState';
import { withReused } from '../model/reused';
import { allRecords, isSummaryOnly, loadedPass, missingPasses, passKey, pruned, withPasses, type LoadedPass } from '../model/passWindow';
import { runHref } from '../app/router';

const RECORD_EVENTS = new Set(['node.completed', 'node.failed', 'node.skipped', 'node.cancelled', 'loop.completed']);
/** Events arriving within this many ms are folded together: a live loop redraws the page at most five times a second. */
const FOLD_MS = 200;
/** The most passes loaded one at a time the page keeps (the least recently shown go first). */
const MAX_LOADED_PASSES = 24;
/** A live loop's passes held in detail beyond the window before the older ones are let go (see passWindow.pruned). */
const PRUNE_SLACK = 40;
const DETAIL_EVENTS = new Set(['run.finished', 'run.paused', 'run.resumed']);

export function RunPage({ id }: { id: string }) {
  const [detail, setDetail] = useState<RunDetail>();
  const [detailError, setDetailError] = useState<unknown>();
  const [graph, setGraph] = useState<RunGraph>();
  const [graphMissing, setGraphMissing] = useState(false);
  // the journaled executions outside loops and in each loop's recent passes (the window the stream replays)
  const [records, setRecords] = useState<Execution[]>([]);
  // passes shown that the window left out, loaded one at a time, and every pass of the loops shown, summarised
  const [loaded, setLoaded] = useState<LoadedPass[]>([]);
  const [summaries, setSummaries] = useState<Map<string, PassSummary[]>>(() => new Map());
  const [passErrors, setPassErrors] = useState<Record<string, string>>({});
  const asked = useRef(new Set<string>());
  // the passes chosen in the navigators, which keep their details when a live loop's older passes are let go
  const pinnedPasses = useRef<Set<string>>(new Set());
  // what this run's own events say; `live` below adds what a fork reuses from its origin (see reused.ts) and the
  // passes outside the window (see passWindow.ts)
  const [own, setLive] = useState<RunLive>(emptyRun);
  const [stream, setStream] = useState<{ status: StreamStatus; detail?: string }>({ status: 'connecting' });
  const [epoch, setEpoch] = useState(0);
  const [selection, setSelection] = useState<PassSelection>({});
  const [selectedKey, setSelectedKey] = useState<string>();
  const [selectedExec, setSelectedExec] = useState<string>();
  const [now, setNow] = useState(() => Date.now());
  const lastSeq = useRef(0);
  const pinned = useRef(false);
  lastSeq.current = own.lastSeq;
  const allRecs = useMemo(() => allRecords(records, loaded), [records, loaded]);
  // the timeline draws what this run executed (not what a fork reuses), with the passes outside the window
  const timelineRun = useMemo(() => withPasses(own, loaded, summaries), [own, loaded, summaries]);
  const forkOrigin = detail?.forked_from?.run_id ?? undefined;
  const live = useMemo(
    () => withPasses(withReused(own, allRecs), loaded, summaries, forkOrigin),
    [own, allRecs, loaded, summaries, forkOrigin],
  );

  const loadDetail = useCallback(async () => {
    try {
      setDetail(await api.get<RunDetail>(`/api/runs/${enc(id)}`));
      setDetailError(undefined);
    } catch (e) {
      setDetailError(e);
    }
  }, [id]);

  const loadRecords = useCallback(async () => {
    try {
      const r = await recentExecutions(id);
      if (Array.isArray(r)) setRecords(r);
    } catch {
      // the journaled details are extra: the page works from events alone until they load
    }
  }, [id]);

  // a fresh page for another run
  useEffect(() => {
    setDetail(undefined);
    setDetailError(undefined);
    setGraph(undefined);
    setGraphMissing(false);
    setRecords([]);
    setLoaded([]);
    setSummaries(new Map());
    setPassErrors({});
    asked.current = new Set();
    setLive(emptyRun());
    setSelection({});
    // `?node=KEY` (a link from the builder's canvas) opens that node's execution
    setSelectedKey(new URLSearchParams(window.location.search).get('node') ?? undefined);
    setSelectedExec(undefined);
    pinned.current = false;
    lastSeq.current = 0;
    void loadDetail();
    void loadRecords();
    api
      .get<RunGraph>(`/api/runs/${enc(id)}/graph`)
      .then((g) => (g && Array.isArray(g.nodes) ? setGraph(g) : setGraphMissing(true)))
      .catch(() => setGraphMissing(true));
  }, [id, loadDetail, loadRecords]);

  // the event stream; opened again (from the last event applied) after an action or when a paused run goes on
  const recordTimer = useRef<number | undefined>(undefined);
  useEffect(() => {
    // events are folded in batches: a replay or a fast loop arrives in many small chunks
    let pending: RunEvent[] = [];
    let foldTimer: number | undefined;
    const fold = () => {
      foldTimer = undefined;
      const batch = pending;
      pending = [];
      if (batch.length) setLive((prev) => pruned(applyEvents(prev, batch), RECENT_PASSES, PRUNE_SLACK, pinnedPasses.current));
    };
    const stop = followEvents(
      id,
      {
        onEvents: (events: RunEvent[]) => {
          for (const e of events) pending.push(e);
          // the end of a run or a pause is shown at once; anything else waits for the rest of its batch
          if (events.some((e) => DETAIL_EVENTS.has(e.type))) {
            window.clearTimeout(foldTimer);
            fold();
          } else if (foldTimer === undefined) {
            foldTimer = window.setTimeout(fold, FOLD_MS);
          }
          if (events.some((e) => DETAIL_EVENTS.has(e.type))) {
            void loadDetail();
            void loadRecords();
          } else if (events.some((e) => RECORD_EVENTS.has(e.type))) {
            window.clearTimeout(recordTimer.current);
            recordTimer.current = window.setTimeout(() => void loadRecords(), 700);
          }
        },
        onStatus: (status, d) => {
          // a closed or failed stream shows what it had received first
          if (status !== 'live' && status !== 'connecting') {
            window.clearTimeout(foldTimer);
            fold();
          }
          setStream({ status, detail: d });
        },
      },
      lastSeq.current,
      RECENT_PASSES,
    );
    return () => {
      stop();
      window.clearTimeout(foldTimer);
      window.clearTimeout(recordTimer.current);
    };
  }, [id, epoch, loadDetail, loadRecords]);

  const status = live.status !== 'unknown' ? live.status : (detail?.status ?? 'unknown');
  const streamOpen = stream.status === 'live' || stream.status === 'connecting' || stream.status === 'reconnecting';

  // a paused or failed run may go on from elsewhere (the command line): look again now and then; completed and
  // cancelled runs never go on
  const pollMs = streamOpen || stream.status === 'error' ? 0 : status === 'paused' ? 3000 : status === 'failed' ? 10_000 : 0;
  useEffect(() => {
    if (!pollMs) return;
    const t = window.setInterval(async () => {
      try {
        const d = await api.get<RunDetail>(`/api/runs/${enc(id)}`);
        setDetail(d);
        if (d.status === 'running') setEpoch((x) => x + 1);
      } catch {
        // shown by the next successful load
      }
    }, pollMs);
    return () => window.clearInterval(t);
  }, [id, pollMs]);

  useEffect(() => {
    if (status !== 'running') return;
    const t = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(t);
  }, [status]);

  const drawn = useMemo(() => graph ?? (graphMissing ? graphFromRun(live) : undefined), [graph, graphMissing, live]);
  const index = useMemo(() => (drawn ? indexGraph(drawn) : undefined), [drawn]);
  const effective = useMemo(() => effectivePasses(live, selection), [live, selection]);
  const chosenPasses = useMemo(() => chosenPassKeys(effective, selection), [effective, selection]);
  pinnedPasses.current = new Set([...effective.values()].flatMap((e) => (e.iteration !== undefined && selection[e.loopStatic] !== undefined ? [passKey(e.instance.path, e.iteration)] : [])));
  const views = useMemo(() => (index ? nodeViews(live, index, selection) : new Map<string, NodeView>()), [live, index, selection]);
  const recordMap = useMemo(() => recordsByPath(allRecs), [allRecs]);

  // Loads one pass the window left out (its events and executions), once; the least recently loaded go first.
  const loadPass = useCallback(
    (loopPath: string, iteration: number) => {
      const key = passKey(loopPath, iteration);
      if (asked.current.has(key)) return;
      asked.current.add(key);
      passDetail(id, loopPath, iteration)
        .then((d) => {
          const p = loadedPass(loopPath, iteration, d?.events ?? [], d?.executions ?? []);
          setLoaded((prev) => {
            const next = [...prev.filter((x) => passKey(x.loopPath, x.iteration) !== key), p];
            // a pass let go is asked for again when shown again
            for (const gone of next.slice(0, Math.max(0, next.length - MAX_LOADED_PASSES))) {
              asked.current.delete(passKey(gone.loopPath, gone.iteration));
            }
            return next.slice(-MAX_LOADED_PASSES);
          });
        })
        .catch((e: unknown) => {
          asked.current.delete(key);
          setPassErrors((m) => ({ ...m, [key]: e instanceof Error ? e.message : String(e) }));
        });
    },
    [id],
  );

  // The loops shown: a loop whose first passes the window left out gets the summary of every pass; a pass shown
  // from its summary alone gets loaded.
  useEffect(() => {
    for (const e of effective.values()) {
      const l = e.instance;
      const first = l.passes[0];
      if (first && first.iteration > 1 && !first.summary && !asked.current.has('summary:' + l.path)) {
        asked.current.add('summary:' + l.path);
        allPassSummaries(id, l.path)
          .then((list) => setSummaries((m) => new Map(m).set(l.path, list)))
          .catch(() => asked.current.delete('summary:' + l.path));
      }
      if (e.iteration !== undefined && isSummaryOnly(live, l.path, e.iteration)) loadPass(l.path, e.iteration);
    }
  }, [effective, live, id, loadPass]);

  // an error in a pass the window left out: load the passes it lies in, outermost first
  const errorPath = detail?.error?.path ?? undefined;
  useEffect(() => {
    if (!errorPath || live.execs[errorPath]) return;
    const missing = missingPasses(live, errorPath)[0];
    if (missing) loadPass(missing.loopPath, missing.iteration);
  }, [errorPath, live, loadPass]);
  const failing = useMemo(
    () => (status === 'failed' ? failingExecution(live, detail?.error?.path) : undefined),
    [live, status, detail?.error?.path],
  );
  const failingKey = failing && index ? graphNodeFor(index, failing.path)?.key : undefined;

  // errors are pinned to their node and pass and shown open: the failing pass is chosen once, when it is known
  useEffect(() => {
    if (!failing || pinned.current) return;
    pinned.current = true;
    setSelection((s) => ({ ...selectionFor(failing), ...s }));
    setSelectedExec(failing.path);
    if (failingKey) setSelectedKey(failingKey);
  }, [failing, failingKey]);

  const choosePass = useCallback((loopStatic: string, iteration: number) => {
    setSelection((s) => ({ ...s, [loopStatic]: iteration }));
  }, []);
  const selectNode = useCallback((key: string) => {
    setSelectedKey(key);
    setSelectedExec(undefined);
  }, []);
  const showExecution = useCallback(
    (path: string) => {
      setSelectedExec(path);
      const n = index ? graphNodeFor(index, path) : undefined;
      setSelectedKey(n?.key);
      document.getElementById('node-panel')?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
    },
    [index],
  );
  const onChanged = useCallback(() => {
    void loadDetail();
    setEpoch((x) => x + 1);
  }, [loadDetail]);

  if (detailError instanceof ApiError && detailError.status === 404) {
    return (
      <main className="page">
        <BackLink />
        <h1>Run not found</h1>
        <p>
          There is no run <code>{id}</code> in this server’s store.
        </p>
      </main>
    );
  }

  const selectedNode = selectedKey && index ? index.byKey.get(selectedKey) : undefined;
  const view = selectedKey ? views.get(selectedKey) : undefined;
  const shownExecPath = selectedExec ?? view?.exec?.path ?? view?.executions[view.executions.length - 1]?.path;
  const shownLive = shownExecPath ? live.execs[shownExecPath] : undefined;
  const shownRecords = shownExecPath ? recordMap.get(shownExecPath) : undefined;
  const shownRecord = shownRecords ? shownRecords[shownRecords.length - 1] : undefined;
  const error = detail?.error ?? (live.finished?.errorCode ? { code: live.finished.errorCode, message: live.finished.message } : undefined);
  const usage = detail?.usage;
  const hasRestartPolicy = Boolean(graph?.restart && graph.restart.enabled !== false) || Boolean(detail?.pipeline) || live.loops['restart'] !== undefined;

  return (
    <main className="page run-page">
      <BackLink />
      <header className="run-header">
        <div className="run-title">
          <h1>
            <span className="muted">run</span> <code data-testid="run-id">{id}</code>
          </h1>
          <StatusBadge status={status === 'unknown' ? undefined : status} testId="run-status" />
          <StreamIndicator status={stream.status} detail={stream.detail} />
        </div>
        <dl className="facts inline run-facts" data-testid="run-facts">
          <Fact label="workflow">{live.workflow ?? detail?.workflow ?? ''}</Fact>
          <Fact label="started" title={fmtTime(live.startedAt)}>{fmtTimeShort(live.startedAt, now)}</Fact>
          <Fact label="duration">
            {fmtDuration(runDuration({ status, started_at: detail?.started_at ?? live.startedAt, duration_ms: detail?.duration_ms }, now).ms)}
          </Fact>
          <Fact label="LLM calls">{usage?.llm_calls ?? live.usage.llmCalls ? String(usage?.llm_calls ?? live.usage.llmCalls) : ''}</Fact>
          <Fact label="tokens">
            {(usage?.input_tokens ?? live.usage.inputTokens) || (usage?.output_tokens ?? live.usage.outputTokens)
              ? fmtTokens(usage?.input_tokens ?? live.usage.inputTokens, usage?.output_tokens ?? live.usage.outputTokens)
              : ''}
          </Fact>
          <Fact label="cost">{fmtCost(usage?.cost_usd ?? live.usage.costUsd)}</Fact>
        </dl>
      </header>

      <Lineage runId={id} forkedFrom={detail?.forked_from} forks={detail?.forks} />

      {detailError && !(detailError instanceof ApiError && detailError.status === 404) ? <ErrorMessage error={detailError} /> : null}

      {error && (error.code || error.message) && status !== 'running' && status !== 'paused' ? (
        <section className="panel error-panel" data-testid="error-panel" aria-labelledby="error-title">
          <details open>
            <summary>
              <h2 id="error-title">
                Run {status === 'cancelled' ? 'cancelled' : 'failed'}
                {error.code ? (
                  <>
                    {' '}
                    <code className="code">{error.code}</code>
                  </>
                ) : null}
              </h2>
            </summary>
            <p className="error-text" data-testid="error-message">
              {error.message ?? ''}
            </p>
            {failing ? (
              <p>
                In node <code>{failing.node}</code>
                {failing.passes.length ? (
                  <>
                    , {failing.passes.map((p) => `pass ${p.iteration} of ${p.loopStatic.split('.').pop()}`).join(', ')}
                  </>
                ) : null}{' '}
                (<code>{failing.path}</code>).{' '}
                <button type="button" className="link-button" onClick={() => { setSelection((s) => ({ ...s, ...selectionFor(failing) })); showExecution(failing.path); }}>
                  Show the failing pass
                </button>
              </p>
            ) : error.path || error.node ? (
              <p>
                At <code>{String(error.path ?? error.node)}</code>.
              </p>
            ) : null}
          </details>
        </section>
      ) : null}

      <Actions runId={id} detail={detail} live={live} graph={graph} hasRestartPolicy={hasRestartPolicy} onChanged={onChanged} />

      <div className="run-main">
        <section className="panel graph-panel" aria-labelledby="graph-title">
          <h2 id="graph-title">Graph</h2>
          {graphMissing ? <p className="muted small">The server sent no graph for this run; this one is drawn from the run’s events.</p> : null}
          {drawn && index ? (
            drawn.nodes.length ? (
              <GraphView
                graph={drawn}
                index={index}
                run={live}
                views={views}
                effective={effective}
                selectedKey={selectedKey}
                failingKey={failingKey}
                onSelect={selectNode}
              />
            ) : (
              <p className="muted">Nothing has run yet.</p>
            )
          ) : (
            <Loading what="the graph" />
          )}
        </section>
        <section className="panel node-panel" id="node-panel" aria-labelledby="node-title" data-testid="node-panel">
          {selectedNode || shownExecPath ? (
            <>
              <h2 id="node-title">
                <code>{selectedNode?.title || selectedNode?.id || shownLive?.node || ''}</code>{' '}
                <span className="muted small">{selectedNode?.kind ?? shownLive?.kind ?? ''}</span>
              </h2>
              {view && view.executions.length > 1 ? (
                <div className="exec-picker">
                  <label htmlFor="exec-pick">Execution</label>
                  <select id="exec-pick" value={shownExecPath ?? ''} onChange={(e) => setSelectedExec(e.target.value)}>
                    {view.executions.map((x) => (
                      <option key={x.path} value={x.path}>
                        {x.path} — {words(x.status)}
                      </option>
                    ))}
                  </select>
                </div>
              ) : null}
              {shownLive || shownRecord ? (
                <ExecutionDetails live={shownLive} record={shownRecord} testId="execution-details" />
              ) : (
                <p className="muted">
                  {view?.status === 'not_run' ? 'This node did not run in the shown passes.' : 'This node has not run yet in the shown passes.'}
                </p>
              )}
            </>
          ) : (
            <>
              <h2 id="node-title">Details</h2>
              <p className="muted">Choose a node in the graph, a bar in the timeline or a node of a pass to see what it received and produced.</p>
              <RunOutput detail={detail} />
            </>
          )}
        </section>
      </div>

      <section className="panel" aria-labelledby="loops-title">
        <div className="panel-head">
          <h2 id="loops-title">Loops</h2>
          {Object.keys(selection).length ? (
            <button type="button" onClick={() => setSelection({})} data-testid="show-latest-passes">
              Show the latest passes
            </button>
          ) : null}
        </div>
        <LoopNavigators
          runId={id}
          run={live}
          records={recordMap}
          passErrors={passErrors}
          effective={effective}
          onChoose={choosePass}
          onShowExecution={showExecution}
          errorPath={failing?.path}
          selection={selection}
        />
      </section>

      {detail?.pipeline?.restart_requests?.length || live.restarts.length ? (
        <section className="panel" aria-labelledby="restarts-title" data-testid="restart-requests">
          <h2 id="restarts-title">Restart requests</h2>
          <RestartList detail={detail} live={live} />
        </section>
      ) : null}

      <section className="panel" aria-labelledby="timeline-title">
        <h2 id="timeline-title">Timeline</h2>
        <TimelineView run={timelineRun} now={now} onShowExecution={showExecution} onChoosePass={choosePass} chosen={chosenPasses} />
      </section>

      <section className="panel" aria-labelledby="output-title">
        <details>
          <summary>
            <h2 id="output-title">Run output and state</h2>
          </summary>
          <RunOutput detail={detail} withState />
        </details>
      </section>
    </main>
  );
}

/** Where a fork comes from, and the forks of this run: links to each, with the fork point (and each fork's status). */
function Lineage({ runId, forkedFrom, forks }: { runId: string; forkedFrom?: ForkedFrom | null; forks?: ForkInfo[] | null }) {
  const [comparing, setComparing] = useState(false);
  const origin = typeof forkedFrom?.run_id === 'string' && forkedFrom.run_id ? forkedFrom.run_id : undefined;
  const list = Array.isArray(forks) ? forks.filter((f) => f && typeof f.run_id === 'string' && f.run_id) : [];
  if (!origin && list.length === 0) return null;
  const u = forkedFrom?.reused_usage;
  const reused = [u?.llm_calls ? `${u.llm_calls} LLM call${u.llm_calls === 1 ? '' : 's'}` : '', fmtTokens(u?.input_tokens, u?.output_tokens), fmtCost(u?.cost_usd)].filter(Boolean);
  return (
    <section className="lineage" aria-label="lineage" data-testid="lineage">
      {origin ? (
        <p data-testid="forked-from">
          <GitBranch aria-hidden="true" size={14} /> forked from{' '}
          <Link href={runHref(origin)} testId="forked-from-link">
            <code>{origin}</code>
          </Link>
          {forkedFrom?.at ? (
            <>
              {' '}
              at <code data-testid="forked-from-at">{forkedFrom.at}</code>
            </>
          ) : null}
          <span className="muted">
            {' '}
            — what ran before that point is reused{reused.length ? ` (${reused.join(' · ')} spent in the origin, not charged here)` : ''}
          </span>{' '}
          <button type="button" className="link-button" onClick={() => setComparing(!comparing)} aria-expanded={comparing} data-testid="compare-with-origin">
            {comparing ? 'Hide the comparison' : 'Compare with the origin'}
          </button>
        </p>
      ) : null}
      {origin && comparing ? <RunCompare key={`${runId} ${origin}`} runId={runId} origin={origin} /> : null}
      {list.length ? (
        <div data-testid="forks">
          <span>
            <GitBranch aria-hidden="true" size={14} /> {list.length === 1 ? 'fork' : `${list.length} forks`}:
          </span>{' '}
          <ul className="fork-list">
            {list.map((f) => (
              <li key={f.run_id} data-testid={`fork-${f.run_id}`}>
                <Link href={runHref(f.run_id)}>
                  <code>{f.run_id}</code>
                </Link>
                {f.at ? (
                  <>
                    {' '}
                    at <code>{f.at}</code>
                  </>
                ) : null}{' '}
                <StatusBadge status={f.status} compact />
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}

/** The origin's result beside this fork's: state at the end and the top-level nodes' outputs. */
function RunCompare({ runId, origin }: { runId: string; origin: string }) {
  const [diff, setDiff] = useState<RunDiff>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    let current = true;
    // the origin on the left (−), this fork on the right (+)
    runDiff(origin, runId)
      .then((d) => current && setDiff(d))
      .catch((e: unknown) => current && setError(e));
    return () => {
      current = false;
    };
  }, [runId, origin]);
  return (
    <div className="pass-compare" data-testid="run-compare">
      <InlineError error={error} testId="run-compare-error" />
      {diff ? <DiffView diff={diff} sides="run" /> : error ? null : <p className="muted">Loading both runs…</p>}
    </div>
  );
}

function BackLink() {
  return (
    <nav className="crumbs" aria-label="breadcrumb">
      <Link href="/">
        <ArrowLeft aria-hidden="true" size={14} /> All runs
      </Link>
    </nav>
  );
}

function StreamIndicator({ status, detail }: { status: StreamStatus; detail?: string }) {
  const text: Record<StreamStatus, string> = {
    connecting: 'connecting…',
    live: 'live',
    reconnecting: 'connection lost, reconnecting…',
    closed: 'up to date',
    error: detail ?? 'the event stream failed',
  };
  const Icon = status === 'reconnecting' || status === 'error' ? WifiOff : Radio;
  return (
    <span className={`stream stream-${status}`} data-testid="stream-status" role="status">
      <Icon aria-hidden="true" size={13} /> {text[status]}
    </span>
  );
}

function RunOutput({ detail, withState }: { detail?: RunDetail; withState?: boolean }) {
  if (!detail) return null;
  const hasOutput = detail.output !== null && detail.output !== undefined && detail.output !== '';
  if (!hasOutput && !withState) return null;
  return (
    <div className="run-output">
      <h3>Output</h3>
      {hasOutput ? <ValueBlock value={detail.output} testId="run-output" /> : <p className="muted">No output.</p>}
      {withState ? (
        <>
          <h3>State</h3>
          <ValueBlock value={detail.state} testId="run-state" />
        </>
      ) : null}
    </div>
  );
}

function RestartList({ detail, live }: { detail?: RunDetail; live: RunLive }) {
  const decided = detail?.pipeline?.restart_requests ?? [];
  if (decided.length) {
    return (
      <ol className="restart-list">
        {decided.map((r, i) => (
          <li key={i}>
            <code>{r.requester_stage_id ?? ''}</code> → <code>{r.target_stage_id ?? ''}</code>:{' '}
            {r.success ? <strong className="ok">accepted</strong> : <strong className="error-text">rejected</strong>}
            {r.error?.code ? (
              <>
                {' '}
                <code className="code">{r.error.code}</code> {r.error.message ?? ''}
              </>
            ) : null}
            {r.iteration ? <span className="muted"> (iteration {r.iteration})</span> : null}
            {r.reason ? <div className="muted">reason: {r.reason}</div> : null}
          </li>
        ))}
      </ol>
    );
  }
  return (
    <ol className="restart-list">
      {live.restarts.map((r) => (
        <li key={r.seq}>
          {words(r.type)} <code>{r.requester ?? ''}</code> → <code>{r.target ?? ''}</code>
          {r.errorCode ? (
            <>
              {' '}
              <code className="code">{r.errorCode}</code> {r.message ?? ''}
            </>
          ) : null}
          {r.reason ? <span className="muted"> — {r.reason}</span> : null}
        </li>
      ))}
    </ol>
  );
}

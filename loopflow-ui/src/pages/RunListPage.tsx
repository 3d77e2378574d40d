// The runs: filters and the search kept in the address (so a filtered list can be bookmarked, shared and reloaded),
// searched by the server (GET /api/runs?q=&id=&status=&workflow=, a page at a time), refreshed every two seconds
// without blanking what is shown, with a link to each run's page and a delete that asks first.
import { useEffect, useRef, useState } from 'react';
import { Plus, RefreshCw, Trash2 } from 'lucide-react';
import { ApiError, api, deleteRun } from '../api/client';
import type { ErrorInfo, RunDetail, RunSummary } from '../api/types';
import { navigate, runHref, useLocation } from '../app/router';
import { Empty, ErrorMessage, Link, Loading, StatusBadge } from '../components/common';
import { StartRun } from '../components/StartRun';
import { fmtCost, fmtInt, fmtTime } from '../model/format';
import { rowDuration, rowError } from '../model/runRow';

const STATUSES = ['running', 'interrupted', 'paused', 'completed', 'failed', 'cancelled'];
const POLL_MS = 2000;
/** runs one list shows (the newest that match); a search narrows it */
const PAGE = 200;
/** the server refuses longer search terms */
const MAX_SEARCH = 200;
/** failed runs whose error details are asked for per refresh, so a long list of failures never floods the server */
const DETAILS_PER_REFRESH = 10;

export function RunListPage() {
  const { search } = useLocation();
  const params = new URLSearchParams(search);
  const status = params.get('status') ?? '';
  const workflow = params.get('workflow') ?? '';
  const query = params.get('q') ?? '';
  const idPrefix = params.get('id') ?? '';
  const [runs, setRuns] = useState<RunSummary[]>();
  const [error, setError] = useState<unknown>();
  const [starting, setStarting] = useState(params.get('start') === '1');
  const [workflowText, setWorkflowText] = useState(workflow);
  const [searchText, setSearchText] = useState(query);
  const [deleting, setDeleting] = useState<{ runId: string; busy?: boolean; error?: unknown }>();
  const [reload, setReload] = useState(0);
  const known = useRef(new Set<string>());
  const runsLoaded = useRef(false);
  // a failed run's error never changes, so its details are asked for once and kept (null: asked, none given)
  const errors = useRef(new Map<string, ErrorInfo | null>());
  const [, setErrorsLoaded] = useState(0);

  const setFilter = (key: string, value: string) => {
    const p = new URLSearchParams(window.location.search);
    if (value) p.set(key, value);
    else p.delete(key);
    const q = p.toString();
    navigate('/' + (q ? '?' + q : ''), true);
  };

  useEffect(() => {
    let stopped = false;
    let timer: number | undefined;
    const q = new URLSearchParams();
    if (status) q.set('status', status);
    if (workflow) q.set('workflow', workflow);
    if (query) q.set('q', query);
    if (idPrefix) q.set('id', idPrefix);
    q.set('limit', String(PAGE));
    const load = async () => {
      // a hidden tab asks nothing; it catches up on its next turn once shown
      if (document.hidden && runsLoaded.current) {
        timer = window.setTimeout(load, POLL_MS);
        return;
      }
      try {
        const r = await api.get<RunSummary[]>('/api/runs?' + q.toString());
        if (stopped) return;
        const list = Array.isArray(r) ? r : [];
        list.forEach((x) => x.workflow && known.current.add(x.workflow));
        setRuns(list);
        runsLoaded.current = true;
        setError(undefined);
        const missing = list.filter((x) => x.error && !errors.current.has(x.run_id)).slice(0, DETAILS_PER_REFRESH);
        for (const x of missing) {
          errors.current.set(x.run_id, null);
          api
            .get<RunDetail>('/api/runs/' + encodeURIComponent(x.run_id))
            .then((d) => {
              errors.current.set(x.run_id, d?.error ?? null);
              if (!stopped) setErrorsLoaded((n) => n + 1);
            })
            // the code is still shown; the next refresh does not ask again for a run that answered with an error
            .catch(() => undefined);
        }
      } catch (e) {
        if (!stopped) setError(e);
      }
      if (!stopped) timer = window.setTimeout(load, POLL_MS);
    };
    void load();
    return () => {
      stopped = true;
      window.clearTimeout(timer);
    };
  }, [status, workflow, query, idPrefix, reload]);

  // typing in the workflow filter applies after a short pause, not at every key
  useEffect(() => {
    if (workflowText === workflow) return;
    const t = window.setTimeout(() => setFilter('workflow', workflowText.trim()), 400);
    return () => window.clearTimeout(t);
  }, [workflowText]); // the filter in the address is read on every render; only the typed text starts the timer

  // the search too: the address changes (and the server is asked) once typing pauses
  useEffect(() => {
    if (searchText.trim().slice(0, MAX_SEARCH) === query) return;
    const t = window.setTimeout(() => setFilter('q', searchText.trim().slice(0, MAX_SEARCH)), 400);
    return () => window.clearTimeout(t);
  }, [searchText]);

  // Back and Forward change the address: the box shows the search the list is filtered by (a space being typed at the
  // end is kept)
  useEffect(() => setSearchText((t) => (t.trim().slice(0, MAX_SEARCH) === query ? t : query)), [query]);

  const confirmDelete = async (runId: string) => {
    setDeleting({ runId, busy: true });
    try {
      await deleteRun(runId);
      setDeleting(undefined);
      setRuns((rs) => rs?.filter((r) => r.run_id !== runId));
      setReload((n) => n + 1);
    } catch (e) {
      setDeleting({ runId, error: e });
    }
  };
  const filtered = Boolean(status || workflow || query || idPrefix);

  return (
    <main className="page">
      <header className="page-head">
        <h1>Runs</h1>
        <button type="button" className="primary" onClick={() => setStarting(!starting)} aria-expanded={starting} data-testid="start-run-button">
          <Plus aria-hidden="true" size={14} /> Start a run
        </button>
      </header>
      {starting ? <StartRun onClose={() => setStarting(false)} /> : null}
      <form className="filters" role="search" onSubmit={(e) => e.preventDefault()} aria-label="filter runs">
        <label htmlFor="filter-search">Search</label>
        <input
          id="filter-search"
          type="search"
          value={searchText}
          maxLength={MAX_SEARCH}
          onChange={(e) => setSearchText(e.target.value)}
          placeholder="run id, workflow, error…"
          title="Matches run id, workflow name and file, error code and message, and where a paused run waits (case-insensitive text)"
          data-testid="run-search"
        />
        <label htmlFor="filter-status">Status</label>
        <select id="filter-status" value={status} onChange={(e) => setFilter('status', e.target.value)} data-testid="filter-status">
          <option value="">any</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <label htmlFor="filter-workflow">Workflow</label>
        <input
          id="filter-workflow"
          list="known-workflows"
          value={workflowText}
          onChange={(e) => setWorkflowText(e.target.value)}
          placeholder="any"
          data-testid="filter-workflow"
        />
        <datalist id="known-workflows">
          {[...known.current].sort().map((w) => (
            <option key={w} value={w} />
          ))}
        </datalist>
        {filtered ? (
          <button
            type="button"
            onClick={() => {
              setWorkflowText('');
              setSearchText('');
              navigate('/', true);
            }}
          >
            Clear filters
          </button>
        ) : null}
        <span className="muted small refresh-note">
          <RefreshCw aria-hidden="true" size={12} /> refreshes every 2 s
        </span>
      </form>
      {error ? <ErrorMessage error={error} testId="runs-error" /> : null}
      {!runs ? (
        error ? null : <Loading what="runs" />
      ) : runs.length === 0 ? (
        <Empty>
          {filtered ? 'No run matches these filters.' : 'No run yet. Start one here, or with `loopflow run FILE` using the same store.'}
        </Empty>
      ) : (
        <div className="table-wrap">
          <table className="table runs-table" data-testid="runs-table">
            <thead>
              <tr>
                <th scope="col">run</th>
                <th scope="col">workflow</th>
                <th scope="col">status</th>
                <th scope="col">started</th>
                <th scope="col">duration</th>
                <th scope="col" className="num">iterations</th>
                <th scope="col" className="num">LLM calls</th>
                <th scope="col" className="num">cost</th>
                <th scope="col">error / waiting at</th>
                <th scope="col">actions</th>
              </tr>
            </thead>
            <tbody>
              {runs.map((r) => {
                const duration = rowDuration(r, Date.now());
                const err = rowError(r, errors.current.get(r.run_id));
                return (
                  <tr key={r.run_id} data-testid={`run-row-${r.run_id}`} data-status={r.status ?? ''}>
                    <td>
                      <Link href={runHref(r.run_id)} testId={`run-link-${r.run_id}`}>
                        <code>{r.run_id}</code>
                      </Link>
                      {typeof r.forked_from?.run_id === 'string' && r.forked_from.run_id ? (
                        <div className="muted small-text" data-testid={`run-forked-from-${r.run_id}`}>
                          fork of <code>{r.forked_from.run_id}</code>
                          {r.forked_from.at ? (
                            <>
                              {' '}
                              at <code>{r.forked_from.at}</code>
                            </>
                          ) : null}
                        </div>
                      ) : null}
                    </td>
                    <td>{r.workflow ?? ''}</td>
                    <td>
                      <StatusBadge status={r.status} />
                    </td>
                    <td>{fmtTime(r.started_at)}</td>
                    <td data-testid={`run-duration-${r.run_id}`} title={duration.soFar ? 'running for this long so far' : undefined}>
                      {duration.text}
                      {duration.soFar ? <span className="muted"> so far</span> : null}
                    </td>
                    <td className="num" title={r.status === 'running' ? 'loop passes journaled so far' : undefined}>
                      {fmtInt(r.iterations)}
                    </td>
                    <td className="num">{fmtInt(r.llm_calls)}</td>
                    <td className="num">{fmtCost(r.cost_usd)}</td>
                    <td className="run-error" data-testid={`run-error-${r.run_id}`} title={err.message || undefined}>
                      {err.code ? <code className="code">{err.code}</code> : null}
                      {err.at ? (
                        <span>
                          {' '}at <code>{err.at}</code>
                        </span>
                      ) : null}
                      {err.message ? <div className="muted small clip-line">{err.message}</div> : null}
                      {r.paused_at ? (
                        <span>
                          waits at <code>{r.paused_at}</code>
                        </span>
                      ) : null}
                    </td>
                    <td className="run-actions">
                      <DeleteCell
                        runId={r.run_id}
                        state={deleting?.runId === r.run_id ? deleting : undefined}
                        onAsk={() => setDeleting({ runId: r.run_id })}
                        onConfirm={() => void confirmDelete(r.run_id)}
                        onCancel={() => setDeleting(undefined)}
                      />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </main>
  );
}

/** Delete, then an inline confirm naming the run (nothing is deleted on one click); a refusal is shown by its code. */
function DeleteCell({
  runId,
  state,
  onAsk,
  onConfirm,
  onCancel,
}: {
  runId: string;
  state?: { busy?: boolean; error?: unknown };
  onAsk: () => void;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  if (!state) {
    return (
      <button type="button" className="small" onClick={onAsk} data-testid={`run-delete-${runId}`} aria-label={`delete run ${runId}`}>
        <Trash2 aria-hidden="true" size={12} /> Delete
      </button>
    );
  }
  const refused = state.error instanceof ApiError ? state.error : undefined;
  return (
    <div className="delete-confirm" role="group" aria-label={`delete run ${runId}?`} data-testid={`run-delete-confirm-${runId}`}>
      {state.error ? (
        <div className="error-text small" role="alert" data-testid={`run-delete-error-${runId}`}>
          {refused?.code ? <code className="code">{refused.code}</code> : null} {state.error instanceof Error ? state.error.message : ''}
        </div>
      ) : (
        <span className="small">Delete this run, its journal and its memory?</span>
      )}{' '}
      {state.error ? null : (
        <button type="button" className="danger small" disabled={state.busy} onClick={onConfirm} data-testid={`run-delete-yes-${runId}`}>
          Delete
        </button>
      )}{' '}
      <button type="button" className="small" onClick={onCancel} data-testid={`run-delete-no-${runId}`}>
        {state.error ? 'Close' : 'Keep'}
      </button>
    </div>
  );
}

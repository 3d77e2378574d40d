// "Fork from this pass": a new run that reuses what this run journaled before the pass and executes the rest, with
// edits at the pass (state keys, outputs of nodes that ran before it, the pass's loop input). The dry run's plan is
// shown before anything starts; "Start fork" sends exactly the request the plan was made for and opens the new run.
import { useState } from 'react';
import { GitBranch, Plus, Trash2, X } from 'lucide-react';
import { ApiError, forkPlan, startFork } from '../api/client';
import type { ForkPlan, ForkRequest } from '../api/types';
import { navigate, runHref } from '../app/router';
import { buildForkSet, valueKind, type EditRow } from '../model/fork';
import { fmtCost, fmtInt, fmtTokens } from '../model/format';

interface Props {
  runId: string;
  /** the fork point: `LOOP:PASS` */
  point: string;
  /** node ids to offer for an output edit */
  nodes: string[];
  onClose: () => void;
}

/** A refusal or a failure in one line: the server's messages are one line; anything else is cut to its first. */
export function oneLine(e: unknown): string {
  const text = e instanceof ApiError ? e.message : e instanceof Error ? e.message : String(e ?? '');
  const first = text.split(/\r?\n/)[0] ?? '';
  return first.length > 300 ? first.slice(0, 300) + '…' : first;
}

export function InlineError({ error, testId }: { error: unknown; testId?: string }) {
  if (!error) return null;
  const code = error instanceof ApiError && error.code && error.code !== 'network' && !error.code.startsWith('http_') ? error.code : undefined;
  return (
    <p className="error-box inline-error" role="alert" data-testid={testId} title={oneLine(error)}>
      {code ? <code className="code">{code}</code> : null} {oneLine(error) || 'Something went wrong.'}
    </p>
  );
}

export function ForkPanel({ runId, point, nodes, onClose }: Props) {
  const [rows, setRows] = useState<EditRow[]>([{ target: 'state', key: '', value: '' }]);
  const [loopInput, setLoopInput] = useState({ enabled: false, value: '' });
  const [plan, setPlan] = useState<{ key: string; request: ForkRequest; plan: ForkPlan }>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const built = buildForkSet(rows, loopInput);
  const request: ForkRequest = { at: point, set: built.set };
  const key = JSON.stringify(request);
  const planIsCurrent = plan !== undefined && plan.key === key;

  const edit = (i: number, change: Partial<EditRow>) => setRows(rows.map((r, j) => (j === i ? { ...r, ...change } : r)));

  const showPlan = async () => {
    if (built.problems.length) return;
    setBusy(true);
    setError(undefined);
    try {
      setPlan({ key, request, plan: await forkPlan(runId, request) });
    } catch (e) {
      setPlan(undefined);
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  const start = async () => {
    if (!plan || !planIsCurrent) return;
    setBusy(true);
    setError(undefined);
    try {
      const started = await startFork(runId, plan.request);
      if (!started || typeof started.run_id !== 'string') throw new Error('The server did not name the new run.');
      navigate(runHref(started.run_id));
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };

  const listId = `fork-nodes-${point.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  return (
    <section className="fork-panel" aria-label={`fork from ${point}`} data-testid="fork-panel">
      <header className="fork-panel-head">
        <h4>
          <GitBranch aria-hidden="true" size={15} /> Fork from <code>{point}</code>
        </h4>
        <button type="button" className="icon-button" onClick={onClose} title="close" data-testid="fork-close">
          <X aria-hidden="true" size={14} />
          <span className="sr-only">close the fork panel</span>
        </button>
      </header>
      <p className="muted small-text">
        A new run of the same workflow: what this run did before the pass is reused (not run, not called, not charged
        again); the pass and everything after it run. Values are JSON when they read as JSON (<code>100</code>,{' '}
        <code>true</code>, <code>{'{"a": 1}'}</code>), otherwise text.
      </p>
      <table className="table fork-edits">
        <thead>
          <tr>
            <th scope="col">edit</th>
            <th scope="col">key</th>
            <th scope="col">value</th>
            <th scope="col">
              <span className="sr-only">remove</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              <td>
                <select
                  aria-label={`what edit ${i + 1} sets`}
                  value={r.target}
                  onChange={(e) => edit(i, { target: e.target.value === 'output' ? 'output' : 'state' })}
                  data-testid={`fork-edit-target-${i}`}
                >
                  <option value="state">state.KEY</option>
                  <option value="output">NODE.output</option>
                </select>
              </td>
              <td>
                <span className="fork-key">
                  {r.target === 'state' ? <code>state.</code> : null}
                  <input
                    type="text"
                    aria-label={r.target === 'state' ? `state key of edit ${i + 1}` : `node of edit ${i + 1}`}
                    placeholder={r.target === 'state' ? 'count' : 'node id'}
                    value={r.key}
                    list={r.target === 'output' ? listId : undefined}
                    onChange={(e) => edit(i, { key: e.target.value })}
                    data-testid={`fork-edit-key-${i}`}
                    spellCheck={false}
                  />
                  {r.target === 'output' ? <code>.output</code> : null}
                </span>
              </td>
              <td>
                <textarea
                  rows={1}
                  aria-label={`value of edit ${i + 1}`}
                  value={r.value}
                  onChange={(e) => edit(i, { value: e.target.value })}
                  data-testid={`fork-edit-value-${i}`}
                  spellCheck={false}
                />
                {r.key || r.value ? <span className="muted small-text">read as {valueKind(r.value)}</span> : null}
              </td>
              <td>
                <button
                  type="button"
                  className="icon-button"
                  title="remove this edit"
                  onClick={() => setRows(rows.length > 1 ? rows.filter((_, j) => j !== i) : [{ target: 'state', key: '', value: '' }])}
                >
                  <Trash2 aria-hidden="true" size={14} />
                  <span className="sr-only">remove edit {i + 1}</span>
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <datalist id={listId}>
        {nodes.map((n) => (
          <option key={n} value={n} />
        ))}
      </datalist>
      <div className="button-row">
        <button type="button" onClick={() => setRows([...rows, { target: 'state', key: '', value: '' }])} data-testid="fork-add-edit">
          <Plus aria-hidden="true" size={14} /> Add an edit
        </button>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={loopInput.enabled}
            onChange={(e) => setLoopInput({ ...loopInput, enabled: e.target.checked })}
            data-testid="fork-loop-input-enabled"
          />{' '}
          Set the pass’s <code>loop.input</code>
        </label>
      </div>
      {loopInput.enabled ? (
        <div className="fork-loop-input">
          <textarea
            rows={2}
            aria-label="the pass's loop input"
            value={loopInput.value}
            onChange={(e) => setLoopInput({ ...loopInput, value: e.target.value })}
            data-testid="fork-loop-input"
            spellCheck={false}
          />
          <span className="muted small-text">read as {valueKind(loopInput.value)}</span>
        </div>
      ) : null}
      {built.problems.length ? (
        <ul className="problems error-text" data-testid="fork-problems">
          {built.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : null}
      <div className="button-row">
        <button type="button" onClick={() => void showPlan()} disabled={busy || built.problems.length > 0} data-testid="fork-plan">
          Show the plan
        </button>
        <button
          type="button"
          className="primary"
          onClick={() => void start()}
          disabled={busy || !planIsCurrent}
          title={planIsCurrent ? 'start the fork as planned' : 'show the plan of these edits first'}
          data-testid="fork-start"
        >
          <GitBranch aria-hidden="true" size={14} /> Start fork
        </button>
        {plan && !planIsCurrent ? <span className="muted">The edits changed: show the plan again.</span> : null}
      </div>
      <InlineError error={error} testId="fork-error" />
      {plan ? <PlanView plan={plan.plan} stale={!planIsCurrent} /> : null}
    </section>
  );
}

function PlanView({ plan, stale }: { plan: ForkPlan; stale: boolean }) {
  const reused = plan.reused ?? [];
  const executes = plan.executes ?? [];
  const u = plan.reused_usage;
  const spent = [
    u?.llm_calls ? `${fmtInt(u.llm_calls)} LLM call${u.llm_calls === 1 ? '' : 's'}` : 'no LLM call',
    fmtTokens(u?.input_tokens, u?.output_tokens),
    fmtCost(u?.cost_usd),
  ].filter(Boolean);
  const bounds = [
    typeof plan.max_passes === 'number' ? `${fmtInt(plan.max_passes)} pass${plan.max_passes === 1 ? '' : 'es'}` : '',
    typeof plan.max_llm_calls === 'number' ? `${fmtInt(plan.max_llm_calls)} LLM call${plan.max_llm_calls === 1 ? '' : 's'}` : '',
    typeof plan.max_cost_usd === 'number' ? fmtCost(plan.max_cost_usd) : '',
  ].filter(Boolean);
  return (
    <div className={`fork-plan${stale ? ' stale' : ''}`} data-testid="fork-plan-view" aria-label="the fork's plan">
      <h5>The plan{stale ? ' (for the edits before your last change)' : ''}</h5>
      <dl className="facts">
        <dt>reused</dt>
        <dd data-testid="fork-plan-reused">
          {reused.length} execution{reused.length === 1 ? '' : 's'} of <code>{plan.origin ?? ''}</code>, not run again (
          {spent.join(' · ')} in the origin, not charged to the fork)
          {reused.length ? (
            <details>
              <summary>which</summary>
              <ul className="plain-list">
                {reused.map((p, i) => (
                  <li key={i}>
                    <code>{p}</code>
                  </li>
                ))}
              </ul>
            </details>
          ) : null}
        </dd>
        <dt>executes</dt>
        <dd data-testid="fork-plan-executes">
          {executes.length ? (
            <ul className="plain-list">
              {executes.map((line, i) => (
                <li key={i}>{line}</li>
              ))}
            </ul>
          ) : (
            'nothing'
          )}
        </dd>
        <dt>at most</dt>
        <dd data-testid="fork-plan-bounds">{bounds.length ? bounds.join(' · ') : 'unknown (the origin’s calls had no price)'}</dd>
      </dl>
    </div>
  );
}

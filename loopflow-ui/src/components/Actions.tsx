// What a person can do with a run: answer what a paused run waits for (approve or reject with a comment, or answer an
// interactive loop's gate, filling the step's form when it has one), cancel a running run, resume a failed one, and ask a run with a restart policy to restart
// at a stage. Every outcome is said in words.
import { useMemo, useState, type FormEvent } from 'react';
import { Check, PauseCircle, Play, RotateCcw, Send, Square, X } from 'lucide-react';
import { ApiError, api, enc, requestWithStatus } from '../api/client';
import type { RestartResponse, RunDetail, RunGraph } from '../api/types';
import { answerForm, checkDraft, initialDraft, type Draft } from '../model/answerForm';
import { fmtTime, words } from '../model/format';
import type { RunLive } from '../model/runState';
import { AnswerFormFields } from './AnswerFormFields';
import { ErrorMessage } from './common';

interface Props {
  runId: string;
  detail?: RunDetail;
  live: RunLive;
  graph?: RunGraph;
  hasRestartPolicy: boolean;
  onChanged: () => void;
}

function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<string>();
  const run = async (f: () => Promise<string>) => {
    setBusy(true);
    setError(undefined);
    setDone(undefined);
    try {
      setDone(await f());
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, done, run };
}

export function Actions(props: Props) {
  const status = props.detail?.status ?? props.live.status;
  return (
    <div className="actions">
      {status === 'paused' ? (
        // a new pause (the next gate) is a new question: the answer box and its outcome start empty; so does the form
        // when its schema arrives after the pause was first shown (from the live events, before the run's details)
        <WaitingPanel
          key={(props.detail?.waiting?.path ?? props.live.paused?.path ?? '') + (props.detail?.waiting?.schema ? ' form' : '')}
          {...props}
        />
      ) : null}
      {status === 'running' ? <CancelAction {...props} /> : null}
      {status === 'failed' ? <ResumeAction {...props} /> : null}
      {props.hasRestartPolicy && (status === 'running' || status === 'paused') ? <RestartAction {...props} /> : null}
    </div>
  );
}

function WaitingPanel({ runId, detail, live, onChanged }: Props) {
  const w = detail?.waiting;
  const kind = w?.kind ?? (live.paused?.path?.endsWith('.gate') ? 'input' : 'approval');
  const message = w?.message ?? live.paused?.message ?? '';
  const [text, setText] = useState('');
  const form = useMemo(() => answerForm(w?.schema), [w?.schema]);
  const [draft, setDraft] = useState<Draft>(() => (form ? initialDraft(form) : {}));
  const [problems, setProblems] = useState<Record<string, string>>({});
  const a = useAction();
  const submit = (body: Record<string, unknown>, said: string) =>
    a.run(async () => {
      await api.post(`/api/runs/${enc(runId)}/resume`, body);
      onChanged();
      return said;
    });
  // With a form, answering (or approving) sends its values; the courtesy check stops an obviously incomplete form
  // before the round trip, and the server's refusal, when it has one, is shown as any other error.
  const submitForm = (body: Record<string, unknown>, said: string) => {
    if (!form) return void submit(body, said);
    const checked = checkDraft(form, draft);
    setProblems(checked.problems);
    if (Object.keys(checked.problems).length > 0) return;
    void submit({ ...body, values: checked.values }, said);
  };
  const where = w?.path ?? live.paused?.path ?? '';
  return (
    <section className="panel waiting" data-testid="waiting-panel" aria-labelledby="waiting-title">
      <h2 id="waiting-title">
        <PauseCircle aria-hidden="true" size={18} />{' '}
        {kind === 'input' ? 'Waiting for your answer' : 'Waiting for an approval'}
      </h2>
      <p>
        {kind === 'input' ? 'The interactive loop' : 'The approval'} at <code>{where}</code>
        {w?.iteration ? ` (after pass ${w.iteration}${w.loop ? ' of ' + w.loop : ''})` : ''} asks:
      </p>
      <blockquote className="gate-message" data-testid="waiting-message">
        {message}
      </blockquote>
      {w?.deadline ? (
        <p className="muted">
          Deadline {fmtTime(w.deadline)}; then the default is taken: {words(w.default) || 'reject'}.
        </p>
      ) : null}
      <form
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          if (kind === 'input') submitForm(form && !text ? {} : { input: text }, 'Answer sent; the run continues.');
        }}
      >
        {form ? (
          <AnswerFormFields
            form={form}
            draft={draft}
            problems={problems}
            onChange={(name, v) => setDraft((d) => ({ ...d, [name]: v }))}
          />
        ) : null}
        <label htmlFor="answer-text">{kind === 'input' ? (form ? 'Your answer (optional text)' : 'Your answer') : 'Comment (optional)'}</label>
        <textarea
          id="answer-text"
          value={text}
          onChange={(e) => setText(e.target.value)}
          rows={3}
          data-testid={kind === 'input' ? 'answer-input' : 'approval-comment'}
        />
        <div className="button-row">
          {kind === 'input' ? (
            <>
              <button type="submit" className="primary" disabled={a.busy} data-testid="action-answer">
                <Send aria-hidden="true" size={14} /> Send answer
              </button>
              {form ? null : (
                <button
                  type="button"
                  disabled={a.busy}
                  data-testid="action-answer-approve"
                  onClick={() => void submit({ input: 'approve' }, 'Answered “approve”; the run continues.')}
                >
                  <Check aria-hidden="true" size={14} /> Answer “approve”
                </button>
              )}
            </>
          ) : (
            <>
              <button
                type="button"
                className="primary"
                disabled={a.busy}
                data-testid="action-approve"
                onClick={() => submitForm({ approve: true, comment: text || undefined }, 'Approved; the run continues.')}
              >
                <Check aria-hidden="true" size={14} /> Approve
              </button>
              <button
                type="button"
                className="danger"
                disabled={a.busy}
                data-testid="action-reject"
                onClick={() => void submit({ approve: false, comment: text || undefined }, 'Rejected.')}
              >
                <X aria-hidden="true" size={14} /> Reject
              </button>
            </>
          )}
        </div>
      </form>
      {a.done ? <p role="status" className="ok">{a.done}</p> : null}
      <ErrorMessage error={a.error} testId="action-error" />
    </section>
  );
}

function CancelAction({ runId, onChanged }: Props) {
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState('');
  const a = useAction();
  return (
    <section className="panel inline-action">
      {!asking ? (
        <button type="button" className="danger" onClick={() => setAsking(true)} data-testid="action-cancel">
          <Square aria-hidden="true" size={14} /> Cancel run…
        </button>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void a.run(async () => {
              await api.post(`/api/runs/${enc(runId)}/cancel`, reason ? { reason } : {});
              onChanged();
              setAsking(false);
              return 'Cancel requested; the run stops at its next safe point.';
            });
          }}
        >
          <label htmlFor="cancel-reason">Reason (optional)</label>
          <input id="cancel-reason" value={reason} onChange={(e) => setReason(e.target.value)} data-testid="cancel-reason" />
          <div className="button-row">
            <button type="submit" className="danger" disabled={a.busy} data-testid="action-cancel-confirm">
              Cancel the run
            </button>
            <button type="button" onClick={() => setAsking(false)}>
              Keep it running
            </button>
          </div>
        </form>
      )}
      {a.done ? <p role="status" className="ok">{a.done}</p> : null}
      <ErrorMessage error={a.error} testId="action-error" />
    </section>
  );
}

function ResumeAction({ runId, onChanged }: Props) {
  const a = useAction();
  return (
    <section className="panel inline-action">
      <button
        type="button"
        className="primary"
        disabled={a.busy}
        data-testid="action-resume"
        onClick={() =>
          void a.run(async () => {
            await api.post(`/api/runs/${enc(runId)}/resume`, {});
            onChanged();
            return 'Resumed: completed work is restored from the journal, the failed node runs again.';
          })
        }
      >
        <Play aria-hidden="true" size={14} /> Resume run
      </button>
      <span className="muted"> Runs the failed node again after you fixed the cause.</span>
      {a.done ? <p role="status" className="ok">{a.done}</p> : null}
      <ErrorMessage error={a.error} testId="action-error" />
    </section>
  );
}

/**
 * Stages offered as restart targets: every top-level node of the graph (the policy decides, and a refusal is said in
 * words), the graph's restart targets first. The graph's targets alone would hide stages an unset
 * `restartable_stages` allows: when it is unset the graph draws restart edges to the first stages only.
 */
export function restartTargets(graph: RunGraph | undefined, live: RunLive): string[] {
  const listed = (graph?.restart?.targets ?? []).filter((s): s is string => typeof s === 'string');
  const top = (graph?.nodes ?? []).filter((n) => !n.parent && (n.role ?? 'node') === 'node').map((n) => n.id);
  const fromRun = top.length
    ? []
    : Object.values(live.execs)
        .filter((x) => x.passes.length <= 1 && !x.path.includes('~'))
        .map((x) => x.node);
  return [...new Set([...listed, ...top, ...fromRun])];
}

export function restartOutcome(
  status: number,
  body: (RestartResponse & { pending?: boolean | null }) | { error?: { code?: string | null; message?: string | null } | null } | undefined,
): { ok: boolean; text: string } {
  const r = body as (RestartResponse & { pending?: boolean | null }) | undefined;
  if (r && r.success === true) {
    return { ok: true, text: `Accepted: the run goes back to ${r.target_stage_id ?? 'the stage'}${r.iteration ? `, iteration ${r.iteration}` : ''}.` };
  }
  if (r && r.pending === true) {
    return {
      ok: true,
      text: 'Queued: the run decides it after the node running now completes; its answer will appear among the restart requests.',
    };
  }
  const err = r?.error ?? undefined;
  const code = err?.code ?? `http_${status}`;
  const msg = err?.message ?? '';
  const why: Record<string, string> = {
    restart_validation_failed: 'the request is not valid here',
    stage_not_restartable: 'that stage may not be restarted',
    requester_not_authorized: 'the requester may not trigger restarts',
    restart_cooldown_not_elapsed: 'the stage’s cooldown has not elapsed',
    max_iterations_exceeded: 'the run has no iteration left',
  };
  if (!why[code] && status !== 200) {
    // not a decision of the run: the server did not pass the request on (the run is not executing, a bad field)
    return { ok: false, text: `Not sent (${code})${msg ? ': ' + msg : '.'}` };
  }
  return { ok: false, text: `Rejected (${code}${why[code] ? ': ' + why[code] : ''})${msg ? ': ' + msg : '.'}` };
}

function RestartAction({ runId, graph, live, onChanged }: Props) {
  const targets = restartTargets(graph, live);
  const [target, setTarget] = useState(targets[0] ?? '');
  const [reason, setReason] = useState('');
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string }>();
  const a = useAction();
  return (
    <section className="panel restart" aria-labelledby="restart-title">
      <h2 id="restart-title">
        <RotateCcw aria-hidden="true" size={16} /> Request a restart
      </h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setOutcome(undefined);
          void a.run(async () => {
            const res = await requestWithStatus<RestartResponse>('POST', `/api/runs/${enc(runId)}/signal`, {
              type: 'restart',
              target_stage_id: target,
              reason,
            });
            if (res.status >= 500 && !res.body) throw new ApiError(res.status, `http_${res.status}`, 'The server failed to pass the request on.');
            const o = restartOutcome(res.status, res.body);
            setOutcome(o);
            if (o.ok) onChanged();
            return '';
          });
        }}
      >
        <div className="form-grid">
          <label htmlFor="restart-target">Target stage</label>
          <select id="restart-target" value={target} onChange={(e) => setTarget(e.target.value)} data-testid="restart-target">
            {targets.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
          <label htmlFor="restart-reason">Reason</label>
          <input
            id="restart-reason"
            value={reason}
            required
            onChange={(e) => setReason(e.target.value)}
            data-testid="restart-reason"
          />
        </div>
        <div className="button-row">
          <button type="submit" disabled={a.busy || !target || !reason.trim()} data-testid="action-restart">
            <RotateCcw aria-hidden="true" size={14} /> Request restart
          </button>
        </div>
      </form>
      {outcome ? (
        <p role="status" className={outcome.ok ? 'ok' : 'error-text'} data-testid="restart-outcome">
          {outcome.text}
        </p>
      ) : null}
      <ErrorMessage error={a.error} testId="action-error" />
    </section>
  );
}

// One node execution in full: state, timing, what it received (its rendered templates), what it produced, the state it
// changed, its error, and for LLM and agent nodes every model call (provider, model, tokens, cost, latency, a visible
// "mock" label) and tool call.
import type { Execution } from '../api/types';
import { fmtCost, fmtDuration, fmtInt, fmtTime, fmtTokens, valueText } from '../model/format';
import { approvalAnswer } from '../model/approval';
import type { ExecLive, StepRecord } from '../model/runState';
import { parseRoute, useLocation } from '../app/router';
import { Field, StatusBadge, ValueBlock } from './common';
import { LlmMessages } from './LlmMessages';

/** A node's rendered templates: one entry per template, or the whole input when it is not such a map. */
function InputView({ input }: { input: unknown }) {
  if (input === null || input === undefined) return <p className="muted">No rendered input was journaled.</p>;
  if (typeof input === 'object' && !Array.isArray(input)) {
    const entries = Object.entries(input as Record<string, unknown>);
    if (entries.length === 0) return <p className="muted">No templates.</p>;
    return (
      <div className="inputs">
        {entries.map(([template, rendered], i) => (
          <details key={i} open={i === 0 || entries.length <= 3}>
            <summary>
              {/* text without {{ }} (a plain prompt) is journaled as sent: it is labelled text, not a template */}
              <span className="muted">{rendered === template ? 'text' : 'template'}</span> <code className="clip">{template}</code>
            </summary>
            <ValueBlock value={rendered} label={rendered === template ? `text ${template}` : `rendered ${template}`} />
          </details>
        ))}
      </div>
    );
  }
  return <ValueBlock value={input} label="input" />;
}

/** The reply of an LLM or agent node: its text when it has one, else the whole result. */
export function replyOf(result: Record<string, unknown> | null | undefined): unknown {
  if (!result) return undefined;
  if (typeof result.text === 'string') return result.text;
  if ('output' in result) return result.output;
  return result;
}

function Steps({ steps }: { steps: StepRecord[] }) {
  if (!steps.length) return null;
  return (
    <section className="steps">
      <h4>Agent steps</h4>
      <ol>
        {steps.map((s) => {
          const st = s.step;
          const type = valueText(st.type);
          if (type === 'tool') {
            return (
              <li key={s.seq} className="step tool" data-testid="agent-tool-call">
                <div>
                  <strong>tool call</strong> <code>{valueText(st.name)}</code>{' '}
                  <span className="muted">turn {valueText(st.turn)}</span>
                  {st.error ? <span className="st-failed"> failed</span> : null}
                </div>
                <div className="kv">
                  <span className="muted">arguments</span>
                  <ValueBlock value={st.arguments} />
                  <span className="muted">result</span>
                  <ValueBlock value={st.result ?? st.error} />
                </div>
              </li>
            );
          }
          const calls = Array.isArray(st.tool_calls) ? (st.tool_calls as Record<string, unknown>[]) : [];
          return (
            <li key={s.seq} className="step model">
              <div>
                <strong>model turn {valueText(st.turn)}</strong>{' '}
                <span className="muted">
                  {[valueText(st.provider), valueText(st.model)].filter(Boolean).join(' ')}{' '}
                  {fmtTokens(st.input_tokens as number, st.output_tokens as number)}
                </span>
              </div>
              {valueText(st.text) ? <ValueBlock value={st.text} label="model text" /> : null}
              {calls.length > 0 && (
                <ul className="tool-requests">
                  {calls.map((c, i) => (
                    <li key={i}>
                      asks for <code>{valueText(c.name)}</code> <code className="clip">{valueText(c.arguments)}</code>
                    </li>
                  ))}
                </ul>
              )}
            </li>
          );
        })}
      </ol>
    </section>
  );
}

/** A person's answer at an approval: the decision, the comment, when (and who, when journaled) — not only "approved". */
function ApprovalView({ record }: { record: Execution }) {
  const a = approvalAnswer(record.result, record.error as Record<string, unknown> | null | undefined, record.finished_at);
  if (!a) return null;
  return (
    <section className="approval-answer" data-testid="approval-answer">
      <h4>Approval</h4>
      <dl className="facts">
        <Field label="asked">{a.message}</Field>
        <Field label="decision">
          {a.decision ? (
            <span className={a.decision === 'approved' ? 'st-completed' : 'st-failed'} data-testid="approval-decision">
              {a.decision}
              {a.timedOut ? ' (no answer before the timeout)' : ''}
            </span>
          ) : (
            <span className="muted">waiting for an answer</span>
          )}
        </Field>
        <Field label="comment">{a.comment ? <span data-testid="approval-comment-shown">{a.comment}</span> : ''}</Field>
        <Field label="values">{a.values ? <code data-testid="approval-values-shown">{a.values}</code> : ''}</Field>
        <Field label="answered by">{a.by}</Field>
        <Field label="answered at">{fmtTime(a.at)}</Field>
      </dl>
    </section>
  );
}

export function ExecutionDetails({ live, record, testId }: { live?: ExecLive; record?: Execution; testId?: string }) {
  const status = live?.status ?? record?.status ?? undefined;
  const error = live?.error?.message || live?.error?.code ? live.error : record?.error ?? undefined;
  const calls = live?.llmCalls ?? [];
  const isModel = calls.length > 0 || live?.kind === 'llm' || live?.kind === 'agent' || record?.kind === 'llm' || record?.kind === 'agent';
  const result = record?.result;
  const usage = record?.usage;
  const duration = live?.durationMs ?? record?.duration_ms ?? undefined;
  const route = parseRoute(useLocation().pathname);
  // a fork's reused execution was journaled in the run it ran in
  const stepsRun = record?.reused_from || live?.reusedFrom || (route.page === 'run' ? route.id : '');
  const path = live?.path ?? record?.path ?? '';
  return (
    <div className="exec-details" data-testid={testId}>
      <dl className="facts">
        <Field label="position">
          <code>{live?.path ?? record?.path ?? ''}</code>
        </Field>
        <Field label="status">
          <StatusBadge status={status} />
        </Field>
        <Field label="kind">{live?.kind ?? record?.kind ?? ''}</Field>
        <Field label="reused">
          {record?.reused_from || live?.reusedFrom ? (
            <span data-testid="execution-reused">
              from run <code>{record?.reused_from || live?.reusedFrom}</code>, not run again here
            </span>
          ) : (
            ''
          )}
        </Field>
        <Field label="started">{fmtTime(live?.startedAt ?? record?.started_at)}</Field>
        <Field label="duration">{fmtDuration(duration)}</Field>
        <Field label="attempts">{(record?.attempts ?? live?.attempt ?? 0) > 1 ? fmtInt(record?.attempts ?? live?.attempt) : ''}</Field>
        <Field label="tokens">{fmtTokens(usage?.input_tokens ?? live?.inputTokens, usage?.output_tokens ?? live?.outputTokens)}</Field>
        <Field label="cost">{fmtCost(usage?.cost_usd ?? live?.costUsd)}</Field>
        <Field label="branch">{live?.branch ?? ''}</Field>
        <Field label="skipped because">{live?.reason ?? ''}</Field>
      </dl>
      {error && (error.message || error.code) ? (
        <div className="error-box" role="alert" data-testid="execution-error">
          <p>
            {error.code ? <code className="code">{error.code}</code> : null} {error.message ?? ''}
          </p>
        </div>
      ) : null}
      {live?.retryMessage && live.status === 'retrying' ? <p className="muted">Retrying: {live.retryMessage}</p> : null}

      {isModel && (
        <section className="llm-calls" data-testid="llm-calls">
          <h4>LLM calls</h4>
          {calls.length === 0 ? (
            <p className="muted">No model call yet.</p>
          ) : (
            <table className="table compact">
              <thead>
                <tr>
                  <th scope="col">#</th>
                  <th scope="col">provider / model</th>
                  <th scope="col">tokens</th>
                  <th scope="col">cost</th>
                  <th scope="col">latency</th>
                </tr>
              </thead>
              <tbody>
                {calls.map((c, i) => (
                  <tr key={c.seq || i} data-testid="llm-call">
                    <td>{i + 1}</td>
                    <td>
                      {[c.provider, c.model].filter(Boolean).join(' / ')}
                      {c.mock ? (
                        <span className="mock-label" data-testid="mock-label" title="answered by the mock provider, not a real model">
                          mock
                        </span>
                      ) : null}
                    </td>
                    <td>{fmtTokens(c.inputTokens, c.outputTokens)}</td>
                    <td>{fmtCost(c.costUsd)}</td>
                    <td>{fmtDuration(c.durationMs)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      )}

      {isModel && stepsRun && path ? (
        <section className="llm-messages">
          <h4>Messages</h4>
          <LlmMessages
            runId={stepsRun}
            path={path}
            result={result}
            version={`${status ?? ''}:${live?.steps.length ?? 0}:${calls.length}:${record ? 'r' : ''}`}
          />
        </section>
      ) : null}

      {record && (record.kind ?? live?.kind) === 'approval' ? <ApprovalView record={record} /> : null}

      <section>
        <h4>{isModel ? 'Prompt (rendered input)' : 'Input (rendered templates)'}</h4>
        {record ? <InputView input={record.input} /> : <p className="muted">Loading the journaled input…</p>}
      </section>

      {live?.streamText ? (
        <section>
          <h4>Streaming reply</h4>
          <ValueBlock value={live.streamText} label="streaming reply" testId="streaming-text" />
        </section>
      ) : null}

      <section>
        <h4>{isModel ? 'Reply' : 'Output'}</h4>
        {record && valueText(isModel ? replyOf(result) : (result?.output ?? result)) ? (
          <ValueBlock value={isModel ? replyOf(result) : (result?.output ?? result)} label="output" testId="execution-output" />
        ) : record ? (
          <p className="muted">No output.</p>
        ) : live?.outputPreview ? (
          <ValueBlock value={live.outputPreview} label="output preview" testId="execution-output" />
        ) : (
          <p className="muted">No output yet.</p>
        )}
      </section>

      {isModel && result && typeof result === 'object' ? (
        <details>
          <summary>Full result</summary>
          <ValueBlock value={result} />
        </details>
      ) : null}

      {record?.state_patch && Object.keys(record.state_patch).length > 0 ? (
        <section>
          <h4>State change</h4>
          <ValueBlock value={record.state_patch} label="state change" testId="execution-state-change" />
        </section>
      ) : null}

      {live && live.steps.length > 0 ? <Steps steps={live.steps} /> : null}
    </div>
  );
}

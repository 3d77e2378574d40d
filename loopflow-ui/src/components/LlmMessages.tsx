// The messages of an LLM or agent execution as a chat transcript: each message with its role, folded to its first
// line and opened on a click, its text shown by ValueBlock (raw text, or Markdown on request). The steps come from
// the journal (GET /api/runs/{id}/steps?path=), fetched again when the execution moves on.
import { useEffect, useState } from 'react';
import { api, enc } from '../api/client';
import type { ExecutionSteps } from '../api/types';
import { firstLine, transcript } from '../model/transcript';
import { ErrorMessage, ValueBlock } from './common';

const SHOWN = 200;

export function LlmMessages({
  runId,
  path,
  result,
  version,
}: {
  runId: string;
  path: string;
  result: Record<string, unknown> | null | undefined;
  /** changes when the execution has new steps or ends, to fetch again */
  version: string;
}) {
  const [steps, setSteps] = useState<ExecutionSteps>();
  const [error, setError] = useState<unknown>();
  const [all, setAll] = useState(false);
  useEffect(() => {
    // a stale answer is dropped, not aborted: the request is small and an aborted one reads as a failure
    let current = true;
    api
      .get<ExecutionSteps>(`/api/runs/${enc(runId)}/steps?path=${enc(path)}`)
      .then((s) => {
        if (!current) return;
        setSteps(s);
        setError(undefined);
      })
      .catch((e: unknown) => {
        if (current) setError(e);
      });
    return () => {
      current = false;
    };
  }, [runId, path, version]);
  if (error) return <ErrorMessage error={error} testId="llm-messages-error" />;
  if (!steps) return <p className="muted">Loading the messages…</p>;
  const t = transcript(steps.steps ?? [], result);
  const lines = all ? t.lines : t.lines.slice(0, SHOWN);
  return (
    <div className="transcript" data-testid="llm-messages">
      {!t.hasRequest ? (
        <p className="muted">The request’s messages were not journaled for this execution; its rendered prompt is below.</p>
      ) : null}
      {t.omitted > 0 ? <p className="muted">{t.omitted.toLocaleString('en-US')} earlier messages of the session are not journaled.</p> : null}
      {lines.map((l, i) => (
        <details key={i} className={`chat-message role-${l.role}`} open={l.role !== 'system'} data-testid="llm-message" data-role={l.role}>
          <summary>
            <span className="chat-role">{l.role}</span>
            {l.name ? <code>{l.name}</code> : null}
            {l.turn ? <span className="muted"> turn {l.turn}</span> : null}
            {l.error ? <span className="st-failed"> failed</span> : null}{' '}
            <span className="muted chat-first-line">{firstLine(l.content)}</span>
          </summary>
          {l.content ? <ValueBlock value={l.content} label={`${l.role} message`} /> : null}
          {l.cut > 0 ? <p className="muted">The journal kept the first part; {l.cut.toLocaleString('en-US')} characters were cut.</p> : null}
          {l.toolCalls.length > 0 ? (
            <ul className="tool-requests">
              {l.toolCalls.map((c, j) => (
                <li key={j}>
                  asks for <code>{c.name}</code> <code className="clip">{c.arguments}</code>
                </li>
              ))}
            </ul>
          ) : null}
        </details>
      ))}
      {t.lines.length > SHOWN && !all ? (
        <button type="button" className="link-button" onClick={() => setAll(true)}>
          Show all {t.lines.length.toLocaleString('en-US')} messages
        </button>
      ) : null}
      {steps.more ? <p className="muted">{steps.more.toLocaleString('en-US')} later steps are not shown.</p> : null}
    </div>
  );
}

// Small shared pieces: links, status badges (an icon and a word, never colour alone), values shown as text, errors
// in words. Every text from a run (outputs, ids, messages) is rendered as a React text node, never as HTML.
import { useState, type MouseEvent, type ReactNode } from 'react';
import {
  Ban,
  CheckCircle2,
  Circle,
  CircleDashed,
  Loader2,
  MinusCircle,
  PauseCircle,
  PowerOff,
  RotateCw,
  SkipForward,
  XCircle,
} from 'lucide-react';
import { ApiError } from '../api/client';
import { navigate } from '../app/router';
import { valueText, words } from '../model/format';
import { asTree } from '../model/jsonTree';
import { mayBeMarkdown } from '../model/markdown';
import { JsonTree } from './JsonTree';
import { Markdown } from './Markdown';

export function Link(props: { href: string; children: ReactNode; className?: string; testId?: string; title?: string }) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(props.href);
  };
  return (
    <a href={props.href} onClick={onClick} className={props.className} data-testid={props.testId} title={props.title}>
      {props.children}
    </a>
  );
}

const STATUS: Record<string, { label: string; icon: typeof Circle; spin?: boolean }> = {
  pending: { label: 'pending', icon: CircleDashed },
  running: { label: 'running', icon: Loader2, spin: true },
  retrying: { label: 'retrying', icon: RotateCw, spin: true },
  completed: { label: 'completed', icon: CheckCircle2 },
  failed: { label: 'failed', icon: XCircle },
  skipped: { label: 'skipped', icon: SkipForward },
  cancelled: { label: 'cancelled', icon: Ban },
  paused: { label: 'paused', icon: PauseCircle },
  // Journaled running, but the process executing it is gone (its lease is stale): a resume continues it.
  interrupted: { label: 'interrupted', icon: PowerOff },
  not_run: { label: 'not run', icon: MinusCircle },
};

export function statusLabel(status: string | null | undefined): string {
  if (!status) return '';
  return STATUS[status]?.label ?? words(status);
}

/** A status as an icon and a word, coloured by class `st-<status>`. */
export function StatusBadge({ status, compact, testId }: { status: string | null | undefined; compact?: boolean; testId?: string }) {
  if (!status) return null;
  const s = STATUS[status] ?? { label: words(status), icon: Circle };
  const Icon = s.icon;
  return (
    <span className={`status st-${cssToken(status)}${compact ? ' compact' : ''}`} data-testid={testId} data-status={status}>
      <Icon aria-hidden="true" size={14} className={s.spin ? 'spin' : undefined} />
      <span>{s.label}</span>
    </span>
  );
}

/** Only letters, digits, '-' and '_' reach a class name. */
export function cssToken(s: string): string {
  return s.replace(/[^A-Za-z0-9_-]/g, '_');
}

const LIMIT = 4000;

/** How a value block shows its value: as written, as rendered Markdown (text), or as a JSON tree (objects, arrays). */
export type ValueView = 'raw' | 'markdown' | 'tree';

const VIEW_KEY = 'loopflow.valueView';

/** The view a person chose last (kept in the browser), so the next value opens the same way; raw text by default. */
function preferredView(): ValueView {
  try {
    const v = globalThis.localStorage?.getItem(VIEW_KEY);
    return v === 'markdown' || v === 'tree' ? v : 'raw';
  } catch {
    return 'raw';
  }
}

/**
 * A value as text in a block: strings as written, other values as JSON; long values folded. A toggle shows a string
 * with Markdown in it as Markdown and an object, an array or a string holding one as a JSON tree; both render text
 * only. Plain words get no toggle: every view of them would read the same.
 */
export function ValueBlock({ value, label, testId }: { value: unknown; label?: string; testId?: string }) {
  const [all, setAll] = useState(false);
  const [chosen, setChosen] = useState<ValueView>(preferredView);
  const text = valueText(value);
  if (!text) return <div className="value empty" data-testid={testId} aria-label={label} />;
  const tree = asTree(value);
  const canMarkdown = typeof value === 'string' && tree === undefined && mayBeMarkdown(value);
  const view: ValueView = chosen === 'tree' && tree !== undefined ? 'tree' : chosen === 'markdown' && canMarkdown ? 'markdown' : 'raw';
  const choose = (v: ValueView) => {
    setChosen(v);
    try {
      globalThis.localStorage?.setItem(VIEW_KEY, v);
    } catch {
      // a browser that keeps nothing still switches this block
    }
  };
  const long = text.length > LIMIT;
  return (
    <div className="value" data-testid={testId} data-view={view}>
      {canMarkdown || tree !== undefined ? (
        <div className="value-views" role="group" aria-label="show as">
          <button type="button" aria-pressed={view === 'raw'} onClick={() => choose('raw')} data-testid="view-raw">
            Raw text
          </button>
          {canMarkdown ? (
            <button type="button" aria-pressed={view === 'markdown'} onClick={() => choose('markdown')} data-testid="view-markdown">
              Markdown
            </button>
          ) : null}
          {tree !== undefined ? (
            <button type="button" aria-pressed={view === 'tree'} onClick={() => choose('tree')} data-testid="view-tree">
              JSON tree
            </button>
          ) : null}
        </div>
      ) : null}
      {view === 'markdown' ? (
        <Markdown text={text} testId="markdown" />
      ) : view === 'tree' ? (
        <JsonTree value={tree} label={label} testId="json-tree" />
      ) : (
        <>
          <pre aria-label={label}>{long && !all ? text.slice(0, LIMIT) + '…' : text}</pre>
          {long && (
            <button type="button" className="link-button" onClick={() => setAll(!all)}>
              {all ? 'Show less' : `Show all ${text.length.toLocaleString('en-US')} characters`}
            </button>
          )}
        </>
      )}
    </div>
  );
}

/** An error from the server or the network, in words, with a workflow's problems as line:col. */
export function ErrorMessage({ error, testId }: { error: unknown; testId?: string }) {
  if (!error) return null;
  const e = error instanceof ApiError ? error : undefined;
  const message = e ? e.message : error instanceof Error ? error.message : valueText(error);
  return (
    <div className="error-box" role="alert" data-testid={testId}>
      <p>
        {e && e.code && e.code !== 'network' && !e.code.startsWith('http_') ? <code className="code">{e.code}</code> : null}{' '}
        {message || 'Something went wrong.'}
      </p>
      {e && e.problems.length > 0 && (
        <ul className="problems">
          {e.problems.map((p, i) => (
            <li key={i}>
              <code>{[p.line, p.col].filter((x) => x !== null && x !== undefined).join(':')}</code>
              {p.path ? <span className="muted"> {p.path}</span> : null} {p.message ?? ''}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <div className="loading" role="status">
      <Loader2 aria-hidden="true" size={16} className="spin" /> Loading {what}…
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="empty-state">{children}</div>;
}

/** A label and a value in a definition list; nothing at all when the value is empty. */
export function Field({ label, children }: { label: string; children: ReactNode }) {
  if (children === null || children === undefined || children === '' || children === false) return null;
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}

/** A label and value kept together on one line, for a `dl` that wraps (a run's header facts). */
export function Fact({ label, children, title }: { label: string; children: ReactNode; title?: string }) {
  if (children === null || children === undefined || children === '' || children === false) return null;
  return (
    <div className="fact" title={title}>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

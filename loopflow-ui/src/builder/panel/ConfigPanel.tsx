// The builder's config panel: the selected node's settings, one control per field, generated from the node-kinds
// catalog (GET /api/node-kinds: the loader's own description of every kind), never from a list of fields kept
// here. An edit is reported only once it is a value the field takes (a number in range, a duration, YAML that
// parses); otherwise the control says why and nothing is sent. Clearing a control removes the key. Every text from
// the file is rendered as React text, never as HTML.
import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { FieldDescription, NodeKindCatalog, Problem, ReachableValue, SelectedNode } from '../contract';
import {
  NOT_IN_GENERAL,
  checkNodeId,
  conflictingGroups,
  controlFor,
  displayText,
  fieldsOf,
  holderKey,
  kindDescription,
  missingGroups,
  nodeFieldEdit,
  nodeFieldName,
  nodeFieldValue,
  parseInput,
  rangeText,
  resolveKind,
  withSubfield,
  yamlText,
  type ControlKind,
} from './fields';
import { namesOtherNode, problemField, problemText } from './problems';
import { applyTemplateCompletion, templateCompletion, type TemplateCompletion } from './reachable';
import './panel.css';

export interface ConfigPanelProps {
  catalog: NodeKindCatalog | null;
  node: SelectedNode | null;
  /** What the node's templates can read (reachableValues(...)), offered after `{{`. */
  reachable: ReachableValue[];
  /** This node's problems (problemsByNode(...).byNode.get(nodeKey(node.path, node.id))); any whose path names
   *  another node is left out, so passing every problem of the file is safe too. */
  problems: Problem[];
  onChange(field: string, value: unknown | undefined): void;
  onRename(newId: string): void;
  /** The ids a NODE_ID / NODE_IDS field may name (the node's list); without it those fields are text. */
  nodeIds?: string[];
}

export function ConfigPanel(props: ConfigPanelProps) {
  const { catalog, node } = props;
  if (!node) {
    return (
      <aside className="config-panel config-empty" data-testid="config-panel">
        <p>Select a node to edit its settings.</p>
      </aside>
    );
  }
  if (!catalog) {
    return (
      <aside className="config-panel" data-testid="config-panel">
        <p>Loading the node kinds…</p>
      </aside>
    );
  }
  // A new node (or another kind) starts with fresh controls.
  return <NodePanel key={`${node.path.join('.')}.${node.id}:${node.kind}`} {...props} catalog={catalog} node={node} />;
}

function NodePanel(props: ConfigPanelProps & { catalog: NodeKindCatalog; node: SelectedNode }) {
  const { catalog, node, reachable, onChange } = props;
  const kind = kindDescription(catalog, node.kind);
  const { own, common } = fieldsOf(catalog, node.kind);
  const values = node.values ?? {};
  const holder = holderKey(values, kind);
  const problems = props.problems.filter((p) => !namesOtherNode(p, node.path, node.id));
  const byField = new Map<string, Problem[]>();
  for (const p of problems) {
    const f = problemField(p, node.path, node.id);
    if (f) byField.set(f, [...(byField.get(f) ?? []), p]);
  }
  const general = common.filter((f) => !NOT_IN_GENERAL.has(f.name));
  const generalHasProblems = general.some((f) => [f.name, ...f.aliases].some((n) => byField.has(n))) || byField.has('id') || byField.has('name');
  const notes = [...missingGroups(kind, holder ? { ...values, ...(values[holder] as object) } : values), ...conflictingGroups(kind, values)];

  const control = (f: FieldDescription, isOwn: boolean) => {
    const name = nodeFieldName(f, values, holder);
    const fieldProblems = [f.name, ...f.aliases].flatMap((n) => byField.get(n) ?? []);
    return (
      <FieldControl
        key={f.name}
        field={f}
        label={name}
        value={nodeFieldValue(f, values, holder)}
        catalog={catalog}
        reachable={reachable}
        nodeIds={(props.nodeIds ?? []).filter((id) => id !== node.id)}
        knowsNodeIds={props.nodeIds !== undefined}
        problems={fieldProblems}
        onValue={(v) => {
          const edit = nodeFieldEdit(f, v, values, holder, isOwn);
          onChange(edit.key, edit.value);
        }}
      />
    );
  };

  return (
    <aside className="config-panel" data-testid="config-panel" aria-label={`settings of node ${node.id}`}>
      <header className="config-head">
        <h2>
          <bdi className="config-id">{clip(node.id, 80)}</bdi> <span className="config-kind">{resolveKind(catalog, node.kind)}</span>
        </h2>
        {kind?.description ? <p className="config-help">{kind.description}</p> : null}
        {!kind ? <p className="config-error">This server does not know the node kind “{clip(node.kind, 80)}”.</p> : null}
      </header>
      {problems.length > 0 ? (
        <ul className="config-problems" data-testid="config-problems" aria-label="problems of this node">
          {problems.map((p, i) => (
            <li key={i}>
              <bdi>{clip(problemText(p), 500)}</bdi>
            </li>
          ))}
        </ul>
      ) : null}
      {notes.length > 0 ? (
        <ul className="config-notes">
          {notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      ) : null}
      <form className="config-form" onSubmit={(e) => e.preventDefault()}>
        {own.map((f) => control(f, true))}
        <details className="config-general" open={generalHasProblems || own.length === 0}>
          <summary>General</summary>
          <IdField node={node} catalog={catalog} taken={(props.nodeIds ?? []).filter((id) => id !== node.id)} problems={[...(byField.get('id') ?? []), ...(byField.get('name') ?? [])]} onRename={props.onRename} />
          {general.map((f) => control(f, false))}
        </details>
      </form>
    </aside>
  );
}

function IdField(props: { node: SelectedNode; catalog: NodeKindCatalog; taken: string[]; problems: Problem[]; onRename(id: string): void }) {
  const { node } = props;
  const [draft, setDraft] = useState(node.id);
  const [error, setError] = useState<string>();
  const id = useId();
  const commit = () => {
    if (draft === node.id) {
      setError(undefined);
      return;
    }
    const why = checkNodeId(draft, props.catalog, props.taken);
    setError(why);
    if (!why) props.onRename(draft);
  };
  const label = 'name' in (node.values ?? {}) && !('id' in (node.values ?? {})) ? 'name' : 'id';
  return (
    <div className="config-field">
      <label htmlFor={id}>
        {label} <span className="config-required" title="required">*</span>
      </label>
      <input
        id={id}
        className="config-input"
        value={draft}
        spellCheck={false}
        aria-invalid={error ? true : undefined}
        onChange={(e) => setDraft(e.target.value)}
        onBlur={commit}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            commit();
          }
        }}
        data-testid="config-id"
      />
      <FieldMessages error={error} problems={props.problems} help="The node's id: letters, digits, '_' and '-', starting with a letter or '_'. Renaming updates the references to it." />
    </div>
  );
}

interface FieldControlProps {
  field: FieldDescription;
  label: string;
  value: unknown;
  catalog: NodeKindCatalog;
  reachable: ReachableValue[];
  nodeIds: string[];
  knowsNodeIds: boolean;
  problems: Problem[];
  onValue(value: unknown | undefined): void;
}

/** One field: its control, chosen from the field's type and the value it holds. */
function FieldControl(props: FieldControlProps) {
  const { field, value } = props;
  let kind: ControlKind = controlFor(field, value);
  if ((kind === 'nodeId' || kind === 'nodeIds') && !props.knowsNodeIds) kind = kind === 'nodeId' ? 'text' : 'code';
  const id = useId();
  const [error, setError] = useState<string>();
  const send = (raw: string | boolean | string[]) => {
    // Messages name the field as the file writes it (max_iterations when written so).
    const r = parseInput({ ...field, name: props.label }, kind, raw, props.catalog, value);
    if (r.ok) {
      setError(undefined);
      if (!sameValue(r.value, value)) props.onValue(r.value);
    } else setError(r.error);
  };

  const labelEl = (
    <label htmlFor={id}>
      <bdi>{props.label}</bdi>
      {field.required ? (
        <span className="config-required" title="required">
          {' '}*
        </span>
      ) : null}
      {kind === 'number' && rangeText(field) ? <span className="config-range"> ({rangeText(field)})</span> : null}
    </label>
  );
  const messages = <FieldMessages error={error} problems={props.problems} help={field.description} />;

  switch (kind) {
    case 'checkbox':
      return (
        <div className="config-field config-check">
          <input id={id} type="checkbox" checked={value === true} onChange={(e) => send(e.target.checked)} />
          {labelEl}
          {value !== undefined ? (
            <button type="button" className="config-unset" onClick={() => props.onValue(undefined)} title="remove the key (use the default)">
              unset
            </button>
          ) : null}
          {messages}
        </div>
      );
    case 'select':
    case 'nodeId': {
      const options = kind === 'select' ? field.values : props.nodeIds;
      const current = typeof value === 'string' ? value : '';
      return (
        <div className="config-field">
          {labelEl}
          <select id={id} className="config-input" value={current} onChange={(e) => send(e.target.value)}>
            <option value="">(not set)</option>
            {current && !options.includes(current) ? <option value={current}>{clip(current, 80)}</option> : null}
            {options.map((o) => (
              <option key={o} value={o}>
                {clip(o, 80)}
              </option>
            ))}
          </select>
          {messages}
        </div>
      );
    }
    case 'nodeIds': {
      const chosen = typeof value === 'string' ? [value] : Array.isArray(value) ? (value as string[]) : [];
      const all = [...new Set([...props.nodeIds, ...chosen])];
      return (
        <fieldset className="config-field config-ids">
          <legend>
            <bdi>{props.label}</bdi>
          </legend>
          {all.length === 0 ? <p className="config-help">No other node to choose.</p> : null}
          {all.map((n) => (
            <label key={n} className="config-id-choice">
              <input
                type="checkbox"
                checked={chosen.includes(n)}
                onChange={(e) => send(e.target.checked ? [...chosen, n] : chosen.filter((c) => c !== n))}
              />{' '}
              <bdi>{clip(n, 80)}</bdi>
            </label>
          ))}
          {messages}
        </fieldset>
      );
    }
    case 'section':
      return (
        <fieldset className="config-field config-section">
          <legend>
            <bdi>{props.label}</bdi>
          </legend>
          {field.description ? <p className="config-help">{field.description}</p> : null}
          {field.fields.map((sub) => {
            const v = value && typeof value === 'object' ? (value as Record<string, unknown>)[sub.name] : undefined;
            return (
              <FieldControl
                key={sub.name}
                {...props}
                field={sub}
                label={sub.name}
                value={v}
                problems={[]}
                onValue={(sv) => props.onValue(withSubfield(value, sub.name, sv))}
              />
            );
          })}
          <FieldMessages problems={props.problems} />
        </fieldset>
      );
    case 'nodes': {
      const n = Array.isArray(value) ? value.length : 0;
      return (
        <div className="config-field">
          {labelEl}
          <p className="config-help">
            {n} {n === 1 ? 'node' : 'nodes'}: edit them on the canvas, inside this node.
          </p>
          {messages}
        </div>
      );
    }
    case 'code':
      return (
        <div className="config-field">
          {labelEl}
          <DraftText id={id} value={value} show={yamlText} multiline onCommit={send} commitOn="blur" invalid={!!error} code />
          {messages}
        </div>
      );
    case 'template':
      return (
        <div className="config-field">
          {labelEl}
          <TemplateText id={id} value={value} reachable={props.reachable} onCommit={send} invalid={!!error} bare={field.type === 'CONDITION'} />
          {messages}
        </div>
      );
    default:
      return (
        <div className="config-field">
          {labelEl}
          <DraftText
            id={id}
            value={value}
            show={displayText}
            onCommit={send}
            commitOn="change"
            invalid={!!error}
            type={kind === 'number' ? 'number' : 'text'}
            min={kind === 'number' ? (field.minimum ?? undefined) : undefined}
            max={kind === 'number' ? (field.maximum ?? undefined) : undefined}
            placeholder={kind === 'duration' ? '30s, 5m, 1h30m' : undefined}
          />
          {messages}
        </div>
      );
  }
}

function FieldMessages(props: { error?: string; problems: Problem[]; help?: string }) {
  return (
    <>
      {props.error ? (
        <p className="config-error" role="alert">
          {props.error}
        </p>
      ) : null}
      {props.problems.map((p, i) => (
        <p key={i} className="config-error config-problem">
          <bdi>{clip(problemText(p), 500)}</bdi>
        </p>
      ))}
      {props.help ? <p className="config-help">{props.help}</p> : null}
    </>
  );
}

/**
 * Text kept while typing: the control shows the person's text, not the value re-rendered on every keystroke, and
 * takes the value again only when it changes from outside (another edit, undo).
 */
function useDraft(value: unknown, show: (v: unknown) => string): [string, (s: string) => void, (v: unknown) => void] {
  const [draft, setDraft] = useState(() => show(value));
  const sent = useRef<unknown>(value);
  useEffect(() => {
    if (!sameValue(value, sent.current)) {
      sent.current = value;
      setDraft(show(value));
    }
  }, [value, show]);
  return [draft, setDraft, (v) => (sent.current = v)];
}

function DraftText(props: {
  id: string;
  value: unknown;
  show: (v: unknown) => string;
  onCommit(raw: string): void;
  commitOn: 'change' | 'blur';
  invalid: boolean;
  multiline?: boolean;
  code?: boolean;
  type?: string;
  min?: number;
  max?: number;
  placeholder?: string;
}) {
  const [draft, setDraft] = useDraft(props.value, props.show);
  const common = {
    id: props.id,
    value: draft,
    spellCheck: false,
    'aria-invalid': props.invalid ? true : undefined,
    className: `config-input${props.code ? ' config-code' : ''}`,
    placeholder: props.placeholder,
    onBlur: () => props.commitOn === 'blur' && props.onCommit(draft),
  };
  if (props.multiline) {
    return (
      <textarea
        {...common}
        rows={Math.min(12, Math.max(3, draft.split('\n').length + 1))}
        onChange={(e) => {
          setDraft(e.target.value);
          if (props.commitOn === 'change') props.onCommit(e.target.value);
        }}
      />
    );
  }
  return (
    <input
      {...common}
      type={props.type ?? 'text'}
      min={props.min}
      max={props.max}
      step={props.type === 'number' ? 'any' : undefined}
      onChange={(e) => {
        setDraft(e.target.value);
        if (props.commitOn === 'change') props.onCommit(e.target.value);
      }}
    />
  );
}

/** A template or condition: multi-line text with the reachable values offered after `{{` (and `{%`), and in a
 *  condition (an expression without braces) wherever a name is typed. */
function TemplateText(props: { id: string; value: unknown; reachable: ReachableValue[]; onCommit(raw: string): void; invalid: boolean; bare?: boolean }) {
  const [draft, setDraft] = useDraft(props.value, displayText);
  const [completion, setCompletion] = useState<TemplateCompletion>();
  const [active, setActive] = useState(0);
  const ref = useRef<HTMLTextAreaElement>(null);
  const listId = useId();

  const refresh = (text: string, cursor: number) => {
    setCompletion(templateCompletion(text, cursor, props.reachable, 50, props.bare));
    setActive(0);
  };
  const choose = (expression: string) => {
    if (!completion) return;
    const r = applyTemplateCompletion(draft, completion, expression);
    setDraft(r.text);
    props.onCommit(r.text);
    setCompletion(undefined);
    requestAnimationFrame(() => {
      const el = ref.current;
      if (el) {
        el.focus();
        el.setSelectionRange(r.cursor, r.cursor);
      }
    });
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (!completion) return;
    const n = completion.options.length;
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      setActive((a) => (a + 1) % n);
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      setActive((a) => (a - 1 + n) % n);
    } else if (e.key === 'Enter' || e.key === 'Tab') {
      const o = completion.options[active];
      if (o) {
        e.preventDefault();
        choose(o.expression);
      }
    } else if (e.key === 'Escape') {
      e.preventDefault();
      setCompletion(undefined);
    }
  };
  const lines = draft.split('\n').length;
  const options = useMemo(() => completion?.options ?? [], [completion]);
  return (
    <div className="config-template">
      <textarea
        ref={ref}
        id={props.id}
        className="config-input config-code"
        value={draft}
        spellCheck={false}
        rows={Math.min(14, Math.max(2, lines + 1))}
        aria-invalid={props.invalid ? true : undefined}
        aria-autocomplete="list"
        aria-expanded={options.length > 0}
        aria-controls={options.length > 0 ? listId : undefined}
        onChange={(e) => {
          setDraft(e.target.value);
          props.onCommit(e.target.value);
          refresh(e.target.value, e.target.selectionStart ?? e.target.value.length);
        }}
        onKeyDown={onKeyDown}
        onKeyUp={(e) => {
          if (['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(e.key)) refresh(draft, e.currentTarget.selectionStart ?? 0);
        }}
        onBlur={() => setTimeout(() => setCompletion(undefined), 150)}
      />
      {options.length > 0 ? (
        <ul className="config-completions" role="listbox" id={listId} data-testid="template-completions">
          {options.map((o, i) => (
            <li
              key={o.expression}
              role="option"
              aria-selected={i === active}
              className={i === active ? 'active' : undefined}
              onMouseDown={(e) => {
                e.preventDefault();
                choose(o.expression);
              }}
            >
              <code>
                <bdi>{clip(o.expression, 120)}</bdi>
              </code>{' '}
              <span className="config-source">
                <bdi>{clip(o.source, 80)}</bdi>
              </span>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** Whether two plain JSON values are the same (so an edit that changes nothing is not reported). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

// A JSON value as a collapsible tree: objects and arrays fold and unfold, a long string is clipped with "show all", a
// big object or array shows its children a page at a time, and the tree stops at a bounded depth (deeper values as
// clipped JSON text). Keys and values are text nodes.
import { useState } from 'react';
import { valueText } from '../model/format';
import { JSON_MAX_DEPTH, JSON_PAGE, clipLeaf, jsonChildren, jsonKind, jsonSummary, leafText, shownCount } from '../model/jsonTree';

function Leaf({ value }: { value: unknown }) {
  const [all, setAll] = useState(false);
  const kind = jsonKind(value);
  if (kind !== 'string') return <span className={`json-${kind}`}>{leafText(value)}</span>;
  const c = clipLeaf(value as string);
  return (
    <span className="json-string">
      {all ? JSON.stringify(value) : c.text}
      {c.clipped ? (
        <button type="button" className="link-button" onClick={() => setAll(!all)} data-testid="json-show-all">
          {all ? 'show less' : `show all ${(value as string).length.toLocaleString('en-US')} characters`}
        </button>
      ) : null}
    </span>
  );
}

function Node({ name, value, depth, open }: { name?: string; value: unknown; depth: number; open: boolean }) {
  const kind = jsonKind(value);
  const [expanded, setExpanded] = useState(open);
  const [pages, setPages] = useState(1);
  const key = name !== undefined ? <span className="json-key">{name}: </span> : null;
  if (kind !== 'object' && kind !== 'array') {
    return (
      <li className="json-row">
        {key}
        <Leaf value={value} />
      </li>
    );
  }
  if (depth >= JSON_MAX_DEPTH) {
    const text = valueText(value);
    return (
      <li className="json-row">
        {key}
        <span className="json-deep" title="deeper than the tree draws">
          {text.length > 300 ? text.slice(0, 300) + '…' : text}
        </span>
      </li>
    );
  }
  const children = jsonChildren(value);
  const shown = shownCount(children.length, pages);
  return (
    <li className="json-row">
      <button
        type="button"
        className="json-toggle"
        aria-expanded={expanded}
        onClick={() => setExpanded(!expanded)}
        data-testid="json-toggle"
      >
        {expanded ? '▾' : '▸'}
      </button>{' '}
      {key}
      {!expanded || children.length === 0 ? <span className="muted">{jsonSummary(value)}</span> : <span className="muted">{kind === 'array' ? '[' : '{'}</span>}
      {expanded && children.length > 0 ? (
        <>
          <ul className="json-children">
            {children.slice(0, shown).map(([k, v]) => (
              <Node key={k} name={k} value={v} depth={depth + 1} open={false} />
            ))}
          </ul>
          {shown < children.length ? (
            <button type="button" className="link-button json-more" onClick={() => setPages(pages + 1)} data-testid="json-more">
              Showing {shown.toLocaleString('en-US')} of {children.length.toLocaleString('en-US')}: show{' '}
              {Math.min(JSON_PAGE, children.length - shown)} more
            </button>
          ) : null}
          <span className="muted">{kind === 'array' ? ']' : '}'}</span>
        </>
      ) : null}
    </li>
  );
}

export function JsonTree({ value, label, testId }: { value: unknown; label?: string; testId?: string }) {
  return (
    <ul className="json-tree" aria-label={label} data-testid={testId}>
      <Node value={value} depth={0} open={true} />
    </ul>
  );
}

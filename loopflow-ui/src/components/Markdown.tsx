// Markdown rendered as React elements (never HTML): the tree model/markdown.ts reads, drawn block by block. Links
// open in a new tab without access to this page; code stays verbatim; a text longer than the reader's bound says so.
import type { ReactNode } from 'react';
import { parseMarkdown, type Block, type Inline } from '../model/markdown';

function spans(items: Inline[]): ReactNode[] {
  return items.map((x, i) => {
    switch (x.t) {
      case 'text':
        return x.text;
      case 'code':
        return <code key={i}>{x.text}</code>;
      case 'em':
        return <em key={i}>{spans(x.children)}</em>;
      case 'strong':
        return <strong key={i}>{spans(x.children)}</strong>;
      case 'link':
        return (
          <a key={i} href={x.href} target="_blank" rel="noopener noreferrer">
            {spans(x.children)}
          </a>
        );
      case 'br':
        return <br key={i} />;
    }
  });
}

const HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'] as const;

function blocks(items: Block[]): ReactNode[] {
  return items.map((b, i) => {
    switch (b.t) {
      case 'h': {
        const H = HEADINGS[Math.min(6, Math.max(1, b.level)) - 1] ?? 'h6';
        return <H key={i}>{spans(b.children)}</H>;
      }
      case 'p':
        return <p key={i}>{spans(b.children)}</p>;
      case 'code':
        return (
          <pre key={i} data-lang={b.lang || undefined}>
            <code>{b.text}</code>
          </pre>
        );
      case 'quote':
        return <blockquote key={i}>{blocks(b.children)}</blockquote>;
      case 'list': {
        // an item of one paragraph is drawn as its text (a tight list); longer items keep their blocks
        const lis = b.items.map((item, j) => {
          const only = item.length === 1 ? item[0] : undefined;
          return <li key={j}>{only?.t === 'p' ? spans(only.children) : blocks(item)}</li>;
        });
        return b.ordered ? (
          <ol key={i} start={b.start !== 1 ? b.start : undefined}>
            {lis}
          </ol>
        ) : (
          <ul key={i}>{lis}</ul>
        );
      }
      case 'hr':
        return <hr key={i} />;
      case 'table':
        return (
          <div className="md-table" key={i}>
            <table className="table compact">
              <thead>
                <tr>
                  {b.head.map((c, j) => (
                    <th key={j} scope="col">
                      {spans(c)}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {b.rows.map((r, j) => (
                  <tr key={j}>
                    {r.map((c, k) => (
                      <td key={k}>{spans(c)}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        );
    }
  });
}

export function Markdown({ text, testId }: { text: string; testId?: string }) {
  const doc = parseMarkdown(text);
  return (
    <div className="markdown" data-testid={testId}>
      {blocks(doc.blocks)}
      {doc.cut > 0 ? (
        <p className="muted" data-testid="markdown-truncated">
          Truncated: the last {doc.cut.toLocaleString('en-US')} characters are not rendered (see the raw text).
        </p>
      ) : null}
    </div>
  );
}

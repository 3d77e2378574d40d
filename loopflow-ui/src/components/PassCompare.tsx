// Two passes of a loop side by side: the state after each and what each body node produced, text outputs as a
// unified line diff (what changed between drafts). Everything shown is text; outputs are never rendered as markup.
import { useEffect, useState } from 'react';
import { GitCompare, X } from 'lucide-react';
import { passDiff } from '../api/client';
import type { DiffSide, RunDiff } from '../api/types';
import { passPoint } from '../model/fork';
import { valueText } from '../model/format';
import { DIFF_MAX_LINES, lineDiff, unified } from '../model/lineDiff';
import { InlineError } from './ForkPanel';

interface Props {
  runId: string;
  /** the loop instance's path (`refine`, `outer[2].inner`) */
  loopPath: string;
  /** the passes that can be compared */
  passes: number[];
  a: number;
  b: number;
  onClose: () => void;
}

export function PassCompare({ runId, loopPath, passes, a: a0, b: b0, onClose }: Props) {
  const [a, setA] = useState(a0);
  const [b, setB] = useState(b0);
  const [diff, setDiff] = useState<{ key: string; diff: RunDiff }>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    setA(a0);
    setB(b0);
  }, [a0, b0]);

  const pa = passPoint(loopPath, a);
  const pb = passPoint(loopPath, b);
  const key = `${runId} ${pa} ${pb}`;
  useEffect(() => {
    // an answer for passes no longer chosen is dropped (the request is left to finish: it is small)
    let current = true;
    setError(undefined);
    passDiff(runId, pa, pb)
      .then((d) => current && setDiff({ key, diff: d }))
      .catch((e: unknown) => {
        if (current) setError(e);
      });
    return () => {
      current = false;
    };
  }, [runId, pa, pb, key]);

  const shown = diff?.key === key ? diff.diff : undefined;
  return (
    <section className="pass-compare" aria-label={`compare passes of ${loopPath}`} data-testid="pass-compare">
      <header className="fork-panel-head">
        <h4>
          <GitCompare aria-hidden="true" size={15} /> Compare passes
        </h4>
        <label>
          pass{' '}
          <select value={a} onChange={(e) => setA(Number(e.target.value))} data-testid="compare-a" aria-label="the left pass">
            {passes.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <span aria-hidden="true">→</span>
        <label>
          pass{' '}
          <select value={b} onChange={(e) => setB(Number(e.target.value))} data-testid="compare-b" aria-label="the right pass">
            {passes.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="icon-button" onClick={onClose} title="close" data-testid="compare-close">
          <X aria-hidden="true" size={14} />
          <span className="sr-only">close the comparison</span>
        </button>
      </header>
      <InlineError error={error} testId="compare-error" />
      {shown ? <DiffView diff={shown} /> : error ? null : <p className="muted">Loading the passes…</p>}
    </section>
  );
}

const same = (x: unknown, y: unknown) => valueText(x) === valueText(y) && (x === undefined) === (y === undefined);

/** Two sides of a diff; `sides` says whether they are passes (the default) or whole runs, for the headings. */
export function DiffView({ diff, sides = 'pass' }: { diff: RunDiff; sides?: 'pass' | 'run' }) {
  const left: DiffSide = diff.left ?? {};
  const right: DiffSide = diff.right ?? {};
  const ls = left.state ?? {};
  const rs = right.state ?? {};
  const stateKeys = [...new Set([...Object.keys(ls), ...Object.keys(rs)])];
  const lo = left.outputs ?? {};
  const ro = right.outputs ?? {};
  const outputKeys = [...new Set([...Object.keys(lo), ...Object.keys(ro)])];
  const has = (o: Record<string, unknown>, k: string) => Object.prototype.hasOwnProperty.call(o, k);
  return (
    <div className="diff-view" data-testid="diff-view">
      <p className="diff-sides">
        <span className="diff-del-mark">−</span> <code data-testid="diff-left-label">{left.label ?? ''}</code>{' '}
        <span className="diff-add-mark">+</span> <code data-testid="diff-right-label">{right.label ?? ''}</code>
      </p>
      <h5>{sides === 'run' ? 'State at the end of each run' : 'State after each pass'}</h5>
      {stateKeys.length === 0 ? (
        <p className="muted">No state on either side.</p>
      ) : (
        <table className="table diff-state" data-testid="diff-state">
          <thead>
            <tr>
              <th scope="col">key</th>
              <th scope="col">{left.label ?? 'left'}</th>
              <th scope="col">{right.label ?? 'right'}</th>
            </tr>
          </thead>
          <tbody>
            {stateKeys.map((k) => {
              const changed = !(has(ls, k) && has(rs, k) && same(ls[k], rs[k]));
              return (
                <tr key={k} className={changed ? 'diff-changed' : undefined} data-testid={`diff-state-${k}`} data-changed={changed}>
                  <th scope="row">
                    <code>{k}</code>
                    {changed ? <span className="diff-tag">changed</span> : null}
                  </th>
                  <td className="cell-value">
                    <pre>{has(ls, k) ? valueText(ls[k]) : ''}</pre>
                  </td>
                  <td className="cell-value">
                    <pre>{has(rs, k) ? valueText(rs[k]) : ''}</pre>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <h5>{sides === 'run' ? 'Outputs of the top-level nodes' : 'Outputs of the nodes'}</h5>
      {outputKeys.length === 0 ? (
        <p className="muted">No node output on either side.</p>
      ) : (
        outputKeys.map((k) => (
          <OutputDiff key={k} node={k} left={has(lo, k) ? lo[k] : undefined} right={has(ro, k) ? ro[k] : undefined} inLeft={has(lo, k)} inRight={has(ro, k)} />
        ))
      )}
    </div>
  );
}

function OutputDiff({ node, left, right, inLeft, inRight }: { node: string; left: unknown; right: unknown; inLeft: boolean; inRight: boolean }) {
  const d = lineDiff(valueText(left), valueText(right));
  const where = !inLeft ? 'only on the right' : !inRight ? 'only on the left' : d.equal && !d.truncated ? 'unchanged' : 'changed';
  return (
    <div className="output-diff" data-testid={`diff-output-${node}`} data-changed={where !== 'unchanged'}>
      <h6>
        <code>{node}</code> <span className="muted">{where}</span>
      </h6>
      {d.truncated ? (
        <p className="muted small-text" data-testid="diff-truncated">
          Only the first {DIFF_MAX_LINES.toLocaleString('en-US')} lines of each side are compared (the left has{' '}
          {d.leftLines.toLocaleString('en-US')}, the right {d.rightLines.toLocaleString('en-US')}).
        </p>
      ) : null}
      <pre className="unified-diff" aria-label={`line diff of ${node}`}>
        {unified(d, 3).map((l, i) =>
          'skip' in l ? (
            <span key={i} className="diff-skip">
              {`  … ${l.skip} unchanged line${l.skip === 1 ? '' : 's'}\n`}
            </span>
          ) : (
            <span key={i} className={`diff-${l.kind}`}>
              {(l.kind === 'add' ? '+ ' : l.kind === 'del' ? '- ' : '  ') + l.text + '\n'}
            </span>
          ),
        )}
      </pre>
    </div>
  );
}

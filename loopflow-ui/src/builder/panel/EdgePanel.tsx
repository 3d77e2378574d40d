// The settings of an edge chosen on the canvas, in the config panel's place: what the edge means in words, Delete,
// and the one way a loop edge is made: "Make this a loop edge", which asks for its bound. An edge drawn on the canvas
// is always a forward edge; nothing here turns one into a loop edge without that explicit choice and a bound typed.
import { Repeat, Trash2 } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { loopBound } from '../builderModel';

export interface ChosenEdge {
  /** the ids of the containers the edge's list sits in ([] for the top level) */
  list: string[];
  from: string;
  to: string;
  loop: boolean;
  max: number | null;
}

/**
 * A bound for a loop edge from `from` back to `to`, asked for in words. Used for an edge chosen on the canvas and for
 * an edge drawn backwards (one that would close a cycle as a forward edge).
 */
export function LoopEdgeForm({ from, to, onMake, onCancel, testId }: { from: string; to: string; onMake: (max: number) => void; onCancel?: () => void; testId: string }) {
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = (ev: FormEvent) => {
    ev.preventDefault();
    const b = loopBound(text);
    if (!b.ok) {
      setError(b.error);
      return;
    }
    onMake(b.max);
  };
  return (
    <form className="loop-edge-form" onSubmit={submit} data-testid={testId}>
      <label>
        After <bdi>{from}</bdi>, run <bdi>{to}</bdi> again at most{' '}
        <input
          type="number"
          min={1}
          max={100}
          step={1}
          value={text}
          onChange={(e) => (setText(e.target.value), setError(null))}
          aria-label="loop edge bound (passes)"
          data-testid={`${testId}-max`}
          aria-invalid={!!error}
        />{' '}
        passes
      </label>
      {error ? <p className="config-error">{error}</p> : null}
      <div className="button-row">
        <button type="submit" data-testid={`${testId}-make`}>
          <Repeat aria-hidden="true" size={13} /> Make loop edge
        </button>
        {onCancel ? (
          <button type="button" onClick={onCancel} data-testid={`${testId}-cancel`}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}

export function EdgePanel({ edge, onDelete, onMakeLoop }: { edge: ChosenEdge; onDelete: () => void; onMakeLoop: (max: number) => void }) {
  const [asking, setAsking] = useState(false);
  return (
    <aside className="config-panel" data-testid="edge-panel" aria-label={`edge from ${edge.from} to ${edge.to}`}>
      <h2 className="config-head">
        Edge <bdi>{edge.from}</bdi> → <bdi>{edge.to}</bdi>
      </h2>
      <p data-testid="edge-meaning">
        {edge.loop ? (
          <>
            A loop edge: after <bdi>{edge.from}</bdi>, <bdi>{edge.to}</bdi> and what follows it run again, at most {edge.max ?? '?'} passes.
          </>
        ) : (
          <>
            A forward edge: <bdi>{edge.to}</bdi> runs after <bdi>{edge.from}</bdi> and can read its output.
          </>
        )}
      </p>
      <div className="button-row">
        <button type="button" onClick={onDelete} data-testid="edge-delete">
          <Trash2 aria-hidden="true" size={13} /> Delete edge
        </button>
        {!edge.loop && edge.list.length === 0 && !asking ? (
          <button type="button" onClick={() => setAsking(true)} data-testid="edge-make-loop">
            <Repeat aria-hidden="true" size={13} /> Make this a loop edge…
          </button>
        ) : null}
      </div>
      {!edge.loop && edge.list.length > 0 ? <p className="config-help">Loop edges join top-level nodes only; inside a loop body, the body is the loop.</p> : null}
      {asking ? <LoopEdgeForm from={edge.from} to={edge.to} onMake={onMakeLoop} onCancel={() => setAsking(false)} testId="edge-loop-form" /> : null}
    </aside>
  );
}

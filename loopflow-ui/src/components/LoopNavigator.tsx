// A navigator per loop: pick a pass (iteration k of N) and see what each body node of that pass received, produced
// and changed in `state`, the condition that admitted the pass and how the loop ended. A nested loop's navigator
// shows the instance inside the pass chosen in the enclosing loop.
import { useEffect, useMemo, useState } from 'react';
import { AlertTriangle, ChevronDown, ChevronRight, ChevronsLeft, ChevronsRight, ChevronLeft, GitBranch, GitCompare, History, Repeat } from 'lucide-react';
import type { Execution } from '../api/types';
import { fmtCost, fmtDuration, fmtTokens, words } from '../model/format';
import type { EffectivePass, PassSelection } from '../model/graphMap';
import { failedPasses, passView, type PassItem } from '../model/passes';
import type { RunLive } from '../model/runState';
import { durationBetween } from '../model/format';
import { ExecutionDetails, replyOf } from './ExecutionDetails';
import { ForkPanel } from './ForkPanel';
import { PassCompare } from './PassCompare';
import { Link, StatusBadge, ValueBlock } from './common';
import { passPoint } from '../model/fork';
import { runHref } from '../app/router';
import { passKey } from '../model/passWindow';
import { stripPasses } from '../model/strip';
import { PassStrip } from './PassStrip';

/** Pass buttons on one page of the navigator: a loop of thousands of passes draws this many, never all. */
export const PASS_BUTTONS = 50;

interface Props {
  runId: string;
  run: RunLive;
  records: Map<string, Execution[]>;
  /** passes that could not be loaded, by `loop[k]`: the reason */
  passErrors?: Record<string, string>;
  effective: Map<string, EffectivePass>;
  onChoose: (loopStatic: string, iteration: number) => void;
  /** the node shown in the side panel, by execution path */
  onShowExecution: (path: string) => void;
  errorPath?: string;
  selection: PassSelection;
}

export function LoopNavigators(props: Props) {
  const loops = [...props.effective.values()];
  if (loops.length === 0) return <p className="muted">This run has no loop.</p>;
  return (
    <div className="loop-navigators">
      {loops.map((e) => (
        <LoopNavigator key={e.loopStatic} {...props} eff={e} />
      ))}
    </div>
  );
}

function LoopNavigator({ runId, run, records, passErrors, eff, onChoose, onShowExecution, errorPath }: Props & { eff: EffectivePass }) {
  const loop = eff.instance;
  // the fork panel and the comparison belong to one pass of one loop instance; choosing another pass closes them
  const [open, setOpen] = useState<{ what: 'fork' | 'compare'; loopPath: string; iteration: number }>();
  const failed = useMemo(() => {
    const f = failedPasses(run, loop);
    for (const p of loop.passes) if (p.summary?.status === 'failed') f.add(p.iteration);
    return f;
  }, [run, loop]);
  const strip = useMemo(() => stripPasses(run, loop, failed), [run, loop, failed]);
  const shown = eff.iteration;
  const shownPass = shown !== undefined ? loop.passes.find((p) => p.iteration === shown) : undefined;
  const view = shown !== undefined && !shownPass?.summary ? passView(run, records, loop, shown) : undefined;
  const passError = shown !== undefined ? passErrors?.[passKey(loop.path, shown)] : undefined;
  const depth = loop.enclosing.length;
  const passCount = loop.passes.length;
  const lastPass = loop.passes[passCount - 1]?.iteration;
  const c = loop.completed;
  const passNumbers = useMemo(() => loop.passes.map((p) => p.iteration), [loop.passes]);
  const shownIndex = shown !== undefined ? passNumbers.indexOf(shown) : -1;
  const page = Math.floor(Math.max(0, shownIndex) / PASS_BUTTONS);
  const onPage = loop.passes.slice(page * PASS_BUTTONS, (page + 1) * PASS_BUTTONS);
  const choose = (k: number | undefined) => {
    if (k !== undefined) onChoose(eff.loopStatic, k);
  };
  const failedList = useMemo(() => passNumbers.filter((k) => failed.has(k)), [passNumbers, failed]);
  const prevFailed = shown === undefined ? undefined : [...failedList].reverse().find((k) => k < shown);
  const nextFailed = shown === undefined ? failedList[0] : failedList.find((k) => k > shown);
  const isOpen = (what: 'fork' | 'compare') => open?.what === what && open.loopPath === loop.path && open.iteration === shown;
  // the pass before the shown one (or, for the first, the next): the usual question is what this pass changed
  const compareWith = (k: number) => {
    const i = passNumbers.indexOf(k);
    return i > 0 ? passNumbers[i - 1]! : (passNumbers[i + 1] ?? k);
  };
  return (
    <section
      className="loop-nav"
      style={{ marginLeft: depth * 20 }}
      data-testid={`loop-navigator-${eff.loopStatic}`}
      aria-label={`loop ${loop.node}`}
    >
      <header className="loop-nav-header">
        <Repeat aria-hidden="true" size={15} />
        <h3>
          <code>{loop.node}</code>
        </h3>
        <span className="muted">{words(loop.construct)}</span>
        {depth > 0 ? (
          <span className="muted">
            inside{' '}
            {loop.enclosing.map((p) => (
              <span key={p.loopPath}>
                <code>{p.loopStatic.split('.').pop()}</code> pass {p.iteration}{' '}
              </span>
            ))}
          </span>
        ) : null}
        <span className="loop-nav-count" data-testid={`loop-pass-count-${eff.loopStatic}`}>
          {shown !== undefined ? `pass ${shown} of ${loop.max ?? passCount}` : 'no pass yet'}
          {passCount && loop.max ? <span className="muted"> ({passCount} run)</span> : null}
        </span>
        {c ? (
          <span className="loop-exit" data-testid={`loop-exit-${eff.loopStatic}`}>
            ended: <strong>{words(c.exitReason)}</strong>
            <span className="muted">
              {' '}
              after {c.iterationsRun ?? passCount} pass{(c.iterationsRun ?? passCount) === 1 ? '' : 'es'}
              {fmtTokens(c.inputTokens, c.outputTokens) ? ' · ' + fmtTokens(c.inputTokens, c.outputTokens) : ''}
              {fmtCost(c.costUsd) ? ' · ' + fmtCost(c.costUsd) : ''}
            </span>
          </span>
        ) : run.status === 'running' ? (
          <span className="muted">running</span>
        ) : null}
      </header>

      {passCount > 0 ? (
        <>
          <PassStrip loopStatic={eff.loopStatic} passes={strip} shown={shown} onChoose={(k) => choose(k)} />
          {passCount > PASS_BUTTONS || failedList.length ? (
            <PassPager
              loopStatic={eff.loopStatic}
              passNumbers={passNumbers}
              shownIndex={shownIndex}
              page={page}
              prevFailed={prevFailed}
              nextFailed={nextFailed}
              onChoose={choose}
            />
          ) : null}
          <div className="pass-buttons" role="group" aria-label={`passes of ${loop.node}`}>
            {onPage.map((p) => {
              const isFailed = failed.has(p.iteration);
              const running = !p.endedAt && !p.summary && run.status === 'running';
              const reused = p.reusedFrom;
              return (
                <button
                  key={p.iteration}
                  type="button"
                  className={`pass-button${p.iteration === shown ? ' active' : ''}${isFailed ? ' failed' : ''}${running ? ' running' : ''}${reused ? ' reused' : ''}`}
                  aria-pressed={p.iteration === shown}
                  onClick={() => onChoose(eff.loopStatic, p.iteration)}
                  data-testid={`pass-button-${eff.loopStatic}-${p.iteration}`}
                  title={`pass ${p.iteration}${isFailed ? ' (failed)' : running ? ' (running)' : ''}${reused ? ` (reused from ${reused})` : ''}`}
                  data-reused={reused ? 'true' : undefined}
                >
                  {isFailed ? <AlertTriangle aria-hidden="true" size={12} /> : null}
                  {reused ? <History aria-hidden="true" size={12} /> : null}
                  {p.iteration}
                  {isFailed ? <span className="sr-only"> failed</span> : null}
                  {reused ? <span className="sr-only"> reused</span> : null}
                  {running ? <span className="sr-only"> running</span> : null}
                </button>
              );
            })}
          </div>
        </>
      ) : (
        <p className="muted">{c ? 'The loop ran no pass.' : 'Waiting for the first pass.'}</p>
      )}

      {shownPass?.summary ? (
        <div className="pass-view" data-testid={`pass-view-${eff.loopStatic}`} aria-busy={!passError}>
          {passError ? (
            <p className="error-text" data-testid={`pass-error-${eff.loopStatic}`}>
              Pass {shown} could not be loaded: {passError}
            </p>
          ) : (
            <p className="muted" data-testid={`pass-loading-${eff.loopStatic}`}>
              Loading pass {shown}…
            </p>
          )}
        </div>
      ) : null}

      {view && (
        <div className="pass-view" data-testid={`pass-view-${eff.loopStatic}`}>
          {view.pass?.reusedFrom ? (
            <p className="reused-note" data-testid={`pass-reused-${eff.loopStatic}`}>
              <History aria-hidden="true" size={13} /> This pass was reused from run{' '}
              <Link href={runHref(view.pass.reusedFrom)}>
                <code>{view.pass.reusedFrom}</code>
              </Link>
              : it did not run again in this fork.
            </p>
          ) : null}
          <div className="button-row pass-actions">
            <button
              type="button"
              onClick={() => setOpen(isOpen('fork') ? undefined : { what: 'fork', loopPath: loop.path, iteration: view.iteration })}
              aria-expanded={isOpen('fork')}
              data-testid={`fork-from-pass-${eff.loopStatic}`}
              title={`a new run from the start of pass ${view.iteration}, reusing what ran before it`}
            >
              <GitBranch aria-hidden="true" size={14} /> Fork from this pass
            </button>
            {passNumbers.length > 1 ? (
              <button
                type="button"
                onClick={() => setOpen(isOpen('compare') ? undefined : { what: 'compare', loopPath: loop.path, iteration: view.iteration })}
                aria-expanded={isOpen('compare')}
                data-testid={`compare-pass-${eff.loopStatic}`}
              >
                <GitCompare aria-hidden="true" size={14} /> {view.iteration > passNumbers[0]! ? 'Compare with the previous pass' : 'Compare with the next pass'}
              </button>
            ) : null}
          </div>
          {isOpen('fork') ? (
            <ForkPanel
              key={`${loop.path}:${view.iteration}`}
              runId={runId}
              point={passPoint(loop.path, view.iteration)}
              nodes={[...new Set(view.items.map((i) => i.node))]}
              onClose={() => setOpen(undefined)}
            />
          ) : null}
          {isOpen('compare') ? (
            <PassCompare
              runId={runId}
              loopPath={loop.path}
              passes={passNumbers}
              a={view.iteration > passNumbers[0]! ? compareWith(view.iteration) : view.iteration}
              b={view.iteration > passNumbers[0]! ? view.iteration : compareWith(view.iteration)}
              onClose={() => setOpen(undefined)}
            />
          ) : null}
          <dl className="facts inline">
            {view.pass?.inputPreview ? (
              <>
                <dt>{loop.construct === 'iterator' ? 'item' : 'pass input'}</dt>
                <dd>
                  <code className="clip">{view.pass.inputPreview}</code>
                </dd>
              </>
            ) : null}
            {typeof view.pass?.conditionResult === 'boolean' ? (
              <>
                <dt>condition before this pass</dt>
                <dd data-testid="pass-condition">{view.pass.conditionResult ? 'true (the pass ran)' : 'false'}</dd>
              </>
            ) : null}
            {durationBetween(view.pass?.startedAt, view.pass?.endedAt) !== undefined ? (
              <>
                <dt>duration</dt>
                <dd>{fmtDuration(durationBetween(view.pass?.startedAt, view.pass?.endedAt))}</dd>
              </>
            ) : null}
            {c && shown === lastPass ? (
              <>
                <dt>after this pass</dt>
                <dd>the loop ended: {words(c.exitReason)}</dd>
              </>
            ) : null}
          </dl>
          {view.items.length === 0 ? (
            <p className="muted">No node has run in this pass yet.</p>
          ) : (
            <table className="table pass-table">
              <thead>
                <tr>
                  <th scope="col">node</th>
                  <th scope="col">status</th>
                  <th scope="col">output</th>
                  <th scope="col">state change</th>
                </tr>
              </thead>
              <tbody>
                {view.items.map((it) => (
                  <PassRow key={it.path} item={it} onShow={onShowExecution} isError={it.path === errorPath} />
                ))}
              </tbody>
            </table>
          )}
          {Object.keys(view.stateChange).length > 0 ? (
            <details>
              <summary>State changed by this pass</summary>
              <ValueBlock value={view.stateChange} testId="pass-state-change" />
            </details>
          ) : null}
        </div>
      )}
    </section>
  );
}

/** First, previous page, a jump box, next page, last, and the failed passes before and after the shown one. */
function PassPager(props: {
  loopStatic: string;
  passNumbers: number[];
  shownIndex: number;
  page: number;
  prevFailed?: number;
  nextFailed?: number;
  onChoose: (k: number | undefined) => void;
}) {
  const { loopStatic, passNumbers, shownIndex, page, prevFailed, nextFailed, onChoose } = props;
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string>();
  const pages = Math.ceil(passNumbers.length / PASS_BUTTONS);
  const first = passNumbers[0];
  const last = passNumbers[passNumbers.length - 1];
  const jump = () => {
    const k = Number(text.trim());
    if (!Number.isInteger(k) || !passNumbers.includes(k)) {
      setProblem(`no pass ${text.trim().slice(0, 20) || '(empty)'}: passes run are ${first}–${last}`);
      return;
    }
    setProblem(undefined);
    onChoose(k);
  };
  const id = `pass-jump-${loopStatic}`;
  return (
    <div className="pass-pager" role="group" aria-label="move between passes">
      <button type="button" onClick={() => onChoose(first)} disabled={shownIndex === 0} data-testid={`pass-first-${loopStatic}`} title="the first pass">
        <ChevronsLeft aria-hidden="true" size={14} /> first
      </button>
      <button
        type="button"
        onClick={() => onChoose(passNumbers[Math.max(0, (page - 1) * PASS_BUTTONS)])}
        disabled={page === 0}
        data-testid={`pass-prev-page-${loopStatic}`}
        title={`the previous ${PASS_BUTTONS} passes`}
      >
        <ChevronLeft aria-hidden="true" size={14} /> earlier
      </button>
      <span className="muted">
        page {page + 1} of {pages}
      </span>
      <button
        type="button"
        onClick={() => onChoose(passNumbers[Math.min(passNumbers.length - 1, (page + 1) * PASS_BUTTONS)])}
        disabled={page >= pages - 1}
        data-testid={`pass-next-page-${loopStatic}`}
        title={`the next ${PASS_BUTTONS} passes`}
      >
        later <ChevronRight aria-hidden="true" size={14} />
      </button>
      <button type="button" onClick={() => onChoose(last)} disabled={shownIndex === passNumbers.length - 1} data-testid={`pass-last-${loopStatic}`} title="the latest pass">
        last <ChevronsRight aria-hidden="true" size={14} />
      </button>
      <form
        className="inline-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          jump();
        }}
      >
        <label htmlFor={id} className="sr-only">
          go to pass
        </label>
        <input
          id={id}
          type="number"
          inputMode="numeric"
          min={first}
          max={last}
          placeholder={`pass ${first}–${last}`}
          value={text}
          onChange={(e) => setText(e.target.value)}
          data-testid={id}
          aria-invalid={problem ? true : undefined}
        />
        <button type="submit" data-testid={`pass-jump-go-${loopStatic}`}>
          Go
        </button>
      </form>
      <button type="button" onClick={() => onChoose(prevFailed)} disabled={prevFailed === undefined} data-testid={`pass-prev-failed-${loopStatic}`}>
        <AlertTriangle aria-hidden="true" size={12} /> previous failed
      </button>
      <button type="button" onClick={() => onChoose(nextFailed)} disabled={nextFailed === undefined} data-testid={`pass-next-failed-${loopStatic}`}>
        next failed <AlertTriangle aria-hidden="true" size={12} />
      </button>
      {problem ? (
        <span className="error-text small" role="alert" data-testid={`pass-jump-problem-${loopStatic}`}>
          {problem}
        </span>
      ) : null}
    </div>
  );
}

function PassRow({ item, onShow, isError }: { item: PassItem; onShow: (path: string) => void; isError: boolean }) {
  const failed = isError || (item.live?.status === 'failed' && !item.live.error?.allowed);
  const [open, setOpen] = useState(failed);
  // a row drawn while its node runs learns of the failure later: the failure opens it then too
  useEffect(() => {
    if (failed) setOpen(true);
  }, [failed]);
  const result = item.record?.result;
  const isModel = item.kind === 'llm' || item.kind === 'agent';
  const output = item.loop
    ? `${item.loop.passes.length} pass${item.loop.passes.length === 1 ? '' : 'es'}${item.loop.completed ? ', ' + words(item.loop.completed.exitReason) : ''}`
    : result
      ? isModel
        ? replyOf(result)
        : (result.output ?? result)
      : item.live?.outputPreview;
  const patch = item.record?.state_patch;
  const detailsId = `pass-details-${item.path}`;
  return (
    <>
      <tr className={failed ? 'row-error' : undefined} data-testid={`pass-item-${item.path}`}>
        <td>
          <button
            type="button"
            className="disclosure"
            aria-expanded={open}
            aria-controls={detailsId}
            onClick={() => setOpen(!open)}
            data-testid={`pass-item-toggle-${item.path}`}
            title={open ? 'hide the input and full result' : 'show the input and full result'}
          >
            {open ? <ChevronDown aria-hidden="true" size={14} /> : <ChevronRight aria-hidden="true" size={14} />}
            <span className="sr-only">{open ? 'hide' : 'show'} details of</span>
          </button>{' '}
          <button
            type="button"
            className="link-button"
            onClick={() => onShow(item.path)}
            title="show this execution beside the graph"
            data-testid={`pass-item-show-${item.path}`}
          >
            <code>{item.node}</code>
          </button>
          <span className="muted"> {item.kind ?? ''}</span>
          {item.record?.reused_from ? (
            <span className="reused-tag" title={`reused from run ${item.record.reused_from}: not run again`} data-testid={`reused-${item.path}`}>
              <History aria-hidden="true" size={12} /> reused
            </span>
          ) : null}
        </td>
        <td>
          <StatusBadge status={item.status} compact />
        </td>
        <td className="cell-value">
          <ValueBlock value={output} />
        </td>
        <td className="cell-value">{patch && Object.keys(patch).length ? <ValueBlock value={patch} /> : null}</td>
      </tr>
      {open ? (
        <tr className={failed ? 'row-error-details' : 'row-details'} id={detailsId}>
          <td colSpan={4}>
            {failed ? <p className="error-text"><strong>The error of this pass:</strong></p> : null}
            <ExecutionDetails live={item.live} record={item.record} />
          </td>
        </tr>
      ) : null}
    </>
  );
}

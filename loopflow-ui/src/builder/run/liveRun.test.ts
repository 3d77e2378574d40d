import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { passBadgeText } from '../../components/GraphView';
import { fixture, graphFixture } from '../../test-support';
import { applyEvents, emptyRun } from '../../model/runState';
import { project } from '../doc/project';
import { WorkflowDoc } from '../doc/workflowDoc';
import { canvasBadges, runIndex, runOver, runPhase } from './liveRun';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const projectionOf = (file: string) => project(new WorkflowDoc(readFileSync(ROOT + file, 'utf8')));

// recorded run → the example it ran, the canvas key its loop is drawn on, and the loop's last pass and bound
const CASES = [
  { run: 'self-refine', file: 'examples/loop-self-refine.yaml', key: '[refine]', loop: 'refine', text: '3/3' },
  { run: 'fix-until-pass', file: 'examples/loop-group-fix-until-pass.yaml', key: '[fix_until_pass]', loop: 'fix_until_pass', text: '2/5' },
  { run: 'coder-reviewer-loop', file: 'examples/loop-coder-reviewer.yaml', key: '[reviewer->coder]', loop: 'reviewer->coder', text: '' },
  { run: 'iterator-demo', file: 'examples/loop-iterator.yaml', key: '[each_word]', loop: 'each_word', text: '' },
];

describe('the pass counters on the builder canvas', () => {
  for (const c of CASES) {
    const run = applyEvents(emptyRun(), fixture(c.run).events);
    const projection = projectionOf(c.file);
    for (const source of ['the run graph', 'the projection alone'] as const) {
      it(`${c.run}: the loop's badge sits on the canvas box ${c.key}, placed by ${source}`, () => {
        const index = runIndex(projection, source === 'the run graph' ? graphFixture(c.run) : null);
        const { byKey, unplaced } = canvasBadges(run, index, projection);
        expect(unplaced).toEqual([]);
        expect([...byKey.keys()]).toEqual([c.key]);
        const b = byKey.get(c.key)!;
        expect(b.loopStatic).toBe(c.loop);
        const last = run.loops[c.loop]!.passes.at(-1)!.iteration;
        expect(b.current).toBe(last);
        expect(b.max).toBe(run.loops[c.loop]!.max);
        if (c.text) expect(`${b.current}/${b.max}`).toBe(c.text);
        expect(b.running).toBe(false);
      });
    }
  }

  it('counts each pass as its event arrives, and says the loop runs until it ends', () => {
    const events = fixture('self-refine').events;
    const projection = projectionOf('examples/loop-self-refine.yaml');
    const index = runIndex(projection, graphFixture('self-refine'));
    const seen: string[] = [];
    let run = emptyRun();
    for (const e of events) {
      run = applyEvents(run, [e]);
      const b = canvasBadges(run, index, projection).byKey.get('[refine]');
      const shown = b ? `${passBadgeText(b)}${b.running ? ' live' : ''}` : 'none';
      if (seen[seen.length - 1] !== shown) seen.push(shown);
    }
    expect(seen).toEqual(['none', '0/3 live', '1/3 live', '2/3 live', '3/3 live', '3/3']);
  });

  it('nested loops: the inner loop of the latest outer pass is drawn in the inner body box', () => {
    const run = applyEvents(emptyRun(), fixture('nested-fail').events);
    const g = graphFixture('nested-fail');
    // the projection with the run graph's keys (the file is not among the examples): the keys are what must agree
    const projection = { ...g, nodes: g.nodes, containers: g.containers ?? [], edges: [], docNodes: new Map(), bodies: new Map() };
    const { byKey } = canvasBadges(run, runIndex(projection as never, g), projection as never);
    expect([...byKey.keys()].sort()).toEqual(['[outer/inner]', '[outer]']);
    expect(byKey.get('[outer]')!.current).toBe(2);
    expect(byKey.get('[outer/inner]')!.loopStatic).toBe('outer.inner');
  });

  it('a restart policy has no box on the canvas: its loop is listed in the run strip', () => {
    const run = applyEvents(emptyRun(), fixture('pipeline-restart-tool').events);
    const projection = projectionOf('examples/pipeline-restart-tool.yaml');
    const { byKey, unplaced } = canvasBadges(run, runIndex(projection, graphFixture('pipeline-restart-tool')), projection);
    expect(byKey.size).toBe(0);
    expect(unplaced.map((b) => b.loopStatic)).toEqual(['restart']);
  });

  it('a badge never lands on a key the canvas does not have (the run graph is of another text)', () => {
    const run = applyEvents(emptyRun(), fixture('self-refine').events);
    const other = projectionOf('examples/loop-iterator.yaml');
    const { byKey, unplaced } = canvasBadges(run, runIndex(other, graphFixture('self-refine')), other);
    expect(byKey.size).toBe(0);
    expect(unplaced.map((b) => b.loopStatic)).toEqual(['refine']);
  });

  it('the strip names the run phase and knows when following ends', () => {
    expect(runPhase(emptyRun())).toBe('starting');
    const done = applyEvents(emptyRun(), fixture('self-refine').events);
    expect(runPhase(done)).toBe('completed');
    expect(runOver(done)).toBe(true);
    const failed = applyEvents(emptyRun(), fixture('nested-fail').events);
    expect(runPhase(failed)).toBe('failed');
    expect(runOver(failed)).toBe(true);
    const started = applyEvents(emptyRun(), fixture('self-refine').events.slice(0, 3));
    expect(runPhase(started)).toBe('running');
    expect(runOver(started)).toBe(false);
  });
});

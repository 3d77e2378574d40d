import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fixture, graphFixture } from '../../test-support';
import { applyEvents, emptyRun } from '../../model/runState';
import { project } from '../doc/project';
import { WorkflowDoc } from '../doc/workflowDoc';
import { nodeResults, runIndex } from './liveRun';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

describe('the last run’s results on the builder canvas', () => {
  const run = applyEvents(emptyRun(), fixture('self-refine').events);
  const projection = project(new WorkflowDoc(readFileSync(ROOT + 'examples/loop-self-refine.yaml', 'utf8')));
  const results = nodeResults(run, runIndex(projection, graphFixture('self-refine')), projection, 'run/1');

  it('gives every node of the file its state, duration, a short output and a link to its execution', () => {
    const keys = [...projection.docNodes.keys()];
    expect([...results.keys()].sort()).toEqual(keys.sort());
    for (const [key, r] of results) {
      expect(r.status).toBe('completed');
      expect(r.href).toBe(`/runs/run%2F1?node=${encodeURIComponent(key)}`);
      expect(r.output.length).toBeLessThanOrEqual(48);
      expect(r.output).not.toMatch(/\n|undefined|null/);
    }
  });

  it('counts a loop body node’s executions', () => {
    const body = [...results.entries()].filter(([, r]) => r.runs > 1);
    expect(body.length).toBeGreaterThan(0);
  });
});

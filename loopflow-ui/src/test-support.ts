// Recorded runs (events, journaled executions, results) of the examples and of a few hostile workflows, for tests.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Execution, RunDetail, RunEvent, RunGraph } from './api/types';

export interface Fixture {
  run: RunDetail;
  events: RunEvent[];
  executions: Execution[];
}

const dir = fileURLToPath(new URL('../test-fixtures/', import.meta.url));

export function fixture(name: string): Fixture {
  return JSON.parse(readFileSync(dir + name + '.json', 'utf8')) as Fixture;
}

export function graphFixture(name: string): RunGraph {
  const all = JSON.parse(readFileSync(dir + 'graphs.json', 'utf8')) as Record<string, RunGraph>;
  const g = all[name];
  if (!g) throw new Error('no graph fixture ' + name);
  return g;
}

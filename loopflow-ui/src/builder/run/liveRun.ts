// A run started from the builder, shown on the builder's canvas: each loop's pass badge ("2/3") on the loop's body
// box or loop node. Nothing here restates the run viewer's rules: the run's state is folded by runState, the shown
// pass of each loop is graphMap's, and a loop is placed on the graph as the run page places it (GraphView). What
// makes it work on the builder is that the builder's projection names nodes and containers with the server graph's
// keys (projection.pin.test.ts holds it to that), so a key found in the run's graph is a key of the canvas.
import type { RunGraph } from '../../api/types';
import { passBadges, placeBadges, type PassBadge } from '../../components/GraphView';
import { runHref } from '../../app/router';
import { effectivePasses, indexGraph, nodeViews, type DisplayStatus, type GraphIndex } from '../../model/graphMap';
import { fmtDuration } from '../../model/format';
import type { RunLive } from '../../model/runState';
import type { Projection } from '../doc/project';

/** The match paths of the projection's nodes and bodies, for when the server's graph of the run is not at hand. */
function withPaths(projection: Projection): RunGraph {
  const dotted = (key: string) => key.split('/').join('.');
  return {
    ...projection,
    nodes: projection.nodes.map((n) => ({ ...n, path: n.role === 'start' || n.role === 'end' ? null : dotted(n.key) })),
    containers: projection.containers.map((c) => ({ ...c, path: dotted(c.node ?? c.key.slice(1, -1)) })),
  };
}

/**
 * The index that places the run's loops: the server's graph of the run when it has one (its match paths are the
 * loader's, right for loop edges and restart policies too), else the projection with paths made from its keys.
 */
export function runIndex(projection: Projection, serverGraph?: RunGraph | null): GraphIndex {
  return indexGraph(serverGraph && Array.isArray(serverGraph.nodes) ? serverGraph : withPaths(projection));
}

export interface CanvasBadges {
  /** canvas key (a body box's `[loop]` key or a node's key) → the loop's badge */
  byKey: Map<string, PassBadge>;
  /** loops that have no box or node on the canvas (a restart policy's loop): shown in the run strip */
  unplaced: PassBadge[];
}

/** Each loop's latest pass and bound, by the canvas key it is drawn on. */
export function canvasBadges(run: RunLive, index: GraphIndex, projection: Projection): CanvasBadges {
  const effective = effectivePasses(run, {});
  const places = placeBadges(index, effective, passBadges(run, effective));
  const containers = new Set(projection.containers.map((c) => c.key));
  const nodes = new Set(projection.nodes.map((n) => n.key));
  const byKey = new Map<string, PassBadge>();
  const unplaced = [...places.edgeBadge];
  for (const [k, b] of places.containerBadge) (containers.has(k) ? byKey.set(k, b) : unplaced.push(b));
  for (const [k, b] of places.nodeBadge) (nodes.has(k) ? byKey.set(k, b) : unplaced.push(b));
  return { byKey, unplaced };
}

export type RunPhase = 'starting' | 'running' | 'paused' | 'completed' | 'failed' | 'cancelled';

/** What the run strip says the run is doing. */
export function runPhase(run: RunLive): RunPhase {
  return run.status === 'unknown' ? 'starting' : run.status;
}

/** True once the run cannot change any more: the builder stops following it. */
export function runOver(run: RunLive): boolean {
  return run.status === 'completed' || run.status === 'failed' || run.status === 'cancelled';
}

/** What a canvas node shows of the last run: its state, how long it took, the start of its output, its page. */
export interface NodeResult {
  status: DisplayStatus;
  duration: string;
  /** the output preview on one line, cut to OUTPUT_CHARS characters; empty when there is none */
  output: string;
  /** the run page with this node's execution open */
  href: string;
  /** how many times it ran, when more than once (a loop body's node) */
  runs: number;
}

const OUTPUT_CHARS = 48;

/**
 * Each canvas node's result in the run, by canvas key: the latest pass of every loop (as the pass counters), by the run
 * page's own rule (`nodeViews`), so the canvas and the run page say the same. Start and end markers are left out.
 */
export function nodeResults(run: RunLive, index: GraphIndex, projection: Projection, runId: string): Map<string, NodeResult> {
  const views = nodeViews(run, index, {});
  const out = new Map<string, NodeResult>();
  for (const n of projection.nodes) {
    if (n.role === 'start' || n.role === 'end' || !projection.docNodes.has(n.key)) continue;
    const v = views.get(n.key);
    if (!v) continue;
    const x = v.exec;
    const oneLine = (x?.outputPreview ?? '').replace(/\s+/g, ' ').trim();
    out.set(n.key, {
      status: v.status,
      duration: fmtDuration(x?.durationMs),
      output: oneLine.length > OUTPUT_CHARS ? oneLine.slice(0, OUTPUT_CHARS - 1) + '…' : oneLine,
      href: `${runHref(runId)}?node=${encodeURIComponent(n.key)}`,
      runs: v.executions.length,
    });
  }
  return out;
}

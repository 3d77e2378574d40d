// Placing the loader's problems on nodes. The loader names where a problem is with a field path and a line:col:
//   nodes.b.depnds_on            field depnds_on of top-level node b
//   nodes[2]                     the third top-level node, which has no (valid) id
//   nodes.w.body.x.command       node x in while_loop w's body
//   nodes.g.nodes.y.prompt       node y in loop_group g's body (`nodes:`)
//   nodes.b.retry.max_attempts   a field inside a node's section
//   edges[0].to, input.topic     not a node's
// Graph-form loops (loop … exit, iterator … aggregator) have their bodies in the top-level list, so their nodes'
// paths are top-level paths. A problem whose path names no node (an edge's, a file-wide one, a YAML syntax error)
// goes to the node whose lines hold it, the innermost one, when the node's lines are known; else it stays unplaced.
import type { Problem } from '../contract';

/** A node, where the problems are placed: its id, the ids of the containers it sits in (outermost first), its
 *  position in its list (0-based), and the lines its YAML spans (1-based, inclusive) when known. */
export interface NodePlace {
  id: string;
  path: string[];
  index?: number;
  startLine?: number;
  endLine?: number;
}

/** The key of a node among the whole file's: its containers' ids and its own, joined by '.' (ids hold no '.'). */
export function nodeKey(path: readonly string[], id: string): string {
  return [...path, id].join('.');
}

/** The keys under which a loader path's nodes are listed: `nodes`, a while_loop's `body`, a loop_group's `nodes`. */
const BODY_KEYS = new Set(['nodes', 'body']);

/** A loader path cut into its segments: `nodes.b.retry` → nodes, b, retry; `nodes[2].x` → nodes, [2], x. */
export function pathSegments(path: string): string[] {
  const out: string[] = [];
  for (const part of path.split('.')) {
    const m = /^([^[]*)((\[\d+\])*)$/.exec(part);
    if (!m) {
      out.push(part);
      continue;
    }
    if (m[1] || !m[2]) out.push(m[1] ?? '');
    for (const idx of (m[2] ?? '').match(/\[\d+\]/g) ?? []) out.push(idx);
  }
  return out;
}

/** What a loader path names: the node (containers outermost first, then by id or list position) and the field. */
export interface PathTarget {
  /** Each step: a node id, or `[i]` for the i-th node of its list. */
  node: string[];
  /** The field path inside the node (`depnds_on`, `retry.max_attempts`); empty for the node itself. */
  field: string[];
}

/** The node and field a loader path names; undefined when it names none (edges, inputs, the file). */
export function parseNodePath(path: string): PathTarget | undefined {
  const seg = pathSegments(path);
  if (seg[0] !== 'nodes' || seg.length < 2) return undefined;
  const node: string[] = [];
  let i = 0;
  while (i + 1 < seg.length && BODY_KEYS.has(seg[i] ?? '') && (i === 0 || node.length > 0)) {
    node.push(seg[i + 1] ?? '');
    i += 2;
    // Another body follows only when the next key is a body key and a node after it.
    if (!(BODY_KEYS.has(seg[i] ?? '') && i + 1 < seg.length)) break;
  }
  return node.length === 0 ? undefined : { node, field: seg.slice(i) };
}

/** Every problem placed: by node key, and those that belong to no node. */
export interface PlacedProblems {
  byNode: Map<string, Problem[]>;
  unplaced: Problem[];
}

/**
 * Places each problem on a node: by its path when the path names a node of `nodes` (the innermost named one that
 * exists: a problem in a body node whose id is broken goes to its container), else by its line when a node's lines
 * hold it (the innermost such node), else unplaced. Every problem comes out exactly once.
 */
export function problemsByNode(problems: readonly Problem[], nodes: readonly NodePlace[]): PlacedProblems {
  const byKey = new Map<string, NodePlace>();
  const byIndex = new Map<string, NodePlace>();
  for (const n of nodes) {
    byKey.set(nodeKey(n.path, n.id), n);
    if (n.index !== undefined) byIndex.set(nodeKey(n.path, `[${n.index}]`), n);
  }
  const byNode = new Map<string, Problem[]>();
  const unplaced: Problem[] = [];
  const put = (n: NodePlace, p: Problem) => {
    const k = nodeKey(n.path, n.id);
    const list = byNode.get(k);
    if (list) list.push(p);
    else byNode.set(k, [p]);
  };
  for (const p of problems) {
    const target = typeof p.path === 'string' ? parseNodePath(p.path) : undefined;
    let found: NodePlace | undefined;
    if (target) {
      // Resolve step by step: a `[i]` step names the i-th node of the list, whose id the next step's path uses.
      const ids: string[] = [];
      for (const step of target.node) {
        const key = nodeKey(ids, step);
        const n = step.startsWith('[') ? byIndex.get(key) : byKey.get(key);
        if (!n) break;
        found = n;
        ids.push(n.id);
      }
    }
    found ??= byLine(nodes, p.line);
    if (found) put(found, p);
    else unplaced.push(p);
  }
  return { byNode, unplaced };
}

/** The innermost node whose lines hold `line` (the one with the fewest lines). */
function byLine(nodes: readonly NodePlace[], line: number): NodePlace | undefined {
  if (!Number.isFinite(line)) return undefined;
  let best: NodePlace | undefined;
  for (const n of nodes) {
    if (n.startLine === undefined || n.endLine === undefined) continue;
    if (line < n.startLine || line > n.endLine) continue;
    if (!best || n.endLine - n.startLine < (best.endLine ?? 0) - (best.startLine ?? 0)) best = n;
  }
  return best;
}

/**
 * The field of the node at `nodePath`/`id` a problem names, by the name the file uses (`max_iterations` for
 * maxIterations written so), with the holders of a node's fields (`input.x`, `with.x`, `loop_group.x`) looked through;
 * undefined when the problem names the node itself, another node or none.
 */
export function problemField(problem: Problem, nodePath: readonly string[], id: string): string | undefined {
  const target = parseNodePath(problem.path ?? '');
  if (!target) return undefined;
  const want = [...nodePath, id];
  if (target.node.length !== want.length || target.node.some((s, i) => s !== want[i])) return undefined;
  const [first, second] = target.field;
  if ((first === 'input' || first === 'with' || first === 'loop_group') && second !== undefined) return second;
  return first;
}

/** Whether a problem's path names a node other than this one (so a panel given every problem can leave it out). */
export function namesOtherNode(problem: Problem, nodePath: readonly string[], id: string): boolean {
  const target = parseNodePath(problem.path ?? '');
  if (!target) return false;
  const want = [...nodePath, id];
  if (target.node.some((s) => s.startsWith('['))) return false;
  return target.node.length !== want.length || target.node.some((s, i) => s !== want[i]);
}

/** Problems as the file's line:col, then the message: what the panel shows at its top. */
export function problemText(p: Problem): string {
  const where = Number.isFinite(p.line) && p.line > 0 ? `${p.line}:${Number.isFinite(p.col) && p.col > 0 ? p.col : 1} ` : '';
  return `${where}${p.message ?? ''}`;
}

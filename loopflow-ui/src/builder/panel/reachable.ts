// What a node's templates can read, for the config panel's {{ }} completion. The input is a small description of
// the workflow, independent of the canvas (the page builds it from its document):
//
//   ReachGraph = { inputs: ['topic'],                       the workflow's declared inputs
//                  nodes: [{ id, kind, container?, upstream }] }
//
//   - `kind` is the node's kind as the file says it (`type:` value or the shorthand's kind; aliases are resolved
//     with the catalog).
//   - `container` is the id of the loop construct the node runs inside: the while_loop or loop_group whose body
//     lists it, or the `loop` / `iterator` node whose region (up to its exit / aggregator) it is in. Unset at the
//     top level. Containers may nest.
//   - `upstream` are the ids of the nodes it directly waits for: its depends_on, the sources of the edges into it
//     (a loop edge's source included: its value is the previous pass's). Ids are unique across the file here; a
//     body id repeated in another body should be passed as its key (see problems.ts nodeKey).
//
// What is offered, as loading checks references: `input.X` for each declared input; `N.field` for every node N
// upstream of the node (transitively, through containers: a body node reads what its container could read), with
// the fields of N's kind's result (the catalog's `results`; `output` when the kind declares none), except the
// containers the node is inside (their results exist only once they finish); inside a loop, `loop.*` with the
// fields that construct gives (loops.md: `input` for loop and iterator, `item` for an iterator, `user_input` and
// `user_values` for a loop_group, `parent` when nested, `prev.<body node>.output` for the body's nodes); and `run.*`.
import type { NodeKindCatalog, ReachableValue } from '../contract';
import { resolveKind } from './fields';

export interface ReachNode {
  id: string;
  kind: string;
  container?: string;
  upstream: string[];
}

export interface ReachGraph {
  inputs: string[];
  nodes: ReachNode[];
}

/** The loop variable's fields every construct gives; the others depend on the construct (see below). */
const ALWAYS = ['iteration', 'index', 'max', 'id', 'prev'];
/** The fields of `loop` the loader knows, when the catalog does not say (docs/loops.md). */
const DEFAULT_LOOP_VARIABLES = ['id', 'index', 'input', 'item', 'iteration', 'max', 'parent', 'prev', 'user_input', 'user_values'];
const DEFAULT_RUN_VARIABLES = ['file', 'id', 'started_at', 'workflow'];

/** Which of `loop`'s fields hold something in a body of `kind`, `depth` loops deep (1: not nested). */
function loopFields(kind: string, depth: number, known: readonly string[]): string[] {
  return known.filter((f) => {
    if (ALWAYS.includes(f)) return true;
    switch (f) {
      case 'input':
        return kind === 'loop' || kind === 'iterator';
      case 'item':
        return kind === 'iterator';
      case 'user_input':
      case 'user_values':
        return kind === 'loop_group';
      case 'parent':
        return depth > 1;
      default:
        return false; // `restart` and fields of constructs not drawn as containers (pipeline stages)
    }
  });
}

/** The values a template of node `nodeId` can read, sorted: inputs, then loop, then nodes, then run. */
export function reachableValues(graph: ReachGraph, nodeId: string, catalog: NodeKindCatalog | null): ReachableValue[] {
  const byId = new Map<string, ReachNode>();
  for (const n of graph.nodes) if (!byId.has(n.id)) byId.set(n.id, n);
  const self = byId.get(nodeId);
  const out: ReachableValue[] = [];
  const seenExpr = new Set<string>();
  const add = (expression: string, source: string) => {
    if (seenExpr.has(expression)) return;
    seenExpr.add(expression);
    out.push({ expression, source });
  };

  for (const i of graph.inputs) add(`input.${i}`, 'input');
  if (!self) return out;

  // The containers the node is inside, innermost first (a cycle of containers is cut).
  const containers: ReachNode[] = [];
  const inside = new Set<string>();
  for (let c = self.container; c !== undefined && !inside.has(c); ) {
    const n = byId.get(c);
    if (!n) break;
    containers.push(n);
    inside.add(c);
    c = n.container;
  }

  const inner = containers[0];
  if (inner) {
    const innerKind = resolveKind(catalog, inner.kind);
    const known = catalog?.loopVariables ?? DEFAULT_LOOP_VARIABLES;
    for (const f of loopFields(innerKind, containers.length, known)) {
      if (f === 'prev') {
        add('loop.prev', `loop ${inner.id}`);
        for (const n of graph.nodes) {
          if (n.container === inner.id && n.id !== inner.id) add(`loop.prev.${n.id}.output`, `loop ${inner.id}: previous pass`);
        }
      } else if (f === 'parent') {
        const outer = containers[1];
        add('loop.parent.iteration', `loop ${outer?.id ?? ''}`);
      } else {
        add(`loop.${f}`, `loop ${inner.id}`);
      }
    }
  }

  // Upstream, transitively: the node's own, and its containers' (a body reads what its loop could read).
  const seen = new Set<string>();
  const stack: string[] = [...self.upstream];
  for (const c of containers) stack.push(...c.upstream);
  while (stack.length > 0) {
    const id = stack.pop() as string;
    if (seen.has(id) || id === nodeId) continue;
    seen.add(id);
    const n = byId.get(id);
    if (!n) continue;
    stack.push(...n.upstream);
  }
  const nodeValues: ReachableValue[] = [];
  for (const id of [...seen].sort()) {
    const n = byId.get(id);
    if (!n || inside.has(id)) continue;
    const kind = resolveKind(catalog, n.kind);
    const declared = catalog?.kinds.find((k) => k.kind === kind)?.results;
    // The kind's own fields first (draft.text, search.stdout), then output, status and error.
    const general = ['output', 'status', 'error'];
    const fields = declared && declared.length > 0 ? [...declared.filter((f) => !general.includes(f)), ...general.filter((f) => declared.includes(f))] : ['output'];
    for (const f of fields) nodeValues.push({ expression: `${id}.${f}`, source: `node ${id} (${kind})` });
  }
  for (const v of nodeValues) add(v.expression, v.source);

  for (const f of catalog?.runVariables ?? DEFAULT_RUN_VARIABLES) add(`run.${f}`, 'run');
  return out;
}

/** What a template field's completion replaces and offers: the name being typed after the last open `{{`. */
export interface TemplateCompletion {
  /** The offset where the typed name starts, and the cursor. */
  from: number;
  to: number;
  /** The typed name so far. */
  typed: string;
  options: ReachableValue[];
  /** Whether the expression is still open (no `}}` after the cursor before the next `{{`): insert ` }}` too. */
  close: boolean;
}

/**
 * The completion at `cursor` in `text`, or undefined when the cursor is not inside `{{ ... }}` / `{% ... %}`. With
 * `bare` (a condition, which is an expression without braces), a name being typed outside braces is completed too.
 */
export function templateCompletion(text: string, cursor: number, reachable: readonly ReachableValue[], limit = 50, bare = false): TemplateCompletion | undefined {
  const at = Math.max(0, Math.min(cursor, text.length));
  const before = text.slice(0, at);
  const open = Math.max(before.lastIndexOf('{{'), before.lastIndexOf('{%'));
  if (open < 0 || (bare && before.indexOf(text.startsWith('{{', open) ? '}}' : '%}', open + 2) >= 0)) {
    if (!bare) return undefined;
    const m = /[A-Za-z_][A-Za-z0-9_.-]*$/.exec(before);
    if (!m) return undefined;
    const lower = m[0].toLowerCase();
    const options = reachable.filter((r) => r.expression.toLowerCase().startsWith(lower)).slice(0, limit);
    return options.length ? { from: at - m[0].length, to: at, typed: m[0], options, close: false } : undefined;
  }
  const closer = text.startsWith('{{', open) ? '}}' : '%}';
  if (before.indexOf(closer, open + 2) >= 0) return undefined; // that expression closed before the cursor
  const m = /[A-Za-z_][A-Za-z0-9_.-]*$|$/.exec(before.slice(open + 2));
  const typed = m ? m[0] : '';
  const from = at - typed.length;
  const lower = typed.toLowerCase();
  const starts = reachable.filter((r) => r.expression.toLowerCase().startsWith(lower));
  const contains = lower === '' ? [] : reachable.filter((r) => !r.expression.toLowerCase().startsWith(lower) && r.expression.toLowerCase().includes(lower));
  const options = [...starts, ...contains].slice(0, limit);
  if (options.length === 0) return undefined;
  const after = text.slice(at);
  const nextClose = after.indexOf(closer);
  const nextOpen = after.search(/\{\{|\{%/);
  const close = closer === '}}' && (nextClose < 0 || (nextOpen >= 0 && nextOpen < nextClose));
  return { from, to: at, typed, options, close };
}

/** The text after choosing `expression` in `completion`, and where the cursor goes. */
export function applyTemplateCompletion(text: string, completion: TemplateCompletion, expression: string): { text: string; cursor: number } {
  const insert = expression + (completion.close ? ' }}' : '');
  const next = text.slice(0, completion.from) + insert + text.slice(completion.to);
  return { text: next, cursor: completion.from + insert.length };
}

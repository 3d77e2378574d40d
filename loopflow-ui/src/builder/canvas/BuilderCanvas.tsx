// The builder's canvas: the document's projection drawn with React Flow, laid out automatically (dagre, the run
// viewer's layout), with loop bodies as boxes you drop nodes into. It only reports what the user did (select, add,
// connect, delete, move into or out of a body); the page turns that into a document edit. Positions a user drops or
// drags nodes to are kept in memory only, never in the file; "Layout" forgets them, and so does a loop body box
// forming or going (its members are laid out with it). A node dropped on the canvas takes its place in its list by
// where it was dropped among its siblings (top to bottom, left to right), so the file lists nodes as the canvas shows.
import { memo, useCallback, useEffect, useMemo, useRef, useState, type DragEvent, type KeyboardEvent } from 'react';
import {
  Background,
  Controls,
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  useReactFlow,
  type Connection,
  type Edge,
  type Node,
  type NodeProps,
  type ReactFlowInstance,
} from '@xyflow/react';
import { backEdge } from '../../components/BackEdge';
import '@xyflow/react/dist/style.css';
import { AlertCircle, LogOut, RefreshCw, Repeat } from 'lucide-react';
import { PassBadgeView, type PassBadge } from '../../components/GraphView';
import { NODE_H, NODE_W, drawnSource, isBackEdge, layoutGraph } from '../../model/graphLayout';
import type { Projection, ProjectedEdge } from '../doc/project';
import { dropIndex } from '../builderModel';
import type { NodeResult } from '../run/liveRun';
import { Link, StatusBadge } from '../../components/common';
import { kindIcon } from './icons';

export const PALETTE_MIME = 'application/x-loopflow-kind';

export interface BuilderCanvasProps {
  graph: Projection;
  /** each node's fields (by graph key), for what a node shows of its settings (a loop's bound, exit, feedback) */
  values: Map<string, Record<string, unknown>>;
  selectedKey: string | null;
  /** problems by graph key */
  problems: Map<string, string[]>;
  /** changes when the user asks for a fresh layout or a new file is opened: dragged positions are forgotten */
  layoutVersion: number;
  fitVersion: number;
  onSelect: (key: string | null) => void;
  /** add a node of a kind to a list: the top level ([]) or a nested body, before its item `at` (else at the end);
   *  answers the new node's canvas key, or null when it was not added */
  onAdd: (kind: string, list: string[], at?: number) => string | null;
  onConnect: (from: string, to: string) => void;
  /** the edge chosen on the canvas (a stated one: an `edges:` item, a loop edge or a depends_on entry), or null */
  selectedEdge: { list: string[]; from: string; to: string } | null;
  onSelectEdge: (edge: ProjectedEdge | null) => void;
  onDeleteNode: (key: string) => void;
  onDeleteEdge: (edge: ProjectedEdge) => void;
  onMove: (key: string, list: string[]) => void;
  /** a run started from the builder: each loop's pass badge by the key of its body box or loop node */
  runBadges?: Map<string, PassBadge>;
  /** the last run started from the builder: each node's state, duration and output, by canvas key */
  runResults?: Map<string, NodeResult>;
}

interface BNodeData extends Record<string, unknown> {
  key: string;
  id: string;
  kind: string;
  role: string;
  values: Record<string, unknown>;
  problems: string[];
  selected: boolean;
  badge?: PassBadge;
  result?: NodeResult;
}

const str = (v: unknown) => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));

function Problems({ list, id }: { list: string[]; id: string }) {
  if (!list.length) return null;
  return (
    <>
      <span className="bnode-problem-badge" data-testid={`builder-problem-${id}`} title={list.join('\n')} aria-label={`${list.length} problem${list.length > 1 ? 's' : ''}`}>
        <AlertCircle aria-hidden="true" size={12} /> {list.length}
      </span>
      <span className="bnode-problem-text" data-testid={`builder-problem-text-${id}`}>
        {list[0]}
      </span>
    </>
  );
}

/** The node's result in the last run, under the node: state, duration, the start of its output; opens its execution. */
function RunResult({ result, id }: { result?: NodeResult; id: string }) {
  if (!result) return null;
  const title = `${result.status.replace('_', ' ')}${result.duration ? ` in ${result.duration}` : ''}${result.runs > 1 ? `, ran ${result.runs} times (latest shown)` : ''}${result.output ? `: ${result.output}` : ''} — open on the run page`;
  return (
    <div className="bnode-result nodrag nopan" data-testid={`builder-result-${id}`} data-status={result.status}>
      <Link href={result.href} title={title} testId={`builder-result-link-${id}`}>
        <StatusBadge status={result.status} compact />
        {result.duration ? <span className="bnode-result-time">{result.duration}</span> : null}
        {result.runs > 1 ? <span className="bnode-result-time">×{result.runs}</span> : null}
        {result.output ? <span className="bnode-result-output">{result.output}</span> : null}
      </Link>
    </div>
  );
}

const PlainNode = memo(function PlainNode({ data }: NodeProps<Node<BNodeData, 'plain'>>) {
  const Icon = kindIcon(data.kind);
  const marker = data.role === 'start' || data.role === 'end' || data.role === 'gate' || data.role === 'until_command';
  return (
    <div
      className={`bnode${data.selected ? ' selected' : ''}${data.problems.length ? ' has-problem' : ''}${marker ? ' marker' : ''}`}
      data-testid={`builder-node-${data.key}`}
      data-kind={data.kind}
    >
      <Handle type="target" position={Position.Top} id="in" />
      <Handle type="target" position={Position.Right} id="right-in" style={{ top: '70%' }} isConnectable={false} />
      <Handle type="source" position={Position.Right} id="right-out" style={{ top: '30%' }} isConnectable={false} />
      <div className="bnode-title">
        <Icon aria-hidden="true" size={14} />
        <span className="bnode-name">{data.id}</span>
        <span className="bnode-kind">{data.kind}</span>
        <PassBadgeView badge={data.badge} />
      </div>
      <div className="bnode-detail">{detailOf(data)}</div>
      <Problems list={data.problems} id={data.id} />
      <RunResult result={data.result} id={data.id} />
      <Handle type="source" position={Position.Bottom} id="out" />
    </div>
  );
});

/** One line of what matters most about a node, so a workflow reads from the canvas. */
function detailOf(d: BNodeData): string {
  const v = d.values;
  const first = (...keys: string[]) => keys.map((k) => str(v[k])).find((x) => x) ?? '';
  switch (d.kind) {
    case 'llm':
    case 'agent':
      return first('prompt', 'model');
    case 'shell':
      return first('command', 'bash');
    case 'script':
      return first('run', 'code');
    case 'transform':
      return first('template', 'value', 'expression');
    case 'while_loop':
      return `while ${first('condition')} · max ${first('max_iterations', 'maxIterations')}`;
    case 'loop_group':
      return `max ${first('max_iterations', 'maxIterations')}${v.until ? ` · until ${str(v.until)}` : ''}`;
    case 'iterator':
      return `each of ${first('items')}`;
    case 'router':
      return v.routes && typeof v.routes === 'object' ? Object.keys(v.routes as object).join(' | ') : '';
    case 'approval':
      return first('message');
    case 'http':
      return `${first('method') || 'GET'} ${first('url')}`;
    default:
      return first('description', 'value');
  }
}

/**
 * The loop node as the palette's design draws it: circular arrows, purple, its settings, an input and one output
 * port. Its results (output, iterations, count) are not ports: an edge carries no value, it only orders nodes, so a
 * node reads them in its templates (`repeat.iterations`), which the config panel's completion offers.
 */
const LoopNode = memo(function LoopNode({ data }: NodeProps<Node<BNodeData, 'loopNode'>>) {
  const v = data.values;
  const max = str(v.maxIterations ?? v.max_iterations) || '5';
  const exit = str(v.exitCondition ?? v.exit_condition) || 'max_iterations';
  const feedback = str(v.feedbackMode ?? v.feedback_mode) || 'replace';
  return (
    <div className={`bnode loop-node${data.selected ? ' selected' : ''}${data.problems.length ? ' has-problem' : ''}`} data-testid={`builder-node-${data.key}`} data-kind="loop">
      <Handle type="target" position={Position.Top} id="in" />
      <span className="port-label port-in">input</span>
      <Handle type="target" position={Position.Right} id="right-in" style={{ top: '70%' }} isConnectable={false} />
      <Handle type="source" position={Position.Right} id="right-out" style={{ top: '30%' }} isConnectable={false} />
      <div className="bnode-title">
        <RefreshCw aria-hidden="true" size={14} />
        <span className="loop-word">LOOP</span>
        <span className="bnode-name">{data.id}</span>
        <PassBadgeView badge={data.badge} />
      </div>
      <div className="bnode-detail loop-settings" data-testid={`loop-settings-${data.id}`}>
        <span title="max iterations">max {max}</span> · <span title="exit condition">{exit}</span> · <span title="feedback mode">{feedback}</span>
      </div>
      <Problems list={data.problems} id={data.id} />
      <RunResult result={data.result} id={data.id} />
      <div className="loop-ports" aria-hidden="true">
        <span>output</span>
      </div>
      <Handle type="source" position={Position.Bottom} id="output" />
    </div>
  );
});

const ExitNode = memo(function ExitNode({ data }: NodeProps<Node<BNodeData, 'exitNode'>>) {
  return (
    <div className={`bnode loop-node exit-node${data.selected ? ' selected' : ''}${data.problems.length ? ' has-problem' : ''}`} data-testid={`builder-node-${data.key}`} data-kind="exit">
      <Handle type="target" position={Position.Top} id="in" />
      <span className="port-label port-in">input</span>
      <Handle type="target" position={Position.Right} id="right-in" style={{ top: '70%' }} isConnectable={false} />
      <Handle type="source" position={Position.Right} id="right-out" style={{ top: '30%' }} isConnectable={false} />
      <div className="bnode-title">
        <LogOut aria-hidden="true" size={14} />
        <span className="loop-word">EXIT</span>
        <span className="bnode-name">{data.id}</span>
      </div>
      <Problems list={data.problems} id={data.id} />
      <RunResult result={data.result} id={data.id} />
      <div className="loop-ports" aria-hidden="true">
        <span>output</span>
      </div>
      <Handle type="source" position={Position.Bottom} id="out" />
    </div>
  );
});

interface BoxData extends Record<string, unknown> {
  title: string;
  construct: string;
  max: number | null;
  editable: boolean;
  dropTarget: boolean;
  testId: string;
  badge?: PassBadge;
}

const BodyBox = memo(function BodyBox({ data }: NodeProps<Node<BoxData, 'body'>>) {
  return (
    <div className={`loop-box builder-box${data.editable ? ' editable' : ''}${data.dropTarget ? ' drop-target' : ''}`} data-testid={data.testId}>
      <Handle type="target" position={Position.Top} id="top" isConnectable={false} />
      <Handle type="target" position={Position.Right} id="right-in" isConnectable={false} style={{ top: '70%' }} />
      <Handle type="source" position={Position.Right} id="right-out" isConnectable={false} style={{ top: '30%' }} />
      <div className="loop-box-header">
        <Repeat aria-hidden="true" size={13} />
        <span className="loop-box-title">{data.title}</span>
        <span className="muted">{data.construct.replace('_', ' ')}</span>
        {data.badge ? <PassBadgeView badge={data.badge} /> : data.max ? <span className="pass-badge">≤ {data.max}</span> : null}
      </div>
      <Handle type="source" position={Position.Bottom} id="bottom" isConnectable={false} />
    </div>
  );
});

/** room around the graph when fitted, in screen pixels */
const FIT_MARGIN = 28;

/**
 * Fits the view to everything drawn: the nodes and boxes and the edges' labels too (a back edge's label sits right of
 * the drawing, outside every node, so fitting the nodes alone cut it at the canvas's edge). What is drawn is measured
 * on the page and turned into flow coordinates, so a label's real width counts. Never zooms in past 1.
 */
function fit(flow: ReactFlowInstance, canvas: HTMLElement | null): void {
  if (!canvas) return;
  const c = canvas.getBoundingClientRect();
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const el of canvas.querySelectorAll('.react-flow__node, .bnode-result, .bnode-problem-text, .react-flow__edgelabel-renderer > *, .react-flow__edge-textwrapper')) {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    const a = flow.screenToFlowPosition({ x: r.left, y: r.top }, { snapToGrid: false });
    const b = flow.screenToFlowPosition({ x: r.right, y: r.bottom }, { snapToGrid: false });
    x0 = Math.min(x0, a.x);
    y0 = Math.min(y0, a.y);
    x1 = Math.max(x1, b.x);
    y1 = Math.max(y1, b.y);
  }
  if (!Number.isFinite(x0) || c.width <= 2 * FIT_MARGIN || c.height <= 2 * FIT_MARGIN) return;
  const zoom = Math.max(0.2, Math.min(1, (c.width - 2 * FIT_MARGIN) / Math.max(1, x1 - x0), (c.height - 2 * FIT_MARGIN) / Math.max(1, y1 - y0)));
  void flow.setViewport({ x: c.width / 2 - ((x0 + x1) / 2) * zoom, y: c.height / 2 - ((y0 + y1) / 2) * zoom, zoom });
}

const nodeTypes = { plain: PlainNode, loopNode: LoopNode, exitNode: ExitNode, body: BodyBox };
const edgeTypes = { back: backEdge('builder-back-edge-label') };

type Pos = { x: number; y: number };

export function BuilderCanvas(props: BuilderCanvasProps) {
  const { graph, values, selectedKey, problems, layoutVersion, fitVersion, onSelect, onAdd, onConnect, onDeleteNode, onDeleteEdge, onMove, runBadges, runResults } = props;
  const { selectedEdge: chosenEdge, onSelectEdge } = props;
  const flow = useReactFlow();
  const layout = useMemo(() => layoutGraph(graph), [graph]);
  const [moved, setMoved] = useState<Map<string, Pos>>(new Map());
  const [dropBody, setDropBody] = useState<string | null>(null);
  /** set by a drop: the view stays where the user put the node instead of fitting itself again */
  const keepView = useRef(false);

  // a box that forms or goes is laid out with its members: kept places would put them outside it
  const boxes = graph.containers.map((c) => c.key).join('\u0000');
  useEffect(() => setMoved(new Map()), [layoutVersion, boxes]);
  // fitted again when asked, and when nodes come or go (not when a field changes, nor after a drop: the view stays)
  const shape = `${graph.nodes.length}:${graph.containers.length}`;
  const flowRef = useRef(flow);
  flowRef.current = flow;
  const canvasRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (keepView.current) {
      keepView.current = false;
      return;
    }
    // an empty canvas has nothing to fit, and a fit asked for now would wait and move the first node dropped
    if (graph.nodes.length === 0) return;
    const t = setTimeout(() => fit(flowRef.current, canvasRef.current), 30);
    return () => clearTimeout(t);
  }, [fitVersion, layoutVersion, shape]);

  const containerKeys = useMemo(() => new Set(graph.containers.map((c) => c.key)), [graph]);
  const nodeKeys = useMemo(() => new Set(graph.nodes.map((n) => n.key)), [graph]);

  /** The smallest nested body (a list you can drop into) holding a flow position; [] for the top level. */
  const bodyAt = useCallback(
    (p: Pos, exclude?: string): { key: string | null; list: string[] } => {
      let best: { key: string; area: number } | null = null;
      for (const key of graph.bodies.keys()) {
        const box = layout.containers.get(key);
        if (!box) continue;
        if (exclude && (key === `[${exclude}]` || key.startsWith(`[${exclude}/`))) continue;
        if (p.x < box.x || p.y < box.y || p.x > box.x + box.width || p.y > box.y + box.height) continue;
        const area = box.width * box.height;
        if (!best || area < best.area) best = { key, area };
      }
      if (!best) return { key: null, list: [] };
      const ref = graph.bodies.get(best.key)!;
      return { key: best.key, list: [...ref.path, ref.id] };
    },
    [graph, layout],
  );

  const nodes = useMemo(() => {
    const out: Node[] = [];
    const abs = layout.containers;
    const depth = (k: string | null | undefined): number => {
      let d = 0;
      const seen = new Set<string>();
      for (let p = k; p && !seen.has(p); p = graph.containers.find((c) => c.key === p)?.parent) (seen.add(p), d++);
      return d;
    };
    for (const c of [...graph.containers].sort((a, b) => depth(a.key) - depth(b.key))) {
      const box = abs.get(c.key);
      if (!box) continue;
      const parent = c.parent && abs.has(c.parent) ? abs.get(c.parent)! : undefined;
      const editable = graph.bodies.has(c.key);
      const ref = graph.bodies.get(c.key);
      out.push({
        id: 'c:' + c.key,
        type: 'body',
        position: { x: box.x - (parent?.x ?? 0), y: box.y - (parent?.y ?? 0) },
        parentId: parent ? 'c:' + c.parent : undefined,
        data: {
          title: ref ? ref.id : (c.node ?? c.key.slice(1, -1)).split('/').pop()!,
          construct: c.construct ?? '',
          max: c.max ?? null,
          editable,
          dropTarget: dropBody === c.key,
          testId: `builder-body-${c.key.slice(1, -1)}`,
          badge: runBadges?.get(c.key),
        } satisfies BoxData,
        style: { width: box.width, height: box.height },
        width: box.width,
        height: box.height,
        measured: { width: box.width, height: box.height },
        draggable: false,
        selectable: false,
        zIndex: 0,
      });
    }
    for (const n of graph.nodes) {
      const box = layout.nodes.get(n.key);
      if (!box) continue;
      const parent = n.parent && abs.has(n.parent) ? abs.get(n.parent)! : undefined;
      const kind = n.kind ?? n.role ?? '';
      const editable = graph.docNodes.has(n.key);
      const own = moved.get(n.key);
      out.push({
        id: 'n:' + n.key,
        type: kind === 'loop' ? 'loopNode' : kind === 'exit' ? 'exitNode' : 'plain',
        position: own ?? { x: box.x - (parent?.x ?? 0), y: box.y - (parent?.y ?? 0) },
        parentId: parent ? 'c:' + n.parent : undefined,
        data: {
          key: n.key,
          id: n.id,
          kind,
          role: n.role ?? 'node',
          values: values.get(n.key) ?? {},
          problems: problems.get(n.key) ?? [],
          selected: n.key === selectedKey,
          badge: runBadges?.get(n.key),
          result: runResults?.get(n.key),
        } satisfies BNodeData,
        width: NODE_W,
        height: NODE_H,
        measured: { width: NODE_W, height: NODE_H },
        draggable: editable,
        selectable: editable,
        connectable: editable,
        selected: n.key === selectedKey,
        zIndex: 1,
      });
    }
    return out;
  }, [graph, layout, values, problems, selectedKey, moved, dropBody, runBadges, runResults]);

  const edges = useMemo(() => {
    const out: Edge[] = [];
    const known = (k: string) => (nodeKeys.has(k) ? 'n:' + k : containerKeys.has(k) ? 'c:' + k : undefined);
    graph.edges.forEach((e, i) => {
      const source = known(drawnSource(graph, e));
      const target = known(e.to);
      if (!source || !target) return;
      const back = isBackEdge(e);
      const id = `e${i}:${e.from}>${e.to}`;
      let label = e.label ?? '';
      // a back edge says its bound (short, so it fits beside the drawing); an iterator has none: one pass per item
      if (back) label = e.kind === 'restart' ? `restart ≤ ${e.max ?? '?'}` : e.max ? `≤ ${e.max}` : label || 'each item';
      if (e.origin === 'order') label = 'listed order';
      const deletable = !!e.origin && e.origin !== 'order';
      const chosen = !!chosenEdge && deletable && e.from === [...chosenEdge.list, chosenEdge.from].join('/') && e.to === [...chosenEdge.list, chosenEdge.to].join('/');
      out.push({
        id,
        source,
        target,
        sourceHandle: back ? 'right-out' : containerKeys.has(drawnSource(graph, e)) ? 'bottom' : sourceHandleOf(graph, drawnSource(graph, e)),
        targetHandle: back ? 'right-in' : containerKeys.has(e.to) ? 'top' : 'in',
        type: back ? 'back' : 'default',
        label: label || undefined,
        className: `${back ? `back-edge ${e.kind === 'restart' ? 'restart-edge' : 'loop-edge'}` : 'fwd-edge'}${e.origin === 'order' ? ' order-edge' : ''}${chosen ? ' selected-edge' : ''}`,
        markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16 },
        zIndex: back ? 2 : 1,
        selectable: deletable,
        focusable: deletable,
        data: { edge: e },
      } as Edge);
    });
    return out;
  }, [graph, nodeKeys, containerKeys, chosenEdge]);

  const onDragOver = useCallback(
    (ev: DragEvent) => {
      if (!ev.dataTransfer.types.includes(PALETTE_MIME)) return;
      ev.preventDefault();
      ev.dataTransfer.dropEffect = 'copy';
      const p = flow.screenToFlowPosition({ x: ev.clientX, y: ev.clientY });
      const key = bodyAt(p).key;
      setDropBody((old) => (old === key ? old : key));
    },
    [flow, bodyAt],
  );

  const onDrop = useCallback(
    (ev: DragEvent) => {
      const kind = ev.dataTransfer.getData(PALETTE_MIME);
      setDropBody(null);
      if (!kind) return;
      ev.preventDefault();
      const p = flow.screenToFlowPosition({ x: ev.clientX, y: ev.clientY });
      const body = bodyAt(p);
      // its place among its siblings as they stand on the canvas (kept places first, else the layout's)
      const prefix = body.list.length ? body.list.join('/') + '/' : '';
      const siblings = graph.nodes.filter((n) => n.role === 'node' && graph.docNodes.get(n.key)?.path.join('/') === body.list.join('/'));
      const center = (key: string): Pos | undefined => {
        const own = moved.get(key);
        const box = layout.nodes.get(key);
        if (own && !graph.nodes.find((n) => n.key === key)?.parent) return { x: own.x + NODE_W / 2, y: own.y + NODE_H / 2 };
        return box ? { x: box.x + NODE_W / 2, y: box.y + NODE_H / 2 } : undefined;
      };
      const at = dropIndex(siblings.map((n) => ({ center: center(n.key) })), p, NODE_H);
      keepView.current = true;
      const key = onAdd(kind, body.list, at);
      if (!key) {
        keepView.current = false;
        return;
      }
      // a node dropped at the top level stays where it was dropped (a body's nodes are laid out in their box)
      if (!prefix) setMoved((m) => new Map(m).set(key, { x: p.x - NODE_W / 2, y: p.y - NODE_H / 2 }));
    },
    [flow, bodyAt, onAdd, graph, moved, layout],
  );

  const onNodeDragStop = useCallback(
    (ev: MouseEvent | TouchEvent | React.MouseEvent, node: Node) => {
      if (node.type === 'body') return;
      const point = 'changedTouches' in ev ? ev.changedTouches[0] : ev;
      if (!point) return;
      const key = (node.data as BNodeData).key;
      const ref = graph.docNodes.get(key);
      if (!ref) return;
      const p = flow.screenToFlowPosition({ x: point.clientX, y: point.clientY });
      const target = bodyAt(p, key);
      if (target.list.join('\u0000') !== ref.path.join('\u0000')) {
        onMove(key, target.list);
        return;
      }
      setMoved((m) => new Map(m).set(key, node.position));
    },
    [graph, flow, bodyAt, onMove],
  );

  const onConnectEdge = useCallback(
    (c: Connection) => {
      if (!c.source?.startsWith('n:') || !c.target?.startsWith('n:')) return;
      onConnect(c.source.slice(2), c.target.slice(2));
    },
    [onConnect],
  );

  const onKeyDown = useCallback(
    (ev: KeyboardEvent) => {
      if (ev.key !== 'Delete' && ev.key !== 'Backspace') return;
      const t = ev.target as HTMLElement;
      if (t.closest('input, textarea, select, [contenteditable="true"], .cm-editor')) return;
      if (chosenEdge) {
        const e = edges.find((x) => (x.className ?? '').includes('selected-edge'));
        const pe = (e?.data as { edge?: ProjectedEdge } | undefined)?.edge;
        if (pe) onDeleteEdge(pe);
        onSelectEdge(null);
        ev.preventDefault();
      } else if (selectedKey && graph.docNodes.has(selectedKey)) {
        onDeleteNode(selectedKey);
        ev.preventDefault();
      }
    },
    [chosenEdge, selectedKey, edges, graph, onDeleteEdge, onDeleteNode, onSelectEdge],
  );

  return (
    <div ref={canvasRef} className="builder-canvas" data-testid="builder-canvas" onDragOver={onDragOver} onDrop={onDrop} onDragLeave={() => setDropBody(null)} onKeyDown={onKeyDown} tabIndex={-1}>
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        minZoom={0.2}
        maxZoom={2}
        deleteKeyCode={null}
        onNodeClick={(_, n) => {
          onSelectEdge(null);
          if (n.type !== 'body') onSelect((n.data as BNodeData).key);
        }}
        onEdgeClick={(_, e) => {
          const pe = (e.data as { edge?: ProjectedEdge } | undefined)?.edge;
          if (pe?.origin && pe.origin !== 'order') {
            onSelect(null);
            onSelectEdge(pe);
          }
        }}
        onPaneClick={() => {
          onSelectEdge(null);
          onSelect(null);
        }}
        onConnect={onConnectEdge}
        onNodeDragStop={onNodeDragStop}
        zoomOnDoubleClick={false}
      >
        <Background gap={24} size={1} />
        <Controls showInteractive={false} showFitView={false} />
      </ReactFlow>
      {graph.nodes.length === 0 ? (
        <div className="builder-empty" data-testid="builder-empty">
          Drag a node from the palette here, or press one to add it.
        </div>
      ) : null}
    </div>
  );
}

/** A loop node's edges leave from its output port; every other node has one. */
function sourceHandleOf(graph: Projection, key: string): string {
  const n = graph.nodes.find((x) => x.key === key);
  return n?.kind === 'loop' ? 'output' : 'out';
}

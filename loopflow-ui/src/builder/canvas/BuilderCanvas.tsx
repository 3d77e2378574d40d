// The builder's canvas: the document's projection drawn with React Flow, laid out automatically (dagre, the run
// viewer's layout), with loop bodies as boxes you drop nodes into. It only reports what the user did (select, add,
// connect, delete, move into or out of a body); the page turns that into a document edit. Positions a user drags
// nodes to are kept in memory only, never in the file, and "Layout" forgets them.
import { memo, useCallback, useEffect, useMemo, useState, type DragEvent, type KeyboardEvent } from 'react';
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
} from '@xyflow/react';
import { backEdge } from '../../components/BackEdge';
import '@xyflow/react/dist/style.css';
import { AlertCircle, LogOut, RefreshCw, Repeat } from 'lucide-react';
import { PassBadgeView, type PassBadge } from '../../components/GraphView';
import { NODE_H, NODE_W, drawnSource, isBackEdge, layoutGraph } from '../../model/graphLayout';
import type { Projection, ProjectedEdge } from '../doc/project';
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
  /** add a node of a kind to a list: the top level ([]) or a nested body */
  onAdd: (kind: string, list: string[]) => void;
  onConnect: (from: string, to: string) => void;
  onDeleteNode: (key: string) => void;
  onDeleteEdge: (edge: ProjectedEdge) => void;
  onMove: (key: string, list: string[]) => void;
  /** a run started from the builder: each loop's pass badge by the key of its body box or loop node */
  runBadges?: Map<string, PassBadge>;
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

/** The loop node as the palette's design draws it: circular arrows, purple, its settings and its four ports. */
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
      <div className="loop-ports" aria-hidden="true">
        <span>output</span>
        <span>iterations</span>
        <span>count</span>
      </div>
      <Handle type="source" position={Position.Bottom} id="output" style={{ left: '20%' }} />
      <Handle type="source" position={Position.Bottom} id="iterations" style={{ left: '50%' }} />
      <Handle type="source" position={Position.Bottom} id="count" style={{ left: '80%' }} />
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

/** room around the graph when fitted: back edges' labels sit right of the drawing */
const FIT_PADDING = 0.22;

const nodeTypes = { plain: PlainNode, loopNode: LoopNode, exitNode: ExitNode, body: BodyBox };
const edgeTypes = { back: backEdge('builder-back-edge-label') };

type Pos = { x: number; y: number };

export function BuilderCanvas(props: BuilderCanvasProps) {
  const { graph, values, selectedKey, problems, layoutVersion, fitVersion, onSelect, onAdd, onConnect, onDeleteNode, onDeleteEdge, onMove, runBadges } = props;
  const flow = useReactFlow();
  const layout = useMemo(() => layoutGraph(graph), [graph]);
  const [moved, setMoved] = useState<Map<string, Pos>>(new Map());
  const [selectedEdge, setSelectedEdge] = useState<string | null>(null);
  const [dropBody, setDropBody] = useState<string | null>(null);

  useEffect(() => setMoved(new Map()), [layoutVersion]);
  // fitted again when asked, and when nodes come or go (not when a field changes: the view stays where it is)
  const shape = `${graph.nodes.length}:${graph.containers.length}`;
  useEffect(() => {
    const t = setTimeout(() => void flow.fitView({ padding: FIT_PADDING, maxZoom: 1 }), 30);
    return () => clearTimeout(t);
  }, [fitVersion, layoutVersion, shape, flow]);

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
  }, [graph, layout, values, problems, selectedKey, moved, dropBody, runBadges]);

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
      out.push({
        id,
        source,
        target,
        sourceHandle: back ? 'right-out' : containerKeys.has(drawnSource(graph, e)) ? 'bottom' : sourceHandleOf(graph, drawnSource(graph, e)),
        targetHandle: back ? 'right-in' : containerKeys.has(e.to) ? 'top' : 'in',
        type: back ? 'back' : 'default',
        label: label || undefined,
        className: `${back ? `back-edge ${e.kind === 'restart' ? 'restart-edge' : 'loop-edge'}` : 'fwd-edge'}${e.origin === 'order' ? ' order-edge' : ''}${selectedEdge === id ? ' selected-edge' : ''}`,
        markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16 },
        zIndex: back ? 2 : 1,
        selectable: deletable,
        focusable: deletable,
        data: { edge: e },
      } as Edge);
    });
    return out;
  }, [graph, nodeKeys, containerKeys, selectedEdge]);

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
      onAdd(kind, bodyAt(p).list);
    },
    [flow, bodyAt, onAdd],
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
      if (selectedEdge) {
        const e = edges.find((x) => x.id === selectedEdge);
        const pe = (e?.data as { edge?: ProjectedEdge } | undefined)?.edge;
        if (pe) onDeleteEdge(pe);
        setSelectedEdge(null);
        ev.preventDefault();
      } else if (selectedKey && graph.docNodes.has(selectedKey)) {
        onDeleteNode(selectedKey);
        ev.preventDefault();
      }
    },
    [selectedEdge, selectedKey, edges, graph, onDeleteEdge, onDeleteNode],
  );

  return (
    <div className="builder-canvas" data-testid="builder-canvas" onDragOver={onDragOver} onDrop={onDrop} onDragLeave={() => setDropBody(null)} onKeyDown={onKeyDown} tabIndex={-1}>
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        minZoom={0.2}
        maxZoom={2}
        fitView
        fitViewOptions={{ padding: FIT_PADDING, maxZoom: 1 }}
        deleteKeyCode={null}
        onNodeClick={(_, n) => {
          setSelectedEdge(null);
          if (n.type !== 'body') onSelect((n.data as BNodeData).key);
        }}
        onEdgeClick={(_, e) => {
          const pe = (e.data as { edge?: ProjectedEdge } | undefined)?.edge;
          if (pe?.origin && pe.origin !== 'order') setSelectedEdge(e.id);
        }}
        onPaneClick={() => {
          setSelectedEdge(null);
          onSelect(null);
        }}
        onConnect={onConnectEdge}
        onNodeDragStop={onNodeDragStop}
        zoomOnDoubleClick={false}
      >
        <Background gap={24} size={1} />
        <Controls showInteractive={false} />
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

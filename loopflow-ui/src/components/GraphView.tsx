// The run graph: one box per node with its state in the shown passes (icon and word), loop bodies as boxes with
// their pass badge, loop and restart edges drawn as dashed back edges labelled with their pass count.
import { memo, useCallback, useMemo } from 'react';
import {
  Background,
  Controls,
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  type Edge,
  type Node,
  type NodeProps,
} from '@xyflow/react';
import { backEdge } from './BackEdge';
import '@xyflow/react/dist/style.css';
import {
  Bot,
  Box as BoxIcon,
  Braces,
  CheckSquare,
  Globe,
  LogOut,
  MessageSquare,
  Repeat,
  ScrollText,
  Sigma,
  Split,
  Terminal,
} from 'lucide-react';
import type { GraphContainer, GraphNode, RunGraph } from '../api/types';
import { fmtDuration, words } from '../model/format';
import { containerFor, type EffectivePass, type GraphIndex, type NodeView } from '../model/graphMap';
import { NODE_H, NODE_W, drawnSource, isBackEdge, layoutGraph } from '../model/graphLayout';
import type { RunLive } from '../model/runState';
import { StatusBadge, cssToken } from './common';

export interface PassBadge {
  loopStatic: string;
  current?: number;
  max?: number;
  /** how the loop as a whole ended; set only while its last pass is shown, so an earlier pass never seems to end it */
  exitReason?: string;
  /** a pass before the loop's latest is chosen in the navigator */
  earlier?: boolean;
  /** the loop's latest pass */
  lastPass?: number;
  running: boolean;
}

interface LfNodeData extends Record<string, unknown> {
  node: GraphNode;
  view?: NodeView;
  selected: boolean;
  failing: boolean;
  badge?: PassBadge;
  onSelect: (key: string) => void;
}

interface LoopBoxData extends Record<string, unknown> {
  container: GraphContainer;
  badge?: PassBadge;
}

const KIND_ICON: Record<string, typeof Bot> = {
  llm: MessageSquare,
  agent: Bot,
  shell: Terminal,
  bash: Terminal,
  script: ScrollText,
  lua: ScrollText,
  python: ScrollText,
  node: ScrollText,
  transform: Braces,
  router: Split,
  http: Globe,
  approval: CheckSquare,
  validate: CheckSquare,
  loop: Repeat,
  loop_group: Repeat,
  while_loop: Repeat,
  iterator: Repeat,
  aggregator: Sigma,
  exit: LogOut,
  workflow: Repeat,
};

export function passBadgeText(b: PassBadge | undefined): string {
  if (!b) return '';
  if (b.current === undefined) return b.max ? `0/${b.max}` : '';
  return b.max ? `${b.current}/${b.max}` : String(b.current);
}

/** The badge's words: "pass 2/4" for a chosen earlier pass, "4/4 · max iterations" for the last pass of an ended loop. */
export function passBadgeLabel(b: PassBadge | undefined): { text: string; exit: string; title: string } {
  const count = passBadgeText(b);
  if (!b || !count) return { text: '', exit: '', title: '' };
  const exit = b.earlier ? '' : words(b.exitReason);
  const text = b.earlier ? `pass ${count}` : count;
  const title = b.earlier
    ? `pass ${count} chosen; the loop's latest pass is ${b.lastPass ?? ''}`
    : `pass ${count}${exit ? ', the loop ended: ' + exit : ''}`;
  return { text, exit, title };
}

export function PassBadgeView({ badge }: { badge?: PassBadge }) {
  const { text, exit, title } = passBadgeLabel(badge);
  if (!badge || !text) return null;
  return (
    <span
      className={`pass-badge${badge.running ? ' live' : ''}${badge.earlier ? ' earlier' : ''}`}
      data-testid={`pass-badge-${badge.loopStatic}`}
      title={title}
    >
      <Repeat aria-hidden="true" size={12} /> {text}
      {exit ? <span className="exit"> · {exit}</span> : null}
    </span>
  );
}

const LfNode = memo(function LfNode({ data }: NodeProps<Node<LfNodeData, 'lf'>>) {
  const { node, view, selected, failing, badge, onSelect } = data;
  const Icon = KIND_ICON[node.kind ?? ''] ?? BoxIcon;
  const status = view?.status ?? 'pending';
  const runs = view?.executions.length ?? 0;
  const duration = view?.exec?.durationMs;
  const key = node.path ?? node.key;
  return (
    <div
      className={`lf-node st-${cssToken(status)}${selected ? ' selected' : ''}${failing ? ' failing' : ''}`}
      data-testid={`graph-node-${key}`}
      data-status={status}
    >
      <Handle type="target" position={Position.Top} id="top" isConnectable={false} />
      <Handle type="target" position={Position.Right} id="right-in" isConnectable={false} style={{ top: '70%' }} />
      <Handle type="source" position={Position.Right} id="right-out" isConnectable={false} style={{ top: '30%' }} />
      <button
        type="button"
        className="lf-node-button nodrag nopan"
        onClick={() => onSelect(node.key)}
        aria-pressed={selected}
        aria-label={`${node.title || node.id}, ${node.kind ?? ''} node, ${status.replace('_', ' ')}`}
      >
        <span className="lf-node-title">
          <Icon aria-hidden="true" size={14} />
          <span className="lf-node-name">{node.title || node.id}</span>
          <span className="lf-node-kind">{node.kind ?? ''}</span>
        </span>
        <span className="lf-node-status">
          <StatusBadge status={status} compact />
          {duration !== undefined ? <span className="muted">{fmtDuration(duration)}</span> : null}
          {runs > 1 ? <span className="muted" title={`${runs} executions in this run`}>×{runs}</span> : null}
          {view?.carriedFrom !== undefined ? (
            <span className="muted" title={`carried over from iteration ${view.carriedFrom}: the restart did not run it again`}>
              from {view.carriedFrom}
            </span>
          ) : null}
          <PassBadgeView badge={badge} />
        </span>
      </button>
      <Handle type="source" position={Position.Bottom} id="bottom" isConnectable={false} />
    </div>
  );
});

const LoopBox = memo(function LoopBox({ data }: NodeProps<Node<LoopBoxData, 'loopBox'>>) {
  const { container, badge } = data;
  return (
    <div className="loop-box" data-testid={`loop-body-${container.key}`}>
      <Handle type="target" position={Position.Top} id="top" isConnectable={false} />
      <Handle type="target" position={Position.Right} id="right-in" isConnectable={false} style={{ top: '70%' }} />
      <Handle type="source" position={Position.Right} id="right-out" isConnectable={false} style={{ top: '30%' }} />
      <div className="loop-box-header">
        <Repeat aria-hidden="true" size={13} />
        <span className="loop-box-title" title={container.title || container.key}>
          {loopName(container)}
        </span>
        <span className="muted">{words(container.construct)}</span>
        <PassBadgeView badge={badge} />
      </div>
      <Handle type="source" position={Position.Bottom} id="bottom" isConnectable={false} />
    </div>
  );
});

const nodeTypes = { lf: LfNode, loopBox: LoopBox };

const edgeTypes = { back: backEdge('back-edge-label') };

/** A loop body's short name: its loop's id (the last part of its path); the graph's full title is its tooltip. */
function loopName(c: GraphContainer): string {
  const path = c.path ?? c.node ?? c.key;
  return path.split('.').pop() || path;
}

export interface GraphViewProps {
  graph: RunGraph;
  index: GraphIndex;
  run: RunLive;
  views: Map<string, NodeView>;
  effective: Map<string, EffectivePass>;
  selectedKey?: string;
  failingKey?: string;
  onSelect: (key: string) => void;
}

/** Pass badges by loop: the pass shown (chosen or latest) of the loop's shown instance, and its bound. */
export function passBadges(run: RunLive, effective: Map<string, EffectivePass>): Map<string, PassBadge> {
  const m = new Map<string, PassBadge>();
  for (const [st, e] of effective) {
    const lastPass = e.instance.passes[e.instance.passes.length - 1]?.iteration;
    const earlier = e.iteration !== undefined && lastPass !== undefined && e.iteration < lastPass;
    m.set(st, {
      loopStatic: st,
      current: e.iteration,
      max: e.instance.max,
      exitReason: earlier ? undefined : e.instance.completed?.exitReason,
      earlier,
      lastPass,
      running: !e.instance.completed && run.status === 'running',
    });
  }
  return m;
}

/** Where each loop's badge is drawn: on its container (body box), else on its loop node, else beside the graph. */
export interface BadgePlaces {
  /** container key → badge */
  containerBadge: Map<string, PassBadge>;
  /** node key → badge */
  nodeBadge: Map<string, PassBadge>;
  /** loops with neither (drawn in a list beside the graph) */
  edgeBadge: PassBadge[];
}

export function placeBadges(index: GraphIndex, effective: Map<string, EffectivePass>, badges: Map<string, PassBadge>): BadgePlaces {
  const containerBadge = new Map<string, PassBadge>();
  const nodeBadge = new Map<string, PassBadge>();
  const edgeBadge: PassBadge[] = [];
  for (const [st, e] of effective) {
    const b = badges.get(st);
    if (!b) continue;
    const c = containerFor(index, { staticPath: st, node: e.instance.node });
    if (c) containerBadge.set(c.key, b);
    else {
      const n = index.byPath.get(st);
      if (n) nodeBadge.set(n.key, b);
      else edgeBadge.push(b);
    }
  }
  return { containerBadge, nodeBadge, edgeBadge };
}

export function GraphView(props: GraphViewProps) {
  const { graph, index, run, views, effective, selectedKey, failingKey, onSelect } = props;
  const layout = useMemo(() => layoutGraph(graph), [graph]);
  const badges = useMemo(() => passBadges(run, effective), [run, effective]);

  const { containerBadge, nodeBadge, edgeBadge } = useMemo(() => placeBadges(index, effective, badges), [effective, badges, index]);

  const nodes = useMemo(() => {
    const out: Node[] = [];
    const containers = graph.containers ?? [];
    const abs = layout.containers;
    // parents before children, as React Flow requires
    const depth = (c: GraphContainer): number => {
      let d = 0;
      let p = c.parent;
      const seen = new Set<string>();
      while (p && !seen.has(p)) {
        seen.add(p);
        d++;
        p = containers.find((x) => x.key === p)?.parent ?? null;
      }
      return d;
    };
    for (const c of [...containers].sort((a, b) => depth(a) - depth(b))) {
      const box = abs.get(c.key);
      if (!box) continue;
      const parent = c.parent && abs.has(c.parent) ? abs.get(c.parent)! : undefined;
      out.push({
        id: 'c:' + c.key,
        type: 'loopBox',
        position: { x: box.x - (parent?.x ?? 0), y: box.y - (parent?.y ?? 0) },
        parentId: parent ? 'c:' + c.parent : undefined,
        data: { container: c, badge: containerBadge.get(c.key) } satisfies LoopBoxData,
        style: { width: box.width, height: box.height },
        width: box.width,
        height: box.height,
        // the size is fixed; see the nodes below for why it is also given as measured
        measured: { width: box.width, height: box.height },
        draggable: false,
        selectable: false,
        focusable: false,
        zIndex: 0,
      });
    }
    for (const n of graph.nodes) {
      const box = layout.nodes.get(n.key);
      if (!box) continue;
      const parent = n.parent && abs.has(n.parent) ? abs.get(n.parent)! : undefined;
      out.push({
        id: 'n:' + n.key,
        type: 'lf',
        position: { x: box.x - (parent?.x ?? 0), y: box.y - (parent?.y ?? 0) },
        parentId: parent ? 'c:' + n.parent : undefined,
        data: {
          node: n,
          view: views.get(n.key),
          selected: n.key === selectedKey,
          failing: n.key === failingKey,
          badge: nodeBadge.get(n.key),
          onSelect,
        } satisfies LfNodeData,
        width: NODE_W,
        height: NODE_H,
        // React Flow drops a node's measured handle positions when it receives a new node object without `measured`
        // and measures again only when the node's size changes, which a fixed-size node never does: every live update
        // (a new status, a duration) would leave its edges without ends, and they vanished.
        measured: { width: NODE_W, height: NODE_H },
        draggable: false,
        selectable: false,
        focusable: false,
        zIndex: 1,
      });
    }
    return out;
  }, [graph, layout, views, selectedKey, failingKey, onSelect, containerBadge, nodeBadge]);

  const edges = useMemo(() => {
    const out: Edge[] = [];
    const known = (k: string) => (index.byKey.has(k) ? 'n:' + k : index.containers.has(k) ? 'c:' + k : undefined);
    (graph.edges ?? []).forEach((e, i) => {
      const source = known(drawnSource(graph, e));
      const target = known(e.to);
      if (!source || !target) return;
      const back = isBackEdge(e);
      let label = e.label ?? '';
      if (back) {
        const badge =
          (index.containers.has(e.from) ? containerBadge.get(e.from) : undefined) ??
          (index.containers.has(e.to) ? containerBadge.get(e.to) : undefined) ??
          // a loop edge runs between two nodes of its region's box
          (e.kind === 'loop_back' ? containerBadge.get(index.byKey.get(e.from)?.parent ?? '') : undefined) ??
          (e.kind === 'restart' ? edgeBadge.find((b) => b.loopStatic === 'restart') : undefined) ??
          (edgeBadge.length === 1 ? edgeBadge[0] : undefined);
        const count = passBadgeText(badge);
        const parts = [e.kind === 'restart' ? 'restart' : label || 'next pass'];
        if (count) parts.push(count);
        else if (e.max) parts.push(`max ${e.max}`);
        label = parts.join(' · ');
      }
      out.push({
        id: `e${i}`,
        source,
        target,
        sourceHandle: back ? 'right-out' : 'bottom',
        targetHandle: back ? 'right-in' : 'top',
        type: back ? 'back' : 'default',
        label: label || undefined,
        // a running loop's back edge is marked by its class, not animated: the library's dash animation is repainted
        // by the main thread at every frame for as long as the run goes on
        className: back
          ? `back-edge ${e.kind === 'restart' ? 'restart-edge' : 'loop-edge'}${run.status === 'running' ? ' edge-running' : ''}`
          : 'fwd-edge',
        markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16 },
        zIndex: back ? 2 : 1,
        focusable: false,
        selectable: false,
      } as Edge);
    });
    return out;
  }, [graph, index, containerBadge, edgeBadge, run.status]);

  const onNodeClick = useCallback(
    (_: unknown, n: Node) => {
      if (n.type === 'lf') onSelect((n.data as LfNodeData).node.key);
    },
    [onSelect],
  );

  return (
    <>
    {edgeBadge.length ? (
      <div className="loop-strip" aria-label="loops drawn as back edges">
        {edgeBadge.map((b) => (
          <span key={b.loopStatic} className="loop-strip-item">
            <code>{b.loopStatic}</code> <PassBadgeView badge={b} />
          </span>
        ))}
      </div>
    ) : null}
    <div className="graph-canvas" data-testid="run-graph" style={{ height: Math.min(Math.max(layout.height + 40, 320), 720) }}>
      <ReactFlow
        // fitted again when the drawing changes (a graph drawn from events grows as nodes first run)
        key={`${graph.nodes.length}:${graph.containers?.length ?? 0}`}
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        fitView
        fitViewOptions={{ padding: 0.12, maxZoom: 1 }}
        minZoom={0.2}
        maxZoom={2}
        nodesDraggable={false}
        nodesConnectable={false}
        nodesFocusable={false}
        edgesFocusable={false}
        elementsSelectable={false}
        zoomOnDoubleClick={false}
        // a click handler is what lets React Flow pass pointer events to nodes that are neither selectable nor
        // draggable; the node's own button does the choosing (and is what the keyboard reaches)
        onNodeClick={onNodeClick}
        proOptions={{ hideAttribution: false }}
      >
        <Background gap={24} size={1} />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
    </>
  );
}

// The live state of a run, folded from its events. The same function builds it from the journal's replay and from
// the live stream, so a page opened late and a page that watched from the start show the same thing. An event whose
// sequence number was already applied is ignored: a stream resumed after a network error never counts a pass twice.
import type { RunEvent } from '../api/types';
import { passChain, staticPath, type PassRef } from './paths';

export type NodeStatus =
  | 'pending'
  | 'running'
  | 'retrying'
  | 'completed'
  | 'failed'
  | 'skipped'
  | 'cancelled'
  | 'paused';

export interface LlmCall {
  seq: number;
  at?: string;
  provider?: string;
  model?: string;
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number | null;
  mock: boolean;
  attempts?: number;
  durationMs?: number;
}

export interface StepRecord {
  seq: number;
  at?: string;
  step: Record<string, unknown>;
}

export interface ExecLive {
  path: string;
  staticPath: string;
  node: string;
  kind?: string;
  status: NodeStatus;
  attempt: number;
  startedAt?: string;
  finishedAt?: string;
  durationMs?: number;
  outputPreview?: string;
  error?: { code?: string; message?: string; allowed?: boolean };
  reason?: string;
  retryMessage?: string;
  branch?: string;
  passes: PassRef[];
  llmCalls: LlmCall[];
  steps: StepRecord[];
  /** streamed text of the reply being written, cleared when the execution ends */
  streamText: string;
  streamReply: number;
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number | null;
  firstSeq: number;
  /** set on a fork's execution reused from its origin (see reused.ts): the run it ran in */
  reusedFrom?: string;
}

export interface LoopPassLive {
  iteration: number;
  index?: number;
  max?: number;
  startedAt?: string;
  /** when the next pass began or the loop ended; undefined while the pass runs */
  endedAt?: string;
  inputPreview?: string;
  conditionResult?: boolean | null;
  /** set on a fork's pass reused from its origin: the run it ran in */
  reusedFrom?: string;
  /**
   * set on a pass the page knows only from the server's summary of the loop's passes: its executions and events are
   * loaded when it is shown (see passWindow.ts)
   */
  summary?: PassSummaryLive;
}

/** What the server's summary of a pass says (status, duration, cost), for a pass whose events the page lacks. */
export interface PassSummaryLive {
  status: string;
  durationMs?: number;
  costUsd?: number | null;
  llmCalls?: number;
  executions?: number;
}

export interface LoopLive {
  /** the loop instance's path, e.g. `outer[2].inner` (a loop edge's is `reviewer->coder`) */
  path: string;
  staticPath: string;
  node: string;
  construct?: string;
  max?: number;
  startedAt?: string;
  endedAt?: string;
  passes: LoopPassLive[];
  completed?: {
    iterationsRun?: number;
    exitReason?: string;
    inputTokens?: number;
    outputTokens?: number;
    costUsd?: number | null;
    llmCalls?: number;
  };
  /** the passes this loop instance itself runs in */
  enclosing: PassRef[];
  loopBacks: { iteration: number; edgeFrom?: string; edgeTo?: string; maxIterations?: number; at?: string }[];
  firstSeq: number;
  /** set on a loop instance that ran only in a fork's origin */
  reusedFrom?: string;
}

export interface RestartEventLive {
  type: 'requested' | 'accepted' | 'rejected';
  seq: number;
  at?: string;
  requestSeq?: number;
  requester?: string;
  target?: string;
  reason?: string;
  iteration?: number;
  errorCode?: string;
  message?: string;
}

export interface RunLive {
  runId?: string;
  workflow?: string;
  status: 'unknown' | 'running' | 'completed' | 'failed' | 'paused' | 'cancelled';
  startedAt?: string;
  finishedAt?: string;
  lastSeq: number;
  /** the time of the latest event, to size running bars without a clock */
  lastAt?: string;
  execs: Record<string, ExecLive>;
  execOrder: string[];
  loops: Record<string, LoopLive>;
  loopOrder: string[];
  paused?: { node?: string; path?: string; message?: string; at?: string };
  finished?: { status?: string; errorCode?: string; message?: string; at?: string };
  restarts: RestartEventLive[];
  validationRetries: { seq: number; node?: string; path?: string; retry?: number; error?: string; sessionId?: string }[];
  listenerFailures: { seq: number; listener?: string; eventType?: string; message?: string }[];
  resumes: { seq: number; at?: string; from?: string; waitedAt?: string; answer?: unknown }[];
  usage: { inputTokens: number; outputTokens: number; costUsd: number | null; llmCalls: number };
}

export function emptyRun(): RunLive {
  return {
    status: 'unknown',
    lastSeq: 0,
    execs: {},
    execOrder: [],
    loops: {},
    loopOrder: [],
    restarts: [],
    validationRetries: [],
    listenerFailures: [],
    resumes: [],
    usage: { inputTokens: 0, outputTokens: 0, costUsd: null, llmCalls: 0 },
  };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : v == null ? undefined : String(v));
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const numOrNull = (v: unknown): number | null | undefined => (v === null ? null : num(v));

/** True for events that are never journaled (streamed text): they carry no sequence number and are never deduplicated. */
export function isEphemeral(e: RunEvent): boolean {
  return e.type === 'node.streaming' || !(typeof e.seq === 'number' && e.seq > 0);
}

/**
 * Applies the events in order and returns a new state; the input state and the objects in it are not changed. A
 * batch copies each record it touches once, so replaying a long journal stays linear.
 */
export function applyEvents(prev: RunLive, events: readonly RunEvent[]): RunLive {
  const draft: Draft = {
    s: {
      ...prev,
      execs: { ...prev.execs },
      loops: { ...prev.loops },
      execOrder: prev.execOrder.slice(),
      loopOrder: prev.loopOrder.slice(),
    },
    execsCopied: new Set(),
    loopsCopied: new Set(),
    passesCopied: new Set(),
  };
  let changed = false;
  for (const e of events) changed = applyTo(draft, e) || changed;
  return changed ? draft.s : prev;
}

export function applyEvent(prev: RunLive, e: RunEvent): RunLive {
  return applyEvents(prev, [e]);
}

interface Draft {
  s: RunLive;
  execsCopied: Set<string>;
  loopsCopied: Set<string>;
  /** loops whose `passes` array this batch already copied, so passes are added and ended in place */
  passesCopied: Set<string>;
}

function applyTo(d: Draft, e: RunEvent): boolean {
  if (!e || typeof e !== 'object' || typeof e.type !== 'string') return false;
  const s = d.s;
  const ephemeral = isEphemeral(e);
  const seq = ephemeral ? 0 : (e.seq as number);
  if (!ephemeral && seq <= s.lastSeq) return false;
  if (!ephemeral) s.lastSeq = seq;
  const at = str(e.at);
  if (at) s.lastAt = at;
  const path = str(e.path) ?? str(e.node) ?? '';

  const touchExec = (): ExecLive => {
    const existing = s.execs[path];
    if (existing && d.execsCopied.has(path)) {
      const kind = str(e.kind);
      if (kind) existing.kind = kind;
      return existing;
    }
    const x: ExecLive = existing
      ? { ...existing }
      : {
          path,
          staticPath: staticPath(path),
          node: str(e.node) ?? path,
          status: 'pending',
          attempt: 1,
          passes: passChain(path),
          llmCalls: [],
          steps: [],
          streamText: '',
          streamReply: 0,
          firstSeq: seq,
        };
    if (!existing) s.execOrder.push(path);
    const kind = str(e.kind);
    if (kind) x.kind = kind;
    s.execs[path] = x;
    d.execsCopied.add(path);
    return x;
  };

  const touchLoop = (): LoopLive => {
    const existing = s.loops[path];
    if (existing && d.loopsCopied.has(path)) return existing;
    const l: LoopLive = existing
      ? { ...existing }
      : {
          path,
          staticPath: staticPath(path),
          node: str(e.node) ?? path,
          passes: [],
          enclosing: passChain(path),
          loopBacks: [],
          firstSeq: seq,
        };
    if (!existing) s.loopOrder.push(path);
    s.loops[path] = l;
    d.loopsCopied.add(path);
    return l;
  };

  const setExec = (p: string, x: ExecLive) => {
    s.execs[p] = x;
    d.execsCopied.add(p);
  };

  switch (e.type) {
    case 'run.started':
      s.runId = str(e.run_id) ?? s.runId;
      s.workflow = str(e.workflow) ?? s.workflow;
      s.startedAt = at;
      s.status = 'running';
      break;
    case 'run.resumed':
      s.status = 'running';
      s.paused = undefined;
      s.finished = undefined;
      s.finishedAt = undefined;
      s.resumes = [...s.resumes, { seq, at, from: str(e.from), waitedAt: str(e.waited_at), answer: e.answer }];
      // What was waiting for a person is answered; it runs again or is restored.
      for (const [p, x] of Object.entries(s.execs)) {
        if (x.status === 'paused') setExec(p, { ...x, status: 'pending' });
      }
      break;
    case 'run.paused': {
      s.status = 'paused';
      s.paused = { node: str(e.node), path: str(e.path), message: str(e.message), at };
      const x = s.execs[path];
      if (x && (x.status === 'running' || x.status === 'pending')) setExec(path, { ...x, status: 'paused' });
      break;
    }
    case 'run.finished': {
      const status = str(e.status);
      s.status = status === 'completed' || status === 'failed' || status === 'cancelled' ? status : 'failed';
      s.finishedAt = at;
      s.finished = { status, errorCode: str(e.error_code), message: str(e.message), at };
      s.usage = {
        inputTokens: num(e.input_tokens) ?? s.usage.inputTokens,
        outputTokens: num(e.output_tokens) ?? s.usage.outputTokens,
        costUsd: numOrNull(e.cost_usd) ?? s.usage.costUsd,
        llmCalls: num(e.llm_calls) ?? s.usage.llmCalls,
      };
      // Anything still marked running was stopped with the run.
      for (const [p, x] of Object.entries(s.execs)) {
        if (x.status === 'running' || x.status === 'retrying') {
          setExec(p, { ...x, status: s.status === 'completed' ? 'completed' : 'cancelled', streamText: '' });
        }
      }
      break;
    }
    case 'node.started': {
      const x = touchExec();
      const ended = x.status === 'completed' || x.status === 'failed' || x.status === 'cancelled' || x.status === 'skipped';
      x.status = 'running';
      x.attempt = num(e.attempt) ?? x.attempt;
      // A node that ended and starts again (a failed node run again on resume) starts its record afresh, keeping its
      // LLM calls and steps; one that was still running or waiting (a loop continued on resume, a retry) keeps its
      // first start, so its bar covers the whole execution.
      if (!x.startedAt || (ended && x.attempt <= 1)) x.startedAt = at;
      x.finishedAt = undefined;
      x.durationMs = undefined;
      x.error = undefined;
      x.reason = undefined;
      x.streamText = '';
      x.streamReply = 0;
      break;
    }
    case 'node.completed': {
      const x = touchExec();
      x.status = 'completed';
      x.finishedAt = at;
      x.durationMs = num(e.duration_millis) ?? num(e.duration_ms);
      x.outputPreview = str(e.output_preview);
      x.inputTokens = num(e.input_tokens);
      x.outputTokens = num(e.output_tokens);
      x.costUsd = numOrNull(e.cost_usd);
      x.streamText = '';
      break;
    }
    case 'node.failed': {
      const x = touchExec();
      x.status = 'failed';
      x.finishedAt = at;
      x.durationMs = num(e.duration_millis) ?? num(e.duration_ms);
      x.error = { code: str(e.error_code), message: str(e.message), allowed: e.allowed === true };
      x.streamText = '';
      break;
    }
    case 'node.skipped': {
      const x = touchExec();
      x.status = 'skipped';
      x.reason = str(e.reason);
      x.finishedAt = at;
      break;
    }
    case 'node.cancelled': {
      const x = touchExec();
      x.status = 'cancelled';
      x.finishedAt = at;
      x.streamText = '';
      break;
    }
    case 'node.retrying': {
      const x = touchExec();
      x.status = 'retrying';
      x.attempt = num(e.attempt) ?? x.attempt;
      x.retryMessage = str(e.message);
      break;
    }
    case 'router.selected': {
      const x = touchExec();
      x.branch = str(e.branch);
      break;
    }
    case 'llm.call': {
      const x = touchExec();
      x.llmCalls = [
        ...x.llmCalls,
        {
          seq,
          at,
          provider: str(e.provider),
          model: str(e.model),
          inputTokens: num(e.input_tokens),
          outputTokens: num(e.output_tokens),
          costUsd: numOrNull(e.cost_usd),
          mock: e.mock === true || str(e.provider) === 'mock',
          attempts: num(e.attempts),
          durationMs: num(e.duration_millis) ?? num(e.duration_ms),
        },
      ];
      s.usage = {
        inputTokens: s.usage.inputTokens + (num(e.input_tokens) ?? 0),
        outputTokens: s.usage.outputTokens + (num(e.output_tokens) ?? 0),
        costUsd:
          num(e.cost_usd) === undefined ? s.usage.costUsd : (s.usage.costUsd ?? 0) + (num(e.cost_usd) as number),
        llmCalls: s.usage.llmCalls + 1,
      };
      break;
    }
    case 'node.step': {
      const x = touchExec();
      const step = e.step && typeof e.step === 'object' ? (e.step as Record<string, unknown>) : {};
      // Only an agent's model turns and tool calls are drawn; the journal's other steps (the engine's record of
      // each LLM call, a resume's bookkeeping) are not steps a reader follows.
      if (step.type === 'model' || step.type === 'tool') {
        x.steps = [...x.steps, { seq, at, step }];
      }
      break;
    }
    case 'node.streaming': {
      const x = touchExec();
      const reply = num(e.reply) ?? 1;
      const tokens = str(e.tokens) ?? '';
      if (reply !== x.streamReply) {
        x.streamReply = reply;
        x.streamText = tokens;
      } else {
        x.streamText = x.streamText + tokens;
      }
      if (x.status === 'pending') x.status = 'running';
      break;
    }
    case 'loop.started': {
      const l = touchLoop();
      l.construct = str(e.construct) ?? l.construct;
      l.max = num(e.max) ?? l.max;
      if (!l.startedAt) l.startedAt = at;
      l.endedAt = undefined;
      l.completed = undefined;
      break;
    }
    case 'loop.iteration': {
      const l = touchLoop();
      const passes = ownPasses(d, l);
      l.construct = str(e.construct) ?? l.construct;
      l.max = num(e.max) ?? l.max;
      const iteration = num(e.iteration) ?? passes.length + 1;
      if (e.condition_result === false) {
        // The while_loop check that ended the loop: no pass starts; the one before it has finished.
        endOpenPasses(passes, iteration, at, true);
        break;
      }
      const pass: LoopPassLive = {
        iteration,
        index: num(e.index),
        max: num(e.max),
        startedAt: at,
        inputPreview: str(e.input_preview),
        conditionResult: typeof e.condition_result === 'boolean' ? e.condition_result : null,
      };
      // Sequential loops end a pass when the next begins; an iterator's items overlap, so only the end of the loop
      // (or the pass's own executions, see passes.ts) tells when they finished.
      if (l.construct !== 'iterator') endOpenPasses(passes, iteration, at, true);
      const last = passes[passes.length - 1];
      if (!last || last.iteration < iteration) {
        passes.push(pass);
        break;
      }
      const i = passes.findIndex((p) => p.iteration >= iteration);
      if (passes[i]!.iteration === iteration) passes[i] = { ...passes[i]!, ...pass, endedAt: undefined };
      else passes.splice(i, 0, pass);
      break;
    }
    case 'loop.iterate': {
      const l = touchLoop();
      l.loopBacks = [
        ...l.loopBacks,
        {
          iteration: num(e.iteration) ?? l.loopBacks.length + 1,
          edgeFrom: str(e.edgeFrom) ?? str(e.edge_from),
          edgeTo: str(e.edgeTo) ?? str(e.edge_to),
          maxIterations: num(e.maxIterations) ?? num(e.max_iterations),
          at,
        },
      ];
      break;
    }
    case 'loop.completed': {
      const l = touchLoop();
      l.construct = str(e.construct) ?? l.construct;
      l.endedAt = at;
      endOpenPasses(ownPasses(d, l), Number.POSITIVE_INFINITY, at, false);
      l.completed = {
        iterationsRun: num(e.iterations_run),
        exitReason: str(e.exit_reason),
        inputTokens: num(e.input_tokens),
        outputTokens: num(e.output_tokens),
        costUsd: numOrNull(e.cost_usd),
        llmCalls: num(e.llm_calls),
      };
      break;
    }
    case 'restart.requested':
    case 'restart.accepted':
    case 'restart.rejected':
      s.restarts = [
        ...s.restarts,
        {
          type: e.type.slice('restart.'.length) as RestartEventLive['type'],
          seq,
          at,
          requestSeq: num(e.request_seq),
          requester: str(e.requester_stage_id),
          target: str(e.target_stage_id),
          reason: str(e.reason),
          iteration: num(e.iteration),
          errorCode: str(e.error_code),
          message: str(e.message),
        },
      ];
      break;
    case 'stage.validation_retry':
      s.validationRetries = [
        ...s.validationRetries,
        { seq, node: str(e.node), path: str(e.path), retry: num(e.retry), error: str(e.error), sessionId: str(e.session_id) },
      ];
      break;
    case 'listener.failed':
      s.listenerFailures = [
        ...s.listenerFailures,
        { seq, listener: str(e.listener), eventType: str(e.event_type), message: str(e.message) },
      ];
      break;
    default:
      // An event type this version does not know changes nothing but the position in the stream.
      break;
  }
  return true;
}

/** The loop's passes, copied once per batch so that they can change in place (the previous state keeps its own). */
function ownPasses(d: Draft, l: LoopLive): LoopPassLive[] {
  if (!d.passesCopied.has(l.path)) {
    l.passes = l.passes.slice();
    d.passesCopied.add(l.path);
  }
  return l.passes;
}

/**
 * Ends the passes still open before pass `before`. In a sequential loop only the latest passes can be open, so with
 * `sequential` the walk back from the end stops at the first ended pass: each event costs the passes it ends, not the
 * loop's length. The end of a loop (once per instance) walks them all, an iterator's items ending in any order.
 */
function endOpenPasses(passes: LoopPassLive[], before: number, at: string | undefined, sequential: boolean): void {
  for (let j = passes.length - 1; j >= 0; j--) {
    const p = passes[j]!;
    if (p.iteration >= before) continue;
    if (p.endedAt !== undefined) {
      if (sequential) break;
      continue;
    }
    passes[j] = { ...p, endedAt: at };
  }
}

/** The latest pass of a loop instance, or undefined before its first pass. */
export function currentPass(loop: LoopLive): LoopPassLive | undefined {
  return loop.passes.length ? loop.passes[loop.passes.length - 1] : undefined;
}

/** Loop instances of one place in the workflow (e.g. every `outer[k].inner`), in the order they began. */
export function loopInstances(run: RunLive, loopStatic: string): LoopLive[] {
  return run.loopOrder.map((p) => run.loops[p]!).filter((l) => l.staticPath === loopStatic);
}

// Shapes of the loopflow server's JSON API. Every field a server may leave out or set to null is optional here, so
// the views must render a missing value as empty.

export type RunStatus = 'running' | 'completed' | 'failed' | 'paused' | 'cancelled';

export interface RunSummary {
  run_id: string;
  workflow?: string | null;
  file?: string | null;
  status?: string | null;
  started_at?: string | null;
  finished_at?: string | null;
  duration_ms?: number | null;
  iterations?: number | null;
  llm_calls?: number | null;
  cost_usd?: number | null;
  error?: string | null;
  paused_at?: string | null;
  /** Paused, failed or interrupted: a resume continues it. */
  resumable?: boolean | null;
  /** for a fork: the run it was forked from and where */
  forked_from?: { run_id?: string | null; at?: string | null } | null;
}

export interface Usage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cost_usd?: number | null;
  llm_calls?: number | null;
}

export interface ErrorInfo {
  code?: string | null;
  message?: string | null;
  node?: string | null;
  path?: string | null;
  [detail: string]: unknown;
}

export interface Waiting {
  kind?: 'approval' | 'input' | string | null;
  node?: string | null;
  path?: string | null;
  loop?: string | null;
  iteration?: number | null;
  message?: string | null;
  deadline?: string | null;
  default?: string | null;
  /** the form the answer fills (an approval's schema, a gate's gate_schema); null when it asks for no values */
  schema?: unknown;
}

export interface RestartRequestRecord {
  requester_stage_id?: string | null;
  target_stage_id?: string | null;
  reason?: string | null;
  iteration?: number | null;
  success?: boolean | null;
  error?: { code?: string | null; message?: string | null } | null;
}

export interface RunDetail {
  run_id: string;
  status?: string | null;
  output?: unknown;
  state?: Record<string, unknown> | null;
  nodes?: Record<string, Record<string, unknown>> | null;
  usage?: Usage | null;
  error?: ErrorInfo | null;
  waiting?: Waiting | null;
  pipeline?: {
    iterations_executed?: number | null;
    validation_retries?: number | null;
    restart_requests?: RestartRequestRecord[] | null;
  } | null;
  /** present when the server adds them; the restart panel uses them to offer targets */
  restart_policy?: Record<string, unknown> | null;
  workflow?: string | null;
  /** for a fork: the run it was forked from, where, and what the reused executions spent there */
  forked_from?: ForkedFrom | null;
  /** the runs forked from this one, oldest first */
  forks?: ForkInfo[] | null;
  /** the run record's times and duration, the ones the run list shows (see model/runRow.ts runDuration) */
  started_at?: string | null;
  finished_at?: string | null;
  duration_ms?: number | null;
}

export interface ForkedFrom {
  run_id?: string | null;
  /** the fork point as written: `LOOP:PASS`, `OUTER:2/INNER:3` or `NODE` */
  at?: string | null;
  reused_usage?: Usage | null;
}

export interface ForkInfo {
  run_id: string;
  at?: string | null;
  status?: string | null;
}

/** `POST /api/runs/{id}/fork`'s body: the point, the edits (`state.KEY`, `NODE.output`, `loop.input`), run inputs. */
export interface ForkRequest {
  at: string;
  set?: Record<string, unknown>;
  inputs?: Record<string, unknown>;
  run_id?: string;
}

/** The answer to a fork's dry run: what is reused (and what it cost in the origin), what executes, the most it costs. */
export interface ForkPlan {
  dry_run?: boolean | null;
  origin?: string | null;
  at?: string | null;
  /** the positions of the reused executions, in journal order */
  reused?: string[] | null;
  reused_usage?: Usage | null;
  /** what executes from the point on, one line each */
  executes?: string[] | null;
  max_passes?: number | null;
  max_llm_calls?: number | null;
  max_cost_usd?: number | null;
}

export interface ForkStarted {
  run_id: string;
  status?: string | null;
}

/** One side of a diff: `label` says what it is (`run_x refine:2`); state after it; node outputs by path in the pass. */
export interface DiffSide {
  label?: string | null;
  state?: Record<string, unknown> | null;
  outputs?: Record<string, unknown> | null;
}

export interface RunDiff {
  left?: DiffSide | null;
  right?: DiffSide | null;
}

export interface Execution {
  node: string;
  path: string;
  loops?: { loop?: string; loopId?: string; iteration?: number }[] | null;
  kind?: string | null;
  status?: string | null;
  attempts?: number | null;
  started_at?: string | null;
  finished_at?: string | null;
  duration_ms?: number | null;
  input?: unknown;
  result?: Record<string, unknown> | null;
  usage?: Usage | null;
  error?: { code?: string | null; message?: string | null } | null;
  state_patch?: Record<string, unknown> | null;
  /** set on a fork's execution it reuses from its origin: the run it ran in */
  reused_from?: string | null;
}

export interface GraphNode {
  key: string;
  id: string;
  title?: string | null;
  kind?: string | null;
  parent?: string | null;
  path?: string | null;
  /** set on a loop node: the loop it runs */
  loop?: { construct?: string | null; max?: number | null } | null;
  /** `node`, or the markers and loop steps drawn too: `start`, `end`, `until_command`, `gate` */
  role?: string | null;
}

export interface GraphContainer {
  key: string;
  node?: string | null;
  title?: string | null;
  construct?: string | null;
  max?: number | null;
  parent?: string | null;
  /** the loop's position with passes removed (a loop edge's is `from->to`) */
  path?: string | null;
}

export type EdgeKind = 'next' | 'branch' | 'loop_back' | 'restart';

export interface GraphEdge {
  from: string;
  to: string;
  label?: string | null;
  kind?: EdgeKind | string | null;
  max?: number | null;
}

export interface RunGraph {
  workflow?: string | null;
  nodes: GraphNode[];
  containers?: GraphContainer[] | null;
  edges?: GraphEdge[] | null;
  restart?: {
    enabled?: boolean | null;
    /** the stages a restart may target */
    targets?: string[] | null;
    /** the stages that may request one (empty: all) */
    triggers?: string[] | null;
    max_iterations?: number | null;
    path?: string | null;
  } | null;
}

export interface WorkflowInput {
  name: string;
  type?: string | null;
  required?: boolean | null;
  default?: unknown;
  description?: string | null;
  /** the input's JSON Schema, when it was declared as one (then `type` may be null) */
  schema?: Record<string, unknown> | null;
}

export interface WorkflowInfo {
  name: string;
  file?: string | null;
  description?: string | null;
  valid?: boolean | null;
  inputs?: WorkflowInput[] | null;
  problems?: Problem[] | null;
}

export interface Problem {
  line?: number | null;
  col?: number | null;
  path?: string | null;
  message?: string | null;
}

export interface RestartResponse {
  success?: boolean | null;
  error?: { code?: string | null; message?: string | null } | null;
  iteration?: number | null;
  request_seq?: number | null;
  target_stage_id?: string | null;
}

/** An event as the journal and the SSE stream carry it (snake_case fields, `type`, `seq`, `at`). */
export interface RunEvent {
  type: string;
  seq?: number | null;
  at?: string | null;
  run_id?: string;
  node?: string | null;
  path?: string | null;
  loops?: { loopId?: string; loop?: string; iteration?: number }[] | null;
  [field: string]: unknown;
}

/** One pass of a loop instance as `GET /api/runs/{id}/loops/{loop}/passes` summarises it. */
export interface PassSummary {
  pass: number;
  status?: string | null;
  started_at?: string | null;
  finished_at?: string | null;
  duration_ms?: number | null;
  executions?: number | null;
  llm_calls?: number | null;
  cost_usd?: number | null;
  reused?: boolean | null;
}

export interface PassPage {
  run_id: string;
  loop: string;
  total: number;
  offset: number;
  limit: number;
  passes: PassSummary[];
}

/** Everything of one pass: `GET /api/runs/{id}/loops/{loop}/passes/{pass}`. */
export interface PassDetail {
  run_id: string;
  loop: string;
  pass: number;
  executions: Execution[];
  events: RunEvent[];
}

/** `GET /api/runs/{id}/steps?path=`: the journaled steps of the last execution at a position (an LLM call's messages). */
export interface ExecutionSteps {
  path?: string | null;
  steps?: Record<string, unknown>[] | null;
  /** steps past the answer's bound */
  more?: number | null;
}

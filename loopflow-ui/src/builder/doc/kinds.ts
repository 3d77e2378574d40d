// What the builder knows about node kinds without asking the server: how the loader tells a node's kind from its
// keys (type, uses, shorthand keys), which kinds hold a nested body and under which key, which pair up into a
// graph-form loop, and what a node dragged from the palette starts with. The field descriptions themselves come from
// GET /api/node-kinds (the loader's own tables); nothing here restates a kind's fields beyond a valid starting point.

/** `type:` values the loader accepts for another kind (the same table as the loader's NodeKinds.ALIASES). */
export const KIND_ALIASES: Record<string, string> = {
  'llm.call': 'llm',
  'claude.agent': 'llm',
  bash: 'shell',
  lua: 'script',
  python: 'script',
  code: 'script',
};

/** Shorthand keys in the loader's order of precedence, and the kind each stands for. */
export const SHORTHANDS: [string, string][] = [
  ['prompt', 'llm'],
  ['bash', 'shell'],
  ['run', 'script'],
  ['loop_group', 'loop_group'],
  ['approval', 'approval'],
  ['cancel', 'cancel'],
  ['command', 'shell'],
];

/** `uses:` actions and their kind. */
export const ACTIONS: Record<string, string> = { 'llm.call': 'llm' };

/** The key of a node's nested body, for the kinds that have one (their nodes sit in a list of their own). */
export const BODY_KEYS: Record<string, string> = { while_loop: 'body', loop_group: 'nodes' };

/** Loop kinds whose body is the nodes between them and their partner on the same list (graph form). */
export const GRAPH_FORM_PARTNER: Record<string, string> = { loop: 'exit', iterator: 'aggregator' };

export const LOOP_KINDS = new Set(['loop', 'while_loop', 'loop_group', 'iterator']);

/** A node's kind as the loader decides it from its keys; undefined when nothing names one. */
export function kindOf(keys: Map<string, unknown>): string | undefined {
  const type = keys.get('type');
  if (typeof type === 'string' && type.trim()) return KIND_ALIASES[type] ?? type;
  const uses = keys.get('uses');
  if (typeof uses === 'string' && uses.trim()) return ACTIONS[uses] ?? uses;
  for (const [key, kind] of SHORTHANDS) if (keys.has(key)) return kind;
  return undefined;
}

export type PaletteGroup = 'LOGIC' | 'AI' | 'ACTIONS' | 'I/O' | 'OTHER';

export interface PaletteEntry {
  kind: string;
  label: string;
  group: PaletteGroup;
  /** the id a new node gets, numbered until it is free */
  idBase: string;
  /** the fields a new node starts with (besides id), chosen so the node alone is as close to valid as it can be */
  starter: Record<string, unknown>;
}

/** The palette, in the order it is shown. Kinds the server knows that are not here go under OTHER. */
export const PALETTE: PaletteEntry[] = [
  { group: 'LOGIC', kind: 'approval', label: 'Approval', idBase: 'approve', starter: { type: 'approval', message: 'Approve?' } },
  { group: 'LOGIC', kind: 'transform', label: 'Transform', idBase: 'transform', starter: { type: 'transform', template: '' } },
  {
    group: 'LOGIC',
    kind: 'validator',
    label: 'Validator',
    idBase: 'validate',
    starter: { type: 'validator', value: '', schema: { type: 'object' } },
  },
  { group: 'LOGIC', kind: 'iterator', label: 'Iterator', idBase: 'each', starter: { type: 'iterator', items: '{{ input.items }}' } },
  { group: 'LOGIC', kind: 'aggregator', label: 'Aggregator', idBase: 'collect', starter: { type: 'aggregator' } },
  {
    group: 'LOGIC',
    kind: 'loop',
    label: 'Loop',
    idBase: 'repeat',
    starter: { type: 'loop', maxIterations: 5, exitCondition: 'max_iterations', feedbackMode: 'replace' },
  },
  { group: 'LOGIC', kind: 'exit', label: 'Exit', idBase: 'exit', starter: { type: 'exit' } },
  { group: 'LOGIC', kind: 'router', label: 'Router', idBase: 'route', starter: { type: 'router', routes: { default: 'true' } } },
  {
    group: 'LOGIC',
    kind: 'while_loop',
    label: 'While loop',
    idBase: 'while',
    starter: { type: 'while_loop', condition: 'false', max_iterations: 5, body: [] },
  },
  { group: 'LOGIC', kind: 'loop_group', label: 'Loop group', idBase: 'group', starter: { type: 'loop_group', max_iterations: 3, nodes: [] } },
  { group: 'LOGIC', kind: 'cancel', label: 'Cancel', idBase: 'cancel', starter: { type: 'cancel' } },
  { group: 'AI', kind: 'llm', label: 'LLM', idBase: 'llm', starter: { type: 'llm', model: 'auto', prompt: 'Write one short paragraph.' } },
  { group: 'AI', kind: 'agent', label: 'Agent', idBase: 'agent', starter: { type: 'agent', model: 'auto', prompt: 'Describe the task to carry out.' } },
  { group: 'ACTIONS', kind: 'shell', label: 'Shell', idBase: 'shell', starter: { type: 'shell', command: 'echo hello' } },
  { group: 'ACTIONS', kind: 'script', label: 'Script', idBase: 'script', starter: { type: 'script', run: 'return {}' } },
  { group: 'ACTIONS', kind: 'http', label: 'HTTP', idBase: 'http', starter: { type: 'http', url: 'https://example.com' } },
  { group: 'I/O', kind: 'input', label: 'Input', idBase: 'input_node', starter: { type: 'input' } },
  { group: 'I/O', kind: 'output', label: 'Output', idBase: 'result', starter: { type: 'output' } },
];

export const PALETTE_GROUPS: PaletteGroup[] = ['LOGIC', 'AI', 'ACTIONS', 'I/O', 'OTHER'];

/** The palette for the kinds the server knows (or the table alone when it could not say): unknown kinds go to OTHER. */
export function paletteFor(serverKinds: string[] | null): PaletteEntry[] {
  const known = new Set(PALETTE.map((p) => p.kind));
  const extra = (serverKinds ?? [])
    .filter((k) => !known.has(k) && /^[A-Za-z_][A-Za-z0-9_.-]*$/.test(k))
    .map<PaletteEntry>((k) => ({ group: 'OTHER', kind: k, label: k, idBase: k.replace(/[^A-Za-z0-9_]/g, '_'), starter: { type: k } }));
  return [...PALETTE, ...extra];
}

export function paletteEntry(kind: string, entries: PaletteEntry[] = PALETTE): PaletteEntry {
  return entries.find((e) => e.kind === kind) ?? { group: 'OTHER', kind, label: kind, idBase: 'node', starter: { type: kind } };
}

/** Ids the loader reserves (a node cannot take them). */
export const RESERVED_IDS = new Set(['__start__', '__end__', 'input', 'flow', 'state', 'loop', 'previous', 'env', 'run', 'range', 'item']);

export const ID_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]*$/;

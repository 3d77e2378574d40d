// What the builder's parts exchange. The page (BuilderPage) owns the workflow document and its history; the canvas,
// the config panel and the YAML pane only show what they are given and report edits through callbacks, so data flows
// one way: document -> view -> edit -> new document.

/** A problem the server's loader reported (POST /api/validate), placed on a node when its path names one. */
export interface Problem {
  line: number;
  col: number;
  /** The loader's field path, e.g. `nodes.b.depnds_on`; empty for the whole file. */
  path: string;
  message: string;
}

/** One field of a node kind or section, as the loader reads it (GET /api/node-kinds). */
export interface FieldDescription {
  name: string;
  /** STRING, TEMPLATE, CONDITION, INTEGER, NUMBER, BOOLEAN, DURATION, CHOICE, NODE_ID, NODE_IDS, SECTION, MAP, LIST,
   *  ONE_OF, NODES, JSON_SCHEMA or ANY. */
  type: string;
  description: string;
  required: boolean;
  aliases: string[];
  values: string[];
  minimum: number | null;
  maximum: number | null;
  fields: FieldDescription[];
  items: FieldDescription | null;
  alternatives: FieldDescription[];
}

/** One node kind (GET /api/node-kinds): the fields it takes besides the ones every node has. */
export interface NodeKindDescription {
  kind: string;
  description: string;
  fields: FieldDescription[];
  oneRequired: string[][];
  atMostOne: string[][];
  /** The fields a template reads from this kind's result (`status`, `output`, `error` and the kind's own, e.g.
   *  `stdout`, `text`), as loading checks them; null when the kind leaves them unchecked. */
  results?: string[] | null;
  /** The names of the common fields this kind takes (a loop takes no `retry`); absent: all of them. */
  common?: string[];
}

/** Everything GET /api/node-kinds answers. */
export interface NodeKindCatalog {
  /** Fields every node takes (id, type, depends_on, when, ...). */
  common: FieldDescription[];
  kinds: NodeKindDescription[];
  /** What a node id must match (a JavaScript and Java regular expression, anchored). */
  idPattern?: string;
  /** Ids no node may have. */
  reservedIds?: string[];
  /** What a DURATION written as text must match (a bare number is seconds). */
  durationPattern?: string;
  /** Other names `type:` accepts and the kind each stands for (`bash` → `shell`). */
  typeAliases?: Record<string, string>;
  /** Shorthand keys and the kind each implies (`prompt` → `llm`), in the order the loader tries them. */
  shorthands?: Record<string, string>;
  /** The fields of `loop` inside a loop body (`iteration`, `max`, `input`, `prev`, ...). */
  loopVariables?: string[];
  /** The fields of `run` (`id`, `workflow`, ...). */
  runVariables?: string[];
}

/** A node as the config panel edits it. `path` is the ids of the containers it sits in, outermost first. */
export interface SelectedNode {
  id: string;
  kind: string;
  path: string[];
  /** The node's fields as written in the file (plain JSON values), `id` and `type` included. */
  values: Record<string, unknown>;
}

/** A value a template in the selected node can read, offered by autocomplete: `input.topic`, `draft.text`, ... */
export interface ReachableValue {
  expression: string;
  /** Where it comes from, shown next to it: "input", "node draft (llm)", "loop refine". */
  source: string;
}

/** A bundled workflow template (GET /api/templates). `form` is the loop construct it shows: loop, loop edge,
 *  while_loop, loop_group or pipeline. */
export interface TemplateSummary {
  id: string;
  name: string;
  description: string;
  form: string;
}

/** A template with its YAML (GET /api/templates/{id}). */
export interface TemplateSource extends TemplateSummary {
  source: string;
}

// The workflow document the builder edits: the file's text is the single source of truth, and everything the canvas,
// the config panel and the YAML pane show is read from it. Every operation returns a new document whose text differs
// from the old one only where the edit had to change it (see text.ts), so an unchanged document is the file byte for
// byte, and comments, quoting and key order elsewhere survive every edit.
//
// Nothing here throws for a bad file: a file that is not YAML, whose root is not a mapping, or whose nodes are odd
// (aliases, scalars, duplicate ids) is read as far as it goes and the rest is reported in `issues`; an operation that
// cannot be made answers {ok: false, error} saying why.
import { isAlias, isMap, isScalar, isSeq, parseDocument, type Document, type Node as YNode, type Pair, type YAMLMap, type YAMLSeq } from 'yaml';
import { BODY_KEYS, ID_PATTERN, RESERVED_IDS, kindOf } from './kinds';
import {
  applySplices,
  blockItem,
  blockPair,
  columnOf,
  eolOf,
  flowValue,
  inlineScalar,
  lineEndExcl,
  lineEndIncl,
  lineStart,
  onlyIndentBefore,
  type Splice,
} from './text';

/** One node of the file, where it sits, and the YAML it was read from. */
export interface DocNode {
  id: string;
  kind: string | undefined;
  /** the ids of the containers it sits in, outermost first */
  path: string[];
  map: YAMLMap;
  /** the mapping holding the kind's fields besides the node's own (a `loop_group:` or `with:` mapping), if any */
  fieldsMap: YAMLMap | null;
  /** the list it is an item of */
  list: YAMLSeq;
  /** for while_loop and loop_group: the nested body's nodes */
  children: DocNode[] | null;
  /** 1-based line of the node in the file */
  line: number;
}

export type Edit = { ok: true; doc: WorkflowDoc; created?: string } | { ok: false; error: string };

/** A dependency between two nodes of one list, as the file states it. */
export interface DocEdge {
  from: string;
  to: string;
  /** `edge` for an item of `edges:`, `depends_on`, or `order` when the list runs in listed order */
  source: 'edge' | 'depends_on' | 'order';
  loop: boolean;
  max: number | null;
  branch: string | null;
  when: string | null;
}

/** Keys whose values are conditions (whole expressions), not templates. */
const CONDITION_KEYS = new Set(['when', 'condition', 'var', 'exitCondition']);

export class WorkflowDoc {
  readonly text: string;
  readonly yaml: Document.Parsed | null;
  /** why the file cannot be edited or drawn in full (YAML errors, a root that is not a mapping, odd nodes) */
  readonly issues: string[] = [];
  readonly nodes: DocNode[] = [];
  /** the document can be edited: the YAML parsed without errors and the root is a mapping */
  readonly editable: boolean;

  constructor(text: string) {
    this.text = text;
    let yaml: Document.Parsed | null = null;
    try {
      yaml = parseDocument(text, { uniqueKeys: false, prettyErrors: false, strict: false });
    } catch (e) {
      this.issues.push(`the YAML could not be read: ${e instanceof Error ? e.message : String(e)}`);
    }
    this.yaml = yaml;
    if (yaml) for (const e of yaml.errors) this.issues.push(e.message.split('\n')[0] ?? 'YAML error');
    const root = yaml?.contents;
    this.editable = !!yaml && yaml.errors.length === 0 && (isMap(root) || root == null);
    if (yaml && root != null && !isMap(root)) this.issues.push('a workflow file is a YAML mapping; this file’s top level is not one');
    if (isMap(root)) {
      const list = valueOf(root, 'nodes');
      if (isSeq(list)) this.readList(list, [], this.nodes);
    }
  }

  /** The name a new workflow starts with, until it is saved under a name of its own. */
  static readonly UNTITLED = 'untitled';

  static empty(name = WorkflowDoc.UNTITLED): WorkflowDoc {
    return new WorkflowDoc(`name: ${name}\nnodes: []\nedges: []\n`);
  }

  toString(): string {
    return this.text;
  }

  private readList(list: YAMLSeq, path: string[], out: DocNode[]): void {
    const seen = new Set<string>();
    for (const item of list.items) {
      if (!isMap(item)) {
        this.issues.push(`line ${this.lineOf(item as YNode)}: a node that is not a mapping (${isAlias(item) ? 'an alias' : 'a value'}) cannot be edited here`);
        continue;
      }
      const id = scalarString(valueOf(item, 'id')) ?? scalarString(valueOf(item, 'name')) ?? '';
      const keys = new Map<string, unknown>();
      for (const p of item.items) if (isScalar(p.key)) keys.set(String(p.key.value), isScalar(p.value) ? p.value.value : p.value);
      const kind = kindOf(keys);
      const shorthand = valueOf(item, 'loop_group');
      const withMap = valueOf(item, 'with');
      const inputMap = typeof keys.get('type') === 'string' ? valueOf(item, 'input') : undefined;
      const fieldsMap = isMap(shorthand) ? shorthand : isMap(withMap) ? withMap : isMap(inputMap) ? inputMap : null;
      if (id && seen.has(id)) this.issues.push(`line ${this.lineOf(item)}: duplicate node id '${id}'; edits act on the first`);
      if (id) seen.add(id);
      const node: DocNode = { id, kind, path, map: item, fieldsMap, list, children: null, line: this.lineOf(item) };
      out.push(node);
      const bodyKey = kind ? BODY_KEYS[kind] : undefined;
      if (bodyKey && id) {
        node.children = [];
        const body = valueOf(item, bodyKey) ?? (fieldsMap ? valueOf(fieldsMap, bodyKey) : undefined);
        if (isSeq(body)) this.readList(body, [...path, id], node.children);
      }
    }
  }

  private lineOf(n: YNode | null | undefined): number {
    return this.lineAt(n?.range?.[0] ?? 0);
  }

  private newlines: number[] | null = null;

  /** The 1-based line of a character offset (a binary search over the text's line ends, found once). */
  lineAt(pos: number): number {
    if (!this.newlines) {
      const ends: number[] = [];
      for (let i = this.text.indexOf('\n'); i >= 0; i = this.text.indexOf('\n', i + 1)) ends.push(i);
      this.newlines = ends;
    }
    const ends = this.newlines;
    let lo = 0;
    let hi = ends.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ends[mid]! < pos) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  }

  /** Every node, depth first, in file order. */
  allNodes(): DocNode[] {
    const out: DocNode[] = [];
    const walk = (ns: DocNode[]) => ns.forEach((n) => (out.push(n), n.children && walk(n.children)));
    walk(this.nodes);
    return out;
  }

  /** The nodes of one list: the top level (path []) or a container's body. */
  level(path: string[]): DocNode[] | undefined {
    let ns: DocNode[] | null = this.nodes;
    for (const id of path) {
      const c: DocNode | undefined = ns?.find((n) => n.id === id);
      ns = c?.children ?? null;
      if (!ns) return undefined;
    }
    return ns ?? undefined;
  }

  find(path: string[], id: string): DocNode | undefined {
    return this.level(path)?.find((n) => n.id === id);
  }

  /** A node by id anywhere in the file (the first one when ids repeat across lists). */
  findAnywhere(id: string): DocNode | undefined {
    return this.allNodes().find((n) => n.id === id);
  }

  /** The node's fields as written in the file, as plain values (what the config panel edits). */
  values(node: DocNode): Record<string, unknown> {
    const v = plain(node.map, this.yaml);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  }

  /** The node's fields with a shorthand or `with:` mapping's fields lifted and nested bodies left out (for display). */
  liftedValues(node: DocNode): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const bodyKey = node.kind ? BODY_KEYS[node.kind] : undefined;
    const take = (m: YAMLMap, skip: YAMLMap | null) => {
      for (const p of m.items) {
        if (!isScalar(p.key)) continue;
        const k = String(p.key.value);
        if (k === bodyKey || (skip && p.value === skip)) continue;
        out[k] = plain(p.value, this.yaml);
      }
    };
    take(node.map, node.fieldsMap);
    if (node.fieldsMap) take(node.fieldsMap, null);
    return out;
  }

  /** The dependencies of one list as the file states them (edges only exist at the top level). */
  edges(path: string[]): DocEdge[] {
    const level = this.level(path) ?? [];
    const out: DocEdge[] = [];
    const root = this.yaml?.contents;
    let explicit = false;
    if (path.length === 0 && isMap(root)) {
      const edges = valueOf(root, 'edges');
      if (isSeq(edges)) {
        for (const e of edges.items) {
          if (!isMap(e)) continue;
          const from = scalarString(valueOf(e, 'from'));
          const to = scalarString(valueOf(e, 'to'));
          if (!from || !to) continue;
          explicit = true;
          const type = scalarString(valueOf(e, 'type'));
          const maxNode = valueOf(e, 'maxIterations') ?? valueOf(e, 'max_iterations');
          const max = isScalar(maxNode) && typeof maxNode.value === 'number' ? maxNode.value : null;
          const when = valueOf(e, 'when');
          out.push({
            from,
            to,
            source: 'edge',
            loop: type === 'loop',
            max,
            branch: scalarString(valueOf(e, 'branch')) ?? null,
            when: when == null ? null : isScalar(when) ? String(when.value) : String(this.sourceOf(when)),
          });
        }
      }
    }
    for (const n of level) {
      for (const d of this.dependsOn(n)) {
        explicit = true;
        out.push({ from: d, to: n.id, source: 'depends_on', loop: false, max: null, branch: null, when: null });
      }
    }
    if (!explicit && this.runsInOrder(path)) {
      for (let i = 1; i < level.length; i++) {
        out.push({ from: level[i - 1]!.id, to: level[i]!.id, source: 'order', loop: false, max: null, branch: null, when: null });
      }
    }
    return out;
  }

  /** A list without any stated dependency runs in listed order at the top level and in a while_loop's body. */
  runsInOrder(path: string[]): boolean {
    if (path.length === 0) return true;
    const owner = this.find(path.slice(0, -1), path[path.length - 1]!);
    return owner?.kind === 'while_loop';
  }

  dependsOn(n: DocNode): string[] {
    const v = valueOf(n.map, 'depends_on');
    if (isScalar(v)) return typeof v.value === 'string' && v.value ? [v.value] : [];
    if (isSeq(v)) return v.items.map((i) => scalarString(i as YNode)).filter((s): s is string => !!s);
    return [];
  }

  /** The edge style of the top level: the file's own, or `edges:` for a file that states none. */
  edgeStyle(path: string[]): 'edges' | 'depends_on' {
    if (path.length > 0) return 'depends_on';
    const root = this.yaml?.contents;
    if (isMap(root) && hasKey(root, 'edges')) return 'edges';
    if ((this.level([]) ?? []).some((n) => hasKey(n.map, 'depends_on'))) return 'depends_on';
    return 'edges';
  }

  private sourceOf(n: YNode): string {
    const r = n.range;
    return r ? this.text.slice(r[0], r[1]).trim() : '';
  }

  // ---------------------------------------------------------------------------------------------------------------
  // operations

  private guard(f: () => Edit): Edit {
    if (!this.editable) return { ok: false, error: `the file cannot be edited until its YAML is fixed: ${this.issues[0] ?? 'not a mapping'}` };
    try {
      return f();
    } catch (e) {
      return { ok: false, error: e instanceof EditRefused ? e.message : `the edit could not be made: ${e instanceof Error ? e.message : String(e)}` };
    }
  }

  private with(splices: Splice[]): WorkflowDoc {
    return new WorkflowDoc(applySplices(this.text, splices));
  }

  /** An id not used anywhere in the file, from `base` (base, base_2, base_3, ...). */
  freeId(base: string): string {
    const used = new Set(this.allNodes().map((n) => n.id));
    const clean = ID_PATTERN.test(base) && !RESERVED_IDS.has(base) ? base : 'node';
    if (!used.has(clean)) return clean;
    for (let i = 2; ; i++) if (!used.has(`${clean}_${i}`)) return `${clean}_${i}`;
  }

  /**
   * Adds a node of a kind to the top level or to a container's body: at the end, or before the list's item `at` (the
   * place a node dropped on the canvas takes among its siblings, so the file lists nodes as the canvas shows them).
   */
  addNode(starter: Record<string, unknown>, idBase: string, container: string[] = [], id?: string, at?: number): Edit {
    return this.guard(() => {
      const newId = id ?? this.freeId(idBase);
      checkId(newId);
      if (this.allNodes().some((n) => n.id === newId)) refuse(`a node '${newId}' already exists`);
      const item = { id: newId, ...starter };
      const level = this.level(container) ?? [];
      const before = at !== undefined && at >= 0 && at < level.length ? level[at] : undefined;
      const doc = before ? this.insertBefore(before, item) : this.insertItem(container, item, null);
      return { ok: true, doc, created: newId };
    });
  }

  /** Inserts a node item just before another node of the same list, in that list's style. */
  private insertBefore(next: DocNode, value: Record<string, unknown>): WorkflowDoc {
    const eol = eolOf(this.text);
    const list = next.list;
    const start = next.map.range![0];
    if (list.flow) return this.with([{ start, end: start, text: flowValue(value) + ', ' }]);
    const dash = this.text.lastIndexOf('-', start);
    if (dash < 0 || !onlyIndentBefore(this.text, dash)) return this.insertItem(next.path, value, null);
    const dashCol = columnOf(this.text, dash);
    // the comment lines right above a node belong to it: the new node goes above them
    let at = lineStart(this.text, dash);
    while (at > 0) {
      const prev = lineStart(this.text, at - 1);
      if (!this.text.slice(prev, at).trim().startsWith('#')) break;
      at = prev;
    }
    return this.with([{ start: at, end: at, text: blockItem(value, dashCol, eol) }]);
  }

  /** Inserts a node item (a value, or source text of a block item to re-indent) at the end of a list. */
  private insertItem(container: string[], value: Record<string, unknown>, sourceText: string | null): WorkflowDoc {
    const eol = eolOf(this.text);
    const root = this.yaml!.contents;
    let ownerMap: YAMLMap;
    let key: string;
    if (container.length === 0) {
      if (!isMap(root)) return new WorkflowDoc(blockPair('nodes', [value], 0, eol) + eol + this.text);
      ownerMap = root;
      key = 'nodes';
    } else {
      const owner = this.find(container.slice(0, -1), container[container.length - 1]!);
      if (!owner || !owner.children) refuse(`'${container.join('.')}' is not a while_loop or loop_group`);
      key = BODY_KEYS[owner.kind!]!;
      ownerMap = owner.fieldsMap && !hasKey(owner.map, key) ? owner.fieldsMap : owner.map;
    }
    const list = valueOf(ownerMap, key);
    if (isSeq(list) && !list.flow && list.items.length > 0) {
      const last = list.items[list.items.length - 1] as YNode;
      const dashCol = columnOf(this.text, list.range![0]);
      let at = lineEndIncl(this.text, Math.max(last.range![1] - 1, last.range![0]));
      let text = sourceText !== null ? reindentItem(sourceText, dashCol, eol) : blockItem(value, dashCol, eol);
      if (at === this.text.length && !this.text.endsWith('\n')) text = eol + text;
      at = Math.min(at, this.text.length);
      return this.with([{ start: at, end: at, text }]);
    }
    if (isSeq(list) && list.flow && list.items.length > 0) {
      // a flow list keeps its style: the new node is added in flow style before the closing bracket
      const close = list.range![1] - 1;
      return this.with([{ start: close, end: close, text: ', ' + flowValue(value) }]);
    }
    // no list yet, an empty one, or null: the whole entry is written anew in block style
    return this.setPair(ownerMap, key, [value]);
  }

  /** Sets `key` of a mapping to a value (or removes it when value is undefined), touching only that entry. */
  private setPair(map: YAMLMap, key: string, value: unknown): WorkflowDoc {
    return this.with(this.pairSplices(map, key, value));
  }

  private pairSplices(map: YAMLMap, key: string, value: unknown): Splice[] {
    const eol = eolOf(this.text);
    const idx = map.items.findIndex((p) => isScalar(p.key) && p.key.value === key);
    const pair = idx >= 0 ? map.items[idx]! : undefined;
    if (value === undefined) {
      if (!pair) return [];
      return [this.removePairSplice(map, idx)];
    }
    if (map.flow) {
      if (pair) {
        const v = pair.value as YNode | null;
        if (v?.range) return [{ start: v.range[0], end: v.range[1], text: flowValue(value) }];
        const k = pair.key as YNode;
        return [{ start: k.range![0], end: k.range![1], text: `${flowValue(key)}: ${flowValue(value)}` }];
      }
      const lastPair = map.items[map.items.length - 1];
      if (!lastPair) {
        const open = map.range![0] + 1;
        return [{ start: open, end: open, text: `${flowValue(key)}: ${flowValue(value)}` }];
      }
      const end = pairEnd(lastPair);
      return [{ start: end, end, text: `, ${flowValue(key)}: ${flowValue(value)}` }];
    }
    if (pair) {
      const k = pair.key as YNode;
      const v = pair.value as YNode | null;
      if (isMap(v) && !v.flow && v.items.length > 0 && isPlainObject(value)) {
        // a section given whole (the config panel reports one so): only the entries that differ are rewritten
        return this.mergeSplices(v, value);
      }
      const oneLine = inlineScalar(value);
      if (v && isScalar(v) && v.range && v.range[1] > v.range[0] && oneLine !== undefined && !isBlockScalar(this.text, v)) {
        return [{ start: v.range[0], end: v.range[1], text: oneLine }];
      }
      // a flow collection keeps its style, unless it was empty (`nodes: []`): what fills it is written in block style
      if (v && !isScalar(v) && (v as YAMLMap).flow && (v as YAMLMap).items.length > 0 && v.range && value !== null && typeof value === 'object') {
        return [{ start: v.range[0], end: v.range[1], text: flowValue(value) }];
      }
      const col = columnOf(this.text, k.range![0]);
      const end = v?.range ? lineEndExcl(this.text, Math.max(v.range[1] - 1, v.range[0])) : lineEndExcl(this.text, k.range![1]);
      return [{ start: k.range![0], end, text: blockPair(key, value, col, eol) }];
    }
    const first = map.items[0];
    const last = map.items[map.items.length - 1];
    if (!first || !last) refuse('an empty mapping in block style cannot take a field');
    const col = columnOf(this.text, (first.key as YNode).range![0]);
    const lastEnd = pairEnd(last);
    let at = lineEndIncl(this.text, Math.max(lastEnd - 1, 0));
    let text = ' '.repeat(col) + blockPair(key, value, col, eol) + eol;
    if (at >= this.text.length && !this.text.endsWith('\n')) text = eol + text;
    at = Math.min(at, this.text.length);
    return [{ start: at, end: at, text }];
  }

  private mergeSplices(map: YAMLMap, value: Record<string, unknown>): Splice[] {
    const out: Splice[] = [];
    const present = new Set<string>();
    for (const p of map.items) {
      if (!isScalar(p.key)) continue;
      const k = String(p.key.value);
      present.add(k);
      if (!Object.prototype.hasOwnProperty.call(value, k)) out.push(...this.pairSplices(map, k, undefined));
      else if (!sameJson(plain(p.value, this.yaml), value[k])) out.push(...this.pairSplices(map, k, value[k]));
    }
    const added = Object.keys(value).filter((k) => !present.has(k) && value[k] !== undefined);
    if (added.length) {
      // new entries go together after the last one, in the order given
      const first = map.items[0]!;
      const col = columnOf(this.text, (first.key as YNode).range![0]);
      const eol = eolOf(this.text);
      let at = lineEndIncl(this.text, Math.max(pairEnd(map.items[map.items.length - 1]!) - 1, 0));
      let text = added.map((k) => ' '.repeat(col) + blockPair(k, value[k], col, eol) + eol).join('');
      if (at >= this.text.length && !this.text.endsWith('\n')) text = eol + text;
      at = Math.min(at, this.text.length);
      out.push({ start: at, end: at, text });
    }
    return out;
  }

  private removePairSplice(map: YAMLMap, idx: number): Splice {
    const pair = map.items[idx]!;
    const k = pair.key as YNode;
    const end = pairEnd(pair);
    if (map.flow) {
      if (idx > 0) return { start: pairEnd(map.items[idx - 1]!), end, text: '' };
      const next = map.items[idx + 1];
      return { start: k.range![0], end: next ? (next.key as YNode).range![0] : end, text: '' };
    }
    if (!onlyIndentBefore(this.text, k.range![0])) {
      // the first entry of a list item (`- key: v`): the next entry moves up behind the dash
      const next = map.items[idx + 1];
      if (!next) refuse('the last field of a node cannot be removed');
      return { start: k.range![0], end: (next.key as YNode).range![0], text: '' };
    }
    return { start: lineStart(this.text, k.range![0]), end: lineEndIncl(this.text, Math.max(end - 1, k.range![0])), text: '' };
  }

  /** Where a node field lives: the node's own mapping, or the lifted mapping that already has it or takes kind fields. */
  private fieldHome(node: DocNode, field: string): YAMLMap {
    if (hasKey(node.map, field)) return node.map;
    if (node.fieldsMap && hasKey(node.fieldsMap, field)) return node.fieldsMap;
    if (node.fieldsMap && !COMMON_FIELDS.has(field)) return node.fieldsMap;
    return node.map;
  }

  /**
   * Sets (or, with undefined, removes) a field of a node. `field` may be a dotted path into a section
   * (`budget.max_usd`); the sections on the way are created when missing.
   */
  setField(path: string[], id: string, field: string, value: unknown): Edit {
    return this.guard(() => {
      const node = this.find(path, id);
      if (!node) refuse(`there is no node '${id}'`);
      const parts = field.split('.').filter(Boolean);
      if (parts.length === 0) refuse('no field named');
      if ((parts[0] === 'id' || parts[0] === 'name') && parts.length === 1) {
        if (typeof value !== 'string') refuse('a node id is text');
        return this.renameNode(path, id, value);
      }
      let map = this.fieldHome(node, parts[0]!);
      for (let i = 0; i < parts.length - 1; i++) {
        const inner = valueOf(map, parts[i]!);
        if (!isMap(inner)) {
          if (value === undefined) return { ok: true, doc: this };
          let nested: unknown = value;
          for (let j = parts.length - 1; j > i; j--) nested = { [parts[j]!]: nested };
          return { ok: true, doc: this.setPair(map, parts[i]!, nested) };
        }
        map = inner;
      }
      return { ok: true, doc: this.setPair(map, parts[parts.length - 1]!, value) };
    });
  }

  /** The workflow's own `name:` (top level), when it is text. */
  workflowName(): string | undefined {
    const root = this.yaml?.contents;
    return isMap(root) ? scalarString(valueOf(root, 'name')) : undefined;
  }

  /** Sets the workflow's own `name:` at the top level. */
  setWorkflowName(name: string): Edit {
    return this.guard(() => {
      const root = this.yaml?.contents;
      if (!isMap(root)) refuse('the file has no top-level mapping to name');
      return { ok: true, doc: this.setPair(root as YAMLMap, 'name', name) };
    });
  }

  /** Removes a node, the edges naming it and its id from its siblings' depends_on. */
  removeNode(path: string[], id: string): Edit {
    return this.guard(() => {
      const node = this.find(path, id);
      if (!node) refuse(`there is no node '${id}'`);
      let doc: WorkflowDoc = this.materializeOrder(path);
      doc = doc.dropReferences(path, id);
      const again = doc.find(path, id)!;
      return { ok: true, doc: doc.with([doc.removeItemSplice(again.list, again.list.items.indexOf(again.map))]) };
    });
  }

  /** Removes edges from/to `id` (top level) and `id` from the depends_on of its siblings. */
  private dropReferences(path: string[], id: string): WorkflowDoc {
    // every reference in one edit when the edits do not touch each other; else one at a time
    try {
      const splices: Splice[] = [];
      const root = this.yaml!.contents;
      const edges = path.length === 0 && isMap(root) ? valueOf(root, 'edges') : undefined;
      if (isSeq(edges)) {
        const hit = edges.items.map((e, i) => (isMap(e) && (scalarString(valueOf(e, 'from')) === id || scalarString(valueOf(e, 'to')) === id) ? i : -1)).filter((i) => i >= 0);
        if (hit.length === edges.items.length && hit.length > 0) splices.push(this.emptyListSplice(edges));
        else if (edges.flow && hit.length > 1) throw new Error('one at a time');
        else for (const i of hit) splices.push(this.removeItemSplice(edges, i));
      }
      for (const n of this.level(path) ?? []) {
        if (n.id === id || !this.dependsOn(n).includes(id)) continue;
        const v = valueOf(n.map, 'depends_on');
        const rest = this.dependsOn(n).filter((d) => d !== id);
        if (rest.length === 0) splices.push(...this.pairSplices(n.map, 'depends_on', undefined));
        else if (isSeq(v) && v.items.filter((x) => scalarString(x as YNode) === id).length === 1) splices.push(this.removeItemSplice(v, v.items.findIndex((x) => scalarString(x as YNode) === id)));
        else splices.push(...this.pairSplices(n.map, 'depends_on', rest));
      }
      return this.with(splices);
    } catch {
      return this.dropReferencesOneByOne(path, id);
    }
  }

  private dropReferencesOneByOne(path: string[], id: string): WorkflowDoc {
    let doc: WorkflowDoc = this;
    for (;;) {
      const root = doc.yaml!.contents;
      const edges = path.length === 0 && isMap(root) ? valueOf(root, 'edges') : undefined;
      if (isSeq(edges)) {
        const i = edges.items.findIndex((e) => isMap(e) && (scalarString(valueOf(e, 'from')) === id || scalarString(valueOf(e, 'to')) === id));
        if (i >= 0) {
          doc = doc.with([doc.removeItemSplice(edges, i)]);
          continue;
        }
      }
      const dependent = (doc.level(path) ?? []).find((n) => n.id !== id && doc.dependsOn(n).includes(id));
      if (dependent) {
        doc = doc.withoutDependency(dependent, id);
        continue;
      }
      return doc;
    }
  }

  private withoutDependency(node: DocNode, dep: string): WorkflowDoc {
    const rest = this.dependsOn(node).filter((d) => d !== dep);
    const v = valueOf(node.map, 'depends_on');
    if (rest.length === 0) return this.setPair(node.map, 'depends_on', undefined);
    if (isSeq(v)) {
      const i = v.items.findIndex((x) => scalarString(x as YNode) === dep);
      if (i >= 0) return this.with([this.removeItemSplice(v, i)]);
    }
    return this.setPair(node.map, 'depends_on', rest);
  }

  /** Empties a list: written as [] so the key keeps meaning "none"; a block list's [] goes behind its key. */
  private emptyListSplice(list: YAMLSeq): Splice {
    const first = list.items[0] as YNode;
    const last = list.items[list.items.length - 1] as YNode;
    const start = list.range![0];
    const end = list.flow || !first ? list.range![1] : lineEndExcl(this.text, Math.max(last.range![1] - 1, last.range![0]));
    const before = this.text.slice(0, start);
    const keyEnd = before.trimEnd().length;
    if (!list.flow && before.slice(keyEnd).trim() === '' && before[keyEnd - 1] === ':') return { start: keyEnd, end, text: ' []' };
    return { start, end, text: '[]' };
  }

  private removeItemSplice(list: YAMLSeq, i: number): Splice {
    const item = list.items[i] as YNode;
    if (list.items.length === 1) return this.emptyListSplice(list);
    const end = item.range![1];
    if (list.flow) {
      if (i > 0) {
        const prev = list.items[i - 1] as YNode;
        return { start: prev.range![1], end, text: '' };
      }
      const next = list.items[i + 1] as YNode;
      return { start: item.range![0], end: next.range![0], text: '' };
    }
    const dash = this.text.lastIndexOf('-', item.range![0]);
    if (!onlyIndentBefore(this.text, dash)) refuse('a list item that does not start its line cannot be removed here');
    return { start: lineStart(this.text, dash), end: lineEndIncl(this.text, Math.max(end - 1, item.range![0])), text: '' };
  }

  /**
   * A list that runs in listed order gets its order written down before an edit that adds, removes or moves a
   * dependency (any stated dependency turns listed order off), so what runs is what the canvas showed plus the edit.
   */
  private materializeOrder(path: string[]): WorkflowDoc {
    const deps = this.edges(path).filter((d) => d.source === 'order');
    if (deps.length === 0) return this;
    // written in one edit (a long list would otherwise be re-read once per dependency)
    if (this.edgeStyle(path) === 'edges') {
      const root = this.yaml!.contents as YAMLMap;
      return this.setPair(root, 'edges', deps.map((d) => ({ from: d.from, to: d.to })));
    }
    const splices: Splice[] = [];
    for (const d of deps) {
      const target = this.find(path, d.to);
      if (target) splices.push(...this.pairSplices(target.map, 'depends_on', [d.from]));
    }
    return this.with(splices);
  }

  private addDependency(path: string[], from: string, to: string, loopMax: number | null): WorkflowDoc {
    const eol = eolOf(this.text);
    if (this.edgeStyle(path) === 'edges' || loopMax !== null) {
      if (path.length > 0) refuse('a loop edge can only join nodes of the top level');
      const root = this.yaml!.contents as YAMLMap;
      const edge: Record<string, unknown> = { from, to };
      if (loopMax !== null) Object.assign(edge, { type: 'loop', maxIterations: loopMax });
      const list = valueOf(root, 'edges');
      if (isSeq(list) && list.items.length > 0) {
        const last = list.items[list.items.length - 1] as YNode;
        if (list.flow) {
          const close = list.range![1] - 1;
          return this.with([{ start: close, end: close, text: ', ' + flowValue(edge) }]);
        }
        const dashCol = columnOf(this.text, list.range![0]);
        let at = lineEndIncl(this.text, Math.max(last.range![1] - 1, last.range![0]));
        // keep the file's style for its edges: flow mappings on one line each, or block mappings
        let text = isMap(last) && last.flow ? ' '.repeat(dashCol) + '- ' + flowValue(edge) + eol : blockItem(edge, dashCol, eol);
        if (at >= this.text.length && !this.text.endsWith('\n')) text = eol + text;
        at = Math.min(at, this.text.length);
        return this.with([{ start: at, end: at, text }]);
      }
      if (isSeq(list) || list === null || hasKey(root, 'edges')) return this.setPair(root, 'edges', [edge]);
      return this.setPair(root, 'edges', [edge]);
    }
    const target = this.find(path, to);
    if (!target) refuse(`there is no node '${to}'`);
    const deps = this.dependsOn(target);
    if (deps.includes(from)) return this;
    const v = valueOf(target.map, 'depends_on');
    if (isSeq(v) && v.flow) {
      const close = v.range![1] - 1;
      return this.with([{ start: close, end: close, text: (v.items.length ? ', ' : '') + flowValue(from) }]);
    }
    return this.setPair(target.map, 'depends_on', [...deps, from]);
  }

  /**
   * Connects two nodes of one list: an item of `edges:` or a `depends_on` entry, in the style the file already uses
   * (a file with neither gets `edges:`; a nested body always uses depends_on). `loopMax` makes it a loop edge.
   */
  connect(path: string[], from: string, to: string, loopMax: number | null = null): Edit {
    return this.guard(() => {
      if (from === to) refuse('a node cannot depend on itself');
      const level = this.level(path) ?? [];
      const isEnd = (x: string) => (path.length === 0 && (x === '__start__' || x === '__end__')) || level.some((n) => n.id === x);
      if (!isEnd(from) || !isEnd(to)) refuse(`'${from}' and '${to}' are not nodes of the same list`);
      const doc = this.materializeOrder(path);
      // connecting what is already connected changes nothing (listed order written down counts as connected)
      if (doc.edges(path).some((e) => e.from === from && e.to === to && e.loop === (loopMax !== null))) return { ok: true, doc };
      return { ok: true, doc: doc.addDependency(path, from, to, loopMax) };
    });
  }

  /** Removes every stated dependency of `to` on `from` in one list (edges, loop edges, depends_on). */
  disconnect(path: string[], from: string, to: string): Edit {
    return this.guard(() => {
      let doc = this.materializeOrder(path);
      for (;;) {
        const root = doc.yaml!.contents;
        const edges = path.length === 0 && isMap(root) ? valueOf(root, 'edges') : undefined;
        if (isSeq(edges)) {
          const i = edges.items.findIndex((e) => isMap(e) && scalarString(valueOf(e, 'from')) === from && scalarString(valueOf(e, 'to')) === to);
          if (i >= 0) {
            doc = doc.with([doc.removeItemSplice(edges, i)]);
            continue;
          }
        }
        const target = doc.find(path, to);
        if (target && doc.dependsOn(target).includes(from)) {
          doc = doc.withoutDependency(target, from);
          continue;
        }
        return { ok: true, doc };
      }
    });
  }

  /**
   * Renames a node: its id, the edges and depends_on naming it, a loop's `exit`/`aggregator` and a group's `output`
   * naming it, and the template and condition references `old.field` (also `loop.prev.old`, `$LOOP_PREV.old`).
   */
  renameNode(path: string[], oldId: string, newId: string): Edit {
    return this.guard(() => {
      const node = this.find(path, oldId);
      if (!node) refuse(`there is no node '${oldId}'`);
      if (newId === oldId) return { ok: true, doc: this };
      checkId(newId);
      if (this.allNodes().some((n) => n.id === newId)) refuse(`a node '${newId}' already exists`);
      const splices: Splice[] = [];
      const idNode = valueOf(node.map, 'id') ?? valueOf(node.map, 'name');
      if (!isScalar(idNode) || !idNode.range) refuse('the node’s id is not a plain value');
      splices.push({ start: idNode.range[0], end: idNode.range[1], text: newId });
      const refExact = new Set<YNode>();
      const root = this.yaml!.contents as YAMLMap;
      if (path.length === 0) {
        const edges = valueOf(root, 'edges');
        if (isSeq(edges))
          for (const e of edges.items)
            if (isMap(e)) for (const k of ['from', 'to']) {
              const v = valueOf(e, k);
              if (isScalar(v) && v.value === oldId) refExact.add(v);
            }
      }
      for (const sib of this.level(path) ?? []) {
        const d = valueOf(sib.map, 'depends_on');
        if (isScalar(d) && d.value === oldId) refExact.add(d);
        if (isSeq(d)) for (const x of d.items) if (isScalar(x) && x.value === oldId) refExact.add(x);
        for (const k of ['exit', 'aggregator']) {
          const v = valueOf(sib.map, k);
          if (isScalar(v) && v.value === oldId) refExact.add(v);
        }
      }
      if (path.length > 0) {
        const owner = this.find(path.slice(0, -1), path[path.length - 1]!);
        for (const m of [owner?.map, owner?.fieldsMap]) {
          const v = m ? valueOf(m, 'output') : undefined;
          if (isScalar(v) && v.value === oldId) refExact.add(v);
        }
      }
      if (path.length === 0) {
        // a restart policy names nodes of the top level
        const policy = valueOf(root, 'restart_policy');
        if (isMap(policy))
          for (const k of ['restart_triggers', 'restartable_stages']) {
            const l = valueOf(policy, k);
            if (isSeq(l)) for (const x of l.items) if (isScalar(x) && x.value === oldId) refExact.add(x);
          }
      }
      // the mock provider's scripted answers are keyed by node id
      const mock = valueOf(root, 'mock');
      const responses = isMap(mock) ? valueOf(mock, 'responses') : undefined;
      if (isMap(responses)) for (const p of responses.items) if (isScalar(p.key) && p.key.value === oldId) refExact.add(p.key as YNode);
      for (const v of refExact) splices.push({ start: v.range![0], end: v.range![1], text: newId });
      // template and condition references, anywhere in the file except ids and the exact references above
      const ref = new RegExp(`(^|[^A-Za-z0-9_.$-]|loop\\.prev\\.|\\$LOOP_PREV\\.)${escapeRe(oldId)}(?=[.[])`, 'g');
      const visit = (n: unknown, key: string | null) => {
        if (isMap(n)) for (const p of n.items) visit(p.value, isScalar(p.key) ? String(p.key.value) : null);
        else if (isSeq(n)) for (const x of n.items) visit(x, key);
        else if (isScalar(n) && typeof n.value === 'string' && n.range && !refExact.has(n) && n !== idNode && key !== 'id' && key !== 'name') {
          const src = this.text.slice(n.range[0], n.range[1]);
          const whole = key !== null && CONDITION_KEYS.has(key);
          const out = whole ? src.replace(ref, (_m, pre) => pre + newId) : replaceInTemplates(src, ref, newId);
          if (out !== src) splices.push({ start: n.range[0], end: n.range[1], text: out });
        }
      };
      visit(root, null);
      return { ok: true, doc: this.with(splices) };
    });
  }

  /**
   * Moves a node to the end of another list (into or out of a container), keeping its text and comments; its
   * dependencies on its old siblings (and theirs on it) are removed, since ids resolve within one list.
   */
  moveNode(path: string[], id: string, to: string[]): Edit {
    return this.guard(() => {
      if (to.join('\u0000') === path.join('\u0000')) return { ok: true, doc: this };
      if (to.includes(id) && to.slice(0, path.length + 1).join('\u0000') === [...path, id].join('\u0000'))
        refuse(`'${id}' cannot be moved into itself`);
      if (!this.find(path, id)) refuse(`there is no node '${id}'`);
      if (to.length > 0 && !this.find(to.slice(0, -1), to[to.length - 1]!)?.children) refuse(`'${to[to.length - 1]}' is not a while_loop or loop_group`);
      let doc = this.materializeOrder(path).dropReferences(path, id);
      let node = doc.find(path, id)!;
      if (hasKey(node.map, 'depends_on')) {
        doc = doc.setPair(node.map, 'depends_on', undefined);
        node = doc.find(path, id)!;
      }
      const index = node.list.items.indexOf(node.map);
      const removal = doc.removeItemSplice(node.list, index);
      const source = node.list.flow ? null : doc.text.slice(removal.start, removal.end);
      const value = plain(node.map, doc.yaml) as Record<string, unknown>;
      const removed = doc.with([removal]);
      const toDoc = removed.materializeOrder(to);
      return { ok: true, doc: toDoc.insertItem(to, value, source) };
    });
  }
}

/** Keys every node takes (they stay on the node, not in a lifted `loop_group:`/`with:` mapping). */
const COMMON_FIELDS = new Set(['id', 'name', 'type', 'depends_on', 'when', 'allow_failure', 'retry', 'timeout', 'description', 'label', 'uses', 'with']);

class EditRefused extends Error {}

function refuse(message: string): never {
  throw new EditRefused(message);
}

function checkId(id: string): void {
  if (!ID_PATTERN.test(id)) refuse(`node id '${id}' must start with a letter or '_' and hold only letters, digits, '_' and '-'`);
  if (RESERVED_IDS.has(id)) refuse(`node id '${id}' is reserved`);
}

export function valueOf(map: YAMLMap, key: string): YNode | null | undefined {
  const p = map.items.find((x) => isScalar(x.key) && x.key.value === key);
  return p ? (p.value as YNode | null) : undefined;
}

export function hasKey(map: YAMLMap, key: string): boolean {
  return map.items.some((x) => isScalar(x.key) && x.key.value === key);
}

function scalarString(n: YNode | null | undefined): string | undefined {
  return isScalar(n) && (typeof n.value === 'string' || typeof n.value === 'number') ? String(n.value) : undefined;
}

function pairEnd(p: Pair): number {
  const v = p.value as YNode | null;
  const k = p.key as YNode;
  return v?.range && v.range[1] >= k.range![1] ? v.range[1] : k.range![1];
}

function isBlockScalar(text: string, v: YNode): boolean {
  const c = text[v.range![0]];
  return c === '|' || c === '>';
}

/** A YAML value as plain JSON-like data; aliases are followed with a bound, and what cannot be read is left out. */
function plain(n: unknown, doc: Document.Parsed | null): unknown {
  if (n == null) return null;
  try {
    return (n as { toJS?: (d: unknown, o: unknown) => unknown }).toJS?.(doc, { maxAliasCount: 100 }) ?? null;
  } catch {
    return null;
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Equal as JSON values (key order ignored). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((x, i) => sameJson(x, (b as unknown[])[i]));
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
}

/** Replaces references only inside `{{ }}` and `{% %}`, and in `$LOOP_PREV.x` outside them (a shell placeholder). */
function replaceInTemplates(src: string, ref: RegExp, newId: string): string {
  const swap = (seg: string) => seg.replace(ref, (_m, pre) => pre + newId);
  return src.replace(/\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}|\$LOOP_PREV\.[A-Za-z0-9_-]+\./g, swap);
}

function reindentItem(source: string, dashCol: number, eol: string): string {
  const lines = source.replace(/\r?\n$/, '').split(/\r?\n/);
  const first = lines[0] ?? '';
  const oldCol = first.length - first.trimStart().length;
  const shift = dashCol - oldCol;
  return (
    lines
      .map((l) => {
        if (!l.trim()) return l;
        if (shift >= 0) return ' '.repeat(shift) + l;
        const lead = l.length - l.trimStart().length;
        return l.slice(Math.min(lead, -shift));
      })
      .join(eol) + eol
  );
}

import { readFileSync, readdirSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { PALETTE } from './kinds';
import { project } from './project';
import { WorkflowDoc, type Edit } from './workflowDoc';
import { record, redo, startHistory, undo } from './history';

const ROOT = resolve(__dirname, '../../../..');
const corpusDirs = [join(ROOT, 'examples'), join(ROOT, 'loopflow-ui/e2e/workflows')];
const corpus: [string, string][] = corpusDirs.flatMap((d) =>
  readdirSync(d)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => [f, readFileSync(join(d, f), 'utf8')] as [string, string]),
);

function ok(e: Edit): WorkflowDoc {
  if (!e.ok) throw new Error(e.error);
  return e.doc;
}

/** Every comment line of a text, trimmed: an edit must keep them all (it adds none of its own). */
function comments(text: string): string[] {
  return text.split('\n').filter((l) => l.trim().startsWith('#')).map((l) => l.trim());
}

/** The top-level keys in order. */
function topKeys(text: string): string[] {
  return Object.keys(parse(text) ?? {});
}

describe('round trip', () => {
  it.each(corpus)('%s opens and prints back byte for byte', (_f, text) => {
    const doc = new WorkflowDoc(text);
    expect(doc.toString()).toBe(text);
    expect(doc.editable).toBe(true);
  });

  it('keeps CRLF line ends, a missing final newline and a byte order mark', () => {
    for (const text of ['name: a\r\nnodes:\r\n  - {id: x, type: exit}\r\n', 'name: a\nnodes: [{id: x, type: exit}]', '\uFEFFname: a\nnodes: []\n']) {
      expect(new WorkflowDoc(text).toString()).toBe(text);
    }
  });
});

describe('edits keep everything else', () => {
  const withNodes = corpus.filter(([, t]) => new WorkflowDoc(t).nodes.length > 0);

  it.each(withNodes)('%s: setting, adding, connecting and removing keep comments and key order', (_f, text) => {
    const doc = new WorkflowDoc(text);
    const first = doc.nodes[0]!;
    const keys = topKeys(text);
    const set = ok(doc.setField(first.path, first.id, 'description', 'set by the builder'));
    expect(comments(set.text)).toEqual(comments(text));
    expect(topKeys(set.text)).toEqual(keys);
    const node = (parse(set.text).nodes as Record<string, unknown>[]).find((n) => (n.id ?? n.name) === first.id)!;
    expect(node.description).toBe('set by the builder');
    // only the lines of that node changed: the text before it is the same
    const at = text.indexOf('\n', 0);
    expect(set.text.slice(0, at)).toBe(text.slice(0, at));

    const added = ok(set.addNode(PALETTE.find((p) => p.kind === 'transform')!.starter, 'extra'));
    expect(comments(added.text)).toEqual(comments(text));
    const parsed = parse(added.text);
    expect((parsed.nodes as { id?: string }[]).some((n) => n.id === 'extra')).toBe(true);

    const connected = ok(added.connect([], first.id, 'extra'));
    const deps = connected.edges([]);
    expect(deps.some((d) => d.from === first.id && d.to === 'extra')).toBe(true);
    expect(comments(connected.text)).toEqual(comments(text));

    const removed = ok(connected.removeNode([], 'extra'));
    expect(removed.edges([]).some((d) => d.to === 'extra' || d.from === 'extra')).toBe(false);
    expect(comments(removed.text)).toEqual(comments(text));
    expect(topKeys(removed.text).filter((k) => keys.includes(k))).toEqual(keys);
  });

  it.each(withNodes)('%s: unsetting the field just set gives the original text back', (_f, text) => {
    const doc = new WorkflowDoc(text);
    const last = doc.allNodes()[doc.allNodes().length - 1]!;
    const set = ok(doc.setField(last.path, last.id, 'label', 'x'));
    const unset = ok(set.setField(last.path, last.id, 'label', undefined));
    expect(unset.text).toBe(text);
  });
});

describe('operations', () => {
  const base = `# a comment at the top
name: demo
nodes:
  - id: a   # the first
    type: transform
    template: "{{ input.x }}"
  - id: b
    type: transform
    template: "{{ a.output }} and {{ a.output | upper }}"
    when: "a.output != ''"
edges:
  - {from: a, to: b}
`;

  it('adds a node of each palette kind with a free id, and the projection draws it', () => {
    let doc = new WorkflowDoc(base);
    for (const p of PALETTE) doc = ok(doc.addNode(p.starter, p.idBase));
    const kinds = project(doc).nodes.map((n) => n.kind);
    for (const p of PALETTE) expect(kinds).toContain(p.kind);
    expect(doc.text.startsWith(base.slice(0, base.indexOf('edges:')))).toBe(true);
  });

  it('numbers ids that are taken', () => {
    const doc = ok(new WorkflowDoc(base).addNode({ type: 'exit' }, 'a'));
    expect(doc.nodes.map((n) => n.id)).toEqual(['a', 'b', 'a_2']);
  });

  it('renames a node in its id, its edges and the templates and conditions that read it', () => {
    const doc = ok(new WorkflowDoc(base).renameNode([], 'a', 'first'));
    expect(doc.text).toContain('- id: first   # the first');
    expect(doc.text).toContain('{{ first.output }} and {{ first.output | upper }}');
    expect(doc.text).toContain(`when: "first.output != ''"`);
    expect(doc.text).toContain('{from: first, to: b}');
    expect(doc.text).toContain('{{ input.x }}');
  });

  it('renames the restart policy’s and the mock script’s references too', () => {
    const text = readFileSync(join(ROOT, 'examples/restart-graph.yaml'), 'utf8');
    const doc = ok(new WorkflowDoc(text).renameNode([], 'verify', 'check'));
    expect(parse(doc.text).restart_policy.restart_triggers).toEqual(['check']);
    const sr = ok(new WorkflowDoc(readFileSync(join(ROOT, 'examples/loop-self-refine.yaml'), 'utf8')).renameNode([], 'draft', 'write'));
    expect(Object.keys(parse(sr.text).mock.responses)).toEqual(['write', 'critique']);
    expect(sr.text).toContain('{{ write.text }}');
    expect(sr.text).toContain('{from: refine, to: write}');
  });

  it('refuses a bad, reserved or taken id', () => {
    const doc = new WorkflowDoc(base);
    for (const bad of ['1x', 'a b', 'input', 'b', '', 'x.y']) expect(doc.renameNode([], 'a', bad).ok).toBe(false);
  });

  it('removes a node with its edges', () => {
    const doc = ok(new WorkflowDoc(base).removeNode([], 'a'));
    expect(doc.nodes.map((n) => n.id)).toEqual(['b']);
    expect(doc.text).toContain('edges: []');
    expect(doc.text).toContain('# a comment at the top');
  });

  it('connects in the style of the file: depends_on when the file uses it', () => {
    const text = 'name: d\nnodes:\n  - id: a\n    type: exit\n  - id: b\n    depends_on: [a]\n    type: exit\n  - id: c\n    type: exit\n';
    const doc = ok(new WorkflowDoc(text).connect([], 'b', 'c'));
    expect(doc.text).toContain('  - id: c\n    type: exit\n    depends_on:\n      - b\n');
    const again = doc.connect([], 'a', 'b');
    expect(again.ok && again.doc.text).toBe(doc.text);
  });

  it('writes listed order down before the first stated dependency, so what ran before still runs', () => {
    const text = 'name: d\nnodes:\n  - {id: a, type: exit}\n  - {id: b, type: exit}\n  - {id: c, type: exit}\n';
    const doc = ok(new WorkflowDoc(text).connect([], 'a', 'c'));
    const deps = doc.edges([]).map((d) => `${d.from}>${d.to}`);
    expect(deps).toEqual(['a>b', 'b>c', 'a>c']);
  });

  it('disconnects edges and depends_on entries', () => {
    const doc = ok(new WorkflowDoc(base).disconnect([], 'a', 'b'));
    expect(doc.text).toContain('edges: []');
    // with no stated dependency left, the file runs in listed order again, as the loader reads it
    expect(doc.edges([]).map((e) => e.source)).toEqual(['order']);
    const dep = 'nodes:\n  - {id: a, type: exit}\n  - {id: b, type: exit, depends_on: [a]}\n  - {id: c, type: exit, depends_on: [a, b]}\n';
    const d2 = ok(new WorkflowDoc(dep).disconnect([], 'a', 'c'));
    expect(d2.text).toContain('{id: c, type: exit, depends_on: [b]}');
  });

  it('adds a loop edge with its bound', () => {
    const doc = ok(new WorkflowDoc(base).connect([], 'b', 'a', 3));
    const g = project(doc);
    expect(g.edges.find((e) => e.kind === 'loop_back')).toMatchObject({ from: 'b', to: 'a', max: 3 });
    expect(g.containers.map((c) => c.key)).toEqual(['[b->a]']);
  });

  it('sets nested fields and whole sections', () => {
    let doc = ok(new WorkflowDoc(base).setField([], 'a', 'retry.max_attempts', 3));
    expect(parse(doc.text).nodes[0].retry).toEqual({ max_attempts: 3 });
    doc = ok(doc.setField([], 'a', 'retry.delay', '2s'));
    expect(parse(doc.text).nodes[0].retry).toEqual({ max_attempts: 3, delay: '2s' });
    doc = ok(doc.setField([], 'b', 'template', 'line one\nline two\n'));
    expect(parse(doc.text).nodes[1].template).toBe('line one\nline two\n');
    expect(doc.text).toContain('- id: a   # the first');
  });

  it('edits, adds to and moves between nested bodies (loop_group shorthand, while_loop, nested groups)', () => {
    const text = readFileSync(join(ROOT, 'loopflow-ui/e2e/workflows/nested-loops.yaml'), 'utf8');
    let doc = new WorkflowDoc(text);
    doc = ok(doc.setField(['outer', 'inner'], 'count', 'template', 'changed {{ loop.iteration }}'));
    expect(parse(doc.text).nodes[0].loop_group.nodes[0].loop_group.nodes[0].template).toBe('changed {{ loop.iteration }}');
    doc = ok(doc.setField([], 'outer', 'max_iterations', 4));
    expect(parse(doc.text).nodes[0].loop_group.max_iterations).toBe(4);
    expect(doc.text.startsWith('# Nested loops')).toBe(true);
    doc = ok(doc.addNode({ type: 'transform', template: 'x' }, 'extra', ['outer', 'inner']));
    expect(doc.level(['outer', 'inner'])!.map((n) => n.id)).toEqual(['count', 'extra']);
    doc = ok(doc.moveNode(['outer', 'inner'], 'extra', []));
    expect(doc.level(['outer', 'inner'])!.map((n) => n.id)).toEqual(['count']);
    expect(doc.nodes.map((n) => n.id)).toEqual(['outer', 'extra']);
    doc = ok(doc.moveNode([], 'extra', ['outer']));
    expect(doc.level(['outer'])!.map((n) => n.id)).toEqual(['inner', 'sum', 'extra']);
    expect(parse(doc.text).nodes[0].loop_group.nodes[2]).toEqual({ id: 'extra', type: 'transform', template: 'x' });
    expect(doc.moveNode([], 'outer', ['outer', 'inner']).ok).toBe(false);
  });

  it('takes a whole section (as the config panel reports one) and rewrites only the entries that differ', () => {
    const text = readFileSync(join(ROOT, 'loopflow-ui/e2e/workflows/nested-loops.yaml'), 'utf8');
    const doc = new WorkflowDoc(text);
    const outer = doc.nodes[0]!;
    const group = { ...(doc.values(outer).loop_group as Record<string, unknown>), max_iterations: 7, until: 'DONE' };
    const edited = ok(doc.setField([], 'outer', 'loop_group', group));
    expect(parse(edited.text).nodes[0].loop_group).toMatchObject({ max_iterations: 7, until: 'DONE' });
    const changed = edited.text.split('\n').filter((l, i) => l !== text.split('\n')[i]);
    expect(changed.length).toBeLessThanOrEqual(text.split('\n').length - edited.text.split('\n').length + 20);
    expect(edited.text).toContain('      max_iterations: 7\n      nodes:\n        - id: inner');
    expect(edited.text.replace('max_iterations: 7', 'max_iterations: 3').replace('      until: DONE\n', '')).toBe(text);
  });

  it('adds into an empty body written as []', () => {
    let doc = ok(WorkflowDoc.empty().addNode({ type: 'while_loop', condition: 'false', max_iterations: 2, body: [] }, 'w'));
    doc = ok(doc.addNode({ type: 'exit' }, 'x', ['w']));
    expect(parse(doc.text).nodes[0].body).toEqual([{ id: 'x', type: 'exit' }]);
    expect(project(doc).nodes.find((n) => n.id === 'x')?.parent).toBe('[w]');
  });

  it('builds Self-Refine from an empty document into a workflow the projection draws as a loop', () => {
    let doc = WorkflowDoc.empty('self-refine');
    for (const k of ['loop', 'llm', 'llm', 'transform', 'exit']) doc = ok(doc.addNode(PALETTE.find((p) => p.kind === k)!.starter, PALETTE.find((p) => p.kind === k)!.idBase));
    const ids = doc.nodes.map((n) => n.id);
    expect(ids).toEqual(['repeat', 'llm', 'llm_2', 'transform', 'exit']);
    for (let i = 1; i < ids.length; i++) doc = ok(doc.connect([], ids[i - 1]!, ids[i]!));
    doc = ok(doc.setField([], 'repeat', 'maxIterations', 3));
    const g = project(doc);
    expect(g.containers).toHaveLength(1);
    expect(g.nodes.filter((n) => n.parent === '[repeat]').map((n) => n.id)).toEqual(['llm', 'llm_2', 'transform']);
    expect(g.edges.find((e) => e.kind === 'loop_back')?.max).toBe(3);
  });
});

describe('the workflow name', () => {
  it('reads and replaces the top-level name, keeping comments and node names', () => {
    const d = new WorkflowDoc('# head\nname: untitled # later\nnodes:\n  - {name: untitled, type: transform, template: x}\n');
    expect(d.workflowName()).toBe(WorkflowDoc.UNTITLED);
    const r = d.setWorkflowName('my-flow');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.doc.text).toBe('# head\nname: my-flow # later\nnodes:\n  - {name: untitled, type: transform, template: x}\n');
    expect(r.doc.workflowName()).toBe('my-flow');
  });

  it('adds a name to a file without one, and refuses a file it cannot edit', () => {
    const r = new WorkflowDoc('nodes: []\n').setWorkflowName('n');
    expect(r.ok && r.doc.workflowName()).toBe('n');
    expect(new WorkflowDoc('- a list\n').setWorkflowName('n').ok).toBe(false);
    expect(WorkflowDoc.empty().workflowName()).toBe('untitled');
  });
});

describe('history', () => {
  it('undoes and redoes texts, and drops the oldest past the limit', () => {
    let h = startHistory('a');
    h = record(h, 'b');
    h = record(h, 'c');
    h = undo(h);
    expect(h.present).toBe('b');
    h = redo(h);
    expect(h.present).toBe('c');
    h = undo(undo(undo(h)));
    expect(h.present).toBe('a');
    let big = startHistory('0');
    for (let i = 1; i <= 10; i++) big = record(big, String(i), 3);
    expect(big.past).toEqual(['7', '8', '9']);
  });
});

describe('hostile files never throw out of the model', () => {
  const hostile: [string, string][] = [
    ['not YAML', 'name: [unclosed\nnodes: {'],
    ['a list at the root', '- a\n- b\n'],
    ['a scalar at the root', 'just text'],
    ['empty', ''],
    ['nodes is a mapping', 'nodes: {a: 1}'],
    ['alias nodes', 'base: &b {id: a, type: exit}\nnodes:\n  - *b\n  - {id: c, type: exit}\n'],
    ['billion laughs', 'a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\nnodes:\n  - {id: x, type: transform, value: *d}\n'],
    ['duplicate ids', 'nodes:\n  - {id: a, type: exit}\n  - {id: a, type: exit}\n'],
    ['duplicate keys', 'nodes:\n  - id: a\n    id: b\n    type: exit\n'],
    ['huge string', 'nodes:\n  - id: a\n    type: transform\n    template: "' + 'x'.repeat(200_000) + '"\n'],
    ['odd ids', 'nodes:\n  - {id: __proto__, type: exit}\n  - {id: constructor, type: exit}\n  - {id: 12, type: exit}\n  - {type: exit}\n'],
    ['edges not a list', 'nodes:\n  - {id: a, type: exit}\nedges: 3\n'],
    ['depends_on odd', 'nodes:\n  - {id: a, type: exit, depends_on: {x: 1}}\n  - {id: b, type: exit, depends_on: [[a]]}\n'],
    ['tabs and directives', '%YAML 1.2\n---\nnodes:\n\t- a\n'],
    ['two documents', 'nodes: []\n---\nnodes: []\n'],
    ['many nodes', 'nodes:\n' + Array.from({ length: 1000 }, (_, i) => `  - {id: n${i}, type: transform, template: "{{ n${Math.max(0, i - 1)}.output }}"}\n`).join('')],
  ];
  it.each(hostile)('%s', (_n, text) => {
    const doc = new WorkflowDoc(text);
    expect(doc.toString()).toBe(text);
    const g = project(doc);
    expect(Array.isArray(g.nodes)).toBe(true);
    const ops: Edit[] = [
      doc.addNode({ type: 'exit' }, 'x'),
      doc.removeNode([], 'a'),
      doc.renameNode([], 'a', 'z'),
      doc.setField([], 'a', 'when', 'true'),
      doc.connect([], 'a', 'c'),
      doc.disconnect([], 'a', 'c'),
      doc.moveNode([], 'a', ['x']),
    ];
    for (const r of ops) {
      if (!r.ok) expect(r.error).toMatch(/\w/);
      else expect(typeof r.doc.text).toBe('string');
    }
    if (!doc.editable) expect(doc.issues.length).toBeGreaterThan(0);
  });
});

// For LOOPFLOW_BUILDER_EDITS_DIR: the edited documents a Java test loads with the real loader (BuilderProjectionTest).
describe.skipIf(!process.env.LOOPFLOW_BUILDER_EDITS_DIR)('edited documents for the loader', () => {
  it('writes each example with a field set, a node added and connected, and its first node renamed', () => {
    const out = process.env.LOOPFLOW_BUILDER_EDITS_DIR!;
    mkdirSync(out, { recursive: true });
    for (const [f, text] of corpus) {
      const doc = new WorkflowDoc(text);
      if (doc.nodes.length === 0) continue;
      const first = doc.nodes[0]!;
      let d = ok(doc.setField(first.path, first.id, 'description', 'edited'));
      d = ok(d.addNode({ type: 'transform', template: 'done' }, 'builder_extra'));
      const last = d.nodes.filter((n) => n.id !== 'builder_extra').at(-1)!;
      d = ok(d.connect([], last.id, 'builder_extra'));
      // every reference to the renamed node must follow, or the loader reports it
      d = ok(d.renameNode([], first.id, `${first.id}_renamed`));
      writeFileSync(join(out, f), d.text);
    }
  });
});

import { describe, expect, it } from 'vitest';
import type { Problem } from '../contract';
import { namesOtherNode, nodeKey, parseNodePath, pathSegments, problemField, problemsByNode, problemText, type NodePlace } from './problems';

const p = (path: string, line = 1, col = 1, message = 'm'): Problem => ({ path, line, col, message });

describe('loader paths', () => {
  it.each([
    ['nodes.b.depnds_on', ['b'], ['depnds_on']],
    ['nodes.b', ['b'], []],
    ['nodes[2]', ['[2]'], []],
    ['nodes[2].type', ['[2]'], ['type']],
    ['nodes.w.body.x.command', ['w', 'x'], ['command']],
    ['nodes.g.nodes.y.prompt', ['g', 'y'], ['prompt']],
    ['nodes.g.nodes.inner.nodes.z.bash', ['g', 'inner', 'z'], ['bash']],
    ['nodes.w.body[0]', ['w', '[0]'], []],
    ['nodes.g.nodes', ['g'], ['nodes']],
    ['nodes.w.body', ['w'], ['body']],
    ['nodes.b.retry.max_attempts', ['b'], ['retry', 'max_attempts']],
    ['nodes.b.with.model', ['b'], ['with', 'model']],
  ])('%s names node %j, field %j', (path, node, field) => {
    expect(parseNodePath(path)).toEqual({ node, field });
  });

  it.each(['', 'nodes', 'edges[0].to', 'input.topic', 'budget.max_usd', 'workflow_pattern.iterative', 'name', 'nodesx.a', '.nodes.a'])(
    '%j names no node',
    (path) => {
      expect(parseNodePath(path)).toBeUndefined();
    },
  );

  it('segments split list positions', () => {
    expect(pathSegments('nodes[1][2].a')).toEqual(['nodes', '[1]', '[2]', 'a']);
  });
});

describe('problems on nodes', () => {
  // self-refine with a while_loop w (body x, y) and a loop_group g (body y, with a nested group inner/z).
  const nodes: NodePlace[] = [
    { id: 'refine', path: [], index: 0, startLine: 3, endLine: 6 },
    { id: 'draft', path: [], index: 1, startLine: 7, endLine: 8 },
    { id: 'w', path: [], index: 2, startLine: 9, endLine: 20 },
    { id: 'x', path: ['w'], index: 0, startLine: 13, endLine: 15 },
    { id: 'y', path: ['w'], index: 1, startLine: 16, endLine: 20 },
    { id: 'g', path: [], index: 3, startLine: 21, endLine: 40 },
    { id: 'y', path: ['g'], index: 0, startLine: 23, endLine: 25 },
    { id: 'inner', path: ['g'], index: 1, startLine: 26, endLine: 40 },
    { id: 'z', path: ['g', 'inner'], index: 0, startLine: 30, endLine: 32 },
  ];

  it('places each problem once: by path, then by line, else unplaced', () => {
    const problems = [
      p('nodes.draft.depnds_on', 8),
      p('nodes.w.body.x.command', 14),
      p('nodes.g.nodes.y.prompt', 24),
      p('nodes.g.nodes.inner.nodes.z.bash', 31),
      p('nodes[1].type', 7),
      p('nodes.w.body[1]', 16),
      p('edges[0].to', 50),
      p('', 31), // a YAML syntax error inside z
      p('', 1),
      p('nodes.ghost.prompt', 4), // a node the builder does not know: its line
      p('nodes.ghost.prompt', 99),
      p('nodes.g.nodes.missing.bash', 200), // the innermost known: g
    ];
    const { byNode, unplaced } = problemsByNode(problems, nodes);
    const keys = (k: string) => (byNode.get(k) ?? []).map((x) => x.path);
    expect(keys('draft')).toEqual(['nodes.draft.depnds_on', 'nodes[1].type']);
    expect(keys('w.x')).toEqual(['nodes.w.body.x.command']);
    expect(keys('w.y')).toEqual(['nodes.w.body[1]']);
    expect(keys('g.y')).toEqual(['nodes.g.nodes.y.prompt']);
    expect(keys('g.inner.z')).toEqual(['nodes.g.nodes.inner.nodes.z.bash', '']);
    expect(keys('refine')).toEqual(['nodes.ghost.prompt']);
    expect(keys('g')).toEqual(['nodes.g.nodes.missing.bash']);
    expect(unplaced.map((x) => x.path)).toEqual(['edges[0].to', '', 'nodes.ghost.prompt']);
    const total = [...byNode.values()].reduce((n, l) => n + l.length, 0) + unplaced.length;
    expect(total).toBe(problems.length);
  });

  it('the same id in two bodies is two nodes', () => {
    const { byNode } = problemsByNode([p('nodes.w.body.y.x'), p('nodes.g.nodes.y.x')], nodes);
    expect(byNode.get(nodeKey(['w'], 'y'))).toHaveLength(1);
    expect(byNode.get(nodeKey(['g'], 'y'))).toHaveLength(1);
  });

  it.each([
    '__proto__',
    'nodes.__proto__',
    'nodes.constructor.toString',
    'nodes.hasOwnProperty',
    'nodes[999999999999]',
    'nodes[-1]',
    'nodes[abc]',
    'nodes..',
    'nodes.a.'.repeat(5000),
    '\u202enodes.draft',
    'nodes.draft\u0000.x',
  ])('hostile path %j does not throw and places the problem at most once', (path) => {
    const { byNode, unplaced } = problemsByNode([p(path, Number.NaN, Number.NaN)], nodes);
    const total = [...byNode.values()].reduce((n, l) => n + l.length, 0) + unplaced.length;
    expect(total).toBe(1);
  });

  it('problems without a path or line are unplaced, never lost', () => {
    const weird = [{ line: -5, col: 0, path: undefined as unknown as string, message: 'x' }, { line: Infinity, col: 1, path: '', message: 'y' }];
    const { unplaced } = problemsByNode(weird, nodes);
    expect(unplaced).toHaveLength(2);
  });

  it('the field a problem names, as written, holders looked through', () => {
    expect(problemField(p('nodes.draft.depnds_on'), [], 'draft')).toBe('depnds_on');
    expect(problemField(p('nodes.draft.max_iterations'), [], 'draft')).toBe('max_iterations');
    expect(problemField(p('nodes.draft.with.model'), [], 'draft')).toBe('model');
    expect(problemField(p('nodes.draft.input.prompt'), [], 'draft')).toBe('prompt');
    expect(problemField(p('nodes.r.input'), [], 'r')).toBe('input');
    expect(problemField(p('nodes.g.loop_group.until'), [], 'g')).toBe('until');
    expect(problemField(p('nodes.draft'), [], 'draft')).toBeUndefined();
    expect(problemField(p('nodes.other.x'), [], 'draft')).toBeUndefined();
    expect(problemField(p('nodes.w.body.x.command'), ['w'], 'x')).toBe('command');
    expect(problemField(p('nodes.w.body.x.command'), [], 'x')).toBeUndefined();
  });

  it('a panel given every problem leaves out other nodes’ own', () => {
    expect(namesOtherNode(p('nodes.other.x'), [], 'draft')).toBe(true);
    expect(namesOtherNode(p('nodes.draft.x'), [], 'draft')).toBe(false);
    expect(namesOtherNode(p('edges[0].to'), [], 'draft')).toBe(false);
    expect(namesOtherNode(p('nodes[3]'), [], 'draft')).toBe(false);
  });

  it('a problem reads as line:col and its message', () => {
    expect(problemText(p('nodes.a', 3, 7, "unknown field 'depnds_on'"))).toBe("3:7 unknown field 'depnds_on'");
    expect(problemText({ line: Number.NaN, col: 1, path: '', message: 'bad' })).toBe('bad');
    expect(problemText({ line: 2, col: 0, path: '', message: '</script>' })).toBe('2:1 </script>');
  });
});

import { describe, expect, it } from 'vitest';
import type { ReachableValue } from '../contract';
import { applyTemplateCompletion, reachableValues, templateCompletion, type ReachGraph } from './reachable';
import { catalog } from './testCatalog';

const c = catalog();
const exprs = (v: ReachableValue[]) => v.map((x) => x.expression);

// The Self-Refine template: refine (loop) -> draft -> critique -> merge -> refine_exit -> final.
const selfRefine: ReachGraph = {
  inputs: ['topic'],
  nodes: [
    { id: 'refine', kind: 'loop', upstream: [] },
    { id: 'draft', kind: 'llm', container: 'refine', upstream: ['refine'] },
    { id: 'critique', kind: 'llm', container: 'refine', upstream: ['draft'] },
    { id: 'merge', kind: 'transform', container: 'refine', upstream: ['critique'] },
    { id: 'refine_exit', kind: 'exit', container: 'refine', upstream: ['merge'] },
    { id: 'final', kind: 'output', upstream: ['refine_exit'] },
  ],
};

describe('reachable values', () => {
  it('inside a loop node: inputs, upstream results, and the loop variable; never the loop’s own result', () => {
    const v = exprs(reachableValues(selfRefine, 'merge', c));
    expect(v).toEqual(expect.arrayContaining(['input.topic', 'draft.text', 'draft.output', 'critique.text', 'loop.iteration', 'loop.max', 'loop.input', 'loop.index', 'loop.prev', 'run.id']));
    expect(v).toContain('loop.prev.draft.output');
    expect(v.some((e) => e.startsWith('refine.'))).toBe(false);
    expect(v.some((e) => e.startsWith('merge.'))).toBe(false);
    expect(v.some((e) => e.startsWith('final.'))).toBe(false);
    expect(v).not.toContain('loop.item');
    expect(v).not.toContain('loop.user_input');
    expect(v).not.toContain('loop.parent.iteration');
  });

  it('after the loop: the loop’s result and its body’s, no loop variable', () => {
    const v = exprs(reachableValues(selfRefine, 'final', c));
    expect(v).toEqual(expect.arrayContaining(['refine.output', 'refine.count', 'refine.exit_reason', 'draft.text', 'refine_exit.output']));
    expect(v.some((e) => e.startsWith('loop.'))).toBe(false);
  });

  it('the first node reads only inputs and run', () => {
    expect(exprs(reachableValues(selfRefine, 'refine', c)).filter((e) => !e.startsWith('run.'))).toEqual(['input.topic']);
  });

  it('result fields are the catalog’s for each kind, aliases resolved', () => {
    const g: ReachGraph = {
      inputs: [],
      nodes: [
        { id: 's', kind: 'bash', upstream: [] },
        { id: 'r', kind: 'router', upstream: [] },
        { id: 'h', kind: 'http', upstream: [] },
        { id: 'u', kind: 'no-such-kind', upstream: [] },
        { id: 'x', kind: 'transform', upstream: ['s', 'r', 'h', 'u'] },
      ],
    };
    const v = exprs(reachableValues(g, 'x', c));
    expect(v).toEqual(expect.arrayContaining(['s.stdout', 's.exitCode', 'r.selectedBranch', 'h.output', 'u.output']));
  });

  it('while_loop and loop_group bodies: loop.prev of the body, user_input only for a group, no loop.input', () => {
    const g: ReachGraph = {
      inputs: [],
      nodes: [
        { id: 'w', kind: 'while_loop', upstream: [] },
        { id: 'inc', kind: 'script', container: 'w', upstream: [] },
        { id: 'grp', kind: 'loop_group', upstream: ['w'] },
        { id: 'impl', kind: 'llm', container: 'grp', upstream: [] },
        { id: 'test', kind: 'shell', container: 'grp', upstream: ['impl'] },
      ],
    };
    const inc = exprs(reachableValues(g, 'inc', c));
    expect(inc).toContain('loop.prev.inc.output');
    expect(inc).not.toContain('loop.input');
    expect(inc).not.toContain('loop.user_input');
    expect(inc).not.toContain('loop.user_values');
    const test = exprs(reachableValues(g, 'test', c));
    expect(test).toEqual(expect.arrayContaining(['impl.text', 'loop.user_input', 'loop.user_values', 'loop.prev.test.output', 'loop.prev.impl.output', 'w.output', 'w.count']));
    expect(test.some((e) => e.startsWith('grp.'))).toBe(false);
    expect(test.some((e) => e.startsWith('inc.'))).toBe(false); // inside another body
  });

  it('an iterator gives loop.item; nested loops give loop.parent', () => {
    const g: ReachGraph = {
      inputs: ['files'],
      nodes: [
        { id: 'each', kind: 'iterator', upstream: [] },
        { id: 'w', kind: 'while_loop', container: 'each', upstream: ['each'] },
        { id: 'step', kind: 'shell', container: 'w', upstream: [] },
      ],
    };
    const step = exprs(reachableValues(g, 'step', c));
    expect(step).toContain('loop.parent.iteration');
    expect(step).not.toContain('loop.item'); // the innermost loop is a while_loop
    expect(exprs(reachableValues(g, 'w', c))).toEqual(expect.arrayContaining(['loop.item', 'loop.input']));
  });

  it('cycles, self-loops, unknown ids and container cycles end', () => {
    const g: ReachGraph = {
      inputs: ['a'],
      nodes: [
        { id: 'coder', kind: 'llm', upstream: ['reviewer', 'coder', 'ghost'] },
        { id: 'reviewer', kind: 'llm', upstream: ['coder'] },
        { id: 'p', kind: 'loop', container: 'q', upstream: [] },
        { id: 'q', kind: 'loop', container: 'p', upstream: [] },
      ],
    };
    const v = exprs(reachableValues(g, 'coder', c));
    expect(v).toContain('reviewer.text');
    expect(v.some((e) => e.startsWith('coder.'))).toBe(false);
    expect(exprs(reachableValues(g, 'p', c))).toContain('loop.iteration');
    expect(exprs(reachableValues(g, 'nobody', c))).toEqual(['input.a']);
  });

  it('hostile ids are offered as text, each once', () => {
    const evil = '</script><img src=x onerror=alert(1)>\u202e';
    const g: ReachGraph = { inputs: [evil, evil, '__proto__'], nodes: [{ id: '__proto__', kind: 'llm', upstream: [] }, { id: 'x', kind: 'llm', upstream: ['__proto__', '__proto__'] }] };
    const v = reachableValues(g, 'x', c);
    expect(exprs(v).filter((e) => e === `input.${evil}`)).toHaveLength(1);
    expect(exprs(v)).toContain('__proto__.text');
    expect(new Set(exprs(v)).size).toBe(v.length);
  });

  it('a long chain is walked without recursion', () => {
    const nodes = Array.from({ length: 20000 }, (_, i) => ({ id: `n${i}`, kind: 'transform', upstream: i ? [`n${i - 1}`] : [] }));
    const v = reachableValues({ inputs: [], nodes }, 'n19999', c);
    expect(v.filter((x) => x.expression.endsWith('.output'))).toHaveLength(19999);
  });

  it('without a catalog: outputs and the documented loop and run fields', () => {
    const v = exprs(reachableValues(selfRefine, 'merge', null));
    expect(v).toEqual(expect.arrayContaining(['draft.output', 'loop.iteration', 'loop.input', 'run.id']));
  });
});

describe('template completion', () => {
  const reachable: ReachableValue[] = [
    { expression: 'input.topic', source: 'input' },
    { expression: 'draft.text', source: 'node draft (llm)' },
    { expression: 'draft.output', source: 'node draft (llm)' },
    { expression: 'loop.iteration', source: 'loop refine' },
  ];

  it('right after {{ offers everything, and closes the expression', () => {
    const t = 'Write {{ ';
    const r = templateCompletion(t, t.length, reachable)!;
    expect(r.options).toHaveLength(4);
    expect(r.typed).toBe('');
    expect(r.close).toBe(true);
    expect(applyTemplateCompletion(t, r, 'draft.text')).toEqual({ text: 'Write {{ draft.text }}', cursor: 22 });
  });

  it('filters by what is typed, prefix matches first', () => {
    const t = 'x {{ dra';
    const r = templateCompletion(t, t.length, reachable)!;
    expect(r.options.map((o) => o.expression)).toEqual(['draft.text', 'draft.output']);
    expect(r.from).toBe(5);
    const r2 = templateCompletion('{{ ter', 6, reachable)!;
    expect(r2.options.map((o) => o.expression)).toEqual(['loop.iteration']);
  });

  it('does not add a second }} when the expression is closed', () => {
    const t = 'a {{ dr }} b';
    const r = templateCompletion(t, 7, reachable)!;
    expect(r.close).toBe(false);
    expect(applyTemplateCompletion(t, r, 'draft.text').text).toBe('a {{ draft.text }} b');
  });

  it('inside {% %} it completes without closing', () => {
    const t = '{% if dr';
    const r = templateCompletion(t, t.length, reachable)!;
    expect(r.close).toBe(false);
    expect(r.options[0]?.expression).toBe('draft.text');
  });

  it.each([
    ['no braces', 'plain text', 10],
    ['after a closed expression', '{{ a }} then', 12],
    ['nothing matches', '{{ zzz', 6],
    ['before the braces', 'ab {{ x', 1],
  ])('%s: no completion', (_what, text, cursor) => {
    expect(templateCompletion(text, cursor, reachable)).toBeUndefined();
  });

  it('a condition completes names without braces, and never inside a string of its own braces', () => {
    const r = templateCompletion('not dra', 7, reachable, 50, true)!;
    expect(r.options.map((o) => o.expression)).toEqual(['draft.text', 'draft.output']);
    expect(r.close).toBe(false);
    expect(applyTemplateCompletion('not dra', r, 'draft.text').text).toBe('not draft.text');
    expect(templateCompletion('not dra', 7, reachable)).toBeUndefined();
    expect(templateCompletion('{{ a }} and lo', 14, reachable, 50, true)?.options[0]?.expression).toBe('loop.iteration');
    expect(templateCompletion('x < 3 ', 6, reachable, 50, true)).toBeUndefined();
  });

  it('a cursor out of the text is clamped', () => {
    expect(templateCompletion('{{ ', 999, reachable)?.options).toHaveLength(4);
    expect(templateCompletion('{{ ', -5, reachable)).toBeUndefined();
  });

  it('a huge text and many values stay bounded', () => {
    const many = Array.from({ length: 5000 }, (_, i) => ({ expression: `n${i}.output`, source: 'x' }));
    const text = 'x'.repeat(200_000) + '{{ n';
    const r = templateCompletion(text, text.length, many)!;
    expect(r.options.length).toBeLessThanOrEqual(50);
  });
});

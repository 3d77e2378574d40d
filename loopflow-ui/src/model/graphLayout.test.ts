import { describe, expect, it } from 'vitest';
import { graphFixture } from '../test-support';
import { HEADER, drawnSource, layoutGraph, type Box } from './graphLayout';

const inside = (a: Box, b: Box) => a.x >= b.x && a.y >= b.y && a.x + a.width <= b.x + b.width && a.y + a.height <= b.y + b.height;
const overlap = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

describe('graph layout', () => {
  it.each(['fix-until-pass', 'nested-fail', 'coder-reviewer-loop', 'pipeline-restart-tool', 'self-refine', 'tagline-with-a-person', 'counter', 'iterator-demo'])(
    'places every node of %s, inside its loop body, without overlaps',
    (name) => {
      const g = graphFixture(name);
      const l = layoutGraph(g);
      expect(l.nodes.size).toBe(g.nodes.length);
      for (const n of g.nodes) {
        const box = l.nodes.get(n.key)!;
        expect(Number.isFinite(box.x) && Number.isFinite(box.y)).toBe(true);
        if (n.parent) expect(inside(box, l.containers.get(n.parent)!)).toBe(true);
      }
      for (const c of g.containers ?? []) {
        if (c.parent) expect(inside(l.containers.get(c.key)!, l.containers.get(c.parent)!)).toBe(true);
      }
      const boxes = [...l.nodes.values()];
      for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) expect(overlap(boxes[i]!, boxes[j]!)).toBe(false);
    },
  );

  it('puts the forward order top to bottom', () => {
    const l = layoutGraph(graphFixture('fix-until-pass'));
    const y = (k: string) => l.nodes.get(k)!.y;
    expect(y('fix_until_pass/implement')).toBeLessThan(y('fix_until_pass/test'));
    expect(y('fix_until_pass/test')).toBeLessThan(y('fix_until_pass/review'));
  });

  it('draws what follows a loop below its body, from the body', () => {
    const g = graphFixture('fix-until-pass');
    const l = layoutGraph(g);
    const body = l.containers.get('[fix_until_pass]')!;
    expect(l.nodes.get('ship')!.y).toBeGreaterThanOrEqual(body.y + body.height);
    const toShip = g.edges!.find((e) => e.to === 'ship')!;
    expect(drawnSource(g, toShip)).toBe('[fix_until_pass]');
    const intoBody = g.edges!.find((e) => e.from === 'fix_until_pass' && e.to === '[fix_until_pass]')!;
    expect(drawnSource(g, intoBody)).toBe('fix_until_pass');
    const nested = graphFixture('nested-fail');
    const l2 = layoutGraph(nested);
    const inner = l2.containers.get('[outer/inner]')!;
    expect(l2.nodes.get('outer/boom')!.y).toBeGreaterThanOrEqual(inner.y + inner.height);
  });

  it('survives edges naming nothing and a body with no node', () => {
    const l = layoutGraph({
      nodes: [{ key: 'a', id: 'a' }],
      containers: [{ key: 'empty', node: 'a' }],
      edges: [{ from: 'a', to: 'ghost' }, { from: 'a', to: 'a' }],
    });
    expect(l.nodes.get('a')).toBeDefined();
    expect(l.containers.get('empty')).toBeDefined();
  });
});

describe('loop body boxes', () => {
  it.each(['fix-until-pass', 'nested-fail', 'coder-reviewer-loop', 'self-refine', 'tagline-with-a-person', 'iterator-demo', 'counter'])(
    'loopBoxHasNoEmptyBandUnderItsHeader_bugSeventyPixelGap: the first node of every body in %s sits just below its title',
    (name) => {
      const g = graphFixture(name);
      const l = layoutGraph(g);
      for (const c of g.containers ?? []) {
        const box = l.containers.get(c.key)!;
        const tops = [
          ...g.nodes.filter((n) => n.parent === c.key).map((n) => l.nodes.get(n.key)!.y),
          ...(g.containers ?? []).filter((d) => d.parent === c.key).map((d) => l.containers.get(d.key)!.y),
        ];
        if (tops.length === 0) continue;
        const gap = Math.min(...tops) - box.y;
        expect(gap).toBeGreaterThanOrEqual(HEADER);
        expect(gap).toBeLessThanOrEqual(HEADER + 16);
      }
    },
  );
});

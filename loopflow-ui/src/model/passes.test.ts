import { describe, expect, it } from 'vitest';
import { fixture } from '../test-support';
import { failedPasses, passView, recordsByPath } from './passes';
import { applyEvents, emptyRun } from './runState';

describe('what one pass did', () => {
  it('lists the body nodes of a pass with their journaled input and result', () => {
    const f = fixture('fix-until-pass');
    const run = applyEvents(emptyRun(), f.events);
    const v = passView(run, recordsByPath(f.executions), run.loops['fix_until_pass']!, 2);
    expect(v.items.map((i) => i.node)).toEqual(['implement', 'test', 'review']);
    expect(v.items.every((i) => i.status === 'completed')).toBe(true);
    expect(v.items[2]!.record?.result?.text).toBe('The test passes.\nTESTS_PASS');
    expect(JSON.stringify(v.items[0]!.record?.input)).toContain('Previous review');
    expect(v.failed).toBe(false);
  });

  it('shows a nested loop as one item of the outer pass, and the state it changed', () => {
    const f = fixture('nested-fail');
    const run = applyEvents(emptyRun(), f.events);
    const records = recordsByPath(f.executions);
    const outer1 = passView(run, records, run.loops['outer']!, 1);
    expect(outer1.items.map((i) => i.path)).toEqual(['outer[1].prep', 'outer[1].inner', 'outer[1].boom']);
    expect(outer1.items[1]!.loop?.path).toBe('outer[1].inner');
    const inner2 = passView(run, records, run.loops['outer[1].inner']!, 2);
    expect(inner2.items.map((i) => i.path)).toEqual(['outer[1].inner[2].inc']);
    expect(inner2.stateChange).toEqual({ n: 2 });
    const outer2 = passView(run, records, run.loops['outer']!, 2);
    expect(outer2.failed).toBe(true);
    expect(failedPasses(run, run.loops['outer']!)).toEqual(new Set([2]));
  });

  it('groups the overlapping items of an iterator by item', () => {
    const f = fixture('iterator-demo');
    const run = applyEvents(emptyRun(), f.events);
    const loop = run.loops['each_word']!;
    expect(loop.passes.map((p) => p.inputPreview)).toEqual(['alpha', 'beta', 'gamma']);
    const v = passView(run, recordsByPath(f.executions), loop, 2);
    expect(v.items.map((i) => i.path)).toEqual(['each_word[2].measure', 'each_word[2].label']);
  });
});

import { describe, expect, it } from 'vitest';
import { fixture } from '../test-support';
import { applyEvents, emptyRun } from './runState';
import { parseTime } from './time';
import { effectivePasses } from './graphMap';
import { chosenPassKeys, timelineRows } from './timeline';

describe('timeline', () => {
  it('has a bar per execution and per pass, passes under their loop and nested loops deeper', () => {
    const run = applyEvents(emptyRun(), fixture('nested-fail').events);
    const t = timelineRows(run, Date.now());
    const shape = t.rows.map((r) => `${'  '.repeat(r.depth)}${r.type}:${r.path}`);
    expect(shape).toEqual([
      'exec:outer',
      '  pass:outer[1]',
      '    exec:outer[1].prep',
      '    exec:outer[1].inner',
      '      pass:outer[1].inner[1]',
      '        exec:outer[1].inner[1].inc',
      '      pass:outer[1].inner[2]',
      '        exec:outer[1].inner[2].inc',
      '    exec:outer[1].boom',
      '  pass:outer[2]',
      '    exec:outer[2].prep',
      '    exec:outer[2].inner',
      '    exec:outer[2].boom',
    ]);
    expect(t.rows.find((r) => r.path === 'outer[2]')?.status).toBe('failed');
    for (const r of t.rows) {
      expect(r.end).toBeGreaterThanOrEqual(r.start);
      expect(r.end).toBeLessThanOrEqual(t.span);
    }
  });

  it('draws a loop without a node of its own (a loop edge) as a loop row', () => {
    const run = applyEvents(emptyRun(), fixture('coder-reviewer-loop').events);
    const t = timelineRows(run, Date.now());
    expect(t.rows.map((r) => `${r.depth}:${r.type}:${r.path}`)).toEqual([
      '0:loop:reviewer->coder',
      '1:pass:reviewer->coder[1]',
      '2:exec:reviewer->coder[1].coder',
      '2:exec:reviewer->coder[1].reviewer',
      '1:pass:reviewer->coder[2]',
      '2:exec:reviewer->coder[2].coder',
      '2:exec:reviewer->coder[2].reviewer',
    ]);
  });

  it('ends a running bar at now and an iterator item at its last execution', () => {
    const f = fixture('iterator-demo');
    const run = applyEvents(emptyRun(), f.events);
    const t = timelineRows(run, Date.now());
    const item1 = t.rows.find((r) => r.path === 'each_word[1]')!;
    const label1 = t.rows.find((r) => r.path === 'each_word[1].label')!;
    expect(item1.end).toBe(label1.end);
    const half = applyEvents(emptyRun(), f.events.slice(0, 7));
    const now = parseTime(f.events[6]!.at)! + 5000;
    const running = timelineRows(half, now).rows.find((r) => r.path === 'each_word[2].measure')!;
    expect(running.running).toBe(true);
    expect(running.end).toBeGreaterThan(4000);
  });

  it('runningBarsReachTheLatestEventWhenThePageClockLags_bugStaleNow', () => {
    const f = fixture('fix-until-pass');
    const cut = f.events.slice(0, 14); // pass 2 has just begun
    const run = applyEvents(emptyRun(), cut);
    const staleNow = parseTime(f.events[2]!.at)!; // the page's clock ticked long before the latest event
    const t = timelineRows(run, staleNow);
    const pass1 = t.rows.find((r) => r.path === 'fix_until_pass[1]')!;
    const pass2 = t.rows.find((r) => r.path === 'fix_until_pass[2]')!;
    expect(pass1.running).toBe(false);
    expect(pass2.start).toBeGreaterThanOrEqual(pass1.end);
    expect(t.span).toBeGreaterThanOrEqual(pass2.end);
    expect(t.rows.find((r) => r.path === 'fix_until_pass')!.end).toBeGreaterThanOrEqual(pass2.start);
  });

  it.each([
    ['2026-11-24T02:51:02.249230776Z', Date.UTC(2026, 10, 24, 2, 51, 2, 249)],
    ['2026-11-24T02:51:02Z', Date.UTC(2026, 10, 24, 2, 51, 2)],
    ['2026-11-24T02:51:02.2+01:00', Date.UTC(2026, 10, 24, 1, 51, 2, 200)],
  ])('reads the instant %s', (iso, ms) => {
    expect(parseTime(iso)).toBe(ms);
  });

  it.each([null, undefined, '', 'yesterday'])('reads no instant from %j', (v) => {
    expect(parseTime(v as string)).toBeUndefined();
  });
});

describe('chosen pass on the timeline', () => {
  it('timelineHighlightsTheChosenPass_bugNavigatorChoiceNotShown: the chosen pass and only it is highlighted', () => {
    const run = applyEvents(emptyRun(), fixture('nested-fail').events);
    const rows = timelineRows(run, Date.now()).rows;
    const chosen = (sel: Record<string, number>) => {
      const keys = chosenPassKeys(effectivePasses(run, sel), sel);
      return rows.filter((r) => keys.has(r.key)).map((r) => r.path);
    };
    expect(chosen({})).toEqual([]);
    expect(chosen({ outer: 1 })).toEqual(['outer[1]']);
    expect(chosen({ outer: 1, 'outer.inner': 2 })).toEqual(['outer[1]', 'outer[1].inner[2]']);
    // the shown outer pass (2, the latest) has an inner loop that never ran a pass: nothing to highlight there
    expect(chosen({ 'outer.inner': 1 })).toEqual([]);
  });
});

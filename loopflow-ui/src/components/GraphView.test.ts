import { describe, expect, it } from 'vitest';
import { fixture } from '../test-support';
import { effectivePasses } from '../model/graphMap';
import { applyEvents, emptyRun } from '../model/runState';
import { passBadgeLabel, passBadges } from './GraphView';

describe('pass badge', () => {
  const run = applyEvents(emptyRun(), fixture('self-refine').events);
  const badge = (selection: Record<string, number>) => passBadgeLabel(passBadges(run, effectivePasses(run, selection)).get('refine'));

  it('earlierPassDoesNotClaimTheLoopExit_bugBadgeReadMaxIterationsForPass2: an earlier pass reads "pass k/N" without the exit reason', () => {
    for (const k of [1, 2]) {
      const b = badge({ refine: k });
      expect(b.text).toBe(`pass ${k}/3`);
      expect(b.exit).toBe('');
      expect(b.title).not.toContain('max iterations');
      expect(b.title).toContain('latest pass is 3');
    }
  });

  it('the last pass carries how the loop ended', () => {
    for (const selection of [{}, { refine: 3 }] as Record<string, number>[]) {
      const b = badge(selection);
      expect(b.text).toBe('3/3');
      expect(b.exit).toBe('max iterations');
      expect(b.title).toBe('pass 3/3, the loop ended: max iterations');
    }
  });
});

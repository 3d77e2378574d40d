import { describe, expect, it } from 'vitest';
import { innermostPass, lastName, parsePath, passChain, staticPath } from './paths';

describe('paths', () => {
  it.each([
    ['fix_until_pass[2].implement', 'fix_until_pass.implement'],
    ['outer[1].inner[2].inc', 'outer.inner.inc'],
    ['reviewer->coder[2].coder', 'reviewer->coder.coder'],
    ['restart[3].discover', 'restart.discover'],
    ['tagline[1].gate', 'tagline.gate'],
    ['g[12].$until', 'g.$until'],
    ['ship', 'ship'],
    ['', ''],
  ])('strips the passes of %s', (path, expected) => {
    expect(staticPath(path)).toBe(expected);
  });

  it('names the passes a path runs in, outermost first', () => {
    expect(passChain('outer[2].inner[1].inc')).toEqual([
      { loopPath: 'outer', loopStatic: 'outer', iteration: 2 },
      { loopPath: 'outer[2].inner', loopStatic: 'outer.inner', iteration: 1 },
    ]);
    expect(innermostPass('outer[2].inner[1].inc')?.loopPath).toBe('outer[2].inner');
    expect(innermostPass('ship')).toBeUndefined();
  });

  it('keeps engine-made segments and the node id', () => {
    expect(parsePath('restart[2].report~restart')).toEqual([{ name: 'restart', iteration: 2 }, { name: 'report~restart' }]);
    expect(lastName('outer[1].inner[2].inc')).toBe('inc');
  });
});

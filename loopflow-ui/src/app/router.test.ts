import { describe, expect, it } from 'vitest';
import { mayLeave, parseRoute, runHref, setLeaveGuard } from './router';

describe('routes', () => {
  it.each([
    ['/', { page: 'runs' }],
    ['/runs', { page: 'runs' }],
    ['/runs/run_1', { page: 'run', id: 'run_1' }],
    ['/runs/run%2F..%2Fx', { page: 'run', id: 'run/../x' }],
    ['/runs/%E0%A4%A', { page: 'run', id: '%E0%A4%A' }],
    ['/builder', { page: 'builder', name: undefined }],
    ['/builder/review', { page: 'builder', name: 'review' }],
    ['/runs/a/b', { page: 'notfound', path: '/runs/a/b' }],
    ['/nothing', { page: 'notfound', path: '/nothing' }],
  ])('%s', (path, route) => {
    expect(parseRoute(path)).toEqual(route);
  });

  it('links to a run with its id encoded, so any id stays one path segment', () => {
    expect(runHref('run/../x?y#z')).toBe('/runs/run%2F..%2Fx%3Fy%23z');
    expect(parseRoute(runHref('run/../x?y#z'))).toEqual({ page: 'run', id: 'run/../x?y#z' });
  });
});

describe('leaving a page with unsaved work', () => {
  it('asks the guard while one is set, and only then', () => {
    expect(mayLeave()).toBe(true);
    for (const answer of [false, true]) {
      let asked = 0;
      setLeaveGuard(() => (asked++, answer));
      expect(mayLeave()).toBe(answer);
      expect(asked).toBe(1);
    }
    setLeaveGuard(null);
    expect(mayLeave()).toBe(true);
  });
});

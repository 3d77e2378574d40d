import { afterEach, describe, expect, it, vi } from 'vitest';

/** A window with just what the router's Back guard uses: its listeners, its address and history.pushState. */
function fakeWindow(path: string) {
  const listeners: { f: (ev: PopStateEvent) => void; capture: boolean }[] = [];
  const loc = { pathname: path, search: '' };
  const pushed: string[] = [];
  const go = (href: string) => {
    const q = href.indexOf('?');
    loc.pathname = q < 0 ? href : href.slice(0, q);
    loc.search = q < 0 ? '' : href.slice(q);
  };
  const win = {
    location: loc,
    history: { pushState: (_s: unknown, _t: string, href: string) => (pushed.push(href), go(href)), replaceState: (_s: unknown, _t: string, href: string) => go(href) },
    addEventListener: (type: string, f: (ev: PopStateEvent) => void, capture?: boolean) => type === 'popstate' && listeners.push({ f, capture: !!capture }),
    removeEventListener: () => undefined,
  };
  /** the browser's Back: the address changes, then popstate reaches the capture listeners first */
  const back = (to: string) => {
    go(to);
    let stopped = false;
    const ev = { stopImmediatePropagation: () => (stopped = true) } as unknown as PopStateEvent;
    for (const l of [...listeners].sort((a, b) => Number(b.capture) - Number(a.capture))) {
      if (stopped) break;
      l.f(ev);
    }
    return stopped;
  };
  return { win, loc, pushed, back };
}

describe('the browser’s Back with a leave guard', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it('asks the guard; no puts the guarded address back and stops the app from seeing the change; yes lets it go', async () => {
    const w = fakeWindow('/builder/draft');
    vi.stubGlobal('window', w.win);
    const router = await import('./router');
    let answer = false;
    let asked = 0;
    router.setLeaveGuard(() => (asked++, answer));
    expect(w.back('/')).toBe(true);
    expect(asked).toBe(1);
    expect(w.loc.pathname).toBe('/builder/draft');
    expect(w.pushed).toEqual(['/builder/draft']);
    answer = true;
    expect(w.back('/')).toBe(false);
    expect(asked).toBe(2);
    expect(w.loc.pathname).toBe('/');
    router.setLeaveGuard(null);
  });

  it('does not ask without a guard, nor when only the fragment changed', async () => {
    const w = fakeWindow('/builder?template=t');
    vi.stubGlobal('window', w.win);
    const router = await import('./router');
    let asked = 0;
    router.setLeaveGuard(() => (asked++, false));
    expect(w.back('/builder?template=t')).toBe(false);
    expect(asked).toBe(0);
    router.setLeaveGuard(null);
    expect(w.back('/')).toBe(false);
    expect(asked).toBe(0);
  });
});

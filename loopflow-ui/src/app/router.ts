// Client-side routes. The server answers every page path with the app, so links are real paths and reloading a page
// works; navigation within the app uses the History API.
import { useSyncExternalStore } from 'react';

export type Route =
  | { page: 'runs' }
  | { page: 'run'; id: string }
  | { page: 'builder'; name?: string }
  | { page: 'notfound'; path: string };

export function parseRoute(pathname: string): Route {
  const parts = pathname.split('/').filter(Boolean).map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  if (parts.length === 0) return { page: 'runs' };
  if (parts[0] === 'runs' && parts.length === 2) return { page: 'run', id: parts[1]! };
  if (parts[0] === 'runs' && parts.length === 1) return { page: 'runs' };
  if (parts[0] === 'builder' && parts.length <= 2) return { page: 'builder', name: parts[1] };
  return { page: 'notfound', path: pathname };
}

const listeners = new Set<() => void>();
function subscribe(f: () => void) {
  listeners.add(f);
  window.addEventListener('popstate', f);
  return () => {
    listeners.delete(f);
    window.removeEventListener('popstate', f);
  };
}
const snapshot = () => window.location.pathname + window.location.search;

export function useLocation(): { pathname: string; search: string } {
  const href = useSyncExternalStore(subscribe, snapshot);
  const q = href.indexOf('?');
  return q < 0 ? { pathname: href, search: '' } : { pathname: href.slice(0, q), search: href.slice(q) };
}

/**
 * A page with work that would be lost (the builder's unsaved changes) asks before the app leaves it: the guard
 * returns false to stay. One guard at a time; setting null removes it.
 */
let leaveGuard: (() => boolean) | null = null;
/** the address of the page that set the guard: where the browser's Back (or Forward) is undone to when it stays */
let guardedAt: string | null = null;

const here = () => window.location.pathname + window.location.search;

export function setLeaveGuard(guard: (() => boolean) | null): void {
  leaveGuard = guard;
  guardedAt = guard && typeof window !== 'undefined' ? here() : null;
}

/**
 * The browser's Back and Forward buttons within the app: the address has already changed when `popstate` arrives, so
 * a guard that says stay puts the guarded page's address back before the app (listening after this, in the bubble
 * phase) reads it, and the page stays as it is, its work included. Registered once, in the capture phase.
 */
function guardHistory(ev: PopStateEvent): void {
  if (!leaveGuard || guardedAt === null || here() === guardedAt) return;
  if (leaveGuard()) return;
  ev.stopImmediatePropagation();
  window.history.pushState(null, '', guardedAt);
}
if (typeof window !== 'undefined') window.addEventListener('popstate', guardHistory, true);

/** True when the app may go to another page: no guard, or the guard agrees. */
export function mayLeave(): boolean {
  return leaveGuard ? leaveGuard() : true;
}

export function navigate(href: string, replace = false): void {
  if (!mayLeave()) return;
  if (replace) window.history.replaceState(null, '', href);
  else window.history.pushState(null, '', href);
  listeners.forEach((f) => f());
}

export function runHref(id: string): string {
  return `/runs/${encodeURIComponent(id)}`;
}

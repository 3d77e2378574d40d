// The run viewer in headless Chromium: how long a run page of a long loop takes to be usable, how much it blocks the
// main thread while loading, how long a click on a pass takes to show that pass, and how busy a live run keeps the
// page. Started by measure.sh, which starts `loopflow server` and gives LOOPFLOW_URL and LOOPFLOW_TOKEN.
//
// It measures whatever build serves the page: it only relies on what every run page has had (the navigator
// `loop-navigator-LOOP`, its count `loop-pass-count-LOOP` reading "pass K of N", the pass view `pass-view-LOOP`) and
// reaches a pass through a pass button `pass-button-LOOP-K` or, when there is none, the jump box `pass-jump-LOOP`.
// No figure here is checked against a limit: this is a benchmark, not a test.
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import http from 'node:http';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
// loopflow-ui's own playwright-core: the benchmark installs nothing
const { chromium } = createRequire(join(root, 'loopflow-ui', 'package.json'))('playwright-core');

const BASE = (process.env.LOOPFLOW_URL || '').replace(/\/+$/, '');
const TOKEN = process.env.LOOPFLOW_TOKEN || '';
if (!BASE || !TOKEN) {
  console.error('measure.mjs: LOOPFLOW_URL and LOOPFLOW_TOKEN must be set (measure.sh sets them)');
  process.exit(2);
}
const N = Number(process.env.BENCH_N || 5);
const LIVE_N = Number(process.env.BENCH_LIVE_N || 3);
const LIVE_WINDOW_MS = Number(process.env.BENCH_LIVE_WINDOW_MS || 5000);
const PACER_MS = Number(process.env.BENCH_PACER_MS || 3);
/** One load may take this long before it is recorded as timed out (an old build may never get there). */
const LOAD_LIMIT_MS = Number(process.env.BENCH_LOAD_LIMIT_MS || 60_000);
const CLICK_LIMIT_MS = Number(process.env.BENCH_CLICK_LIMIT_MS || 30_000);
const RESULTS = resolve(process.env.BENCH_RESULTS || join(here, 'results'));
const LABEL = process.env.BENCH_LABEL || 'unlabelled';
const ONLY = (process.env.BENCH_ONLY || '').split(',').filter(Boolean);
const CHROMIUM = process.env.LOOPFLOW_CHROMIUM || '/usr/bin/chromium';
// as loopflow-ui/e2e/lib.mjs: the background-network flags keep Chromium from calling out
const ARGS = ['--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const VIEWPORT = { width: 1280, height: 800 };

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.error('bench-ui:', ...a);

async function api(method, path, body) {
  const res = await fetch(BASE + path, {
    method,
    headers: { Authorization: `Bearer ${TOKEN}`, Accept: 'application/json', ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let json;
  try { json = text ? JSON.parse(text) : undefined; } catch { json = undefined; }
  return { status: res.status, json, text };
}

async function startRun(workflow, inputs = {}) {
  const r = await api('POST', '/api/runs', { workflow, inputs });
  if (r.status !== 201 || !r.json?.run_id) throw new Error(`starting ${workflow}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
  return r.json.run_id;
}

async function awaitEnd(runId, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const r = await api('GET', `/api/runs/${encodeURIComponent(runId)}`);
    if (r.status === 200 && r.json && r.json.status !== 'running') return r.json.status;
    await sleep(250);
  }
  throw new Error(`run ${runId} still running after ${ms} ms`);
}

/** The number of journaled passes of a loop, or undefined when the build has no passes route. */
async function passTotal(runId, loop) {
  const r = await api('GET', `/api/runs/${encodeURIComponent(runId)}/loops/${encodeURIComponent(loop)}/passes?limit=1`);
  return r.status === 200 ? r.json?.total : undefined;
}

// ---- what runs in the page -------------------------------------------------------------------------------------

/** Installed before any script of the page: long tasks as they happen, and the moment the page is "ready". */
function pageProbe({ navigators, ended }) {
  const w = window;
  w.__bench = { longtasks: [], ready: undefined };
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__bench.longtasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
  } catch {
    w.__bench.noLongtasks = true;
  }
  // Ready: as many loop navigators as the run has levels of loops, each visible and saying which pass it shows
  // ("pass K of N"), and one of them drawing its passes (a strip or pass buttons); for a run that has ended, each
  // also says how its loop ended ("ended: ..."), so a page still replaying the run's passes is not ready yet.
  // Checked once per frame after a change of the document, so the probe itself costs little while the page builds.
  const isReady = () => {
    const navs = [...document.querySelectorAll('[data-testid^="loop-navigator-"]')];
    if (navs.length < navigators) return false;
    for (const n of navs) {
      const r = n.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) return false;
      const count = n.querySelector('[data-testid^="loop-pass-count-"]');
      const text = (count ?? n).textContent ?? '';
      if (!/pass \d+/.test(text)) return false;
      if (ended && !n.querySelector('[data-testid^="loop-exit-"]') && !/\bended\b/.test(n.textContent ?? '')) return false;
    }
    return document.querySelector('[data-testid^="pass-strip-"], [data-testid^="pass-button-"]') !== null;
  };
  let scheduled = false;
  const check = () => {
    scheduled = false;
    if (w.__bench.ready !== undefined) return;
    if (isReady()) {
      // the frame after the change: when it can be painted
      requestAnimationFrame(() => { w.__bench.ready = performance.now(); });
      mo.disconnect();
    }
  };
  const mo = new MutationObserver(() => {
    if (!scheduled) { scheduled = true; requestAnimationFrame(check); }
  });
  const attach = () => mo.observe(document.documentElement, { childList: true, subtree: true, characterData: true });
  if (document.documentElement) attach(); else document.addEventListener('DOMContentLoaded', attach);
}

/**
 * Goes to pass `k` of loop `loop` the way a person would (its button, else the jump box) and resolves with the time
 * from the click to the frame after the pass view shows that pass, or with {error}.
 */
function pageGoToPass({ loop, k, limit }) {
  const q = (id) => document.querySelector(`[data-testid=${JSON.stringify(id)}]`);
  const shows = () => {
    const count = q(`loop-pass-count-${loop}`);
    if (!count || !new RegExp(`^pass ${k} of`).test((count.textContent ?? '').trim())) return false;
    const view = q(`pass-view-${loop}`);
    if (!view || view.getAttribute('aria-busy') === 'true' || q(`pass-loading-${loop}`)) return false;
    return true;
  };
  return new Promise((resolvePromise) => {
    let t0;
    let done = false;
    const finish = (v) => { if (!done) { done = true; mo.disconnect(); resolvePromise(v); } };
    const mo = new MutationObserver(() => {
      if (t0 !== undefined && shows()) requestAnimationFrame(() => finish({ ms: performance.now() - t0 }));
    });
    mo.observe(document.documentElement, { childList: true, subtree: true, characterData: true, attributes: true });
    setTimeout(() => finish({ error: `pass ${k} not shown within ${limit} ms` }), limit);
    const button = q(`pass-button-${loop}-${k}`);
    if (button) {
      t0 = performance.now();
      button.click();
      return;
    }
    const box = q(`pass-jump-${loop}`);
    if (!box) return finish({ error: `neither pass-button-${loop}-${k} nor pass-jump-${loop} is on the page` });
    // React's controlled input: set the value through the prototype's setter so React sees the change
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(box, String(k));
    box.dispatchEvent(new Event('input', { bubbles: true }));
    const go = q(`pass-jump-go-${loop}`);
    t0 = performance.now();
    if (go) go.click();
    else box.form?.requestSubmit();
    if (shows()) requestAnimationFrame(() => finish({ ms: performance.now() - t0, via: 'jump' }));
  });
}

// ---- one cold load -----------------------------------------------------------------------------------------------

/** The promise's value, or undefined when it takes longer than `ms`. */
function bounded(promise, ms) {
  return Promise.race([promise.catch(() => undefined), sleep(ms).then(() => undefined)]);
}

async function metrics(cdp) {
  const { metrics: m } = await cdp.send('Performance.getMetrics');
  return Object.fromEntries(m.map((x) => [x.name, x.value]));
}

async function coldLoad(browser, { runId, navigators, clickLoop, clickPass, idleProbe }) {
  const context = await browser.newContext({ viewport: VIEWPORT, locale: 'en-US', timezoneId: 'UTC' });
  const out = {};
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message.slice(0, 300)));
    await page.addInitScript(pageProbe, { navigators, ended: true });
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable', { timeDomain: 'timeTicks' });
    await page.goto(`${BASE}/runs/${encodeURIComponent(runId)}#token=${encodeURIComponent(TOKEN)}`, { waitUntil: 'commit' });
    const end = Date.now() + LOAD_LIMIT_MS;
    while (Date.now() < end && (await page.evaluate(() => window.__bench?.ready)) === undefined) await sleep(50);
    out.ready_ms = await page.evaluate(() => window.__bench?.ready);
    if (out.ready_ms === undefined) {
      // a page that never got there is closed, not waited for (its main thread may be busy for minutes); what it
      // reported so far is kept when it answers within a few seconds
      out.error = `not ready within ${LOAD_LIMIT_MS} ms`;
      const lt = await bounded(page.evaluate(() => window.__bench.longtasks), 3000);
      if (lt) {
        out.longtasks = lt.length;
        out.longtask_ms = Math.round(lt.reduce((s, t) => s + t.duration, 0));
        out.longest_task_ms = Math.round(lt.reduce((m, t) => Math.max(m, t.duration), 0));
      } else out.unresponsive = true;
      const m = await bounded(metrics(cdp), 3000);
      if (m) out.heap_mb = +(m.JSHeapUsedSize / 1048576).toFixed(1);
      return out;
    }
    // network idle: Playwright's (no request for 500 ms), then the last response's end as the page timed it; an
    // event stream still open (a live run) never ends and is left out
    await page.waitForLoadState('networkidle', { timeout: Math.max(1000, Math.min(15_000, end - Date.now())) })
      .catch(() => { out.network_idle_timeout = true; });
    out.network_idle_ms = await page.evaluate(() => {
      const ends = performance.getEntriesByType('resource').map((e) => e.responseEnd);
      const nav = performance.getEntriesByType('navigation')[0];
      return Math.max(nav ? nav.responseEnd : 0, ...ends);
    });
    // Loading is over when the main thread goes quiet: less than 5% of a 500 ms span in tasks (CDP TaskDuration).
    // A page that shows its navigator and then keeps working (replaying events, drawing) is still loading.
    for (let quiet = false; !quiet && Date.now() < end;) {
      const a = await metrics(cdp);
      await sleep(500);
      const b = await metrics(cdp);
      quiet = b.TaskDuration - a.TaskDuration < 0.05 * (b.Timestamp - a.Timestamp);
      if (!quiet && Date.now() >= end) out.settle_timeout = true;
    }
    const lt = await page.evaluate(() => window.__bench.longtasks);
    const during = lt; // every long task until the page went quiet
    out.settled_ms = Math.max(out.ready_ms ?? 0, out.network_idle_ms ?? 0, ...lt.map((t) => t.start + t.duration));
    out.longtasks = during.length;
    out.longtask_ms = Math.round(during.reduce((s, t) => s + t.duration, 0));
    out.longest_task_ms = Math.round(during.reduce((m, t) => Math.max(m, t.duration), 0));
    out.tbt_ms = Math.round(during.reduce((s, t) => s + Math.max(0, t.duration - 50), 0));
    await cdp.send('HeapProfiler.collectGarbage').catch(() => {});
    const m = await metrics(cdp);
    out.heap_mb = +(m.JSHeapUsedSize / 1048576).toFixed(1);
    out.dom_nodes = m.Nodes;
    if (idleProbe) {
      // what the busy share reads on a page that has nothing to do (a completed run, loaded): the floor of the
      // live figure
      const i0 = await metrics(cdp);
      await sleep(2000);
      const i1 = await metrics(cdp);
      out.idle_busy_pct = +((100 * (i1.TaskDuration - i0.TaskDuration)) / (i1.Timestamp - i0.Timestamp)).toFixed(1);
    }
    if (out.ready_ms !== undefined && clickLoop) {
      const r = await page.evaluate(pageGoToPass, { loop: clickLoop, k: clickPass, limit: CLICK_LIMIT_MS });
      if (r.error) out.click_error = r.error;
      else out.click_ms = r.ms;
    }
    if (errors.length) out.page_errors = errors;
  } finally {
    await bounded(context.close(), 10_000);
  }
  return out;
}

// ---- a live run ----------------------------------------------------------------------------------------------------

function startPacer(ms) {
  return new Promise((res) => {
    const server = http.createServer((req, resp) => setTimeout(() => { resp.writeHead(200, { 'Content-Type': 'text/plain' }); resp.end('ok'); }, ms));
    server.listen(0, '127.0.0.1', () => res(server));
  });
}

async function liveOnce(browser, pacerUrl) {
  const runId = await startRun('bench-live', { pacer: pacerUrl });
  const context = await browser.newContext({ viewport: VIEWPORT, locale: 'en-US', timezoneId: 'UTC' });
  const out = { run_id: runId };
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message.slice(0, 300)));
    await page.addInitScript(pageProbe, { navigators: 1, ended: false });
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable', { timeDomain: 'timeTicks' });
    const t0 = Date.now();
    await page.goto(`${BASE}/runs/${encodeURIComponent(runId)}#token=${encodeURIComponent(TOKEN)}`, { waitUntil: 'commit' });
    const end = Date.now() + 20_000;
    while (Date.now() < end && (await page.evaluate(() => window.__bench?.ready)) === undefined) await sleep(50);
    out.ready_ms = await page.evaluate(() => window.__bench?.ready);
    out.opened_after_ms = Date.now() - t0;
    // the window: main-thread task time (CDP TaskDuration, seconds of work of the page's renderer main thread)
    // against wall time, and how many passes the run made meanwhile (the passes route, when the build has it)
    const passes = async () => {
      const [a, b] = [await passTotal(runId, 'ticks'), await passTotal(runId, 'more')];
      return a === undefined ? undefined : a + (b ?? 0);
    };
    const p0 = await passes();
    const m0 = await metrics(cdp);
    const w0 = Date.now();
    const lt0 = await page.evaluate(() => window.__bench.longtasks.length);
    await sleep(LIVE_WINDOW_MS);
    const m1 = await metrics(cdp);
    const w1 = Date.now();
    const p1 = await passes();
    const after = await api('GET', `/api/runs/${encodeURIComponent(runId)}`);
    const lt = (await page.evaluate(() => window.__bench.longtasks)).slice(lt0);
    const wall = (m1.Timestamp - m0.Timestamp) || (w1 - w0) / 1000;
    out.busy_pct = +((100 * (m1.TaskDuration - m0.TaskDuration)) / wall).toFixed(1);
    out.script_pct = +((100 * (m1.ScriptDuration - m0.ScriptDuration)) / wall).toFixed(1);
    out.window_s = +wall.toFixed(2);
    out.window_longtasks = lt.length;
    out.window_longest_ms = Math.round(lt.reduce((m, t) => Math.max(m, t.duration), 0));
    if (p0 !== undefined && p1 !== undefined) {
      out.passes_in_window = p1 - p0;
      out.passes_per_s = +((p1 - p0) / ((w1 - w0) / 1000)).toFixed(1);
      out.run_ended_in_window = after.json?.status !== 'running';
      // the rate moves with the machine's load; main-thread time per pass compares builds measured at different rates
      if (p1 > p0) out.busy_ms_per_pass = +((1000 * (m1.TaskDuration - m0.TaskDuration)) / (p1 - p0)).toFixed(2);
    }
    // a click while the run goes on: to pass 100, which every run has made by now
    const r = await page.evaluate(pageGoToPass, { loop: 'ticks', k: 100, limit: CLICK_LIMIT_MS });
    if (r.error) out.click_error = r.error;
    else out.click_ms = r.ms;
    const status = await api('GET', `/api/runs/${encodeURIComponent(runId)}`);
    out.run_status_after = status.json?.status;
    if (errors.length) out.page_errors = errors;
  } finally {
    await context.close();
    // a run still going is not left to compete with the next measurement
    await api('POST', `/api/runs/${encodeURIComponent(runId)}/cancel`, {}).catch(() => {});
    await awaitEnd(runId, 30_000).catch(() => {});
  }
  return out;
}

// ---- the passes route --------------------------------------------------------------------------------------------

async function passesRoute(runId) {
  const path = `/api/runs/${encodeURIComponent(runId)}/loops/steps/passes?offset=900&limit=100`;
  const times = [];
  let r;
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    r = await api('GET', path);
    times.push(performance.now() - t);
  }
  const passes = r.json?.passes ?? [];
  return {
    path,
    status: r.status,
    total: r.json?.total,
    returned: passes.length,
    first: passes[0]?.pass,
    last: passes[passes.length - 1]?.pass,
    ms: times.map((t) => +t.toFixed(1)),
  };
}

// ---- the whole session -------------------------------------------------------------------------------------------

const median = (xs) => {
  const s = xs.filter((x) => typeof x === 'number').sort((a, b) => a - b);
  if (!s.length) return undefined;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const max = (xs) => {
  const s = xs.filter((x) => typeof x === 'number');
  return s.length ? Math.max(...s) : undefined;
};
const fmt = (v, unit = '') => (v === undefined ? '—' : `${Math.round(v).toLocaleString('en-US')}${unit}`);
const cell = (xs, unit) => `${fmt(median(xs), unit)} / ${fmt(max(xs), unit)}`;

const PAGES = [
  { key: 'loop-1000', workflow: 'bench-loop-1000', title: '1,000-pass loop', navigators: 1, clickLoop: 'steps', clickPass: 500 },
  { key: 'nested-10x1000', workflow: 'bench-nested-10x1000', title: '10×1,000 nested', navigators: 2, clickLoop: 'outer.inner', clickPass: 500 },
];

async function main() {
  mkdirSync(RESULTS, { recursive: true });
  const started = new Date().toISOString();
  const result = { label: LABEL, started, n: N, pages: {}, live: [], passes_route: undefined };
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  try {
    for (const p of PAGES) {
      if (ONLY.length && !ONLY.includes(p.key)) continue;
      log(`running ${p.workflow} to completion...`);
      const t = Date.now();
      const runId = await startRun(p.workflow);
      const status = await awaitEnd(runId, 240_000);
      log(`${p.workflow}: ${status} in ${Date.now() - t} ms (run ${runId})`);
      if (p.key === 'loop-1000') result.passes_route = await passesRoute(runId);
      const loads = [];
      for (let i = 0; i < N; i++) {
        const l = await coldLoad(browser, { ...p, runId, idleProbe: i === 0 });
        log(`${p.key} load ${i + 1}/${N}: ${JSON.stringify(l)}`);
        loads.push(l);
        // a build that never gets there once will not on the next loads either; the session stays short
        if (l.ready_ms === undefined) {
          log(`${p.key}: not ready, the remaining ${N - i - 1} loads skipped`);
          break;
        }
      }
      result.pages[p.key] = { run_id: runId, title: p.title, loads };
    }
    if (!ONLY.length || ONLY.includes('live')) {
      const pacer = await startPacer(PACER_MS);
      const pacerUrl = `http://127.0.0.1:${pacer.address().port}/`;
      try {
        for (let i = 0; i < LIVE_N; i++) {
          const l = await liveOnce(browser, pacerUrl);
          log(`live ${i + 1}/${LIVE_N}: ${JSON.stringify(l)}`);
          result.live.push(l);
        }
      } finally {
        pacer.close();
      }
    }
  } finally {
    await browser.close();
  }

  const lines = [];
  lines.push(`Run viewer in Chromium — ${LABEL}, ${started}, N=${N} cold loads (median / max)`);
  if (Object.keys(result.pages).length) lines.push('', '| page | ready | network idle | settled | long tasks (total) | long tasks (count) | longest task | TBT | click → pass 500 | JS heap after load | DOM nodes | failed loads |');
  if (Object.keys(result.pages).length) lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const [, pg] of Object.entries(result.pages)) {
    const L = pg.loads;
    const col = (k) => L.map((l) => l[k]);
    const failed = L.filter((l) => l.error || l.click_error).length;
    lines.push(`| ${pg.title} | ${cell(col('ready_ms'), ' ms')} | ${cell(col('network_idle_ms'), ' ms')} | ${cell(col('settled_ms'), ' ms')} | ${cell(col('longtask_ms'), ' ms')} | ${cell(col('longtasks'))} | ${cell(col('longest_task_ms'), ' ms')} | ${cell(col('tbt_ms'), ' ms')} | ${cell(col('click_ms'), ' ms')} | ${cell(col('heap_mb'), ' MB')} | ${cell(col('dom_nodes'))} | ${failed} of ${L.length} |`);
  }
  if (result.live.length) {
    const L = result.live;
    const col = (k) => L.map((l) => l[k]);
    lines.push('');
    lines.push(`| live run (${L.length} runs, ${LIVE_WINDOW_MS / 1000} s window, median / max) | main thread busy | script | long tasks in window | longest | passes/s measured | busy per pass | ready | click → pass 100 |`);
    lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
    lines.push(`| bench-live, pacer ${PACER_MS} ms | ${cell(col('busy_pct'), ' %')} | ${cell(col('script_pct'), ' %')} | ${cell(col('window_longtasks'))} | ${cell(col('window_longest_ms'), ' ms')} | ${cell(col('passes_per_s'))} | ${col('busy_ms_per_pass').length ? `${median(col('busy_ms_per_pass'))?.toFixed?.(1) ?? '—'} ms` : '—'} | ${cell(col('ready_ms'), ' ms')} | ${cell(col('click_ms'), ' ms')} |`);
    const idle = Object.values(result.pages).map((pg) => pg.loads[0]?.idle_busy_pct).filter((x) => x !== undefined);
    if (idle.length) lines.push(`\nBusy share of a loaded page with nothing to do (the floor): ${idle.map((x) => x + ' %').join(', ')}.`);
  }
  if (result.passes_route) {
    const r = result.passes_route;
    lines.push('');
    lines.push(`Passes route \`GET ${r.path.replace(/^\/api\/runs\/[^/]+/, '/api/runs/{id}')}\`: HTTP ${r.status}, ${r.returned ?? 0} passes` +
      (r.returned ? ` (${r.first}–${r.last} of ${r.total})` : '') + `, ${fmt(median(r.ms), ' ms')} median of 5 (${r.ms.join(', ')} ms).`);
  }
  const table = lines.join('\n');
  const stamp = started.replace(/[:.]/g, '-');
  const safe = LABEL.replace(/[^A-Za-z0-9_-]+/g, '-');
  writeFileSync(join(RESULTS, `${stamp}-${safe}.json`), JSON.stringify(result, null, 2) + '\n');
  writeFileSync(join(RESULTS, `${stamp}-${safe}.md`), table + '\n');
  console.log(table);
}

main().catch((e) => {
  console.error('bench-ui:', e?.stack || e);
  process.exit(1);
});

// What every browser scenario shares: Debian's Chromium driven by playwright-core, pages that fail the scenario on
// any console error or warning, uncaught exception or failed request, a small client for the server's API, waiting
// helpers that say what they waited for, and screenshots when LOOPFLOW_UI_SCREENSHOTS names a folder.
//
// A scenario file exports scenario(name, async (t) => {...}) as default (regressions.mjs: a map of them); run.mjs runs
// them with one browser and prints "PASS name" or "FAIL name: reason" with the page problems seen. The harness
// (RunViewerBrowserTest) starts the server and gives LOOPFLOW_URL (http://host:port/) and LOOPFLOW_TOKEN.
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const CHROMIUM = process.env.LOOPFLOW_CHROMIUM || '/usr/bin/chromium';
/** Chromium's flags: the background-network ones keep it from calling out (the test machine's network is closed). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const VIEWPORT = { width: 1280, height: 800 };
/** How long one wait may take before the scenario fails saying what it waited for. */
export const WAIT_MS = Number(process.env.LOOPFLOW_E2E_WAIT_MS || 15_000);
/** The whole scenario's limit; the harness has its own, longer one. */
const SCENARIO_MS = Number(process.env.LOOPFLOW_E2E_SCENARIO_MS || 75_000);

export class ScenarioFailure extends Error {}

/** Fails the scenario with a reason in words. */
export function fail(reason) {
  throw new ScenarioFailure(reason);
}

export function check(condition, reason) {
  if (!condition) fail(reason);
}

function env(name) {
  const v = process.env[name];
  if (!v) fail(`${name} is not set; run the scenarios through RunViewerBrowserTest (or set LOOPFLOW_URL and LOOPFLOW_TOKEN)`);
  return v;
}

/** The server's API as the scenarios use it from Node (not through the page): JSON in, JSON out. */
export class Api {
  constructor(base, token) {
    this.base = base.replace(/\/+$/, '');
    this.token = token;
  }

  async call(method, path, body) {
    const res = await fetch(this.base + path, {
      method,
      headers: {
        Authorization: `Bearer ${this.token}`,
        Accept: 'application/json',
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let json;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, json, text };
  }

  async get(path) {
    const r = await this.call('GET', path);
    check(r.status === 200, `GET ${path} answered ${r.status}: ${r.text.slice(0, 300)}`);
    return r.json;
  }

  async post(path, body, expected = [200, 201, 202]) {
    const r = await this.call('POST', path, body);
    check(expected.includes(r.status), `POST ${path} answered ${r.status}: ${r.text.slice(0, 300)}`);
    return r.json;
  }

  /** Starts a run of a named workflow of the server's folder; returns its id. */
  async startRun(workflow, inputs = {}) {
    const r = await this.post('/api/runs', { workflow, inputs }, [201]);
    check(typeof r?.run_id === 'string', `POST /api/runs gave no run_id: ${JSON.stringify(r)}`);
    return r.run_id;
  }

  /** Polls the run until its status is one of `statuses`; returns the show JSON. */
  async awaitStatus(runId, statuses, ms = WAIT_MS) {
    const want = [].concat(statuses);
    const until = Date.now() + ms;
    let last;
    while (Date.now() < until) {
      const r = await this.call('GET', `/api/runs/${encodeURIComponent(runId)}`);
      if (r.status === 200) {
        last = r.json;
        if (want.includes(last?.status)) return last;
      }
      await sleep(100);
    }
    fail(`run ${runId} did not reach ${want.join(' or ')} within ${ms} ms; last status: ${last?.status ?? 'none'}`);
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until f() returns a truthy value (retrying on exceptions), and returns it; fails with `what` and the last
 * value or error seen.
 */
export async function until(what, f, ms = WAIT_MS) {
  const end = Date.now() + ms;
  let last;
  let lastError;
  for (;;) {
    try {
      last = await f();
      lastError = undefined;
      if (last) return last;
    } catch (e) {
      if (e instanceof ScenarioFailure) throw e;
      lastError = e;
    }
    if (Date.now() > end) {
      const seen = lastError ? `last error: ${lastError.message.split('\n')[0]}` : `last seen: ${JSON.stringify(last)}`;
      fail(`timed out after ${ms} ms waiting for ${what} (${seen})`);
    }
    await sleep(50);
  }
}

/** The trimmed text of the first element matching `selector`, or undefined when there is none. */
export async function textOf(page, selector) {
  const l = page.locator(selector).first();
  if ((await l.count()) === 0) return undefined;
  return ((await l.textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

/** Waits until the element's text matches `expected` (a string to contain, or a RegExp); returns the text. */
export async function expectText(page, selector, expected, what, ms = WAIT_MS) {
  const ok = (t) => (expected instanceof RegExp ? expected.test(t) : t.includes(expected));
  let seen;
  await until(
    `${what ?? selector} to show ${expected instanceof RegExp ? expected : JSON.stringify(expected)}`,
    async () => {
      seen = await textOf(page, selector);
      return seen !== undefined && ok(seen);
    },
    ms,
  ).catch((e) => {
    if (e instanceof ScenarioFailure) fail(`${e.message}; its text was ${JSON.stringify(seen)}`);
    throw e;
  });
  return seen;
}

/** A data-testid selector; ids with dots, brackets or slashes are quoted as the attribute value they are. */
export function tid(id) {
  return `[data-testid=${JSON.stringify(id)}]`;
}

/**
 * Everything a page reports that a person would see as broken: console errors and warnings, uncaught exceptions,
 * requests that failed at the network level, and responses with status 400 or more. A scenario that provokes one on
 * purpose lists it with allow(); an event stream the page itself closes (a reload, leaving a run's page) is the
 * page's own doing and not a problem.
 */
class PageWatch {
  constructor(page, name) {
    this.name = name;
    this.problems = [];
    this.allowed = [];
    this.navigating = false;
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') this.add(`console ${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => this.add(`uncaught exception: ${e.message}`));
    page.on('requestfailed', (r) => {
      const why = r.failure()?.errorText ?? 'failed';
      const url = r.url();
      if (why.includes('ERR_ABORTED') && (this.navigating || /\/api\/runs\/[^/]+\/events$/.test(new URL(url).pathname))) return;
      this.add(`request failed: ${r.method()} ${url} (${why})`);
    });
    page.on('response', (r) => {
      if (r.status() >= 400) this.add(`HTTP ${r.status()} for ${r.request().method()} ${r.url()}`);
    });
  }

  add(p) {
    if (this.allowed.some((re) => re.test(p))) return;
    this.problems.push(p);
  }
}

/** The scenario's tools: the browser, pages, the API, screenshots. */
class Scenario {
  constructor(name, context) {
    this.name = name;
    this.context = context;
    this.url = env('LOOPFLOW_URL').replace(/\/+$/, '') + '/';
    this.token = env('LOOPFLOW_TOKEN');
    this.api = new Api(this.url, this.token);
    this.watches = [];
    this.shots = process.env.LOOPFLOW_UI_SCREENSHOTS ? resolve(process.env.LOOPFLOW_UI_SCREENSHOTS) : undefined;
  }

  /** An address of the app: a path such as "/runs/ID", with the token in the fragment unless `token` is false. */
  link(path = '/', { token = true } = {}) {
    return this.url + path.replace(/^\/+/, '') + (token ? `#token=${encodeURIComponent(this.token)}` : '');
  }

  /** A new tab (its own session storage, so no token until it opens a link with one), watched for problems. */
  async page(label = 'page') {
    const page = await this.context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    const w = new PageWatch(page, label);
    w.page = page;
    this.watches.push(w);
    page.watch = w;
    return page;
  }

  /** Opens `path` logged in and waits for the app to have rendered. */
  async open(page, path = '/', opts = {}) {
    await this.goto(page, this.link(path, opts));
    return page;
  }

  async goto(page, url) {
    page.watch.navigating = true;
    try {
      await page.goto(url, { waitUntil: 'load' });
    } finally {
      page.watch.navigating = false;
    }
    await page.locator('#root > *').first().waitFor({ state: 'attached' });
  }

  async reload(page) {
    page.watch.navigating = true;
    try {
      await page.reload({ waitUntil: 'load' });
    } finally {
      page.watch.navigating = false;
    }
  }

  /** Problems a scenario provokes on purpose (matched against the problem's text). */
  allow(page, ...patterns) {
    page.watch.allowed.push(...patterns);
  }

  step(text) {
    console.log(`  ok - ${text}`);
  }

  /**
   * Saves a PNG of the viewport as NAME.png in the screenshot folder, when one is set: the top of the page, or with
   * `at` the element it names scrolled to the top. The pointer is moved away and focus dropped unless `keepFocus`
   * (a focused timeline bar shows its details).
   */
  async screenshot(page, name, { at, keepFocus = false } = {}) {
    if (!this.shots) return;
    mkdirSync(this.shots, { recursive: true });
    if (!keepFocus) {
      // the pointer and caret would differ from run to run
      await page.mouse.move(0, 0);
      await page.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
    }
    await page.evaluate((sel) => {
      const el = sel ? document.querySelector(sel) : null;
      if (el) window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 12);
      else window.scrollTo(0, 0);
    }, at ?? null);
    await sleep(300);
    const path = join(this.shots, `${name}.png`);
    await page.screenshot({ path, animations: 'disabled', caret: 'hide' });
    console.log(`  screenshot ${path}`);
  }

  /** On failure: a PNG of every open tab in LOOPFLOW_E2E_ARTIFACTS (when set), to see what the page showed. */
  async saveFailurePages() {
    const dir = process.env.LOOPFLOW_E2E_ARTIFACTS;
    if (!dir) return;
    mkdirSync(dir, { recursive: true });
    let i = 0;
    for (const w of this.watches) {
      const page = w.page;
      if (page.isClosed()) continue;
      const path = join(resolve(dir), `${this.name.replace(/[^A-Za-z0-9_-]+/g, '-')}-failed-${++i}.png`);
      try {
        await page.screenshot({ path, fullPage: true, timeout: 5000 });
        console.log(`  the page "${w.name}" as it was: ${path} (${page.url()})`);
      } catch {
        // a page that cannot be captured adds nothing to the failure
      }
    }
  }

  problems() {
    return this.watches.flatMap((w) => w.problems.map((p) => `[${w.name}] ${p}`));
  }
}

/** A scenario: a name and what it does with its tools. Scenario files export one (or a map of them) as default. */
export function scenario(name, body) {
  return { name, body };
}

/**
 * Starts Debian's Chromium headless. Playwright gives each launch a fresh profile folder of its own (it passes
 * --user-data-dir itself and deletes the folder on close), so nothing is carried over from an earlier run.
 */
export async function launchBrowser() {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/**
 * Runs one scenario in a new browser context (its own storage, 1280×800, en-US, UTC) of `browser` and prints its
 * outcome: "PASS name (ms)", or "FAIL name: reason" with every problem the pages reported. Returns true when it
 * passed. A scenario still going after its time limit fails and its pages are closed.
 */
export async function runScenario(browser, { name, body }) {
  const started = Date.now();
  let context;
  let t;
  let outcome = true;
  let timer;
  try {
    context = await browser.newContext({
      viewport: VIEWPORT,
      deviceScaleFactor: 1,
      locale: 'en-US',
      timezoneId: 'UTC',
      colorScheme: 'light',
      reducedMotion: 'reduce',
    });
    t = new Scenario(name, context);
    const limit = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new ScenarioFailure(`the scenario did not finish within ${SCENARIO_MS} ms`)), SCENARIO_MS);
    });
    await Promise.race([body(t), limit]);
    const problems = t.problems();
    if (problems.length) {
      outcome = false;
      console.log(`FAIL ${name}: the pages reported ${problems.length} problem(s):`);
      for (const p of problems) console.log(`  ${p}`);
    }
  } catch (e) {
    outcome = false;
    const reason = e instanceof ScenarioFailure ? e.message : (e?.stack ?? String(e));
    console.log(`FAIL ${name}: ${reason}`);
    const problems = t?.problems() ?? [];
    if (problems.length) console.log(`  the pages also reported:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    await t?.saveFailurePages();
  } finally {
    clearTimeout(timer);
    try {
      await context?.close();
    } catch {
      // the browser is gone already
    }
  }
  if (outcome) console.log(`PASS ${name} (${Date.now() - started} ms)`);
  return outcome;
}

/** The run page's status (the header badge's data-status), or undefined before it shows one. */
export async function runStatus(page) {
  const l = page.locator(tid('run-status'));
  return (await l.count()) ? ((await l.getAttribute('data-status')) ?? undefined) : undefined;
}

/** Waits until the run page shows `status`. */
export async function awaitRunStatus(page, status, ms = WAIT_MS) {
  await until(`the run page to show status ${status}`, async () => (await runStatus(page)) === status, ms);
}

/** The graph's nodes as {testid suffix: data-status}. */
export async function graphNodes(page) {
  return page.locator('[data-testid^="graph-node-"]').evaluateAll((els) =>
    Object.fromEntries(els.map((e) => [e.getAttribute('data-testid').slice('graph-node-'.length), e.getAttribute('data-status')])),
  );
}

/** Checks that the graph draws exactly `paths` (graph node paths, e.g. "passes.tick"), each once. */
export async function expectGraphNodes(page, paths) {
  const drawn = await until(`the graph to draw ${paths.join(', ')}`, async () => {
    const ids = await page.locator('[data-testid^="graph-node-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')));
    const names = ids.map((i) => i.slice('graph-node-'.length));
    return paths.every((p) => names.includes(p)) ? names : undefined;
  });
  const extra = drawn.filter((n) => !paths.includes(n));
  const twice = drawn.filter((n, i) => drawn.indexOf(n) !== i);
  check(extra.length === 0, `the graph draws nodes the workflow does not have: ${extra.join(', ')}`);
  check(twice.length === 0, `the graph draws a node more than once: ${twice.join(', ')}`);
  // drawn means visible in the canvas, not merely present in the document
  for (const p of paths) {
    const box = await page.locator(tid(`graph-node-${p}`)).boundingBox();
    check(box && box.width > 20 && box.height > 10, `graph node ${p} is not visible (box ${JSON.stringify(box)})`);
  }
}

/** Fails when a script planted by hostile text ran, or when such text became an element or an attribute. */
export async function expectNoInjection(page, where) {
  const found = await page.evaluate(() => ({
    xss: typeof window.__xss !== 'undefined' ? String(window.__xss) : undefined,
    imgs: document.querySelectorAll('img[src="x"], img[onerror]').length,
    handlers: document.querySelectorAll('[onerror]').length,
    scripts: [...document.scripts].filter((s) => (s.textContent ?? '').includes('__xss')).length,
  }));
  check(found.xss === undefined, `window.__xss was set (${found.xss}) on ${where}: hostile text ran as script`);
  check(found.imgs === 0 && found.handlers === 0, `hostile text became an element on ${where}: ${JSON.stringify(found)}`);
  check(found.scripts === 0, `hostile text became a script element on ${where}`);
}

/**
 * Records, inside the page, every change of what `probes` show: {name: [selector, attribute?]} (the attribute's value,
 * or the element's text without one; null while absent). changes(page) returns the distinct snapshots in order, so
 * a value that was on screen for a moment between two polls is not missed.
 */
export async function recordChanges(page, probes) {
  await page.evaluate((probes) => {
    const snap = () => {
      const s = {};
      for (const [name, [sel, attr]] of Object.entries(probes)) {
        const el = document.querySelector(sel);
        s[name] = el ? (attr ? el.getAttribute(attr) : (el.textContent ?? '').replace(/\s+/g, ' ').trim()) : null;
      }
      return s;
    };
    const log = (window.__lfChanges = []);
    let last = '';
    const take = () => {
      const s = snap();
      const key = JSON.stringify(s);
      if (key !== last) {
        last = key;
        log.push({ at: performance.now(), ...s });
      }
    };
    take();
    new MutationObserver(take).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  }, probes);
}

export async function changes(page) {
  return page.evaluate(() => window.__lfChanges ?? []);
}

/**
 * A pass-through HTTP proxy in front of the server, so a scenario can cut the page's connections as a network drop
 * would: dropStreams() destroys every open event stream. eventRequests lists the event-stream requests with their
 * Last-Event-ID header. The page opens the proxy's address as it would the server's.
 */
export async function startProxy(target) {
  const http = await import('node:http');
  const upstream = new URL(target);
  const streams = new Set();
  const eventRequests = [];
  const server = http.createServer((req, res) => {
    const isStream = /\/api\/runs\/[^/]+\/events$/.test(new URL(req.url, 'http://x').pathname);
    if (isStream) eventRequests.push({ url: req.url, lastEventId: req.headers['last-event-id'] ?? null });
    const out = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
        if (isStream) {
          const pair = { req, res, up };
          streams.add(pair);
          res.on('close', () => streams.delete(pair));
        }
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    eventRequests,
    openStreams: () => streams.size,
    dropStreams() {
      for (const s of streams) {
        s.up.destroy();
        s.res.destroy();
        s.req.socket.destroy();
      }
      streams.clear();
    },
    close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }),
  };
}

/** Checks that the graph draws `count` edges, each with a path (an edge whose ends are not measured has none). */
export async function expectGraphEdges(page, count) {
  await until(`the graph to draw its ${count} edges`, async () => {
    const drawn = await page.locator('.react-flow__edge path.react-flow__edge-path').evaluateAll((els) =>
      els.filter((e) => (e.getAttribute('d') ?? '').length > 4).length,
    );
    return drawn === count;
  });
}

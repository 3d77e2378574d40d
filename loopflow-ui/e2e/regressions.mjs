// Regression checks for bugs the browser tests found, one scenario each:
//   node e2e/run.mjs regressions:token-link-in-same-tab regressions:graph-node-click regressions:live-graph-edges
//   regressions:failure-watched-live regressions:approval-comment-shown
//   regressions:run-list-row regressions:chosen-pass regressions:run-header-facts
import { checkPinned } from './failing-run.mjs';
import { awaitRunStatus, check, expectText, runStatus, scenario, tid, until } from './lib.mjs';

const checks = {
  // The page asking for the token tells the person to open the #token=… address; pasted into the same tab only the
  // fragment changes, the page is not loaded again, and the app stayed on the explanation.
  async 'token-link-in-same-tab'(t) {
    const page = await t.page('same tab');
    await t.goto(page, t.link('/', { token: false }));
    await page.locator(tid('no-token')).waitFor();
    await page.goto(t.link('/'));
    await until('the run list after opening the #token=… address in the tab that asked for it', async () =>
      (await page.locator(tid('start-run-button')).count()) > 0,
    );
    check(!page.url().includes('token'), `the token stayed in the address bar: ${page.url()}`);
    t.step('the #token=… address opened in the same tab logs it in and leaves the address bar');
  },

  // React Flow turns pointer events off on nodes that are neither selectable nor draggable nor have a click handler,
  // and the node's button inherited it: clicking a node in the graph did nothing.
  async 'graph-node-click'(t) {
    const runId = await t.api.startRun('nested-loops');
    await t.api.awaitStatus(runId, 'completed');
    const page = await t.page('graph click');
    await t.open(page, `/runs/${encodeURIComponent(runId)}`);
    await awaitRunStatus(page, 'completed');
    for (const [path, exec] of [['outer.sum', 'outer[3].sum'], ['outer.inner.count', 'outer[3].inner[3].count']]) {
      await page.locator(`${tid(`graph-node-${path}`)} button`).click({ timeout: 5000 });
      await expectText(page, `${tid('execution-details')} dd code`, exec, `the side panel after clicking ${path}`);
      check((await page.locator(`${tid(`graph-node-${path}`)} button`).getAttribute('aria-pressed')) === 'true', `${path} is not shown as chosen`);
    }
    t.step('clicking graph nodes (top level and nested) shows their executions');
  },

  // The graph gave React Flow a new object per node at every live update, without the node's measured size; React
  // Flow then dropped the node's handle positions and, the size never changing, did not measure them again: the
  // edges vanished a moment after the page opened on a running run, and stayed gone.
  async 'live-graph-edges'(t) {
    const runId = await t.api.startRun('live-loop', { label: 'edges', delay: 1.5 });
    const graph = await t.api.get(`/api/runs/${encodeURIComponent(runId)}/graph`);
    const page = await t.page('live graph');
    await t.open(page, `/runs/${encodeURIComponent(runId)}`);
    const count = () => page.locator('.react-flow__edge path.react-flow__edge-path').evaluateAll((els) =>
      els.filter((e) => (e.getAttribute('d') ?? '').length > 4).length);
    await until('every edge to be drawn', async () => (await count()) === graph.edges.length);
    // The page itself notes the drawn edges at every change of its content (every live update), not at moments of
    // the clock: how fast this machine runs changes how many notes there are, never whether a lost edge is seen.
    await page.evaluate(() => {
      const drawn = () => [...document.querySelectorAll('.react-flow__edge path.react-flow__edge-path')]
        .filter((e) => (e.getAttribute('d') ?? '').length > 4).length;
      const status = () => document.querySelector('[data-testid="run-status"]')?.getAttribute('data-status') ?? null;
      const log = (window.__lfEdges = []);
      const take = () => log.push({ status: status(), edges: drawn() });
      take();
      new MutationObserver(take).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    await awaitRunStatus(page, 'completed', 60_000);
    const notes = await page.evaluate(() => window.__lfEdges);
    const live = notes.filter((n) => n.status === 'running');
    check(live.length > 0, `the run ended before the page could watch it live: ${JSON.stringify(notes.slice(0, 3))}`);
    const wrong = notes.filter((n) => n.edges !== graph.edges.length);
    check(wrong.length === 0,
      `while the run went on the graph drew ${JSON.stringify([...new Set(wrong.map((n) => n.edges))])} edges; it has ${graph.edges.length}`);
    t.step(`all ${graph.edges.length} edges stayed drawn through ${live.length} live updates of the run`);
  },

  // A pass's row opened its details only when it was failed the moment it was first drawn: on a page watching the
  // run, the row is drawn while its node runs, so the failure that came next stayed folded.
  async 'failure-watched-live'(t) {
    // Passes of 3 s: the page must be watching before pass 3 fails, which leaves a loaded machine six seconds.
    const runId = await t.api.startRun('fails-on-pass-3', { delay: 3 });
    const page = await t.page('watched failure');
    await t.open(page, `/runs/${encodeURIComponent(runId)}`);
    await expectText(page, tid('pass-badge-batches'), /^[12]\/5/, 'the loop running its first or second pass', 30_000);
    check((await runStatus(page)) === 'running', 'the run failed before the page watched it');
    await awaitRunStatus(page, 'failed', 60_000);
    await checkPinned(t, page, 'watched live');
  },

  // An approval node's details showed only "approved": the person's comment and when they answered were journaled
  // but never shown on the page.
  async 'approval-comment-shown'(t) {
    const runId = await t.api.startRun('needs-approval', { version: '3.0.0' });
    await t.api.awaitStatus(runId, 'paused');
    const comment = 'Ship it after the <b>smoke</b> test.';
    await t.api.post(`/api/runs/${encodeURIComponent(runId)}/resume`, { approve: true, comment });
    await t.api.awaitStatus(runId, 'completed');
    const page = await t.page('approval details');
    await t.open(page, `/runs/${encodeURIComponent(runId)}`);
    await awaitRunStatus(page, 'completed');
    await page.locator(`${tid('graph-node-gate')} button`).click({ timeout: 5000 });
    await expectText(page, tid('approval-decision'), 'approved', 'the approval decision in the side panel');
    await expectText(page, tid('approval-comment-shown'), comment, 'the approval comment in the side panel');
    check((await page.locator(`${tid('approval-answer')} b`).count()) === 0, 'the comment became markup');
    t.step('an approved node shows its decision and the comment, as text');
  },

  // The run list showed an empty duration for a running run, only the error code for a failed one (not where it
  // failed), and wrapped the "LLM calls" and "error / waiting at" headers at 1280 px.
  async 'run-list-row'(t) {
    const failed = await t.api.startRun('fails-on-pass-3');
    await t.api.awaitStatus(failed, 'failed');
    const running = await t.api.startRun('live-loop', { label: 'list', delay: 1.5 });
    const page = await t.page('run list');
    await t.open(page, '/');
    await expectText(page, tid(`run-duration-${running}`), /\d.*so far/, 'the running run\'s time so far');
    await expectText(page, tid(`run-error-${failed}`), /at batches\[3\]\.migrate/, 'the failed run\'s error with its node');
    const title = await page.locator(tid(`run-error-${failed}`)).getAttribute('title');
    check(!!title && title.length > 0, 'the failed run\'s error has no message as its title');
    const wrapped = await page.locator(`${tid('runs-table')} th`).evaluateAll((ths) =>
      ths.filter((th) => {
        const r = document.createRange();
        r.selectNodeContents(th);
        return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size > 1;
      }).map((th) => th.textContent));
    check(wrapped.length === 0, `run list headers wrap: ${JSON.stringify(wrapped)}`);
    t.step('a running run shows its time so far, a failed one its code, node and message, headers on one line');
    await t.api.awaitStatus(running, 'completed');
  },

  // Choosing an earlier pass made its badge read "2/4 · max iterations", as if that pass hit the limit; the timeline
  // did not show which pass was chosen; the loop box had some 70 px of nothing under its title; the "next pass" label
  // sat on the box's top-right corner.
  async 'chosen-pass'(t) {
    const runId = await t.api.startRun('live-loop', { label: 'chosen', delay: 0 });
    await t.api.awaitStatus(runId, 'completed');
    const page = await t.page('chosen pass');
    await t.open(page, `/runs/${encodeURIComponent(runId)}`);
    await awaitRunStatus(page, 'completed');
    await expectText(page, tid('pass-badge-passes'), 'max iterations', 'the last pass with how the loop ended');
    await page.locator(tid('pass-button-passes-2')).click();
    await expectText(page, tid('pass-badge-passes'), /^\s*pass 2\/4\s*$/, 'the chosen earlier pass');
    const bar = page.locator(tid('timeline-bar-passes[2]'));
    await until('the chosen pass to be highlighted on the timeline', async () => (await bar.getAttribute('aria-current')) === 'true');
    const others = await page.locator('.timeline-bar[aria-current="true"]').count();
    check(others === 1, `${others} timeline bars are highlighted, not only the chosen pass`);

    const box = await page.locator(tid('loop-body-[passes]')).boundingBox();
    const tick = await page.locator(tid('graph-node-passes.tick')).boundingBox();
    check(box && tick, 'the loop box or its first node is not drawn');
    const gap = tick.y - box.y;
    check(gap < tick.height, `the loop box's first node is ${Math.round(gap)} px below the box's top (a node is ${Math.round(tick.height)} px high)`);
    const label = await page.locator(tid('back-edge-label')).first().boundingBox();
    check(label, 'the back edge has no label');
    const overlaps = label.x < box.x + box.width && box.x < label.x + label.width && label.y < box.y + box.height && box.y < label.y + label.height;
    check(!overlaps, `the back edge's label ${JSON.stringify(label)} lies on the loop box ${JSON.stringify(box)}`);
    t.step('an earlier pass reads "pass 2/4", its timeline bar is highlighted, the box is tight and its label off it');
  },

  // With LLM calls, tokens and cost the run header's facts wrapped, a label at one line's end and its value below.
  async 'run-header-facts'(t) {
    const runId = await t.api.startRun('draft-and-review');
    await t.api.awaitStatus(runId, 'completed');
    const page = await t.page('header facts');
    await t.open(page, `/runs/${encodeURIComponent(runId)}`);
    await awaitRunStatus(page, 'completed');
    await expectText(page, tid('run-facts'), 'tokens', 'the header facts with tokens');
    const tops = await page.locator(`${tid('run-facts')} .fact`).evaluateAll((els) =>
      els.map((e) => [e.textContent, e.getBoundingClientRect().top, e.getBoundingClientRect().height]));
    const oneLine = new Set(tops.map(([, top]) => Math.round(top))).size === 1;
    check(oneLine, `the header facts take more than one line at 1280 px: ${JSON.stringify(tops)}`);
    const tallest = Math.max(...tops.map(([, , h]) => h));
    check(tops.every(([, , h]) => h <= tallest && h < 30), `a fact wraps inside itself: ${JSON.stringify(tops)}`);
    t.step(`the run header's ${tops.length} facts fit on one line`);
  },
};

export default Object.fromEntries(Object.entries(checks).map(([name, body]) => [name, scenario(`regression ${name}`, body)]));

// Regression checks for bugs the browser tests found, one scenario each:
//   node e2e/run.mjs regressions:token-link-in-same-tab regressions:graph-node-click
import { awaitRunStatus, check, expectText, scenario, tid, until } from './lib.mjs';

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
};

export default Object.fromEntries(Object.entries(checks).map(([name, body]) => [name, scenario(`regression ${name}`, body)]));

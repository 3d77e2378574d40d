// Regression checks for bugs the browser tests found, one per argument:
//   node e2e/regressions.mjs graph-node-click
import { awaitRunStatus, check, expectText, scenario, tid, until } from './lib.mjs';

const checks = {
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

const name = process.argv[2];
if (!checks[name]) {
  console.log(`FAIL: unknown regression check '${name}'; known: ${Object.keys(checks).join(', ')}`);
  process.exit(2);
}
await scenario(`regression ${name}`, checks[name]);

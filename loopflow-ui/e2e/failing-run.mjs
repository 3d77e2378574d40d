// A failed run opens on its failure: the error is shown open, on the node that failed (highlighted in the graph) and
// on the pass it failed in (pass 3 of 5), with the command's own message. (regressions.mjs checks the same on a page
// that watched the run fail.)
import { awaitRunStatus, check, expectText, scenario, tid, until } from './lib.mjs';

const MESSAGE = 'batch 3: checksum mismatch in table orders';

export default scenario('failing-run', async (t) => {
  const runId = await t.api.startRun('fails-on-pass-3');
  const shown = await t.api.awaitStatus(runId, 'failed');
  check(JSON.stringify(shown.error ?? {}).includes(MESSAGE), `the API's error does not carry the message: ${JSON.stringify(shown.error)}`);
  const page = await t.page('failed run');
  await t.open(page, `/runs/${encodeURIComponent(runId)}`);
  await awaitRunStatus(page, 'failed');
  await checkPinned(t, page, 'opened after the failure');
  await t.screenshot(page, 'failed-run');
  await t.screenshot(page, 'failed-run-pass', { at: 'section:has(#loops-title)' });

  // choosing another pass and coming back with "Show the failing pass"
  await page.locator(tid('pass-button-batches-1')).click();
  await expectText(page, `${tid('pass-item-batches[1].migrate')} td.cell-value`, 'batch 1 migrated', 'pass 1');
  const node = page.locator(tid('graph-node-batches.migrate'));
  check((await node.getAttribute('data-status')) === 'completed', 'in pass 1 the node should show completed');
  await page.getByRole('button', { name: 'Show the failing pass' }).click();
  const pass3 = page.locator(tid('pass-button-batches-3'));
  await until('pass 3 to be shown again', async () => (await pass3.getAttribute('aria-pressed')) === 'true');
  await expectText(page, `${tid('execution-details')} ${tid('execution-error')}`, MESSAGE, 'the side panel after "Show the failing pass"');
  t.step('"Show the failing pass" goes back to pass 3 after looking at pass 1');
});

/**
 * The failure of fails-on-pass-3 is pinned: the open error panel, pass 3 shown and marked, its row open with the
 * message, the node highlighted in the graph and shown in the side panel.
 */
export async function checkPinned(t, page, how) {
  // the run's error, open by default
  await expectText(page, tid('error-message'), MESSAGE, 'the error panel');
  check(await page.locator(`${tid('error-panel')} details`).first().evaluate((d) => d.open), 'the error panel is folded');
  await expectText(page, tid('error-panel'), /In node migrate, pass 3 of batches/, 'where the error happened');
  t.step(`${how}: the error panel is open with "${MESSAGE}" in node migrate, pass 3 of batches`);

  // the pass: pass 3 is the one shown, marked failed; its row is open with the error
  const pass3 = page.locator(tid('pass-button-batches-3'));
  await until('pass 3 to be the shown pass', async () => (await pass3.getAttribute('aria-pressed')) === 'true');
  check(/\bfailed\b/.test((await pass3.getAttribute('class')) ?? ''), 'pass 3 is not marked failed');
  for (const k of [1, 2]) {
    check(!/\bfailed\b/.test((await page.locator(tid(`pass-button-batches-${k}`)).getAttribute('class')) ?? ''), `pass ${k} is marked failed`);
  }
  check((await page.locator('[data-testid^="pass-button-batches-"]').count()) === 3, 'the navigator shows passes after the failing one');
  const row = page.locator(tid('pass-item-batches[3].migrate'));
  check(/row-error/.test((await row.getAttribute('class')) ?? ''), 'the failing row is not marked');
  const toggle = page.locator(tid('pass-item-toggle-batches[3].migrate'));
  check((await toggle.getAttribute('aria-expanded')) === 'true', "the failing row's details are folded");
  const open = page.locator(`${tid('pass-view-batches')} tr.row-error-details`);
  check((await open.count()) === 1, `expected the failing row's details open in pass 3, found ${await open.count()} open error rows`);
  await expectText(page, `${tid('pass-view-batches')} tr.row-error-details`, MESSAGE, 'the error row of pass 3');
  t.step(`${how}: the loop navigator shows pass 3 (marked failed) with the error row open`);

  // the node: highlighted in the graph as failed, and shown in the side panel at the failing execution
  const node = page.locator(tid('graph-node-batches.migrate'));
  check((await node.getAttribute('data-status')) === 'failed', `the graph shows migrate as ${await node.getAttribute('data-status')}`);
  check(/\bfailing\b/.test((await node.getAttribute('class')) ?? ''), 'the failing node is not highlighted in the graph');
  await expectText(page, `${tid('execution-details')} dd code`, 'batches[3].migrate', 'the side panel position');
  await expectText(page, `${tid('execution-details')} ${tid('execution-error')}`, MESSAGE, 'the side panel error');
  await expectText(page, tid('pass-badge-batches'), '3/5', 'the loop badge');
  t.step(`${how}: the graph highlights migrate (failed, badge 3/5) and the side panel shows batches[3].migrate with its error`);
}

// Nested loops: choosing pass 2 of the outer loop, then pass 2 of the inner loop inside it (with the keyboard), shows
// that pass's values: the counter reads "outer 2 inner 2", in the pass table, the side panel and the graph's badges.
import { awaitRunStatus, check, expectGraphNodes, expectText, scenario, textOf, tid, until } from './lib.mjs';

/** The output cell of one execution's row in a pass table. */
const outputCell = (exec) => `${tid(`pass-item-${exec}`)} td.cell-value`;

export default scenario('nested-loops', async (t) => {
  const runId = await t.api.startRun('nested-loops');
  await t.api.awaitStatus(runId, 'completed');
  const page = await t.page('nested run');
  await t.open(page, `/runs/${encodeURIComponent(runId)}`);
  await awaitRunStatus(page, 'completed');
  await expectGraphNodes(page, ['outer', 'outer.inner', 'outer.inner.count', 'outer.sum']);
  await page.locator(tid('loop-navigator-outer.inner')).waitFor();
  t.step('the nested run shows both loops and every node');

  // by default the latest passes are shown
  await expectText(page, outputCell('outer[3].inner[3].count'), 'outer 3 inner 3', 'the latest inner pass');

  await page.locator(tid('pass-button-outer-2')).click();
  await expectText(page, tid('loop-navigator-outer.inner'), 'inside outer pass 2', 'the inner navigator after choosing outer pass 2');
  const inner2 = page.locator(tid('pass-button-outer.inner-2'));
  await inner2.focus();
  await page.keyboard.press('Enter');
  await until('inner pass 2 to be pressed', async () => (await inner2.getAttribute('aria-pressed')) === 'true');
  t.step('outer pass 2 chosen with the mouse, inner pass 2 with the keyboard (Enter)');

  const value = await expectText(page, outputCell('outer[2].inner[2].count'), 'outer 2 inner 2', 'the counter of outer pass 2, inner pass 2');
  check(value === 'outer 2 inner 2', `the counter's cell reads ${JSON.stringify(value)}, expected exactly "outer 2 inner 2"`);
  check((await page.locator('[data-testid^="pass-item-outer[3]"], [data-testid^="pass-item-outer[1]"]').count()) === 0,
    'rows of other outer passes are shown while outer pass 2 is chosen');
  await expectText(page, tid('loop-pass-count-outer.inner'), 'pass 2 of 3', 'the inner navigator count');
  await expectText(page, tid('pass-badge-outer'), '2/3', "the outer loop's badge");
  await expectText(page, tid('pass-badge-outer.inner'), '2/3', "the inner loop's badge");
  t.step('the pass table, the navigator and both graph badges show outer 2 / inner 2');

  await page.locator(`${tid('graph-node-outer.inner.count')} button`).click();
  await expectText(page, `${tid('execution-details')} dd code`, 'outer[2].inner[2].count', 'the position in the side panel');
  const out = await expectText(page, tid('execution-output'), 'outer 2 inner 2', 'the side panel output');
  check(out === 'outer 2 inner 2', `the side panel output reads ${JSON.stringify(out)}`);
  await expectText(page, outputCell('outer[2].sum'), 'outer pass 2 ran 3 inner passes', "outer pass 2's sum");
  t.step('the counter node in the graph opens the execution of that pass: "outer 2 inner 2"');
  await t.screenshot(page, 'nested-loops', { at: 'section:has(#loops-title)' });

  // another outer pass: the inner navigator follows it, still on the chosen inner pass (Space also chooses)
  const outer1 = page.locator(tid('pass-button-outer-1'));
  await outer1.focus();
  await page.keyboard.press('Space');
  await expectText(page, tid('loop-navigator-outer.inner'), 'inside outer pass 1', 'the inner navigator after choosing outer pass 1');
  const pressed = await page.locator(`${tid('loop-navigator-outer.inner')} button[aria-pressed=true]`).first().textContent();
  const k = (pressed ?? '').trim();
  await expectText(page, outputCell(`outer[1].inner[${k}].count`), `outer 1 inner ${k}`, 'the counter in outer pass 1');
  check((await textOf(page, tid('execution-output'))) !== undefined, 'the side panel lost its execution');
  t.step(`choosing outer pass 1 (Space) shows its inner pass ${k}: "outer 1 inner ${k}"`);
});

// Starting a loop workflow from the run list's form and watching it live: the input form is generated from the
// workflow's inputs, the pass badge counts 1/4, 2/4, 3/4, 4/4 while the run goes, node states change, the run ends
// completed and every node of the workflow is drawn.
import { awaitRunStatus, changes, check, expectGraphEdges, expectGraphNodes, expectText, recordChanges, scenario, sleep, tid, until } from './lib.mjs';

const NODES = ['prepare', 'passes', 'passes.tick', 'passes.note', 'report'];

export default scenario('live-loop', async (t) => {
  const page = await t.page('run list');
  await t.open(page, '/');
  await page.locator(tid('start-run-button')).click();
  await page.locator(tid('start-run')).waitFor();
  await page.locator(tid('start-workflow')).selectOption('live-loop');
  const label = page.locator(tid('input-label'));
  const delay = page.locator(tid('input-delay'));
  await label.waitFor();
  check((await delay.inputValue()) === '0.6', `the delay field does not start with its default 0.6: ${await delay.inputValue()}`);
  t.step('choosing the workflow shows a field per declared input, with its default');

  // a required input left empty is refused in words and nothing starts
  const before = (await t.api.get('/api/runs?workflow=live-loop')).length;
  check((await label.getAttribute('required')) !== null, 'the input without a default is not marked required');
  await page.locator(tid('start-submit')).click();
  await sleep(500);
  check(await label.evaluate((e) => e.validity.valueMissing), 'the empty required field is not reported missing');
  check(new URL(page.url()).pathname === '/', `submitting the incomplete form left the run list: ${page.url()}`);
  check((await t.api.get('/api/runs?workflow=live-loop')).length === before, 'a run was started from an incomplete form');
  t.step("an empty required input is refused by the form's required check and starts nothing");

  await label.fill('alpha');
  // Each pass lasts 2 s, so the page is watching before the first passes end even on a loaded machine.
  await delay.fill('2');
  await t.screenshot(page, 'start-run-form');
  await page.locator(tid('start-submit')).click();
  await page.waitForURL(/\/runs\/[^/]+$/);
  const runId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop());
  t.step(`submitting opens the new run's page (${runId})`);

  await recordChanges(page, {
    status: [tid('run-status'), 'data-status'],
    badge: [tid('pass-badge-passes')],
    tick: [tid('graph-node-passes.tick'), 'data-status'],
    report: [tid('graph-node-report'), 'data-status'],
  });
  await awaitRunStatus(page, 'completed', 60_000);
  const seen = await changes(page);

  // the badge counted the passes up while the run was running, in order
  const live = seen.filter((s) => s.status === 'running' && s.badge);
  const counts = [...new Set(live.map((s) => s.badge.match(/(\d+)\/4/)?.[1]).filter(Boolean))];
  // Counted up one by one to 4/4; a loaded machine may open the page after the first pass, so the count may start
  // later than 1/4, but the page must have seen at least two passes go by.
  const upByOne = counts.every((c, i) => i === 0 || Number(c) === Number(counts[i - 1]) + 1);
  check(
    upByOne && counts.length >= 2 && counts.at(-1) === '4',
    `while running, the pass badge showed ${JSON.stringify(live.map((s) => s.badge))}; expected it to count up to 4/4 one by one`,
  );
  t.step(`the pass badge counted ${counts.map((c) => c + '/4').join(', ')} live`);
  // the tick node shows its state in the latest pass: running, completed, then pending again as the next pass starts
  const tickStates = seen.map((s) => s.tick).filter((x, i, a) => x && x !== a[i - 1]);
  check(tickStates.includes('running') && seen.at(-1).tick === 'completed', `the tick node's states were ${tickStates.join(' → ')}`);
  const reportStates = seen.map((s) => s.report).filter(Boolean);
  const firstReportDone = reportStates.indexOf('completed');
  check(firstReportDone > 0 && reportStates.slice(0, firstReportDone).every((s) => s === 'pending' || s === 'running'),
    `the report node's states were ${[...new Set(reportStates)].join(' → ')}; it must wait (pending) until the loop ends`);
  t.step(`node states changed live: tick ${tickStates.join(' → ')}; report ${[...new Set(reportStates)].join(' → ')}`);

  await expectGraphNodes(page, NODES);
  const graph = await t.api.get(`/api/runs/${encodeURIComponent(runId)}/graph`);
  await expectGraphEdges(page, graph.edges.length);
  await expectText(page, tid('pass-badge-passes'), '4/4', 'the pass badge at the end');
  await expectText(page, tid('loop-pass-count-passes'), 'pass 4 of 4', 'the loop navigator');
  await expectText(page, tid('loop-exit-passes'), 'max iterations', 'the loop exit reason');
  const nodes = await until('every node to be completed', async () => {
    const s = await page.locator('[data-testid^="graph-node-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-status')));
    return s.every((x) => x === 'completed') ? s : undefined;
  });
  t.step(`the run completed; all ${nodes.length} nodes are drawn and completed`);

  const shown = await t.api.get(`/api/runs/${encodeURIComponent(runId)}`);
  check(shown.status === 'completed', `the API says ${shown.status}`);
  check(JSON.stringify(shown.output ?? '').includes('done after 4 passes: noted alpha pass 4'), `the run's output is ${JSON.stringify(shown.output)}`);
  await expectText(page, tid('node-panel'), 'done after 4 passes: noted alpha pass 4', 'the run output in the side panel');
  t.step('the form\'s inputs reached the run (output "done after 4 passes: noted alpha pass 4")');

  // the page of a finished loop run, with a pass's node chosen
  await page.locator(tid('pass-button-passes-2')).click();
  await page.locator(tid('pass-item-show-passes[2].tick')).click();
  await expectText(page, `${tid('execution-details')} ${tid('execution-output')}`, 'alpha pass 2', 'the chosen execution in the side panel');
  await t.screenshot(page, 'run-loop');
  await t.screenshot(page, 'run-loop-navigator', { at: 'section:has(#loops-title)' });
});

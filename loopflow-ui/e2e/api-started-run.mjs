// A run started through the API (POST /api/runs with the workflow's YAML) and opened afterwards: its page draws every
// node with its state and the loop's pass count, the LLM calls of a pass (mock label, tokens), and the timeline. Also
// the screenshots of the run list and the timeline.
import { readFileSync } from 'node:fs';
import { awaitRunStatus, check, expectGraphNodes, expectText, scenario, textOf, tid, until } from './lib.mjs';

const NODES = ['outline', 'refine', 'refine.draft', 'refine.review', 'publish'];

export default scenario('api-started-run', async (t) => {
  const source = readFileSync(new URL('./workflows/draft-and-review.yaml', import.meta.url), 'utf8');
  const started = await t.api.post('/api/runs', { source, inputs: { topic: 'bounded loops' } }, [201]);
  const runId = started.run_id;
  check(typeof runId === 'string', `POST /api/runs answered ${JSON.stringify(started)}`);
  // more runs for the run list: one paused, one failed, one still running (cancelled once the list was seen)
  const paused = await t.api.startRun('needs-approval', { version: '3.1.0' });
  const failed = await t.api.startRun('fails-on-pass-3');
  const running = await t.api.startRun('live-loop', { label: 'listed', delay: 3 });
  await t.api.awaitStatus(runId, 'completed', 30_000);
  await t.api.awaitStatus(paused, 'paused');
  await t.api.awaitStatus(failed, 'failed');

  const page = await t.page('api run');
  await t.open(page, '/');
  for (const [id, status] of [[runId, 'completed'], [paused, 'paused'], [failed, 'failed'], [running, 'running']]) {
    await until(`the run list to show ${id} as ${status}`, async () =>
      (await page.locator(tid(`run-row-${id}`)).getAttribute('data-status')) === status);
  }
  await expectText(page, tid(`run-row-${paused}`), 'waits at gate', 'the paused run\'s row');
  t.step('the run list shows the API-started run and the paused, failed and running ones');
  await t.screenshot(page, 'run-list');
  await t.api.post(`/api/runs/${encodeURIComponent(running)}/cancel`, { reason: 'seen in the list' });
  await t.api.awaitStatus(running, 'cancelled');

  await page.locator(tid(`run-link-${runId}`)).click();
  await page.waitForURL(new RegExp(`/runs/${runId}$`));
  await awaitRunStatus(page, 'completed');
  await expectGraphNodes(page, NODES);
  const states = await page.locator('[data-testid^="graph-node-"]').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-testid')}=${e.getAttribute('data-status')}`));
  check(states.every((s) => s.endsWith('=completed')), `not every node is completed: ${states.join(', ')}`);
  await expectText(page, tid('pass-badge-refine'), '2/3', "the loop's pass badge");
  await expectText(page, tid('pass-badge-refine'), 'signal', "the loop's exit reason on its badge");
  await expectText(page, tid('loop-pass-count-refine'), 'pass 2 of 3', 'the loop navigator');
  check((await page.locator('[data-testid^="pass-button-refine-"]').count()) === 2, 'the navigator does not show exactly 2 passes');
  t.step(`the page draws all ${NODES.length} nodes completed; the loop shows pass 2/3, ended on its signal`);

  // the LLM calls of pass 1's reviewer
  await page.locator(tid('pass-button-refine-1')).click();
  await page.locator(`${tid('graph-node-refine.review')} button`).click();
  await expectText(page, `${tid('execution-details')} dd code`, 'refine[1].review', 'the chosen execution');
  await expectText(page, tid('execution-output'), 'Too long; cut the second sentence.', "pass 1's review");
  const call = page.locator(tid('llm-call'));
  check((await call.count()) === 1, `pass 1's review shows ${await call.count()} LLM calls, expected 1`);
  await expectText(page, tid('mock-label'), 'mock', 'the mock label');
  const callText = await textOf(page, tid('llm-call'));
  check(/mock/.test(callText) && /\d+ in \/ \d+ out|\d+\s*\+\s*\d+|\d+ in/.test(callText), `the LLM call row lacks provider or tokens: ${callText}`);
  await expectText(page, `${tid('execution-details')} .inputs`, 'Review this draft about bounded loops: First draft about bounded loops', 'the rendered prompt');
  t.step(`pass 1's review shows its LLM call (${callText}), prompt and reply`);
  await t.screenshot(page, 'llm-call');

  // the timeline: one bar per execution and per pass
  const bars = await page.locator('[data-testid^="timeline-bar-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid').slice('timeline-bar-'.length)));
  for (const b of ['outline', 'refine', 'refine[1]', 'refine[2]', 'refine[1].draft', 'refine[1].review', 'refine[2].draft', 'refine[2].review', 'publish']) {
    check(bars.includes(b), `the timeline has no bar ${b}; it has ${bars.join(', ')}`);
  }
  check(new Set(bars).size === bars.length, `the timeline repeats bars: ${bars.join(', ')}`);
  await page.locator(tid('timeline-bar-refine[1].review')).hover();
  await expectText(page, tid('timeline-details'), 'refine[1].review', "the hovered bar's details");
  await page.mouse.move(0, 0);
  await page.locator(tid('timeline-bar-refine[2].draft')).focus();
  await expectText(page, tid('timeline-details'), 'refine[2].draft', "the focused bar's details");
  t.step("the timeline has one bar per execution and per pass; hovering or focusing a bar shows its details");
  await t.screenshot(page, 'timeline', { at: 'section:has(#timeline-title)', keepFocus: true });

  // the keyboard: graph nodes, pass buttons and timeline bars are in the Tab order; Enter on a focused timeline bar
  // or graph node shows that execution beside the graph
  const untabbable = await page.locator('[data-testid^="graph-node-"] button, [data-testid^="pass-button-"], [data-testid^="timeline-bar-"]')
    .evaluateAll((els) => els.filter((e) => e.tabIndex < 0 || e.disabled || e.closest('[inert],[aria-hidden=true]')).map((e) => e.outerHTML.slice(0, 80)));
  check(untabbable.length === 0, `controls out of the Tab order: ${untabbable.join(' | ')}`);
  await page.keyboard.press('Enter');
  await expectText(page, `${tid('execution-details')} dd code`, 'refine[2].draft', 'the side panel after Enter on a bar');
  await page.locator(`${tid('graph-node-outline')} button`).focus();
  await page.keyboard.press('Enter');
  await expectText(page, `${tid('execution-details')} dd code`, 'outline', 'the side panel after Enter on a graph node');
  await page.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
  await page.evaluate(() => window.scrollTo(0, 0));
  await t.goto(page, t.link(`/runs/${encodeURIComponent(runId)}`, { token: false }));
  await page.keyboard.press('Tab');
  const first = await page.evaluate(() => document.activeElement?.textContent?.trim());
  check(first === 'Skip to content', `the first Tab reaches ${JSON.stringify(first)}, not the skip link`);
  let reached;
  for (let i = 0; i < 80 && !reached; i++) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate(() => document.activeElement?.closest('[data-testid^="graph-node-"]')?.getAttribute('data-testid'));
  }
  check(reached, 'Tab never reached a graph node');
  await page.keyboard.press('Enter');
  await expectText(page, tid('node-panel'), reached.slice('graph-node-'.length).split('.').pop(), 'the side panel after Tab and Enter on a graph node');
  t.step(`the first Tab reaches "Skip to content"; Tab reaches the graph (${reached}); Enter on a focused timeline bar or graph node shows its execution`);
});

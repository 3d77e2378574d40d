// Loops of hundreds of passes: the page is sent a window of each loop's recent passes and loads the others as they
// are shown. The strip draws every pass; the navigator draws one page of pass buttons and moves by page, by number,
// to the first or last pass and between failed passes; a pass outside the window shows its own executions once
// loaded; the timeline draws the latest passes and says how many it left out. A nested loop's inner passes in an
// earlier outer pass are reached the same way.
import { awaitRunStatus, check, expectText, scenario, textOf, tid, until } from './lib.mjs';

const outputCell = (exec) => `${tid(`pass-item-${exec}`)} td.cell-value`;

export default {
  'long-loop': scenario('long-loop', async (t) => {
    const runId = await t.api.startRun('long-loop');
    await t.api.awaitStatus(runId, 'completed', 60_000);
    const page = await t.page('long loop');
    const asked = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname.startsWith('/api/')) asked.push(u.pathname + u.search);
    });
    await t.open(page, `/runs/${encodeURIComponent(runId)}`);
    await awaitRunStatus(page, 'completed');
    const nav = tid('loop-navigator-refine');
    await page.locator(tid('pass-strip-refine')).waitFor();
    await expectText(page, tid('loop-pass-count-refine'), 'pass 1000 of 1000', 'the navigator on the latest pass');
    await expectText(page, outputCell('refine[1000].draft'), 'draft 1000', 'the latest pass');
    await page.locator(tid('pass-jump-refine')).waitFor();
    const buttons = await page.locator(`${nav} .pass-buttons button`).count();
    check(buttons > 0 && buttons <= 50, `the navigator draws ${buttons} pass buttons; a page holds at most 50`);
    await expectText(page, `${tid('pass-strip-refine')}`, '1000 passes, 1 failed', 'the strip legend');
    t.step(`1,000 passes: a strip of every pass and ${buttons} pass buttons`);

    // a pass the window left out, by number
    await page.locator(tid('pass-jump-refine')).fill('500');
    await page.locator(tid('pass-jump-go-refine')).click();
    await expectText(page, tid('loop-pass-count-refine'), 'pass 500 of 1000', 'the count after jumping to 500');
    await expectText(page, outputCell('refine[500].draft'), 'draft 500', 'pass 500, loaded on demand');
    check(await page.locator(`${tid('pass-button-refine-500')}[aria-pressed="true"]`).count() === 1, 'pass 500 is the pressed button of its page');
    t.step('jumped to pass 500, outside the window: its executions were loaded and shown');

    // the failed pass before it, found from the summaries
    await page.locator(tid('pass-prev-failed-refine')).click();
    await expectText(page, tid('loop-pass-count-refine'), 'pass 437 of 1000', 'the previous failed pass');
    await expectText(page, tid('pass-item-refine[437].check'), 'pass 437 is rejected', 'the failure of pass 437');
    t.step('"previous failed" went to pass 437 and shows its error');
    await t.screenshot(page, 'long-loop', { at: tid('loop-navigator-refine') });

    await page.locator(tid('pass-first-refine')).click();
    await expectText(page, outputCell('refine[1].draft'), 'draft 1', 'the first pass');
    await page.locator(tid('pass-next-page-refine')).click();
    await expectText(page, tid('loop-pass-count-refine'), 'pass 51 of 1000', 'the next page starts at pass 51');
    await page.locator(tid('pass-last-refine')).click();
    await expectText(page, tid('loop-pass-count-refine'), 'pass 1000 of 1000', 'the last pass');
    t.step('first, next page and last move through the passes');

    await page.locator(tid('pass-jump-refine')).fill('1001');
    await page.locator(tid('pass-jump-go-refine')).click();
    await expectText(page, tid('pass-jump-problem-refine'), 'no pass 1001', 'a jump past the last pass is refused in words');

    const gap = await textOf(page, '[data-testid="timeline-gap-refine"]');
    check(/passes \(1–\d+\) not drawn/.test(gap ?? ''), `the timeline's gap row reads ${JSON.stringify(gap)}`);
    t.step(`the timeline draws the latest passes: "${gap}"`);

    const whole = asked.filter((a) => /\/executions$/.test(a) || /\/events$/.test(a));
    check(whole.length === 0, `the page asked for a whole journal: ${whole.join(', ')}`);
    const passes = asked.filter((a) => /\/loops\/refine\/passes\/\d+$/.test(a));
    check(passes.length >= 3 && passes.length <= 8, `the page loaded ${passes.length} passes one at a time: ${passes.join(', ')}`);
    t.step(`the page never asked for the whole journal; it loaded ${passes.length} passes one at a time`);
  }),

  'nested-counter': scenario('nested-counter', async (t) => {
    const runId = await t.api.startRun('nested-counter');
    await t.api.awaitStatus(runId, 'completed', 60_000);
    const page = await t.page('nested counter');
    await t.open(page, `/runs/${encodeURIComponent(runId)}`);
    await awaitRunStatus(page, 'completed');
    await expectText(page, outputCell('outer[4].inner[300].count'), 'outer 4 inner 300', 'the latest inner pass');
    await page.locator(tid('pass-button-outer-2')).click();
    await expectText(page, tid('loop-navigator-outer.inner'), 'inside outer pass 2', 'the inner navigator after choosing outer pass 2');
    await page.locator(tid('pass-jump-outer.inner')).fill('123');
    await page.locator(tid('pass-jump-go-outer.inner')).click();
    await expectText(page, outputCell('outer[2].inner[123].count'), 'outer 2 inner 123', 'inner pass 123 of outer pass 2');
    await expectText(page, tid('loop-pass-count-outer.inner'), 'pass 123 of 300', 'the inner count');
    t.step('outer pass 2, inner pass 123 (outside the window) shown with its value');
    await until('the strip of the inner loop', async () => (await page.locator(tid('pass-strip-outer.inner')).count()) === 1);
    await t.screenshot(page, 'nested-counter', { at: tid('loop-navigator-outer') });
  }),
};

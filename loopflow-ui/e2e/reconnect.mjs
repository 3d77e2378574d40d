// Reconnecting: reloading a running run's page replays what happened and goes on live, with no pass shown twice; a
// dropped connection mid-run (the page goes through a proxy the scenario cuts) is followed by a reconnect that
// resumes after the last event received (Last-Event-ID), again with nothing shown twice or lost.
import { awaitRunStatus, changes, check, expectText, recordChanges, scenario, startProxy, tid, until } from './lib.mjs';

/** The pass numbers of the loop navigator's buttons, and the timeline's bar ids, as shown. */
async function shownPasses(page) {
  const buttons = await page.locator('[data-testid^="pass-button-passes-"]').evaluateAll((els) =>
    els.map((e) => Number(e.getAttribute('data-testid').split('-').pop())),
  );
  const bars = await page.locator('[data-testid^="timeline-bar-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')));
  return { buttons, bars };
}

function checkNoRepeat({ buttons, bars }, when) {
  const expected = buttons.map((_, i) => i + 1);
  check(JSON.stringify(buttons) === JSON.stringify(expected), `${when}: the pass buttons are ${JSON.stringify(buttons)}, expected ${JSON.stringify(expected)}`);
  const twice = bars.filter((b, i) => bars.indexOf(b) !== i);
  check(twice.length === 0, `${when}: timeline bars shown twice: ${[...new Set(twice)].join(', ')}`);
}

export default scenario('reconnect', async (t) => {
  const proxy = await startProxy(t.url);
  try {
    await body(t, proxy);
  } finally {
    await proxy.close();
  }
});

async function body(t, proxy) {
  // Passes of 3 s: the reload and the dropped connection below must both happen while the run is still going, which
  // leaves a loaded machine seconds, not a fraction of one, for each step.
  const runId = await t.api.startRun('live-loop', { label: 'beta', delay: 3 });
  const page = await t.page('running run');
  await t.goto(page, `${proxy.url}runs/${encodeURIComponent(runId)}#token=${encodeURIComponent(t.token)}`);
  await expectText(page, tid('pass-badge-passes'), '2/4', 'the pass badge reaching pass 2', 30_000);
  check((await page.locator(tid('run-status')).getAttribute('data-status')) === 'running', 'the run is no longer running at pass 2');
  const before = await shownPasses(page);
  checkNoRepeat(before, 'before the reload');

  await t.reload(page);
  await page.locator(tid('run-status')).waitFor();
  await recordChanges(page, { status: [tid('run-status'), 'data-status'], badge: [tid('pass-badge-passes')], stream: [tid('stream-status')] });
  await until('the replay to show at least the passes seen before the reload', async () => {
    const now = await shownPasses(page);
    return now.buttons.length >= before.buttons.length;
  });
  const replayed = await shownPasses(page);
  checkNoRepeat(replayed, 'right after the reload');
  t.step(`reloaded at pass ${before.buttons.length}: the page shows passes ${replayed.buttons.join(', ')} once each`);

  // the connection drops while the run goes on: the page says so, reconnects and resumes after its last event
  await expectText(page, tid('stream-status'), 'live', 'the event stream');
  check((await runStatusNow(page)) === 'running', 'the run ended before the connection could be dropped');
  const requestsBefore = proxy.eventRequests.length;
  t.allow(page, /ERR_INCOMPLETE_CHUNKED_ENCODING/, /ERR_CONNECTION_RESET/, /ERR_EMPTY_RESPONSE/, /network error/i);
  proxy.dropStreams();
  await until('the page to reconnect the event stream', async () => proxy.eventRequests.length > requestsBefore && proxy.openStreams() > 0);
  const again = proxy.eventRequests.at(-1);
  check(again.lastEventId && Number(again.lastEventId) > 0, `the reconnect did not say where it stopped: Last-Event-ID ${again.lastEventId}`);
  t.step(`the connection dropped mid-run; the page reconnected with Last-Event-ID ${again.lastEventId}`);

  await awaitRunStatus(page, 'completed', 60_000);
  const seen = await changes(page);
  const liveCounts = [...new Set(seen.filter((s) => s.status === 'running').map((s) => s.badge?.match(/(\d)\/4/)?.[1]).filter(Boolean))];
  check(liveCounts.length >= 2, `after the reload the badge did not count live while running: ${JSON.stringify(seen.map((s) => s.badge))}`);
  const streamStates = seen.map((s) => s.stream).filter((x, i, a) => x && x !== a[i - 1]);
  const lost = streamStates.findIndex((x) => x.includes('reconnecting'));
  check(lost >= 0 && streamStates.slice(lost).some((x) => x === 'live'), `the page did not say it lost the stream and came back: ${JSON.stringify(streamStates)}`);
  await expectText(page, tid('pass-badge-passes'), '4/4', 'the final badge');
  await expectText(page, `${tid('pass-item-passes[4].tick')} td.cell-value`, 'beta pass 4', 'pass 4');
  const after = await shownPasses(page);
  checkNoRepeat(after, 'at the end');
  check(after.buttons.length === 4, `the run ran 4 passes, the page shows ${after.buttons.length}`);
  for (const k of [1, 2, 3, 4]) {
    check(after.bars.includes(`timeline-bar-passes[${k}].tick`), `the timeline has no bar for pass ${k}'s tick`);
  }
  t.step(`after the drop the stream came back live (badge counted ${liveCounts.map((c) => c + '/4').join(', ')}) and the run completed with passes 1-4 shown once each`);
}

async function runStatusNow(page) {
  return page.locator(tid('run-status')).getAttribute('data-status');
}

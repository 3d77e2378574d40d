// The run list's search and delete, and two run page bugs the list shows up:
//   node e2e/run.mjs run-list
// - search: typed in one box, asked of the server after a pause, kept in the address (a reload or a shared link shows
//   the same list);
// - delete: asks first, then the run is gone from the list and from the server; a refusal is shown by its code;
// - the list and the run page show one duration for a run (they showed 524 and 257 ms);
// - a prompt without {{ }} is shown in the node's details (it said "No rendered input was journaled").
import { awaitRunStatus, check, expectText, scenario, tid, until } from './lib.mjs';

export default scenario('run-list', async (t) => {
  const stamp = `rl${Date.now().toString(36)}`;
  const ids = [`${stamp}-alpha`, `${stamp}-beta`];
  for (const run_id of ids) {
    await t.api.post('/api/runs', { workflow: 'plain-prompt', run_id }, [201]);
  }
  for (const id of ids) await t.api.awaitStatus(id, 'completed');
  const other = await t.api.startRun('plain-prompt');
  await t.api.awaitStatus(other, 'completed');

  const page = await t.page('run list');
  await t.open(page, '/');
  await page.locator(tid('runs-table')).waitFor();
  const rows = () => page.locator(`${tid('runs-table')} tbody tr`).evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-testid')));

  // search: the prefix both runs share, then one run's id
  await page.locator(tid('run-search')).fill(stamp);
  await until('the list to show only the two runs of this scenario', async () => {
    const r = await rows();
    return r.length === 2 && ids.every((id) => r.includes(`run-row-${id}`));
  });
  check(new URL(page.url()).searchParams.get('q') === stamp, `the search is not in the address: ${page.url()}`);
  t.step('a search narrows the list (asked of the server) and is kept in the address');
  await page.locator(tid('run-search')).fill(`${ids[1].toUpperCase()}`);
  await until('the list to show only beta (the search ignores case)', async () => {
    const r = await rows();
    return r.length === 1 && r[0] === `run-row-${ids[1]}`;
  });
  await t.reload(page);
  await until('the reloaded list to be searched the same', async () => {
    const r = await rows();
    return r.length === 1 && r[0] === `run-row-${ids[1]}`;
  });
  check((await page.locator(tid('run-search')).inputValue()) === ids[1].toUpperCase(), 'the search box lost its text on reload');
  t.step('a reloaded (or shared) address shows the same search');
  await t.screenshot(page, 'run-list-search');

  // one duration: the list's and the run page's for the same run
  const listDuration = (await page.locator(tid(`run-duration-${ids[1]}`)).textContent())?.trim();
  check(Boolean(listDuration), 'the list shows no duration for a completed run');

  // delete: asks first; Keep keeps; Delete deletes
  await page.locator(tid(`run-delete-${ids[1]}`)).click();
  await page.locator(tid(`run-delete-confirm-${ids[1]}`)).waitFor();
  await page.locator(tid(`run-delete-no-${ids[1]}`)).click();
  check((await t.api.call('GET', `/api/runs/${ids[1]}`)).status === 200, 'Keep deleted the run');
  await page.locator(tid('run-search')).fill(stamp);
  await until('both runs listed again', async () => (await rows()).length === 2);
  await page.locator(tid(`run-delete-${ids[0]}`)).click();
  await page.locator(tid(`run-delete-yes-${ids[0]}`)).waitFor();
  await t.screenshot(page, 'run-list-delete');
  await page.locator(tid(`run-delete-yes-${ids[0]}`)).click();
  await until('the deleted run to leave the list', async () => {
    const r = await rows();
    return r.length === 1 && r[0] === `run-row-${ids[1]}`;
  });
  const gone = await t.api.call('GET', `/api/runs/${ids[0]}`);
  check(gone.status === 404 && gone.json?.error?.code === 'run_not_found', `the deleted run is still served: ${gone.status}`);
  check((await t.api.call('GET', `/api/runs/${ids[1]}`)).status === 200, 'deleting one run took another');
  t.step('delete asks first, then the run is gone from the list and the server; the other run stays');

  // the run page: the same duration as the list, and the plain prompt shown
  await t.open(page, `/runs/${encodeURIComponent(ids[1])}`);
  await awaitRunStatus(page, 'completed');
  let seen;
  await until(`the run page duration to be the list one (${listDuration})`, async () => {
    const facts = await page.locator(`${tid('run-facts')} .fact`).evaluateAll((els) =>
      els.map((e) => [e.querySelector('dt')?.textContent, e.querySelector('dd')?.textContent]));
    const d = facts.find(([k]) => k === 'duration')?.[1]?.trim();
    if (d !== seen) console.log(`  (run page duration ${d ?? 'none'}, list ${listDuration})`);
    seen = d;
    return d === listDuration;
  });
  t.step(`the run page shows the list's duration (${listDuration})`);
  await page.locator(`${tid('graph-node-greet')} button`).click();
  await expectText(page, tid('execution-details'), 'Say hello to the loopflow team.', 'the plain prompt in the node details');
  await expectText(page, tid('execution-details'), 'Answer in one line.', 'the plain system prompt in the node details');
  const details = await page.locator(tid('execution-details')).textContent();
  check(!details.includes('No rendered input was journaled'), 'the node details say no input was journaled');
  t.step('a prompt without {{ }} is shown as sent');
});

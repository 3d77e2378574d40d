// Forking a run from a pass and comparing passes: a finished four-pass while_loop (each pass adds a line to a draft
// in state and counts in state.count) is forked from pass 2 with state.count = 100. The fork panel shows the dry
// run's plan (pass 1 reused, the loop from pass 2 executing, the bound) before Start fork; a refused point is said in
// one line; the fork's page names its origin, marks pass 1 as reused, and ends with the edited count; the origin lists
// the fork; comparing two passes shows the state side by side and the draft as a line diff.
import { awaitRunStatus, check, expectNoInjection, expectText, scenario, textOf, tid, until } from './lib.mjs';

export default scenario('fork-and-compare', async (t) => {
  const origin = await t.api.startRun('fork-draft');
  const done = await t.api.awaitStatus(origin, 'completed');
  check(done.state?.count === 4, `the origin ended with count ${JSON.stringify(done.state?.count)}, expected 4`);

  const page = await t.page('origin');
  await t.open(page, `/runs/${encodeURIComponent(origin)}`);
  await awaitRunStatus(page, 'completed');
  await page.locator(tid('pass-button-refine-2')).click();
  await expectText(page, tid('loop-pass-count-refine'), 'pass 2 of 4', 'the navigator after choosing pass 2');

  // the fork panel: a state edit, the plan, then the confirm
  await page.locator(tid('fork-from-pass-refine')).click();
  const panel = page.locator(tid('fork-panel'));
  await expectText(page, tid('fork-panel'), 'Fork from refine:2', 'the fork panel');
  check(await page.locator(tid('fork-start')).isDisabled(), 'Start fork is enabled before the plan was shown');
  await page.locator(tid('fork-edit-key-0')).fill('count');
  await page.locator(tid('fork-edit-value-0')).fill('100');
  await expectText(page, tid('fork-panel'), 'read as number', 'how the value is read');
  await page.locator(tid('fork-plan')).click();
  await expectText(page, tid('fork-plan-reused'), `2 executions of ${origin}`, 'what the plan reuses');
  await expectText(page, tid('fork-plan-reused'), 'not charged to the fork', 'the reused cost');
  await expectText(page, tid('fork-plan-executes'), "loop 'refine' from pass 2", 'what the plan executes');
  await expectText(page, tid('fork-plan-bounds'), '3 passes', 'the bound of the plan');
  check(!(await page.locator(tid('fork-start')).isDisabled()), 'Start fork stays disabled after the plan');
  t.step('the fork panel shows the dry run: pass 1 reused, the loop from pass 2 executing, at most 3 passes');
  await t.screenshot(page, 'fork-panel', { at: tid('loop-navigator-refine') });

  // an edit after the plan asks for the plan again; a bad key is said before anything is sent
  await page.locator(tid('fork-edit-value-0')).fill('101');
  await until('Start fork to be disabled after an edit', async () => page.locator(tid('fork-start')).isDisabled());
  await page.locator(tid('fork-edit-key-0')).fill('bad key');
  await expectText(page, tid('fork-problems'), 'state.bad key: a state key is', 'the problem with the key');
  check(await page.locator(tid('fork-plan')).isDisabled(), 'Show the plan is enabled with a bad key');
  // a refusal of the server (a node output edit of a node that never ran) is one line in the panel
  await page.locator(tid('fork-edit-target-0')).selectOption('output');
  await page.locator(tid('fork-edit-key-0')).fill('ghost');
  t.allow(page, /HTTP 409 for POST .*\/fork/, /console error: Failed to load resource: .* 409/);
  await page.locator(tid('fork-plan')).click();
  const refusal = await expectText(page, tid('fork-error'), 'fork_refused', 'the refusal');
  check(/ghost/.test(refusal) && !/Exception|\tat |\n/.test(refusal), `the refusal is not one line naming the node: ${JSON.stringify(refusal)}`);
  check((await page.locator(`${tid('fork-error')}`).evaluate((e) => e.textContent.split('\n').length)) === 1, 'the refusal is more than one line');
  t.step(`an edit after the plan disables Start fork; a bad key is refused in words; a server refusal is one line: ${refusal}`);

  await page.locator(tid('fork-edit-target-0')).selectOption('state');
  await page.locator(tid('fork-edit-key-0')).fill('count');
  await page.locator(tid('fork-edit-value-0')).fill('100');
  await page.locator(tid('fork-plan')).click();
  await expectText(page, tid('fork-plan-reused'), `2 executions of ${origin}`, 'the plan again');
  check((await textOf(page, tid('fork-error'))) === undefined, 'the refusal stayed after a good plan');
  await page.locator(tid('fork-start')).click();
  await page.waitForURL((u) => /\/runs\/[^/]+$/.test(u.pathname) && !u.pathname.endsWith(`/${origin}`));
  const forkId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop());
  await expectText(page, tid('run-id'), forkId, "the fork's page");
  await awaitRunStatus(page, 'completed');
  t.step(`Start fork opened the new run ${forkId}, which completed`);

  // the fork's page: its origin, pass 1 reused, the edited count
  await expectText(page, tid('forked-from'), `forked from ${origin} at refine:2`, 'the lineage of the fork');
  const shown = await t.api.get(`/api/runs/${encodeURIComponent(forkId)}`);
  check(shown.state?.count === 103, `the fork ended with count ${JSON.stringify(shown.state?.count)}, expected 103 (100 + 3 passes)`);
  check(shown.forked_from?.run_id === origin, `the fork's forked_from is ${JSON.stringify(shown.forked_from)}`);
  const reusedPass = page.locator(tid('pass-button-refine-1'));
  await until('pass 1 of the fork to be marked reused', async () => (await reusedPass.getAttribute('data-reused')) === 'true');
  check((await page.locator(tid('pass-button-refine-2')).getAttribute('data-reused')) === null, 'pass 2 of the fork is marked reused');
  await reusedPass.click();
  await expectText(page, tid('pass-reused-refine'), `reused from run ${origin}`, 'the reused pass');
  await expectText(page, tid('reused-refine[1].step'), 'reused', "the reused row's mark");
  await t.screenshot(page, 'fork-run');
  await page.locator(tid('pass-button-refine-2')).click();
  await expectText(page, `${tid('pass-item-refine[2].step')} td.cell-value`, '"count": 101', "the fork's pass 2 with the edited count");
  check((await page.locator(tid('fork-panel')).count()) === 0, "the origin's fork panel is open on the fork's pass 2");
  t.step('the fork names its origin and point, pass 1 is marked reused, pass 2 counted from 100 and the run ended at 103');

  // the run list names the fork's origin
  await t.open(page, '/');
  await expectText(page, tid(`run-forked-from-${forkId}`), `fork of ${origin} at refine:2`, "the fork's row in the run list");
  check((await page.locator(tid(`run-forked-from-${origin}`)).count()) === 0, 'the origin is listed as a fork');
  await t.open(page, `/runs/${encodeURIComponent(forkId)}`);
  await expectText(page, tid('forked-from'), `forked from ${origin}`, 'the fork page again');
  t.step('the run list says the fork is a fork of its origin at refine:2');

  // the fork beside its origin: the origin on the left, the fork on the right
  await page.locator(tid('compare-with-origin')).click();
  await expectText(page, `${tid('run-compare')} ${tid('diff-left-label')}`, origin, 'the origin on the left');
  await expectText(page, `${tid('run-compare')} ${tid('diff-right-label')}`, forkId, 'the fork on the right');
  const runCells = (await page.locator(`${tid('run-compare')} ${tid('diff-state-count')} td`).allTextContents()).map((c) => c.trim());
  check(runCells.join(' ') === '4 103', `the runs' count row shows ${JSON.stringify(runCells)}, expected 4 and 103`);
  await page.locator(tid('compare-with-origin')).click();
  t.step('compared with its origin: count 4 → 103');

  // comparing pass 1 (reused) and pass 2 (run with the edit) of the fork
  await page.locator(tid('pass-button-refine-2')).click();
  await page.locator(tid('compare-pass-refine')).click();
  await expectText(page, tid('diff-left-label'), `${forkId} refine:1`, 'the left side');
  await expectText(page, tid('diff-right-label'), `${forkId} refine:2`, 'the right side');
  await expectText(page, tid('diff-state-count'), 'changed', 'the changed count');
  const countCells = (await page.locator(`${tid('diff-state-count')} td`).allTextContents()).map((c) => c.trim());
  check(countCells.join(' ') === '1 101', `the count row shows ${JSON.stringify(countCells)}, expected 1 and 101`);
  const del = await page.locator(`${tid('diff-output-write')} .diff-add`).allTextContents();
  check(del.some((l) => l.includes('line 101')), `the draft's diff does not add "line 101": ${JSON.stringify(del)}`);
  t.step('the fork’s passes 1 and 2 compared: count 1 → 101 changed, the draft gains "line 101"');

  // the origin lists the fork; compare its passes 2 and 3 with the selects
  await page.locator(tid('forked-from-link')).click();
  await expectText(page, tid('run-id'), origin, "the origin's page");
  await expectText(page, tid(`fork-${forkId}`), `${forkId} at refine:2`, "the origin's list of forks");
  await page.locator(tid('pass-button-refine-3')).click();
  await page.locator(tid('compare-pass-refine')).click();
  await expectText(page, tid('diff-left-label'), `${origin} refine:2`, 'the previous pass on the left');
  await expectText(page, tid('diff-right-label'), `${origin} refine:3`, 'the shown pass on the right');
  const added = await page.locator(`${tid('diff-output-write')} .diff-add`).allTextContents();
  const removed = await page.locator(`${tid('diff-output-write')} .diff-del`).allTextContents();
  check(added.length === 1 && added[0].includes('line 3') && removed.length === 0, `the diff of passes 2 and 3 is not one added "line 3": +${JSON.stringify(added)} -${JSON.stringify(removed)}`);
  await page.locator(tid('compare-a')).selectOption('1');
  await page.locator(tid('compare-b')).selectOption('4');
  await expectText(page, tid('diff-left-label'), `${origin} refine:1`, 'the left side chosen');
  await expectText(page, tid('diff-right-label'), `${origin} refine:4`, 'the right side chosen');
  await until('the diff of passes 1 and 4 to add three lines', async () =>
    (await page.locator(`${tid('diff-output-write')} .diff-add`).count()) === 3);
  t.step('the origin lists its fork; passes 2 → 3 differ by one added line, 1 → 4 (chosen with the selects) by three');
  await expectText(page, `${tid('diff-output-write')} .unified-diff`, 'Draft <img src=x onerror=window.__xss=1>', 'the markup in the draft, as text');
  await expectNoInjection(page, 'the pass diff');
  t.step('the markup in the draft is shown as text in the diff and the state');
  await page.locator(tid('compare-a')).selectOption('2');
  await page.locator(tid('compare-b')).selectOption('3');
  await expectText(page, tid('diff-right-label'), `${origin} refine:3`, 'the right side again');
  await t.screenshot(page, 'pass-diff', { at: tid('loop-navigator-refine') });
});

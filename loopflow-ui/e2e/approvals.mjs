// Paused runs answered from the run page: an approval approved with a comment (the run completes and the comment is
// journaled with the approval), another rejected (the run fails at the approval), and an interactive loop's gate
// answered twice (feedback, then "approve").
import { Api, awaitRunStatus, check, expectText, scenario, tid, until } from './lib.mjs';

/** The journaled executions of a run whose path is `path` (their result as the API gives it). */
async function executions(api, runId, path) {
  const all = await api.get(`/api/runs/${encodeURIComponent(runId)}/executions`);
  check(Array.isArray(all), `GET executions of ${runId} is not a list: ${JSON.stringify(all).slice(0, 200)}`);
  return all.filter((e) => e.path === path);
}

/** @param {Api} api */
async function gateResult(api, runId) {
  // the journal holds the pause, then the decision
  const gate = (await executions(api, runId, 'gate')).at(-1);
  check(gate, `run ${runId} has no journaled execution of its approval 'gate'`);
  return gate.result ?? {};
}

export default scenario('approvals', async (t) => {
  // 1. approve with a comment
  const approved = await t.api.startRun('needs-approval', { version: '2.0.0' });
  await t.api.awaitStatus(approved, 'paused');
  const page = await t.page('approve');
  await t.open(page, `/runs/${encodeURIComponent(approved)}`);
  await awaitRunStatus(page, 'paused');
  await expectText(page, tid('waiting-panel'), 'Waiting for an approval', 'the waiting panel');
  await expectText(page, tid('waiting-message'), 'Release 2.0.0 to production? (checked 2.0.0)', 'what the run waits for');
  await expectText(page, tid('graph-node-gate'), '', 'the approval node');
  check((await page.locator(tid('graph-node-gate')).getAttribute('data-status')) === 'paused',
    `the approval node is ${await page.locator(tid('graph-node-gate')).getAttribute('data-status')}, not paused`);
  t.step('the paused run says what it waits for: "Release 2.0.0 to production? (checked 2.0.0)"');
  const comment = 'Reviewed with QA; ship it.';
  await page.locator(tid('approval-comment')).fill(comment);
  await t.screenshot(page, 'paused-approval');
  await page.locator(tid('action-approve')).click();
  await awaitRunStatus(page, 'completed');
  await until('the waiting panel to go', async () => (await page.locator(tid('waiting-panel')).count()) === 0);
  const gate = await gateResult(t.api, approved);
  check(gate.decision === 'approved' && gate.comment === comment, `the approval was journaled as ${JSON.stringify(gate)}`);
  const shown = await t.api.get(`/api/runs/${encodeURIComponent(approved)}`);
  check(JSON.stringify(shown.output).includes(`comment: ${comment}`), `the run's output does not carry the comment: ${JSON.stringify(shown.output)}`);
  t.step(`approved with a comment: the run completed and the API shows decision approved, comment "${comment}"`);

  // 2. reject another run
  const rejected = await t.api.startRun('needs-approval', { version: '2.0.1' });
  await t.api.awaitStatus(rejected, 'paused');
  await t.open(page, `/runs/${encodeURIComponent(rejected)}`);
  await expectText(page, tid('waiting-message'), 'Release 2.0.1', 'what the second run waits for');
  await page.locator(tid('approval-comment')).fill('Not during the freeze.');
  await page.locator(tid('action-reject')).click();
  await awaitRunStatus(page, 'failed');
  const refusal = await gateResult(t.api, rejected);
  check(refusal.decision === 'rejected' && refusal.comment === 'Not during the freeze.', `the rejection was journaled as ${JSON.stringify(refusal)}`);
  check((await executions(t.api, rejected, 'release')).length === 0, 'the node after a rejected approval ran');
  await expectText(page, tid('error-panel'), 'gate', 'the failed run\'s error');
  t.step('rejected with a comment: the run failed at the approval, nothing after it ran');

  // 3. an interactive loop's gate, answered twice
  const gated = await t.api.startRun('tagline-gate');
  await t.api.awaitStatus(gated, 'paused');
  await t.open(page, `/runs/${encodeURIComponent(gated)}`);
  await expectText(page, tid('waiting-panel'), 'Waiting for your answer', 'the gate panel');
  await expectText(page, tid('waiting-message'), 'Draft 1: Loops that know when to stop.', 'the gate message of pass 1');
  await page.locator(tid('answer-input')).fill('shorter please');
  await page.locator(tid('action-answer')).click();
  await expectText(page, tid('waiting-message'), 'Draft 2: Loops that stop.', 'the gate message of pass 2', 20_000);
  check((await page.locator(tid('answer-input')).inputValue()) === '', 'the answer box still holds the previous answer');
  t.step('answered the gate with feedback; the run paused again after pass 2 with the new draft');
  await page.locator(tid('action-answer-approve')).click();
  await awaitRunStatus(page, 'completed');
  const [draft2] = await executions(t.api, gated, 'tagline[2].draft');
  check(draft2 && JSON.stringify(draft2.input ?? '').includes('Feedback: shorter please'),
    `pass 2's draft did not receive the answer: ${JSON.stringify(draft2?.input)}`);
  await expectText(page, tid('loop-exit-tagline'), 'signal', 'the interactive loop\'s exit reason');
  t.step('answered "approve": the loop ended on its signal; the first answer reached pass 2\'s prompt');
});

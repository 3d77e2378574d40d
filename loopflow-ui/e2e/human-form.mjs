// A paused human step with a form: the run page draws the approval's schema as fields (labels are text, defaults
// filled in), stops an incomplete form before sending it, shows the server's refusal of an answer that does not fit
// the schema (the run stays paused), and sends good values, which reach the node after the approval. Then an
// interactive loop's gate form: its values reach the next pass.
import { awaitRunStatus, check, expectNoInjection, expectText, scenario, tid, until } from './lib.mjs';

export default scenario('human-form', async (t) => {
  const id = await t.api.startRun('release-form');
  await t.api.awaitStatus(id, 'paused');
  const page = await t.page('form');
  t.allow(page, /HTTP 422 for POST .*\/resume/, /status of 422/);
  await t.open(page, `/runs/${encodeURIComponent(id)}`);
  await awaitRunStatus(page, 'paused');
  await expectText(page, tid('answer-form'), 'Release details', 'the form');
  await expectText(page, tid('answer-form'), 'Version <img src=x onerror=window.__xss=1>', 'the hostile title, as text');
  await expectText(page, tid('answer-form'), 'A tag such as v2.1.0', 'the field description');
  await expectNoInjection(page, 'the form');
  check((await page.locator(tid('form-field-replicas')).inputValue()) === '3', 'the replicas default is not filled in');
  check(await page.locator(tid('form-field-notify')).isChecked(), 'the notify default is not checked');
  t.step('the paused approval draws its form: title, labels as text, description, defaults');

  await page.locator(tid('action-approve')).click();
  await expectText(page, tid('form-problem-version'), 'Required.', 'the empty required version');
  await expectText(page, tid('form-problem-channel'), 'Required.', 'the unchosen required channel');
  check((await t.api.get(`/api/runs/${encodeURIComponent(id)}`)).status === 'paused', 'an incomplete form was sent');
  t.step('an incomplete form is stopped before it is sent: each missing required field says so');

  await page.locator(tid('form-field-version')).fill('2.1.0');
  await page.locator(tid('form-field-channel')).selectOption({ label: 'beta' });
  await page.locator(tid('action-approve')).click();
  await expectText(page, tid('action-error'), 'answer_invalid', 'the server refusing the answer');
  await expectText(page, tid('action-error'), 'version', 'the refusal naming the field');
  check((await page.locator(tid('form-problem-version')).count()) === 0, 'the fixed field still shows its problem');
  check((await t.api.get(`/api/runs/${encodeURIComponent(id)}`)).status === 'paused', 'the refused answer resumed the run');
  await t.screenshot(page, 'human-form', { at: tid('waiting-panel') });
  t.step('a version that does not match the schema\'s pattern is refused by the server (answer_invalid); the run stays paused');

  await page.locator(tid('form-field-version')).fill('v2.1.0');
  await page.locator(tid('form-field-replicas')).fill('5');
  await page.locator(tid('action-approve')).click();
  await awaitRunStatus(page, 'completed');
  const shown = await t.api.get(`/api/runs/${encodeURIComponent(id)}`);
  check(shown.output === 'released v2.1.0 to beta x5 (notify: true)', `the release got ${JSON.stringify(shown.output)}`);
  check(JSON.stringify(shown.nodes?.gate?.values) === '{"version":"v2.1.0","replicas":5,"channel":"beta","notify":true}',
    `the approval's values are ${JSON.stringify(shown.nodes?.gate?.values)}`);
  await page.locator(`${tid('graph-node-gate')} button`).click({ timeout: 5000 });
  await expectText(page, tid('approval-values-shown'), '"version":"v2.1.0"', 'the values in the approval\'s details');
  t.step('good values approve the run; the release reads them as gate.values, and the approval\'s details show them');

  const gated = await t.api.startRun('tune-gate');
  await t.api.awaitStatus(gated, 'paused');
  await t.open(page, `/runs/${encodeURIComponent(gated)}`);
  await expectText(page, tid('waiting-message'), 'Pass 1 wrote: pass 1 at temperature 1.0', 'the first gate');
  await page.locator(tid('form-field-temperature')).fill('0.3');
  await page.locator(tid('form-field-tone')).selectOption({ label: 'terse' });
  await page.locator(tid('action-answer')).click();
  await expectText(page, tid('waiting-message'), 'Pass 2 wrote: pass 2 at temperature 0.3 terse', 'the second gate', 20_000);
  t.step('the gate form\'s values reached pass 2 as loop.user_values');
  await until('the form to start empty for the new question', async () =>
    (await page.locator(tid('form-field-temperature')).inputValue()) === '');
  await page.locator(tid('form-field-temperature')).fill('1');
  await page.locator(tid('action-answer')).click();
  await awaitRunStatus(page, 'completed');
  await expectText(page, tid('loop-exit-tune'), 'max iterations', 'the loop\'s exit reason');
  t.step('answered the second gate; pass 3 ran and the loop ended on its iteration limit');
});

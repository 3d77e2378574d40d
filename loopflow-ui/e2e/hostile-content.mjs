// Hostile text is shown as text: markup and script end tags in a workflow's name and description, an input's
// default and description, node outputs, state, a model's reply, an approval's message and comment, an error message
// and a refused workflow's problems. window.__xss must stay undefined and no element may come from that text.
import { awaitRunStatus, check, expectNoInjection, expectText, scenario, textOf, tid } from './lib.mjs';

const IMG = '<img src=x onerror=window.__xss=1>';
const SCRIPT = '</script><script>window.__xss=1</script>';
/** One per pass of hostile-corpus: each must be shown exactly as written (entities not decoded, nothing run). */
const CORPUS = [
  IMG,
  SCRIPT,
  '<svg/onload=window.__xss=1>',
  '"><iframe srcdoc="<script>parent.__xss=1</script>"></iframe>',
  '<a href="javascript:window.__xss=1">click me</a>',
  '&lt;img src=x onerror=window.__xss=1&gt; &amp; &#60;b&#62;',
  '<style>body{display:none}</style>',
  '{{ 7*7 }} ${7*7} <%= 7*7 %> $LOOP_PREV.show.output',
  'right\u202eto-left \u200b zero width \u0000 nul',
  '<!-- comment --><b>bold</b>',
  'javascript:window.__xss=1',
  '<math><mtext><table><mglyph><style><img src=x onerror=window.__xss=1>',
];

export default scenario('hostile-content', async (t) => {
  const page = await t.page('hostile');
  await t.open(page, '/');
  await page.locator(tid('start-run-button')).click();
  await page.locator(tid('start-workflow')).selectOption('hostile');
  await expectText(page, tid('start-run'), `${IMG} described ${SCRIPT}`, "the workflow's description in the form");
  check((await page.locator(tid('input-payload')).inputValue()) === IMG, "the payload field does not hold the input's default as written");
  await expectText(page, tid('start-run'), SCRIPT, "the input's description in the form");
  await expectNoInjection(page, 'the start form');
  t.step('the start form shows the hostile description, input default and input description as text');

  await page.locator(tid('start-submit')).click();
  await page.waitForURL(/\/runs\/[^/]+$/);
  const runId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop());
  await awaitRunStatus(page, 'paused', 20_000);
  await expectText(page, tid('waiting-message'), `Approve ${IMG} ${SCRIPT}?`, "the approval's message");
  await expectText(page, '.run-header', `${IMG}${SCRIPT}`, 'the workflow name in the run header');
  await expectNoInjection(page, 'the paused run page');
  t.step("the paused run's page shows the workflow name and the approval's message as text");

  await page.locator(`${tid('graph-node-emit')} button`).click();
  await expectText(page, tid('execution-output'), `${IMG} ${SCRIPT}`, "emit's output");
  await page.locator(`${tid('graph-node-mark')} button`).click();
  await expectText(page, tid('execution-state-change'), `${IMG}`, "mark's state change");
  await expectText(page, tid('execution-state-change'), SCRIPT, "mark's state change");
  await page.locator(`${tid('graph-node-reply')} button`).click();
  await expectText(page, tid('execution-output'), `${IMG} said the model ${SCRIPT}`, "the model's reply");
  await expectText(page, tid('llm-calls'), 'mock', 'the LLM call');
  await expectText(page, `${tid('execution-details')} .inputs`, `Say ${IMG} ${SCRIPT}`, 'the rendered prompt');
  await expectText(page, `${tid('pass-item-rounds[2].echo_back')} td.cell-value`, `${IMG} ${SCRIPT} #2`, 'a loop pass output');
  await expectNoInjection(page, 'node details');
  t.step('outputs, state change, prompt, model reply and pass outputs show the hostile text as text');

  await page.locator(tid('approval-comment')).fill(IMG + SCRIPT);
  await page.locator(tid('action-approve')).click();
  await awaitRunStatus(page, 'failed');
  await expectText(page, tid('error-message'), `${IMG} ${SCRIPT}`, 'the error message');
  const ask = (await t.api.get(`/api/runs/${encodeURIComponent(runId)}/executions`)).filter((e) => e.path === 'ask').at(-1);
  check(ask?.result?.comment === IMG + SCRIPT, `the comment was journaled as ${JSON.stringify(ask?.result?.comment)}`);
  await page.locator(`${tid('graph-node-ask')} button`).click();
  // the page shows the approval's decision (its output); its comment is journaled but not shown on the page
  await expectText(page, tid('execution-output'), 'approved', "the approval's decision");
  await page.locator(tid('timeline-bar-boom')).hover();
  await expectText(page, tid('timeline-details'), IMG, 'the timeline details of the failed node');
  await page.locator('summary', { hasText: 'Run output and state' }).click();
  await expectText(page, tid('run-state'), IMG, "the run's state");
  await expectNoInjection(page, 'the failed run page');
  t.step('the error message, the timeline details and the state show the hostile text as text');

  await t.open(page, '/');
  await expectText(page, tid(`run-row-${runId}`), `${IMG}${SCRIPT}`, 'the run list row');
  await expectNoInjection(page, 'the run list');
  t.step('the run list shows the hostile workflow name as text');

  // a refused workflow: its problems quote the hostile id
  t.allow(page, /HTTP 400 for POST .*\/api\/runs/, /status of 400/);
  await page.locator(tid('start-run-button')).click();
  await page.locator(tid('start-from-yaml')).click();
  await page.locator(tid('start-yaml')).fill(`name: refused\nnodes:\n  - id: "${IMG}${SCRIPT}"\n    bash: echo hi\n`);
  await page.locator(tid('start-yaml-submit')).click();
  await expectText(page, tid('start-error'), IMG, "the refused workflow's problems");
  const problems = await textOf(page, `${tid('start-error')} .problems`);
  check(problems && /\d+:\d+/.test(problems), `the problems do not say line:col: ${problems}`);
  await expectNoInjection(page, 'the refused workflow');
  t.step(`a refused workflow's problems quote the hostile id as text (${problems})`);

  // the corpus: every string shown exactly, as the text of its pass's output cell
  const corpusRun = await t.api.startRun('hostile-corpus', { corpus: CORPUS });
  await t.api.awaitStatus(corpusRun, 'completed');
  await t.open(page, `/runs/${encodeURIComponent(corpusRun)}`);
  await awaitRunStatus(page, 'completed');
  for (const [i, payload] of CORPUS.entries()) {
    const k = i + 1;
    await page.locator(tid(`pass-button-each-${k}`)).click();
    const cell = page.locator(`${tid(`pass-item-each[${k}].show`)} td.cell-value pre`);
    await cell.waitFor();
    const shown = await cell.textContent();
    check(shown === payload, `pass ${k} shows ${JSON.stringify(shown)}, expected exactly ${JSON.stringify(payload)}`);
    await expectNoInjection(page, `the corpus run, pass ${k}`);
  }
  check(await page.locator('body').isVisible(), 'a hostile style hid the page');
  t.step(`all ${CORPUS.length} strings of the corpus are shown exactly as written, none ran or became markup`);
});

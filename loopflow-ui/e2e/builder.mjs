// The workflow builder: the palette offers Loop and Exit under LOGIC; Self-Refine built from an empty canvas by
// dragging, connecting and setting its bound in the config panel saves, runs on the mock provider and counts its
// passes to 3 on the builder's own canvas (and on the run page behind "Open run"); an edit clears the counters;
// leaving with unsaved changes asks first; a body node of a nested loop_group is edited in place and the YAML pane
// follows; an invalid edit shows its problem on its node and blocks Save; a file with comments saved unchanged is
// byte-identical.
import { readFileSync } from 'node:fs';
import { check, expectText, scenario, sleep, tid, until } from './lib.mjs';

const node = (key) => tid(`builder-node-${key}`);

/** The YAML pane's text: its lines (a short file's lines are all drawn; CodeMirror draws only what is in view). The
 *  editor sits in the pane's shadow root. */
async function yamlText(page) {
  return page.evaluate(() =>
    [...(document.querySelector('[data-testid="yaml-pane"]')?.shadowRoot ?? document).querySelectorAll('.cm-content .cm-line')]
      .map((l) => l.textContent ?? '')
      .join('\n'),
  );
}

async function openBuilder(t, path, label) {
  const page = await t.page(label);
  await t.open(page, path);
  await page.locator(tid('builder-canvas')).waitFor();
  await expectText(page, tid('builder-state'), /valid|problem/, 'the builder to have checked the workflow');
  return page;
}

/** The file as it is on disk (the server answers the raw file when asked for YAML). */
async function rawFile(t, name) {
  const res = await fetch(`${t.url}api/workflows/${encodeURIComponent(name)}`, {
    headers: { Authorization: `Bearer ${t.token}`, Accept: 'application/yaml' },
  });
  check(res.status === 200, `GET the YAML of ${name} answered ${res.status}`);
  return res.text();
}

async function connect(page, fromKey, fromHandle, toKey) {
  const from = page.locator(`${node(fromKey)} .react-flow__handle[data-handleid="${fromHandle}"]`);
  const to = page.locator(`${node(toKey)} .react-flow__handle[data-handleid="in"]`);
  // the canvas fits the view again when nodes come or go: wait until the handles stop moving before dragging
  let a = null;
  let b = null;
  await until(`the handles of ${fromKey} and ${toKey} to stand still`, async () => {
    const [a2, b2] = [await from.boundingBox(), await to.boundingBox()];
    const still = a && b && a2 && b2 && a.x === a2.x && a.y === a2.y && b.x === b2.x && b.y === b2.y;
    [a, b] = [a2, b2];
    if (!still) await sleep(120);
    return still;
  });
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 5 });
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 5 });
  await page.mouse.up();
}

export default {
  palette: scenario('builder-palette', async (t) => {
    const page = await openBuilder(t, '/builder', 'builder');
    const logic = page.locator(tid('palette-group-LOGIC'));
    for (const k of ['approval', 'transform', 'validator', 'iterator', 'aggregator', 'loop', 'exit', 'router', 'while_loop', 'loop_group', 'cancel']) {
      check((await logic.locator(tid(`palette-${k}`)).count()) === 1, `LOGIC offers ${k}`);
    }
    await expectText(page, `${tid('palette-group-LOGIC')} ${tid('palette-loop')}`, 'Loop', 'the Loop entry');
    await expectText(page, `${tid('palette-group-LOGIC')} ${tid('palette-exit')}`, 'Exit', 'the Exit entry');
    for (const [g, kinds] of [['AI', ['llm', 'agent']], ['ACTIONS', ['shell', 'script', 'http']], ['I/O', ['input', 'output']]]) {
      for (const k of kinds) check((await page.locator(`${tid(`palette-group-${g}`)} ${tid(`palette-${k}`)}`).count()) === 1, `${g} offers ${k}`);
    }
    t.step('the palette groups LOGIC (Loop and Exit among them), AI, ACTIONS and I/O');
  }),

  'self-refine': scenario('builder-self-refine', async (t) => {
    const page = await openBuilder(t, '/builder', 'builder');
    await page.locator(tid('builder-empty')).waitFor();
    const canvas = page.locator(tid('builder-canvas'));
    const box = await canvas.boundingBox();
    const kinds = ['loop', 'llm', 'llm', 'transform', 'exit'];
    for (let i = 0; i < kinds.length; i++) {
      await page.locator(tid(`palette-${kinds[i]}`)).dragTo(canvas, { targetPosition: { x: box.width / 2, y: 50 + i * 100 } });
      await until(`node ${i + 1} on the canvas`, async () => (await page.locator('[data-testid^="builder-node-"]').count()) === i + 1);
    }
    t.step('Loop, LLM, LLM, Transform and Exit dragged from the palette onto the canvas');
    await expectText(page, `${node('repeat')} .loop-word`, 'LOOP', 'the loop node');
    await expectText(page, `${node('exit')} .loop-word`, 'EXIT', 'the exit node');
    await t.screenshot(page, 'builder-dragged');

    await connect(page, 'repeat', 'output', 'llm');
    await until('the edges to be written', async () => (await yamlText(page)).includes('from: repeat'));
    await connect(page, 'llm', 'out', 'llm_2');
    await connect(page, 'llm_2', 'out', 'transform');
    await connect(page, 'transform', 'out', 'exit');
    const yaml = await yamlText(page);
    for (const [a, b] of [['repeat', 'llm'], ['llm', 'llm_2'], ['llm_2', 'transform'], ['transform', 'exit']]) {
      check(new RegExp(`from: ${a}\\s+to: ${b}\\b`).test(yaml), `the YAML has the edge ${a} -> ${b}:\n${yaml}`);
    }
    await page.locator(tid('builder-body-repeat')).waitFor();
    t.step('connected by dragging from handle to handle: the loop body box holds the two LLMs and the transform');

    await page.locator(`${node('repeat')}`).click();
    const max = page.locator(tid('config-panel')).getByLabel(/maxIterations/);
    await max.fill('3');
    await max.press('Tab');
    await until('maxIterations: 3 in the YAML', async () => /maxIterations: 3\b/.test(await yamlText(page)));
    await expectText(page, tid('loop-settings-repeat'), 'max 3', 'the loop node shows its bound');
    await expectText(page, tid('builder-back-edge-label'), '≤ 3', 'the back edge shows its bound');
    t.step('max iterations set to 3 in the config panel: the node, the back edge and the YAML show it');

    await page.locator(tid('builder-name')).fill('built-self-refine');
    await expectText(page, tid('builder-state'), 'valid', 'the built workflow to be valid');
    await page.locator(tid('builder-fit')).click();
    await t.screenshot(page, 'builder-self-refine');
    await page.locator(tid('builder-save')).click();
    await expectText(page, tid('builder-notice'), 'Saved as built-self-refine', 'the save');
    const saved = await rawFile(t, 'built-self-refine');
    const shown = await yamlText(page);
    check(saved === shown, `the saved file is the YAML pane’s text:\n--- saved\n${saved}\n--- shown\n${shown}`);
    check(/^name: built-self-refine$/m.test(saved), `the new workflow took the name it was saved under:\n${saved}`);
    await expectText(page, tid('builder-title'), 'built-self-refine', 'the title names the saved file');
    check((await page.locator(tid('builder-name')).count()) === 0, 'the name field is gone once the file exists');
    t.step('saved to the workflows folder as built-self-refine.yaml; the title and the YAML name it');

    await page.locator(tid('builder-run')).click();
    await page.locator(tid('builder-run-strip')).waitFor();
    check(/\/builder\/built-self-refine$/.test(page.url()), `Run keeps the builder open: ${page.url()}`);
    await expectText(page, `${tid('builder-body-repeat')} ${tid('pass-badge-repeat')}`, '3/3', "the loop's pass counter on the builder canvas", 30_000);
    await expectText(page, tid('builder-run-status'), 'completed', 'the run strip');
    await page.locator(tid('builder-fit')).click();
    await t.screenshot(page, 'builder-run');
    t.step('Run kept the builder open: the loop body counted its passes to 3/3 on the canvas, the strip says completed');

    await page.locator(tid('builder-open-run')).click();
    await page.waitForURL(/\/runs\/[^/]+$/);
    await expectText(page, tid('pass-badge-repeat'), '3/3', "the loop's pass counter on the run page", 30_000);
    t.step('"Open run" opened the run page, where the loop shows 3/3 too');

    const again = await openBuilder(t, '/builder/built-self-refine', 'builder');
    await expectText(again, tid('builder-state'), 'valid · saved', 'the saved file');
    await again.locator(tid('builder-run')).click();
    await expectText(again, tid('builder-run-status'), 'completed', 'the second run', 30_000);
    await expectText(again, tid('pass-badge-repeat'), '3/3', 'the counter of the second run');
    await again.locator(node('repeat')).click();
    const bound = again.locator(tid('config-panel')).getByLabel(/maxIterations/);
    await bound.fill('4');
    await bound.press('Tab');
    await until('the edit to clear the run strip and the counter', async () =>
      (await again.locator(tid('builder-run-strip')).count()) === 0 && (await again.locator(tid('pass-badge-repeat')).count()) === 0);
    await expectText(again, `${tid('builder-body-repeat')} .pass-badge`, '≤ 4', 'the body box shows its new bound');
    t.step('an edit after a run clears the counters and the run strip: the canvas is no longer the workflow that ran');
  }),

  'nested-edit': scenario('builder-nested-edit', async (t) => {
    const page = await openBuilder(t, '/builder/nested-loops', 'builder');
    await page.locator(tid('builder-body-outer/inner')).waitFor();
    await page.locator(node('outer/inner/count')).click();
    const field = page.locator(tid('config-panel')).getByLabel(/^template/);
    await field.fill('inner says {{ loop.iteration }}');
    await field.blur();
    await until('the YAML pane to show the edit', async () => (await yamlText(page)).includes('template: inner says {{ loop.iteration }}') || (await yamlText(page)).includes('"inner says {{ loop.iteration }}"'));
    const text = await yamlText(page);
    check(text.startsWith('# Nested loops'), 'the comment at the top of the file is kept');
    check(!text.includes('outer {{ loop.parent.iteration }} inner'), 'the old template is gone');
    await page.locator(tid('builder-fit')).click();
    await t.screenshot(page, 'builder-nested');
    t.step('the body node of the nested loop_group edited in the config panel; the YAML pane shows the new template');

    // dragged out of the outer group's box onto the empty canvas: it moves to the top level
    const from = await page.locator(node('outer/sum')).boundingBox();
    const canvas = await page.locator(tid('builder-canvas')).boundingBox();
    await page.mouse.move(from.x + 60, from.y + 20);
    await page.mouse.down();
    await page.mouse.move(canvas.x + 60, canvas.y + 60, { steps: 8 });
    await page.mouse.move(canvas.x + 40, canvas.y + 40, { steps: 4 });
    await page.mouse.up();
    await page.locator(node('sum')).waitFor();
    const moved = await yamlText(page);
    check(/\n  - id: sum\n/.test(moved), `sum is a top-level node:\n${moved}`);
    check(!/depends_on: \[inner\]/.test(moved), 'its dependency on the group’s inner node is gone');
    t.step('sum dragged out of the group: it is a top-level node now, without its dependency on inner');
  }),

  invalid: scenario('builder-invalid', async (t) => {
    const page = await openBuilder(t, '/builder/nested-loops', 'builder');
    await expectText(page, tid('builder-state'), 'valid', 'the file is valid at first');
    await page.locator(node('outer/sum')).click();
    const field = page.locator(tid('config-panel')).getByLabel(/^template/);
    await field.fill('sum of {{ no_such_node.output }}');
    await field.blur();
    await page.locator(tid('builder-problem-sum')).waitFor();
    const title = await page.locator(tid('builder-problem-sum')).getAttribute('title');
    check(/no_such_node/.test(title ?? ''), `the problem on node sum names the reference: ${title}`);
    await expectText(page, tid('builder-problems'), 'no_such_node', 'the problem list');
    check(await page.locator(tid('builder-save')).isDisabled(), 'Save is disabled while there are problems');
    check(await page.locator(tid('builder-run')).isDisabled(), 'Run is disabled while there are problems');
    await page.locator(tid('builder-fit')).click();
    await t.screenshot(page, 'builder-problem');
    t.step('an unknown reference shows on node sum (badge and message) and in the list; Save and Run are disabled');
    await page.locator(tid('builder-undo')).click();
    await expectText(page, tid('builder-state'), /^valid/, 'valid again after undo');
    check(!(await page.locator(tid('builder-save')).isDisabled()), 'Save is enabled again');
    t.step('undo brings the valid file back and Save is enabled');
  }),

  'leave-unsaved': scenario('builder-leave-unsaved', async (t) => {
    const page = await openBuilder(t, '/builder/nested-loops', 'builder');
    await expectText(page, tid('builder-state'), 'valid · saved', 'the file as saved');
    const beforeUnloadStops = () =>
      page.evaluate(() => {
        const e = new Event('beforeunload', { cancelable: true });
        window.dispatchEvent(e);
        return e.defaultPrevented;
      });
    check(!(await beforeUnloadStops()), 'a saved file lets the tab close without asking');
    await page.locator(node('outer/sum')).click();
    await page.locator(tid('palette-transform')).click();
    await until('the added node', async () => (await yamlText(page)).includes('id: transform'));
    await expectText(page, tid('builder-state'), 'unsaved', 'the edit');
    check(await beforeUnloadStops(), 'closing or reloading the tab with unsaved changes asks first');

    const asked = [];
    let answer = false;
    page.on('dialog', (d) => {
      asked.push(d.message());
      void (answer ? d.accept() : d.dismiss());
    });
    await page.locator('a[href="/"]').last().click();
    await until('the question', async () => asked.length === 1);
    check(/unsaved changes/.test(asked[0]), `the question names the unsaved changes: ${asked[0]}`);
    await sleep(200);
    check(/\/builder\/nested-loops$/.test(page.url()), `answering no stays on the builder: ${page.url()}`);
    check((await yamlText(page)).includes('id: transform'), 'the edit is still there');
    t.step('with unsaved changes, the Runs link asks first; answering no keeps the builder and the edit');

    answer = true;
    await page.locator('a[href="/"]').last().click();
    await until('the second question', async () => asked.length === 2);
    await page.waitForURL((u) => u.pathname === '/');
    t.step('answering yes leaves for the run list');
  }),

  'run-inputs': scenario('builder-run-inputs', async (t) => {
    const page = await openBuilder(t, '/builder/draft-and-review', 'builder');
    await expectText(page, tid('builder-state'), 'valid · saved', 'the file as saved');
    await page.locator(tid('builder-run')).click();
    const form = page.locator(tid('builder-run-inputs'));
    await form.waitFor();
    const topic = form.getByLabel(/topic/);
    check((await topic.inputValue()) === 'loops', 'the field starts at the declared default');
    await topic.fill('graphs');
    await form.locator(tid('builder-run-start')).click();
    await expectText(page, tid('builder-run-status'), 'completed', 'the run started with the input', 30_000);
    check((await form.count()) === 0, 'the form closes when the run starts');
    const href = (await page.locator(tid('builder-open-run')).getAttribute('href')) ?? '';
    const id = decodeURIComponent(href.split('/').pop() ?? '');
    const res = await fetch(`${t.url}api/runs/${encodeURIComponent(id)}/executions`, { headers: { Authorization: `Bearer ${t.token}` } });
    check(res.status === 200, `GET the executions of ${id} answered ${res.status}`);
    const body = await res.text();
    check(body.includes('outline of graphs'), `the run used the input typed in the form: ${body.slice(0, 400)}`);
    t.step('Run on a workflow with a declared input asks for it (the run list’s fields, its default filled in) and starts with the value typed');
  }),

  unchanged: scenario('builder-unchanged', async (t) => {
    const name = 'draft-and-review';
    const before = await rawFile(t, name);
    check(/^\s*#/m.test(before), 'the fixture has comments');
    const page = await openBuilder(t, `/builder/${name}`, 'builder');
    await expectText(page, tid('builder-state'), 'valid', 'the file is valid');
    // an edit undone leaves the text as it was
    await page.locator('[data-testid^="builder-node-"]').first().click();
    await page.locator(tid('palette-transform')).click();
    await until('the added node', async () => (await yamlText(page)).includes('id: transform'));
    await page.keyboard.press('Control+z');
    await until('the undo', async () => !(await yamlText(page)).includes('id: transform'));
    await expectText(page, tid('builder-state'), 'valid', 'checked again');
    // a node deleted with the Delete key, and brought back with the toolbar's Undo
    const first = page.locator('[data-testid^="builder-node-"]').first();
    const key = ((await first.getAttribute('data-testid')) ?? '').replace('builder-node-', '');
    await first.click();
    await page.keyboard.press('Delete');
    await until(`node ${key} deleted`, async () => !(await yamlText(page)).includes(`id: ${key}`));
    await page.locator(tid('builder-undo')).click();
    await until(`node ${key} back`, async () => (await yamlText(page)).includes(`id: ${key}`));
    await expectText(page, tid('builder-state'), 'valid', 'checked again');
    await page.locator(tid('builder-save')).click();
    await expectText(page, tid('builder-notice'), `Saved as ${name}`, 'the save');
    await sleep(100);
    const after = await rawFile(t, name);
    check(after === before, `the saved file differs from the original:\n--- before\n${before}\n--- after\n${after}`);
    const fixture = readFileSync(new URL(`./workflows/${name}.yaml`, import.meta.url), 'utf8');
    check(after === fixture, 'the saved file is the fixture byte for byte');
    t.step('opened, a node added and undone (Ctrl+Z), a node deleted (Delete) and undone (toolbar), saved: the file is byte-identical, comments included');
  }),
};

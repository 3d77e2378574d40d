// The builder bugs a user hit, each done the way the user did it:
// - template-on-saved-file: "New from template" in the builder of a saved file opens a new, unsaved workflow at its
//   own address (the file on disk stays byte-identical, Save asks for a new name); with unsaved edits it asks first.
// - drag-order: LLM, then Loop, then Exit dragged onto the canvas (Loop above the LLM, Exit below), then Loop -> LLM
//   drawn: the file lists them as the canvas shows them, the drawn edge is a forward edge, no loop edge, no bound.
// - loop-edge-on-request: an edge drawn backwards is not written; a loop edge is made only when asked, with the bound
//   typed; an edge's panel says what the edge means and offers "Make this a loop edge".
// - loop-ports: the loop node draws no iterations/count ports that would send nothing.
// - back-guard: the browser's Back with unsaved edits asks; answering no keeps the builder and the edits.
// - at-800: at 800x800 the node's settings are on screen beside the canvas and usable.
// - edge-labels: a back edge's label lies inside the canvas after Fit.
// - last-run: after Run, each node on the canvas shows its state, duration and output, and opens its execution.
import { check, expectText, scenario, sleep, tid, until } from './lib.mjs';

const node = (key) => tid(`builder-node-${key}`);

async function yamlText(page) {
  return page.evaluate(() =>
    [...(document.querySelector('[data-testid="yaml-pane"]')?.shadowRoot ?? document).querySelectorAll('.cm-content .cm-line')]
      .map((l) => l.textContent ?? '')
      .join('\n'),
  );
}

async function openBuilder(t, path, label = 'builder') {
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

/** Waits until the box of `locator` stops moving (the canvas may fit its view after a change); returns it. */
async function stillBox(locator, what) {
  let last = null;
  return until(`${what} to stand still`, async () => {
    const b = await locator.boundingBox();
    const same = last && b && last.x === b.x && last.y === b.y;
    last = b;
    if (!same) await sleep(120);
    return same ? b : null;
  });
}

async function connect(page, fromKey, fromHandle, toKey) {
  const from = page.locator(`${node(fromKey)} .react-flow__handle[data-handleid="${fromHandle}"]`);
  const to = page.locator(`${node(toKey)} .react-flow__handle[data-handleid="in"]`);
  const a = await stillBox(from, `the ${fromHandle} handle of ${fromKey}`);
  const b = await stillBox(to, `the input handle of ${toKey}`);
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2 + 30, (a.y + b.y) / 2, { steps: 5 });
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 5 });
  await page.mouse.up();
}

/** The answers to the page's confirm() questions: `answers` is consumed in order; what was asked is recorded. */
function answerDialogs(page, answers) {
  const asked = [];
  page.on('dialog', (d) => {
    asked.push(d.message());
    const yes = answers.shift();
    void (yes ? d.accept() : d.dismiss());
  });
  return asked;
}

/** The first lines of a text (the YAML pane draws only the lines in view). */
const head = (text, n = 12) => text.split('\n').slice(0, n).join('\n');

/** The ids of the top-level nodes, in the file's order. */
const topIds = (yaml) => [...yaml.matchAll(/^ {2}- id: (\S+)$/gm)].map((m) => m[1]);

export default {
  'template-on-saved-file': scenario('builder-template-on-saved-file', async (t) => {
    const name = 'draft-and-review';
    const before = await rawFile(t, name);
    const page = await openBuilder(t, `/builder/${name}`);
    await expectText(page, tid('builder-state'), 'valid · saved', 'the saved file');
    const template = page.locator(tid('builder-template'));
    await until('the templates to load', async () => !(await template.isDisabled()));
    const id = await template.evaluate((s) => [...s.options].map((o) => o.value).find((v) => v));
    check(!!id, 'the server offers a template');
    const source = (await t.api.get(`/api/templates/${encodeURIComponent(id)}`)).source;

    // unsaved edits first: choosing a template asks, and answering no keeps the file and the edit
    await page.locator('[data-testid^="builder-node-"]').first().click();
    await page.locator(tid('palette-transform')).click();
    await until('the added node', async () => (await yamlText(page)).includes('id: transform'));
    const asked = answerDialogs(page, [false]);
    await template.selectOption(id);
    await until('the question about the unsaved changes', async () => asked.length === 1);
    check(/unsaved changes/.test(asked[0]), `the question names the unsaved changes: ${asked[0]}`);
    await sleep(200);
    check(new URL(page.url()).pathname === `/builder/${name}`, `answering no stays on the file: ${page.url()}`);
    check((await yamlText(page)).includes('id: transform'), 'the edit is still there');
    await expectText(page, tid('builder-title'), name, 'the title still names the file');
    t.step('with unsaved edits, New from template asks first; answering no keeps the file and its edit');

    // saved file, no edits: the template opens as a new workflow at its own address
    await page.locator(tid('builder-undo')).click();
    await expectText(page, tid('builder-state'), 'valid · saved', 'the edit undone');
    await template.selectOption(id);
    await page.waitForURL((u) => u.pathname === '/builder' && u.searchParams.get('template') === id);
    check(asked.length === 1, `a saved file is left without a question (asked: ${asked.join(' | ')})`);
    await expectText(page, tid('builder-title'), /^New workflow/, 'the title of the new workflow');
    check(!(await page.locator(tid('builder-title')).textContent()).includes(name), 'the title does not name the old file');
    await until('the template in the YAML pane', async () => head(await yamlText(page)) === head(source));
    await expectText(page, tid('builder-state'), 'unsaved', 'the template is not saved yet');
    const nameField = page.locator(tid('builder-name'));
    check((await nameField.count()) === 1, 'Save asks for a name: the name field is shown');
    check((await rawFile(t, name)) === before, `the file ${name} is unchanged on disk`);
    await t.screenshot(page, 'builder-template');
    t.step(`the template ${id} opened as a new, unsaved workflow at /builder?template=${id}; the title names no file`);

    await nameField.fill('from-a-template');
    await expectText(page, tid('builder-state'), /^valid/, 'the template is valid');
    await page.locator(tid('builder-save')).click();
    await expectText(page, tid('builder-notice'), 'Saved as from-a-template', 'the save');
    check(new URL(page.url()).pathname === '/builder/from-a-template', `the address names the new file: ${page.url()}`);
    const after = await rawFile(t, name);
    check(after === before, `the saved file ${name} was overwritten:\n--- before\n${before}\n--- after\n${after}`);
    check((await rawFile(t, 'from-a-template')).includes((source.match(/^nodes:/m) ?? ['nodes:'])[0]), 'the new file holds the template');
    t.step(`Save wrote from-a-template.yaml; ${name}.yaml is byte-identical to what it was`);

    await page.goBack();
    await page.waitForURL((u) => u.pathname === `/builder/${name}`);
    await until('the file back in the YAML pane', async () => head(await yamlText(page)) === head(before));
    t.step('Back returns to the file, as it is on disk');
  }),

  'drag-order': scenario('builder-drag-order', async (t) => {
    const page = await openBuilder(t, '/builder');
    await page.locator(tid('builder-empty')).waitFor();
    const canvas = page.locator(tid('builder-canvas'));
    const box = await canvas.boundingBox();
    // the user's order of dragging: LLM (middle), then Loop (above it), then Exit (below both)
    const drops = [
      ['llm', 'llm', 300],
      ['loop', 'repeat', 80],
      ['exit', 'exit', 520],
    ];
    for (const [kind, key, y] of drops) {
      await page.locator(tid(`palette-${kind}`)).dragTo(canvas, { targetPosition: { x: box.width / 2, y } });
      await page.locator(node(key)).waitFor();
    }
    for (const [, key, y] of drops) {
      const b = await stillBox(page.locator(node(key)), `node ${key}`);
      const cy = b.y + b.height / 2 - box.y;
      check(Math.abs(cy - y) < 24 && Math.abs(b.x + b.width / 2 - box.x - box.width / 2) < 24, `node ${key} stays where it was dropped (its centre at ${Math.round(cy)}, dropped at ${y})`);
    }
    let yaml = await yamlText(page);
    check(topIds(yaml).join(',') === 'repeat,llm,exit', `the file lists the nodes as the canvas shows them, top to bottom:\n${yaml}`);
    await t.screenshot(page, 'builder-drag-order');
    t.step('LLM, Loop and Exit dropped in that order, Loop above the LLM: they stay where dropped and the file lists repeat, llm, exit');

    await connect(page, 'repeat', 'output', 'llm');
    await until('the edge to be written', async () => /from: repeat\s+to: llm/.test(await yamlText(page)));
    yaml = await yamlText(page);
    const edges = yaml.slice(yaml.indexOf('\nedges:'));
    check(!/type: loop\b/.test(edges), `drawing Loop -> LLM made a loop edge:\n${yaml}`);
    check(!/maxIterations: 3\b/.test(yaml), `a bound of 3 was made up:\n${yaml}`);
    check((await page.locator(tid('builder-back-edge-label')).count()) === 0 || !(await page.locator(tid('builder-back-edge-label')).allTextContents()).some((x) => x.includes('3')), 'no back edge with an invented bound is drawn');
    await connect(page, 'llm', 'out', 'exit');
    await until('the second edge to be written', async () => /from: llm\s+to: exit/.test(await yamlText(page)));
    await expectText(page, tid('builder-state'), /^valid/, 'the workflow Loop -> LLM -> Exit to be valid');
    await page.locator(tid('builder-body-repeat')).waitFor();
    t.step('Loop -> LLM drawn is a forward edge (no loop edge, no bound of 3); with LLM -> Exit the workflow is valid, the LLM in the loop body');
  }),

  'loop-edge-on-request': scenario('builder-loop-edge-on-request', async (t) => {
    // a chain listed in order: a -> b -> c (the fixture has none; built here)
    const page = await openBuilder(t, '/builder');
    for (let i = 0; i < 3; i++) await page.locator(tid('palette-transform')).click();
    await until('three nodes', async () => (await page.locator('[data-testid^="builder-node-"]').count()) === 3);
    await connect(page, 'transform', 'out', 'transform_2');
    await until('the first edge', async () => /from: transform\s+to: transform_2/.test(await yamlText(page)));
    const before = await yamlText(page);

    // drawn backwards: transform_3 -> transform would close a cycle; nothing is written, the page asks
    await connect(page, 'transform_3', 'out', 'transform');
    await page.locator(tid('builder-loop-ask')).waitFor();
    await expectText(page, tid('builder-notice'), 'would close a cycle', 'the notice');
    check((await yamlText(page)) === before, 'an edge drawn backwards is not written');
    await page.locator(tid('builder-loop-ask-make')).click();
    await expectText(page, tid('builder-loop-ask'), 'give the most passes', 'a loop edge without a bound is refused');
    check((await yamlText(page)) === before, 'no loop edge without a bound');
    await page.locator(tid('builder-loop-ask-max')).fill('2');
    await page.locator(tid('builder-loop-ask-make')).click();
    await until('the loop edge with its bound', async () => /from: transform_3\s+to: transform\s+type: loop\s+maxIterations: 2\b/.test(await yamlText(page)));
    await expectText(page, tid('builder-back-edge-label'), '≤ 2', 'the back edge shows the bound typed');
    await expectText(page, tid('edge-meaning'), 'A loop edge', 'the new edge in the edge panel');
    await expectText(page, tid('edge-meaning'), 'at most 2 passes', 'its bound in words');
    t.step('an edge drawn backwards is not written; asked for, a loop edge is made with the bound typed (2), none without one');

    // an edge's panel: what it means, and Make this a loop edge asking for a bound
    await page.locator('.react-flow__edge.fwd-edge').first().dispatchEvent('click');
    await expectText(page, tid('edge-meaning'), 'A forward edge', 'a drawn edge is a forward edge');
    await page.locator(tid('edge-make-loop')).click();
    await page.locator(tid('edge-loop-form')).waitFor();
    await page.locator(tid('builder-fit')).click();
    await t.screenshot(page, 'builder-loop-edge');
    await page.locator(tid('edge-loop-form-cancel')).click();
    check((await page.locator(tid('edge-loop-form')).count()) === 0, 'Cancel closes the question');
    t.step('an edge chosen on the canvas shows what it means; Make this a loop edge asks for the bound');
  }),

  'loop-ports': scenario('builder-loop-ports', async (t) => {
    const page = await openBuilder(t, '/builder');
    await page.locator(tid('palette-loop')).click();
    await page.locator(node('repeat')).waitFor();
    const handles = await page.locator(`${node('repeat')} .react-flow__handle.source.connectable`).evaluateAll((els) => els.map((e) => e.getAttribute('data-handleid')));
    check(handles.length === 1 && handles[0] === 'output', `the loop node offers one output port, not ports that send nothing: ${JSON.stringify(handles)}`);
    const ports = ((await page.locator(`${node('repeat')} .loop-ports`).textContent()) ?? '').trim();
    check(!/iterations|count/.test(ports), `no iterations/count ports are drawn: ${ports}`);
    t.step('the loop node draws its input and one output port; iterations and count are read in templates');
  }),

  'back-guard': scenario('builder-back-guard', async (t) => {
    const page = await t.page('builder');
    await t.open(page, '/');
    await page.locator('nav a[href="/builder"]').click();
    await page.locator(tid('builder-canvas')).waitFor();
    await until('the workflows in Open…', async () => (await page.locator(`${tid('builder-open')} option[value="nested-loops"]`).count()) === 1);
    await page.locator(tid('builder-open')).selectOption('nested-loops');
    await page.waitForURL((u) => u.pathname === '/builder/nested-loops');
    await expectText(page, tid('builder-state'), 'valid · saved', 'the file as saved');
    await page.locator(node('outer/sum')).click();
    await page.locator(tid('palette-transform')).click();
    await until('the added node', async () => (await yamlText(page)).includes('id: transform'));
    await expectText(page, tid('builder-state'), 'unsaved', 'the edit');

    const asked = answerDialogs(page, [false, true]);
    await page.evaluate(() => history.back());
    await until('the question', async () => asked.length === 1);
    check(/unsaved changes/.test(asked[0]), `the question names the unsaved changes: ${asked[0]}`);
    await sleep(300);
    check(new URL(page.url()).pathname === '/builder/nested-loops', `answering no stays on the builder: ${page.url()}`);
    check((await yamlText(page)).includes('id: transform'), 'the edit is still there after Back was refused');
    await expectText(page, tid('builder-state'), 'unsaved', 'still unsaved');
    t.step('Back with unsaved edits asks; answering no keeps the builder, its address and the edit');

    await page.evaluate(() => history.back());
    await until('the second question', async () => asked.length === 2);
    await page.waitForURL((u) => u.pathname === '/builder');
    await page.locator(tid('builder-empty')).waitFor();
    t.step('answering yes goes back to the page before');
  }),

  'at-800': scenario('builder-at-800', async (t) => {
    const page = await t.page('builder');
    await page.setViewportSize({ width: 800, height: 800 });
    await t.open(page, '/builder/nested-loops');
    await page.locator(tid('builder-canvas')).waitFor();
    await page.locator(node('outer/sum')).click();
    const panel = page.locator(tid('config-panel'));
    await expectText(page, tid('config-panel'), 'sum', 'the panel of sum');
    const b = await panel.boundingBox();
    check(b && b.x >= 0 && b.x + b.width <= 800 && b.y >= 0 && b.y + 120 <= 800, `the config panel is on screen at 800x800: ${JSON.stringify(b)}`);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    check(width <= 800, `the page is wider than the window: ${width}px`);
    const canvas = await page.locator(tid('builder-canvas')).boundingBox();
    check(canvas.width >= 300 && canvas.x + canvas.width <= b.x + 1, `the canvas stays beside the panel: canvas ${JSON.stringify(canvas)}, panel ${JSON.stringify(b)}`);
    const field = panel.getByLabel(/^template/);
    const f = await field.boundingBox();
    check(f && f.y >= 0 && f.y + f.height <= 800 && f.x + f.width <= 800, `the template field is on screen: ${JSON.stringify(f)}`);
    await field.fill('sum at 800 px');
    await field.blur();
    await until('the edit in the YAML', async () => (await yamlText(page)).includes('sum at 800 px'));
    await t.screenshot(page, 'builder-at-800');
    t.step('at 800x800 the node details sit beside the canvas, on screen, and a field edited there reaches the YAML');
  }),

  'edge-labels': scenario('builder-edge-labels', async (t) => {
    const page = await openBuilder(t, '/builder/each-word');
    await page.locator(tid('builder-fit')).click();
    await sleep(300);
    const canvas = await page.locator(tid('builder-canvas')).boundingBox();
    const labels = page.locator(tid('builder-back-edge-label'));
    await until('the back edge label', async () => (await labels.count()) > 0);
    for (let i = 0; i < (await labels.count()); i++) {
      const l = labels.nth(i);
      const b = await stillBox(l, 'the label');
      const text = await l.textContent();
      check(
        b.x >= canvas.x && b.y >= canvas.y && b.x + b.width <= canvas.x + canvas.width && b.y + b.height <= canvas.y + canvas.height,
        `the label "${text}" is cut at the canvas's edge: label ${JSON.stringify(b)}, canvas ${JSON.stringify(canvas)}`,
      );
    }
    t.step('after Fit, the iterator box’s back edge label ("next item") lies inside the canvas');
  }),

  'last-run': scenario('builder-last-run', async (t) => {
    const page = await openBuilder(t, '/builder/nested-loops');
    await expectText(page, tid('builder-state'), 'valid · saved', 'the file as saved');
    await page.locator(tid('builder-run')).click();
    await expectText(page, tid('builder-run-status'), 'completed', 'the run', 30_000);
    for (const key of ['outer', 'inner', 'count', 'sum']) {
      const r = page.locator(tid(`builder-result-${key}`));
      await until(`the result of ${key} on the canvas`, async () => (await r.getAttribute('data-status')) === 'completed');
      const text = ((await r.textContent()) ?? '').replace(/\s+/g, ' ');
      check(/completed/.test(text) && /\d+(\.\d+)? (ms|s)/.test(text), `node ${key} shows its state and duration: ${text}`);
      check(!/undefined|null/.test(text), `node ${key} shows no "undefined" or "null": ${text}`);
    }
    await expectText(page, tid('builder-result-count'), 'outer 3 inner 3', 'the last output of count');
    await expectText(page, tid('builder-result-sum'), 'outer pass 3 ran', 'the last output of sum');
    await page.locator(tid('builder-fit')).click();
    await t.screenshot(page, 'builder-last-run');
    t.step('after Run, every node on the canvas shows completed, its duration and its last output (count: outer 3 inner 3)');

    await page.locator(tid('builder-result-link-sum')).click();
    await page.waitForURL((u) => /^\/runs\/[^/]+$/.test(u.pathname) && u.searchParams.get('node') === 'outer/sum');
    await expectText(page, `${tid('execution-details')} dd code`, 'sum', 'the node details of sum on the run page');
    t.step('a node’s result opens the run page with that node’s execution shown');
  }),
};

// The value views users of other workflow tools expect: a model's Markdown reply rendered (links only to http, https
// and mailto, in a new tab without access to the page; raw HTML and javascript: links stay text), a JSON output as a
// collapsible tree (a big array paged, a long string clipped), and an LLM call's and an agent's messages as a chat
// transcript with their roles. Every view is text: window.__xss stays undefined.
import { awaitRunStatus, check, expectNoInjection, expectText, scenario, tid } from './lib.mjs';

/** The side panel scrolls on its own: its section is brought to the panel's top before the window's screenshot. */
async function shoot(t, page, name, selector) {
  await page.locator(selector).first().evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await t.screenshot(page, name);
}

export default scenario('views', async (t) => {
  const runId = await t.api.startRun('views', {});
  await t.api.awaitStatus(runId, 'completed');
  const page = await t.page('views');
  await t.open(page, `/runs/${encodeURIComponent(runId)}`);
  await awaitRunStatus(page, 'completed');

  // Markdown
  await page.locator(`${tid('graph-node-write')} button`).click();
  const out = tid('execution-output');
  await expectText(page, out, '# Notes on bounded loops', 'the raw reply, as written');
  await page.locator(`${out} ${tid('view-markdown')}`).click();
  const md = `${out} ${tid('markdown')}`;
  await expectText(page, `${md} h1`, 'Notes on bounded loops', 'the rendered heading');
  check((await page.locator(`${md} strong`).first().textContent()) === 'must', 'the bold text is not rendered as bold');
  check((await page.locator(`${md} li`).count()) === 3, 'the list does not have its three items');
  const safe = page.locator(`${md} a`);
  check((await safe.count()) === 1, `expected one link (the https one), found ${await safe.count()}`);
  check((await safe.getAttribute('href')) === 'https://example.com/docs', 'the https link lost its address');
  check((await safe.getAttribute('target')) === '_blank', 'the link does not open in a new tab');
  check((await safe.getAttribute('rel')) === 'noopener noreferrer', 'the link may reach this page (rel)');
  await expectText(page, md, '[bad link](javascript:window.__xss=1)', 'the javascript: link, as text');
  await expectText(page, `${md} blockquote`, 'quoted <img src=x onerror=window.__xss=1>', 'the quote with its HTML as text');
  await expectText(page, `${md} pre code`, 'max_iterations: 3', 'the fenced code block');
  await expectNoInjection(page, 'the Markdown reply');
  await shoot(t, page, 'markdown-output', `${tid('execution-details')} h4:has-text("Reply")`);
  t.step('the reply renders as Markdown: heading, emphasis, list, quote, code, one https link; javascript: and HTML stay text');

  // the LLM call's messages
  const msgs = `${tid('execution-details')} ${tid('llm-messages')}`;
  await expectText(page, msgs, 'You write short notes in Markdown. <script>window.__xss=1</script>', 'the system message');
  const roles = await page.locator(`${msgs} ${tid('llm-message')}`).evaluateAll((els) => els.map((e) => e.getAttribute('data-role')));
  check(
    JSON.stringify(roles) === JSON.stringify(['system', 'user', 'assistant', 'user', 'assistant']),
    `the write call's messages have roles ${JSON.stringify(roles)}`,
  );
  await expectText(page, msgs, 'Write a note on bounded loops.', 'the rendered prompt as the last user message');
  await shoot(t, page, 'llm-messages', `${tid('execution-details')} .llm-messages`);

  await page.locator(`${tid('graph-node-analyst')} button`).click();
  await expectText(page, msgs, 'Store a finding, read it back, then answer.', "the agent's user message");
  const agentRoles = await page.locator(`${msgs} ${tid('llm-message')}`).evaluateAll((els) => els.map((e) => e.getAttribute('data-role')));
  check(
    JSON.stringify(agentRoles) === JSON.stringify(['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']),
    `the agent's transcript has roles ${JSON.stringify(agentRoles)}`,
  );
  await expectText(page, msgs, 'shared_memory_write', 'the tool the agent asked for');
  await expectText(page, msgs, 'The finding is stored and read back.', "the agent's answer");
  await expectNoInjection(page, "the agent's transcript");
  t.step("the LLM call's and the agent's messages show as a transcript: system, user, assistant, tool, in order");

  // JSON tree
  await page.locator(`${tid('graph-node-data')} button`).click();
  await page.locator(`${out} ${tid('view-tree')}`).click();
  const tree = `${out} ${tid('json-tree')}`;
  await expectText(page, tree, 'summary: {3 keys}', 'the folded summary object of the output');
  await expectText(page, tree, 'items: [250 items]', 'the folded items array of the output');
  const toggle = (key) => page.locator(`${tree} li.json-row:has(> span.json-key:text-is("${key}:")) > ${tid('json-toggle')}`).first();
  await toggle('items').click();
  await expectText(page, tree, 'Showing 100 of 250: show 100 more', 'the first page of the big array');
  await page.locator(`${tree} ${tid('json-more')}`).click();
  await expectText(page, tree, 'Showing 200 of 250: show 50 more', 'the second page of the big array');
  await toggle('summary').click();
  await expectText(page, tree, '"<img src=x onerror=window.__xss=1>"', 'the hostile string, as text');
  await page.locator(`${tree} ${tid('json-show-all')}`).click();
  await expectText(page, tree, 'show less', 'the long string shown whole');
  await expectNoInjection(page, 'the JSON tree');
  await shoot(t, page, 'json-tree', tree);
  t.step('the JSON output is a tree: folded nodes, a 250-item array paged by 100, a long string clipped then shown whole');
});

// Smoke check of the run viewer in Debian's Chromium (never a downloaded browser), driven by playwright-core.
//   LOOPFLOW_URL=http://127.0.0.1:8080 LOOPFLOW_TOKEN=T [RUNS=id1,id2] [START=workflow] [OUT=dir] node e2e/smoke.mjs
// Opens the app with the token in the fragment, checks the token left the address bar and the run list shows, then
// opens each run: every graph node and every pass badge must render. With START, it starts that workflow file from
// the "Start a run" form with its default inputs and watches it live until it ends: the pass badge must count up and
// the timeline must hold one bar per execution (nothing duplicated). Any console error or warning, or page error,
// fails the check. Screenshots go to OUT (default target/e2e).
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';

const base = (process.env.LOOPFLOW_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
const token = process.env.LOOPFLOW_TOKEN ?? '';
const runs = (process.env.RUNS ?? '').split(',').filter(Boolean);
const out = process.env.OUT ?? 'target/e2e';
const width = Number(process.env.WIDTH ?? 1280);
const height = Number(process.env.HEIGHT ?? 800);
mkdirSync(out, { recursive: true });

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-quic'],
});
const problems = [];
try {
  const page = await browser.newPage({ viewport: { width, height } });
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // run outputs may hold markup such as <img src=x onerror=alert(1)>: it must show as text, never run
  page.on('dialog', async (d) => {
    problems.push(`a dialog opened (markup from a run was executed?): ${d.message()}`);
    await d.dismiss();
  });

  await page.goto(`${base}/#token=${encodeURIComponent(token)}`);
  await page.getByTestId('runs-table').or(page.locator('.empty-state')).first().waitFor({ timeout: 15000 });
  if (page.url().includes('token=')) problems.push(`the token stayed in the address bar: ${page.url()}`);
  const rows = await page.locator('[data-testid^="run-row-"]').count();
  console.log(`run list: ${rows} rows`);
  await page.screenshot({ path: `${out}/runs.png` });

  const start = process.env.START;
  if (start) {
    await page.getByTestId('start-run-button').click();
    await page.getByTestId('start-workflow').selectOption(start);
    await page.getByTestId('start-submit').click();
    await page.waitForURL(/\/runs\//, { timeout: 15000 });
    const id = decodeURIComponent(page.url().split('/runs/')[1]);
    await page.locator('[data-testid^="pass-badge-"]').first().waitFor({ timeout: 30000 });
    const seen = [];
    let watchedRunning = 0;
    for (let i = 0; i < 120; i++) {
      const badges = await page.locator('[data-testid^="pass-badge-"]').allTextContents();
      const text = badges.join(' | ').trim();
      if (seen[seen.length - 1] !== text) seen.push(text);
      if (i === 2) await page.screenshot({ path: `${out}/live-${id}.png`, fullPage: true });
      const status = await page.getByTestId('run-status').getAttribute('data-status');
      if (status && status !== 'running') break;
      watchedRunning++;
      await page.waitForTimeout(500);
    }
    console.log(`live run ${id}: badges seen ${seen.join(' → ')}`);
    // a run that ended before the page first looked has nothing live to show; one watched for seconds must count up
    if (watchedRunning >= 4 && seen.length < 2) problems.push(`live run ${id}: the pass badge never changed`);
    await page.waitForTimeout(1000);
    const bars = await page.locator('[data-testid^="timeline-bar-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')));
    const dupes = bars.filter((b, i) => bars.indexOf(b) !== i);
    if (dupes.length) problems.push(`live run ${id}: timeline bars repeated: ${dupes.join(', ')}`);
    runs.push(id);
  }

  for (const id of runs) {
    await page.goto(`${base}/runs/${encodeURIComponent(id)}`);
    await page.getByTestId('run-graph').waitFor({ timeout: 15000 });
    await page.locator('[data-testid^="graph-node-"]').first().waitFor({ timeout: 15000 });
    await page.getByTestId('stream-status').filter({ hasText: /up to date|live/ }).waitFor({ timeout: 15000 });
    await page.waitForTimeout(800);
    const nodes = await page.locator('[data-testid^="graph-node-"]').evaluateAll((els) =>
      els.map((e) => `${e.getAttribute('data-testid').slice('graph-node-'.length)}=${e.getAttribute('data-status')}`));
    const badges = await page.locator('[data-testid^="pass-badge-"]').evaluateAll((els) =>
      els.map((e) => `${e.getAttribute('data-testid').slice('pass-badge-'.length)} ${e.textContent.trim()}`));
    const status = await page.getByTestId('run-status').getAttribute('data-status');
    console.log(`run ${id}: ${status}\n  nodes: ${nodes.join(', ')}\n  badges: ${badges.join(' | ')}`);
    if (nodes.length === 0) problems.push(`run ${id}: no graph node`);
    await page.screenshot({ path: `${out}/run-${id}.png`, fullPage: true });
  }
} finally {
  await browser.close();
}
if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log('smoke: ok');

// The access token: without one the app explains how to open it; opened with #token=… it keeps the token for the tab
// and drops it from the address bar; a token the server refuses is said so.
import { check, expectText, scenario, tid, until } from './lib.mjs';

export default scenario('auth', async (t) => {
  const page = await t.page('no token');
  await t.goto(page, t.link('/', { token: false }));
  await expectText(page, tid('no-token'), '#token=', 'the page shown without a token');
  check((await page.locator(tid('runs-table')).count()) === 0, 'the run list is shown without a token');
  t.step('without a token the page explains that the #token=… address is needed');
  await t.screenshot(page, 'no-token');

  await t.goto(page, t.link('/'));
  await page.locator(tid('start-run-button')).waitFor();
  const href = await page.evaluate(() => window.location.href);
  check(!href.includes('token') && !href.includes(t.token), `the token is still in the address bar: ${href}`);
  check((await page.evaluate(() => window.location.hash)) === '', 'the address keeps a fragment after the token was taken');
  const history = await page.evaluate(() => window.history.length);
  t.step(`with #token=… the run list opens and the address bar shows ${href} (history length ${history})`);

  // the token is kept for the tab: a reload without it stays logged in
  await t.reload(page);
  await page.locator(tid('start-run-button')).waitFor();
  check((await page.locator(tid('no-token')).count()) === 0, 'a reload forgot the token');
  t.step('a reload keeps the session');

  // a link to a run page keeps its path when the token is taken from it
  const runs = await t.api.get('/api/runs?limit=1');
  check(Array.isArray(runs), 'GET /api/runs is not a list');
  const other = await t.page('deep link');
  await t.goto(other, t.link('/builder'));
  await other.locator(tid('builder-page')).waitFor();
  check(new URL(other.url()).pathname === '/builder' && !other.url().includes('token'), `the deep link became ${other.url()}`);
  t.step('a deep link with #token=… keeps its path and drops the token');

  // a token the server does not know: one 401, then the page says so instead of an empty list
  const refused = await t.page('wrong token');
  t.allow(refused, /HTTP 401 for GET .*\/api\/runs/, /status of 401/);
  await t.goto(refused, t.url + '#token=not-the-token');
  await expectText(refused, tid('token-refused'), 'refused', 'the page shown for a refused token');
  await until('the refused token to be dropped from the tab', () =>
    refused.evaluate(() => Object.keys(window.sessionStorage).every((k) => !window.sessionStorage.getItem(k)?.includes('not-the-token'))),
  );
  t.step('a token the server refuses is explained and forgotten');
});

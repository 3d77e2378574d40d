// Runs browser scenarios with one Chromium:
//   node e2e/run.mjs live-loop nested-loops regressions:graph-node-click   the named ones, then exits (1 if any failed)
//   node e2e/run.mjs --serve                                                reads names from stdin, one per line
// A name is a scenario file of this folder without ".mjs"; "file:check" picks one of a file that exports several.
// After each scenario it prints "@@done NAME pass|fail", the line RunViewerBrowserTest waits for. LOOPFLOW_URL and
// LOOPFLOW_TOKEN say which server to test.
import { createInterface } from 'node:readline';
import { launchBrowser, runScenario } from './lib.mjs';

for (const v of ['LOOPFLOW_URL', 'LOOPFLOW_TOKEN']) {
  if (!process.env[v]) {
    console.log(`FAIL: ${v} is not set; run the scenarios through RunViewerBrowserTest (or set LOOPFLOW_URL and LOOPFLOW_TOKEN)`);
    process.exit(2);
  }
}

async function load(name) {
  const [file, check] = name.split(':');
  if (!/^[a-z][a-z0-9-]*$/.test(file ?? '')) throw new Error(`'${name}' does not name a scenario file of e2e/`);
  const mod = await import(new URL(`./${file}.mjs`, import.meta.url).href);
  const s = check ? mod.default?.[check] : mod.default;
  if (!s || typeof s.body !== 'function') {
    const known = mod.default && !mod.default.body ? Object.keys(mod.default).join(', ') : '';
    throw new Error(`e2e/${file}.mjs has no scenario${check ? ` '${check}'` : ''}${known ? `; it has: ${known}` : ''}`);
  }
  return s;
}

const browser = await launchBrowser();
let failed = 0;
async function one(name) {
  let ok = false;
  try {
    ok = await runScenario(browser, await load(name));
  } catch (e) {
    console.log(`FAIL ${name}: ${e.message}`);
  }
  if (!ok) failed++;
  console.log(`@@done ${name} ${ok ? 'pass' : 'fail'}`);
}

try {
  if (process.argv[2] === '--serve') {
    for await (const line of createInterface({ input: process.stdin })) {
      if (line.trim()) await one(line.trim());
    }
  } else {
    for (const name of process.argv.slice(2)) await one(name);
  }
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);

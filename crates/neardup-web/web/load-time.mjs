// Times how fast pages open in Debian's headless Chromium, from file://:
// the HTML parsed (DOMContentLoaded), the wasm hash shown, and the first
// compare of two short texts done (the worker has compiled the wasm).
// Runs the pages in turn, `rounds` times each, each in a new tab, and prints
// the medians in ms.
//
// usage: node web/load-time.mjs [--rounds N] PAGE.html...
import { pathToFileURL } from 'node:url';
import { launch } from './tests/harness.mjs';

const args = process.argv.slice(2);
let rounds = 15;
if (args[0] === '--rounds') rounds = Number(args.splice(0, 2)[1]);
if (!args.length) {
  console.error('usage: node web/load-time.mjs [--rounds N] PAGE.html...');
  process.exit(2);
}

// Runs before the page's own script: notes when the hash shows, and starts a
// compare as soon as the page is parsed.
const probe = () => {
  const times = (window.__times = {});
  const $ = (id) => document.getElementById(id);
  // The hash may show before the page is parsed to its end.
  new MutationObserver((_, mo) => {
    if (!/^[0-9a-f]{64}$/.test($('wasm-sha256')?.textContent)) return;
    times.hash = performance.now();
    mo.disconnect();
  }).observe(document, { childList: true, characterData: true, subtree: true });
  document.addEventListener('DOMContentLoaded', () => {
    times.parsed = performance.now();
    new MutationObserver((_, mo) => {
      if ($('result').dataset.state !== 'done') return;
      times.compared = performance.now();
      mo.disconnect();
    }).observe($('result'), { attributes: true, attributeFilter: ['data-state'] });
    $('text-a').value = 'the quick brown fox jumps over the lazy dog';
    $('text-b').value = 'the quick brown fox jumped over the lazy dog';
    $('compare').click();
  });
};

const { context, close } = await launch();
await context.addInitScript(probe);
const samples = args.map(() => ({ parsed: [], hash: [], compared: [] }));
for (let round = -1; round < rounds; round++) {
  for (const [i, path] of args.entries()) {
    const page = await context.newPage();
    await page.goto(pathToFileURL(path).href);
    await page.waitForFunction(() => window.__times.compared && window.__times.hash);
    const t = await page.evaluate(() => window.__times);
    await page.close();
    if (round < 0) continue; // the first round warms the browser up
    for (const key of Object.keys(samples[i])) samples[i][key].push(t[key]);
  }
}
await close();
const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
for (const [i, path] of args.entries()) {
  const m = Object.fromEntries(Object.entries(samples[i]).map(([k, xs]) => [k, median(xs).toFixed(0)]));
  console.log(`${path}: parsed ${m.parsed} ms, hash shown ${m.hash} ms, first compare done ${m.compared} ms (medians of ${rounds})`);
}

// Times Compare in pages, in Debian's headless Chromium: two texts of about
// 300 KB each (100 pages; the second an edit of the first: words changed,
// a passage moved), given as files. The figure is the page's own
// *Elapsed* (reading and the engine; the readable reference's check is not
// in it). Runs the pages in turn, `rounds` times each, after one warm-up,
// and prints the medians in ms.
//
// usage: node web/compare-time.mjs [--rounds N] PAGE.html...
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compare, launch, openPage } from './tests/harness.mjs';

const args = process.argv.slice(2);
let rounds = 9;
if (args[0] === '--rounds') rounds = Number(args.splice(0, 2)[1]);
if (!args.length) {
  console.error('usage: node web/compare-time.mjs [--rounds N] PAGE.html...');
  process.exit(2);
}

// A fixed pseudo-random text (xorshift32), so that every run compares the same bytes.
let seed = 0x9e3779b9;
const rand = (n) => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) % n;
};
const vocabulary = Array.from({ length: 4000 }, (_, i) => i.toString(36) + 'abcdefghij'.slice(0, 2 + (i % 7)));
const words = [];
for (let bytes = 0; bytes < 300_000; ) {
  const w = vocabulary[rand(vocabulary.length)];
  words.push(w);
  bytes += w.length + 1;
}
const edited = words.map((w) => (rand(100) < 5 ? vocabulary[rand(vocabulary.length)] : w));
const moved = edited.splice(10_000, 2_000);
edited.splice(30_000, 0, ...moved);
const lines = (ws) => ws.map((w, i) => (i % 12 === 11 ? `${w}\n` : `${w} `)).join('');

const dir = mkdtempSync(join(tmpdir(), 'neardup-compare-time-'));
const [a, b] = ['a.txt', 'b.txt'].map((name) => join(dir, name));
writeFileSync(a, lines(words));
writeFileSync(b, lines(edited));

const browser = await launch();
const times = new Map(args.map((p) => [p, []]));
try {
  const pages = [];
  for (const path of args) pages.push([path, (await openPage(browser.context, pathToFileURL(path).href)).page]);
  for (let round = -1; round < rounds; round++) {
    for (const [path, page] of pages) {
      const r = await compare(page, { path: a }, { path: b });
      if (r.state !== 'done') throw new Error(`${path}: ${r.error}`);
      const text = await page.textContent('#elapsed');
      const ms = text.endsWith(' s') ? 1000 * parseFloat(text) : parseFloat(text);
      if (round >= 0) times.get(path).push(ms);
    }
  }
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
const median = (xs) => xs.slice().sort((x, y) => x - y)[xs.length >> 1];
for (const [path, xs] of times) console.log(`${median(xs).toFixed(0)} ms  ${path}  (${xs.join(' ')})`);

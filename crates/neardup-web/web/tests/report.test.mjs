// The HTML report (issue 28): the page's "Download report" gives the bytes
// `neardup scan --report` and `neardup compare --report` write for the same
// files, with and without a base text; and the report, opened from file://
// with JavaScript disabled, reads fully and makes no request at all.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { artifacts, cliPath, launch, openPage, watchNetwork } from './harness.mjs';


function rng(seed) {
  let x = seed;
  return () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 4294967296;
}
const words = (rnd, n) => Array.from({ length: n }, () => `w${Math.floor(rnd() * 5000)}`);

/** 12 essays quoting one prompt; essays 1, 3 and 5 copy 0, 2 and 4 with a word in 40 changed. */
function plant(dir) {
  const rnd = rng(28);
  const prompt = words(rnd, 40).join(' ');
  writeFileSync(join(dir, 'prompt.txt'), `${prompt}\n`);
  mkdirSync(join(dir, 'essays'));
  const texts = Array.from({ length: 12 }, () => words(rnd, 600));
  for (const i of [0, 2, 4]) texts[i + 1] = texts[i].map((w, j) => (j % 40 === 0 ? `x${j}` : w));
  texts[0][10] = '<script>alert(1)</script>';
  texts[1][10] = '<script>alert(1)</script>';
  texts.forEach((t, i) => {
    const lines = [];
    for (let j = 0; j < t.length; j += 100) lines.push(t.slice(j, j + 100).join(' '));
    writeFileSync(join(dir, 'essays', `e${String(i).padStart(2, '0')}.txt`), `${prompt}\n${lines.join('\n\n')}\n`);
  });
}

let browser;
let page;
let errors;
let work;
let neardup;
before(async () => {
  neardup = cliPath();
  work = mkdtempSync(join(tmpdir(), 'neardup-report-'));
  plant(work);
  browser = await launch();
  ({ page, errors } = await openPage(browser.context));
});
after(async () => {
  if (work) rmSync(work, { recursive: true, force: true });
  if (!browser) return;
  await browser.close();
  assert.deepEqual(errors, [], 'no page errors');
});

const cli = (args) => {
  execFileSync(neardup, args, { cwd: work });
  return readFileSync(join(work, 'cli.html'), 'utf8');
};

async function download(id) {
  const event = page.waitForEvent('download');
  await page.click(id);
  return readFileSync(await (await event).path(), 'utf8');
}

test('Collection: the report is the bytes of `neardup scan --report`, with and without a base text', async () => {
  await page.click('#tab-collection');
  await page.setInputFiles('#collection-folder', join(work, 'essays'));
  await page.fill('#collection-threshold', '0.6');
  await page.click('#collection-run');
  await page.waitForSelector('#collection-result[data-state="done"]');
  const plain = await download('#collection-download-report');
  assert.equal(plain, cli(['scan', '-q', 'essays', '--threshold', '0.6', '--report', 'cli.html']));
  assert.ok(!plain.includes('<script'), 'no script, and the planted one is escaped');
  assert.ok(plain.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  await page.setInputFiles('#collection-base', join(work, 'prompt.txt'));
  const based = await download('#collection-download-report');
  assert.equal(based, cli(['scan', '-q', 'essays', '--threshold', '0.6', '--report', 'cli.html', '--base', 'prompt.txt']));
  assert.notEqual(based, plain);
  assert.ok(based.includes('Shared outside the base'));
  writeFileSync(join(work, 'report.html'), based);
});

test('Compare: the report is the bytes of `neardup compare --report` in the files\' folder', async () => {
  await page.click('#tab-compare');
  for (const [key, name] of [['a', 'e02.txt'], ['b', 'e03.txt']]) {
    const chooser = page.waitForEvent('filechooser');
    await page.click(`#open-${key}`);
    await (await chooser).setFiles(join(work, 'essays', name));
    await page.waitForSelector(`#chip-${key}:not([hidden])`);
  }
  await page.click('#compare');
  await page.waitForSelector('#result[data-state="done"]');
  const html = await download('#download-report');
  execFileSync(neardup, ['compare', 'e02.txt', 'e03.txt', '--report', '../cli.html'], { cwd: join(work, 'essays') });
  assert.equal(html, readFileSync(join(work, 'cli.html'), 'utf8'));
  assert.ok(html.includes(await page.textContent('#receipt-sha256')));
});

test('Evidence: a base text shades its passages and gives the share shared outside it', async () => {
  // A and B are still e02 and e03 from the Compare test.
  await page.click('#tab-evidence');
  await page.click('#explain');
  await page.waitForSelector('#evidence[data-state="done"]');
  assert.equal(await page.$$eval('#evidence-a mark.base', (m) => m.length), 0);
  assert.equal(await page.isVisible('#evidence-base-note'), false);
  await page.setInputFiles('#evidence-base', join(work, 'prompt.txt'));
  await page.evaluate(() => (document.getElementById('evidence').dataset.state = 'pending'));
  await page.click('#explain');
  await page.waitForSelector('#evidence[data-state="done"]');
  assert.ok(await page.$$eval('#evidence-a mark.base', (m) => m.length) > 0);
  assert.match(await page.textContent('#evidence-base-note'), /^Shared outside the base text: A \d/);
  await page.screenshot({ path: join(artifacts, 'evidence-base.png') });
});

test('the report opens from file:// without JavaScript and makes no request', async () => {
  const { context } = browser;
  const viewer = await context.newPage();
  const seen = await watchNetwork(context, viewer);
  // JavaScript off for this page, as a reader who disabled it has it.
  const cdp = await context.newCDPSession(viewer);
  await cdp.send('Emulation.setScriptExecutionDisabled', { value: true });
  const url = pathToFileURL(join(work, 'report.html')).href;
  await viewer.goto(url);
  assert.ok((await viewer.textContent('h1')).includes('neardup report'));
  assert.ok(await viewer.isVisible('svg.map'));
  await viewer.screenshot({ path: join(artifacts, 'report-screen.png') });
  await viewer.emulateMedia({ media: 'print' });
  await viewer.screenshot({ path: join(artifacts, 'report-print.png') });
  // Printed to PDF as a committee member would, its first two pages kept
  // as pictures (poppler's pdftoppm, which CI installs).
  const pdf = join(artifacts, 'report.pdf');
  await viewer.pdf({ path: pdf, format: 'A4' });
  assert.ok(readFileSync(pdf).subarray(0, 5).toString() === '%PDF-');
  try {
    execFileSync('pdftoppm', ['-png', '-r', '60', '-f', '1', '-l', '2', pdf, join(artifacts, 'report-pdf-page')]);
  } catch (e) {
    if (process.env.NEARDUP_REQUIRE_TOOLS) throw e;
  }
  const others = seen.filter((s) => !s.endsWith(url));
  assert.deepEqual(others, [], 'no request but the file itself');
  await viewer.close();
});

test('30 essays of 3,000 words with 10 pairs: a report under 3 MB (its load time printed)', async () => {
  const dir = join(work, 'thirty');
  mkdirSync(join(dir, 'essays'), { recursive: true });
  const rnd = rng(30);
  const texts = Array.from({ length: 30 }, () => words(rnd, 3000));
  for (let i = 0; i < 10; i++) texts[2 * i + 1] = texts[2 * i].map((w, j) => (j % 60 === 0 ? `y${j}` : w));
  texts.forEach((t, i) => {
    const lines = [];
    for (let j = 0; j < t.length; j += 100) lines.push(t.slice(j, j + 100).join(' '));
    writeFileSync(join(dir, 'essays', `e${String(i).padStart(2, '0')}.txt`), `${lines.join('\n\n')}\n`);
  });
  execFileSync(neardup, ['scan', '-q', 'essays', '--report', 'report.html'], { cwd: dir });
  const bytes = readFileSync(join(dir, 'report.html'));
  assert.equal(bytes.toString().match(/<section class=pair/g).length, 10);
  const viewer = await browser.context.newPage();
  const start = Date.now();
  await viewer.goto(pathToFileURL(join(dir, 'report.html')).href, { waitUntil: 'load' });
  const wall = Date.now() - start;
  const load = await viewer.evaluate(() => performance.getEntriesByType('navigation')[0].loadEventEnd);
  console.log(`30 essays x 3000 words, 10 pairs: report ${bytes.length} bytes, load event at ${load.toFixed(0)} ms (goto ${wall} ms)`);
  assert.ok(bytes.length < 3 << 20);
  await viewer.close();
});

// Containment in the Collection tab (issue 37): submissions checked
// against sources. For a small class the page's pairs, clusters and report
// are byte for byte `neardup scan subs --against srcs --containment T`'s,
// and its submissions table is the report's; bad input is refused, one line
// each, with nothing shown; and 1,000 essays against 200 sources are timed.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { artifacts, cliPath, download, launch, openPage } from './harness.mjs';

function rng(seed) {
  let x = seed;
  return () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 4294967296;
}
const vocab = Array.from({ length: 20000 }, (_, i) => `w${i.toString(36)}`);
/** `n` words of pseudo-prose: a few words common, most rare. */
const prose = (rnd, n) => Array.from({ length: n }, () => vocab[Math.floor(rnd() * rnd() * vocab.length)]);
const pick = (rnd, n) => Math.floor(rnd() * n);
/** `len` consecutive words of `words`, from a random place. */
const run = (rnd, words, len) => {
  const from = pick(rnd, words.length - len);
  return words.slice(from, from + len);
};
const write = (dir, files) => {
  mkdirSync(dir, { recursive: true });
  for (const [name, words] of Object.entries(files)) {
    const lines = [];
    for (let i = 0; i < words.length; i += 80) lines.push(words.slice(i, i + 80).join(' '));
    writeFileSync(join(dir, name), `${lines.join('\n')}\n`);
  }
};

/**
 * A class: 5 sources of 400 to 2,000 words; essays that copy 20% to 70% of
 * their words from one source or two, an essay copied whole in capitals,
 * a 40-word note from one source, a stranger, a name to escape, and an
 * essay made of two sources.
 */
function plantClass(dir) {
  const rnd = rng(37);
  const sources = {};
  for (let i = 0; i < 5; i++) sources[`source-${i}.txt`] = prose(rnd, 400 + 400 * i);
  const src = Object.values(sources);
  const essays = {};
  for (let i = 0; i < 10; i++) {
    const copied = Math.floor(300 * (20 + 6 * i) / 100);
    const words = [...prose(rnd, (300 - copied) >> 1), ...run(rnd, src[i % 5], copied)];
    if (i % 3 === 0) words.push(...run(rnd, src[(i + 2) % 5], copied >> 1));
    words.push(...prose(rnd, (300 - copied) >> 1));
    essays[`essay-${String(i).padStart(2, '0')}.txt`] = words;
  }
  essays['essay-10 copy.txt'] = essays['essay-03.txt'].map((w) => w.toUpperCase());
  essays['note.txt'] = src[4].slice(100, 140);
  essays['stranger.txt'] = prose(rnd, 500);
  essays['Ünï & <co>.txt'] = [...run(rnd, src[1], 150), ...prose(rnd, 100)];
  essays['essay-11 two sources.txt'] = [...run(rnd, src[0], 120), ...prose(rnd, 40), ...run(rnd, src[2], 120)];
  write(join(dir, 'srcs'), sources);
  write(join(dir, 'subs'), essays);
}

let browser;
let page;
let errors;
let work;
let neardup;
before(async () => {
  neardup = cliPath();
  work = mkdtempSync(join(tmpdir(), 'neardup-contained-'));
  plantClass(work);
  browser = await launch();
  ({ page, errors } = await openPage(browser.context));
});
after(async () => {
  if (work) rmSync(work, { recursive: true, force: true });
  if (!browser) return;
  await browser.close();
  assert.deepEqual(errors, [], 'no page errors');
});

const cli = (cwd, args) => execFileSync(neardup, ['scan', '--quiet', ...args], { cwd, maxBuffer: 1 << 28 }).toString('utf8');
const shot = (name, p = page) => p.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });

/** Sets the Collection tab's mode, files and containment, runs it; returns the result's data-state. */
async function check({ subs, srcs, containment, against = Boolean(srcs) }) {
  await page.click('#tab-collection');
  if ((await page.isChecked('#collection-against')) !== against) await page.click('#collection-against');
  if (subs) await page.setInputFiles('#collection-folder', subs);
  if (srcs) await page.setInputFiles('#collection-sources-folder', srcs);
  await page.fill('#collection-containment', containment);
  await page.evaluate(() => (document.getElementById('collection-result').dataset.state = 'pending'));
  await page.click('#collection-run');
  await page.waitForFunction(() => !['pending', 'running'].includes(document.getElementById('collection-result').dataset.state), null, { timeout: 300_000 });
  return page.getAttribute('#collection-result', 'data-state');
}

const unescape = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

/** The report's submissions table as rows of [submission, words, share, parts]. */
function reportTable(html) {
  const table = html.slice(html.indexOf('<h2 id=submissions>'));
  return table.slice(0, table.indexOf('</table>')).split('\n').filter((l) => l.startsWith('<tr><td')).map((l) => {
    const cells = l.split('<td').slice(1).map((c) => unescape(c.replace(/^[^>]*>/, '').replace(/<\/?b>/g, '')));
    return [cells[1], cells[2], cells[3], cells[4].split('<br>').join('; ')];
  });
}

test('against sources: pairs, clusters and the report are the bytes of `neardup scan --against --containment`', async () => {
  assert.equal(await check({ subs: join(work, 'subs'), srcs: join(work, 'srcs'), containment: '0.3' }), 'done');
  assert.match(await page.textContent('#collection-docs-sub'), /^15 submissions, 5 sources · /);

  const args = ['subs', '--against', 'srcs', '--containment', '0.3'];
  const pairs = await download(page, '#collection-download-pairs');
  assert.equal(pairs, cli(work, [...args, '--pairs', '-']));
  const lines = pairs.trim().split('\n').map((l) => JSON.parse(l));
  assert.ok(lines.length >= 10, `${lines.length} pairs`);
  assert.ok(lines.every((l) => 'containment' in l && !l.b.startsWith('srcs/')), 'containment on every line; sources numbered first');
  assert.ok(lines.some((l) => l.a.startsWith('subs/')), 'pairs among submissions too');
  assert.equal(await download(page, '#collection-download-clusters'), cli(work, [...args, '--clusters', '-']));
  const report = await download(page, '#collection-download-report');
  cli(work, [...args, '--report', 'cli.html']);
  assert.equal(report, readFileSync(join(work, 'cli.html'), 'utf8'));
  assert.ok(report.includes('&lt;co&gt;') && !report.includes('<co>'));

  // The page's submissions table is the report's, row by row.
  const rows = await page.$$eval('#collection-submissions tbody tr', (trs) => trs.map((tr) => {
    const c = tr.cells;
    const parts = Array.from(c[4].querySelectorAll('li'), (li) => li.textContent).join('; ');
    return [tr.dataset.doc, c[2].textContent.replace(/,/g, ''), c[3].textContent, parts || c[4].textContent];
  }));
  assert.deepEqual(rows, reportTable(report));
  assert.equal(rows.length, 15, 'one row per submission');
  assert.ok(rows.some((r) => r[0] === 'subs/essay-11 two sources.txt' && r[3].split('; ').length === 2), 'each source\'s part');
  assert.deepEqual(rows[0], ['subs/note.txt', '40', '100.0%', 'srcs/source-4.txt 100.0%']);
  assert.deepEqual(rows.at(-1), ['subs/stranger.txt', '—', '—', 'no source at or over 0.3']);

  // The pairs table: the report's order (most contained first), with both directions.
  const heads = await page.$$eval('#collection-pairs thead th', (ths) => ths.filter((th) => !th.hidden).map((th) => th.textContent));
  assert.deepEqual(heads.slice(5, 7), ['A in B', 'B in A']);
  const shown = await page.$$eval('#collection-pairs tbody tr', (trs) => trs.map((tr) => `${tr.dataset.a} ${tr.dataset.b} ${tr.cells[5].textContent} / ${tr.cells[6].textContent}`));
  const pairsTable = report.slice(report.indexOf('<h2 id=pairs>'));
  const inReport = pairsTable.slice(0, pairsTable.indexOf('</table>')).split('\n').filter((l) => l.startsWith('<tr><td')).map((l) => {
    const c = l.split('<td').slice(1).map((x) => unescape(x.replace(/^[^>]*>/, '')));
    return `${c[1]} ${c[2]} ${c[6]}`;
  });
  assert.deepEqual(shown, inReport);
  assert.ok(shown.includes('srcs/source-4.txt subs/note.txt 1.8% / 100.0%'), shown.join('\n'));
  assert.equal(await page.textContent('#collection-pairs-order'), 'Most contained first.');

  await page.$eval('#collection-submissions-box', (el) => el.scrollIntoView());
  await page.locator('#collection-submissions-box').screenshot({ path: join(artifacts, 'containment-submissions.png') });
  await shot('containment-collection');
  // The inputs: both zones, and the form with its disabled threshold.
  await page.$eval('#collection-against', (el) => el.scrollIntoView());
  const [top, bottom] = [await page.locator('.collection-against').boundingBox(), await page.locator('#collection-form').boundingBox()];
  await page.screenshot({ path: join(artifacts, 'containment-inputs.png'), clip: { x: 0, y: top.y - 8, width: 1280, height: bottom.y + bottom.height - top.y + 16 } });

  // A source in the table opens the pair in Evidence.
  await page.click('#collection-submissions tbody tr:first-child button[data-pair]');
  await page.waitForSelector('#evidence[data-state="done"]');
  assert.equal(await page.textContent('#evidence-from-names'), 'A = srcs/source-4.txt, B = subs/note.txt');
});

test('bad input: one line each, and nothing shown', async () => {
  const result = async () => ({
    state: await page.getAttribute('#collection-result', 'data-state'),
    hidden: await page.isHidden('#collection-result'),
  });
  for (const bad of ['1.5', '0.12345', '0', 'half']) {
    assert.equal(await check({ containment: bad, against: true }), 'error', bad);
    assert.match(await page.textContent('#collection-containment-error'), new RegExp(`^'${bad}' is not a threshold like 0.75 \\(0 < T <= 1, at most 4 decimals\\)$`));
    assert.equal(await page.getAttribute('#collection-containment', 'aria-invalid'), 'true');
    assert.deepEqual(await result(), { state: 'error', hidden: true });
  }

  // The same file as a source and a submission.
  assert.equal(await check({ subs: join(work, 'srcs'), containment: '0.3', against: true }), 'error');
  assert.equal(await page.textContent('#collection-containment-error'), '');
  assert.match(await page.textContent('#collection-error'), /^'srcs\/source-0\.txt' is both a source and a submission; choose it once$/);

  // "Check against sources" with no sources chosen.
  await page.click('#collection-sources-clear');
  assert.equal(await check({ subs: join(work, 'subs'), containment: '0.3', against: true }), 'error');
  assert.equal(await page.textContent('#collection-error'), 'Choose the sources to check the submissions against, or untick “Check against sources”.');
  assert.deepEqual(await result(), { state: 'error', hidden: true });

  // Unticked: containment among the submissions alone, as the command line without --against.
  assert.equal(await check({ containment: '0.3', against: false }), 'done');
  assert.ok(await page.isHidden('#collection-sources-drop'));
  assert.ok(await page.isHidden('#collection-submissions-box'), 'no submissions table without sources');
  assert.equal(await download(page, '#collection-download-pairs'), cli(work, ['subs', '--containment', '0.3', '--pairs', '-']));
  assert.ok(await page.isDisabled('#collection-threshold'), 'the threshold is not read with containment');
  await page.fill('#collection-containment', '');
  assert.ok(await page.isEnabled('#collection-threshold'));
});

test('1,000 essays against 200 sources at containment 0.5', async () => {
  const dir = join(work, 'big');
  const rnd = rng(1000);
  const sources = {};
  for (let i = 0; i < 200; i++) sources[`s${String(i).padStart(3, '0')}.txt`] = prose(rnd, 400 + pick(rnd, 1600));
  const src = Object.values(sources);
  const essays = {};
  for (let i = 0; i < 1000; i++) {
    const len = 300 + pick(rnd, 500);
    const kind = rnd();
    let words;
    if (kind < 0.15) words = prose(rnd, len);
    else {
      const copied = Math.floor(len * (0.2 + 0.6 * rnd()));
      words = [...prose(rnd, (len - copied) >> 1), ...run(rnd, src[pick(rnd, 200)], copied)];
      if (kind > 0.85) words.push(...run(rnd, src[pick(rnd, 200)], copied >> 1));
      words.push(...prose(rnd, (len - copied) >> 1));
    }
    essays[`e${String(i).padStart(4, '0')}.txt`] = words;
  }
  write(join(dir, 'srcs'), sources);
  write(join(dir, 'subs'), essays);

  const start = Date.now();
  assert.equal(await check({ subs: join(dir, 'subs'), srcs: join(dir, 'srcs'), containment: '0.5' }), 'done');
  const wall = (Date.now() - start) / 1000;
  const elapsed = await page.textContent('#collection-elapsed');
  console.log(`containment 1000x200: ${wall.toFixed(1)} s from the click (the page's Elapsed: ${elapsed})`);
  const pairs = await download(page, '#collection-download-pairs');
  assert.equal(pairs, cli(dir, ['subs', '--against', 'srcs', '--containment', '0.5', '--pairs', '-']));
  assert.equal(await page.$$eval('#collection-submissions tbody tr', (trs) => trs.length), 1000);
  console.log(`  ${pairs.split('\n').length - 1} pairs`);
});

// The page's features in a real browser: its embedded wasm hash and CSP,
// verify and tampering, the caveat's switch to script words (SPEC §11),
// refused parameters, UTF-8 handling, keyboard use,
// a 20 MB document with progress, downloads; screenshots as artifacts.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { lzmaDecode } from '../app/lzma.js';
import { textDecode7 } from '../app/text7.js';
import { artifacts, assertResponsive, compare, dist, pagePath, root, scriptPair, sharedPage, verify } from './harness.mjs';

const html = readFileSync(pagePath, 'utf8');
const sha256 = (data, enc = 'hex') => createHash('sha256').update(data).digest(enc);
const A = `It was the best of times, it was the worst of times, it was the age of wisdom,
it was the age of foolishness, it was the epoch of belief, it was the epoch of incredulity,
it was the season of Light, it was the season of Darkness, it was the spring of hope.`;
const B = A.replace('season of Light', 'season of light and').replace('spring of hope', 'spring of hope, it was the winter of despair');
let page;
sharedPage((opened) => ({ page } = opened));

const shot = (name, p = page) => p.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });

test('the page shows the SHA-256 of the wasm it embeds (as LZMA)', async () => {
  const block = html.match(/<script type="application\/octet-stream" id="wasm-b64" data-sha256="([0-9a-f]{64})">([^<]*)<\/script>/);
  assert.ok(block, 'the wasm block is in the page');
  const wasm = Buffer.from(lzmaDecode(textDecode7(block[2])));
  assert.deepEqual(wasm.subarray(0, 4), Buffer.from('\0asm'));
  assert.equal(sha256(wasm), block[1]);
  assert.equal(sha256(readFileSync(join(dist, 'neardup.wasm'))), block[1]);
  assert.equal(await page.textContent('#wasm-sha256'), block[1]);
  assert.equal(await page.getAttribute('#wasm-sha256', 'class'), null, 'not marked as differing from the build');
});

test('the footer names the extractor version that EXTRACT.md promises there, as the wasm reports it', async () => {
  const promised = readFileSync(join(root, 'EXTRACT.md'), 'utf8').match(/`(neardup-extract-v\d+)`/)[1];
  assert.equal(await page.textContent('#extractor-version'), promised);
  assert.equal(JSON.parse(html.match(/<script type="application\/json" id="about">([^<]*)<\/script>/)[1]).extractor, promised);
});

test('one self-contained file with a CSP that allows no network', () => {
  const csp = html.match(/<meta http-equiv="Content-Security-Policy" content="([^"]*)">/)[1];
  const rules = Object.fromEntries(csp.split(';').map((r) => r.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
  assert.deepEqual(rules['default-src'], ["'none'"]);
  assert.equal(rules['connect-src'], undefined);
  assert.ok(!csp.includes('unsafe-inline') && !csp.includes("'unsafe-eval'") && !csp.includes('*'));
  assert.ok(rules['script-src'].includes("'wasm-unsafe-eval'"));
  // Every executable script and every style is allowed by its exact hash.
  for (const [, body] of html.matchAll(/<script>([\s\S]*?)<\/script>/g)) {
    assert.ok(rules['script-src'].includes(`'sha256-${sha256(body, 'base64')}'`));
  }
  for (const [, body] of html.matchAll(/<style>([\s\S]*?)<\/style>/g)) {
    assert.ok(rules['style-src'].includes(`'sha256-${sha256(body, 'base64')}'`));
  }
  // The CSP comes before anything it governs, and nothing is loaded from elsewhere.
  assert.ok(html.indexOf('Content-Security-Policy') < html.indexOf('<style>'));
  assert.doesNotMatch(html, /<(script|img|iframe|link)[^>]+(src|href)="(?!data:)/i);
  assert.doesNotMatch(html, /style="/, 'no inline style attributes (they would need unsafe-inline)');
});

test('compare shows verdict, similarity, Jaccard, shingles, time, receipt and hash', async () => {
  const r = await compare(page, { text: A }, { text: B }, 3, 128);
  assert.equal(r.state, 'done');
  assert.match(r.sha256, /^[0-9a-f]{64}$/);
  assert.equal(sha256(r.receipt), r.sha256);
  assert.match(r.matches, /^\d+$/);
  assert.match(await page.textContent('#similarity'), /95% interval/);
  assert.match(await page.textContent('#jaccard'), /^0\.\d{4}$/);
  assert.match(await page.textContent('#elapsed'), /\d+ m?s/);
  await shot('compare-result');
  // Download gives exactly the canonical bytes.
  const download = page.waitForEvent('download');
  await page.click('#download-receipt');
  const file = await (await download).path();
  assert.equal(readFileSync(file, 'utf8'), r.receipt);
});

test('compare shows containment in the result card, and says when a short text sits in a long one', async () => {
  const long = Array.from({ length: 60 }, (_, i) => `sentence ${i} of the long source talks about item ${i * 7}`).join('. ');
  // Its last sentence keeps its full stop: "item 91." is the long text's word.
  const short = `${long.split('. ').slice(10, 14).join('. ')}.`;
  const r = await compare(page, { text: short }, { text: long }, 5, 128);
  assert.equal(r.state, 'done');
  assert.match(await page.textContent('#containment'), /^A in B 100\.0% · B in A \d+\.\d% *$/);
  assert.match(await page.textContent('#containment-sub'), /^\d+ shared shingles · exact, not part of the receipt$/);
  assert.equal(await page.isVisible('#contained'), true);
  assert.match(await page.textContent('#contained'), /^100\.0% of A \(.*\) is found in B \(.*\)\. DISTINCT judges the two documents as wholes/);
  await shot('compare-containment');
  // Two unrelated texts: no sentence.
  await compare(page, { text: A }, { text: 'nothing in common with the other one at all here' }, 3, 128);
  assert.equal(await page.isVisible('#contained'), false);
});

test('verify: VERIFIED, one-character tampering is a MISMATCH, a bad receipt is MALFORMED', async () => {
  const r = await compare(page, { text: A }, { text: B }, 3, 128);
  assert.match(await verify(page, r.receipt, null, null), /^VERIFIED/);
  assert.match(await verify(page, r.receipt, null, null, r.sha256), /^VERIFIED/);
  // Pretty-printed receipts and the CLI's --json object are accepted too.
  assert.match(await verify(page, JSON.stringify(JSON.parse(r.receipt), null, 2), null, null), /^VERIFIED/);
  assert.match(await verify(page, JSON.stringify({ receipt: JSON.parse(r.receipt), receipt_sha256: r.sha256 }), null, null), /^VERIFIED/);

  // One character of document B changed.
  const tampered = B.replace('winter', 'wintar');
  const text = await verify(page, r.receipt, null, { text: tampered }, r.sha256);
  assert.match(text, /^MISMATCH/);
  const fields = await page.$$eval('#verify-result tbody tr td:first-child', (tds) => tds.map((t) => t.textContent));
  assert.ok(fields.includes('documents[1].normalized_sha256'), fields.join());
  assert.ok(fields.includes('receipt_sha256'));
  assert.ok(!fields.some((f) => f.startsWith('documents[0]')), 'document A is not blamed');
  await shot('verify-mismatch');

  // One character of the receipt changed: a claimed shingle count.
  await verify(page, r.receipt, null, { text: B });
  const forged = r.receipt.replace(/"shingles":(\d)/, (_, d) => `"shingles":${(Number(d) + 1) % 10}`);
  assert.notEqual(forged, r.receipt);
  assert.match(await verify(page, forged, null, null), /^MISMATCH.*documents\[0\]\.shingles/s);

  assert.match(await verify(page, r.receipt.replace('"k":3', '"k":3.0'), null, null), /^MALFORMED.*'k'/);
  assert.match(await verify(page, r.receipt.replace('"n":128', '"n":128,"x":1'), null, null), /^MALFORMED.*'x'/);
  assert.match(await verify(page, '', null, null), /^MALFORMED/);
  await shot('verify-malformed');
  assert.match(await verify(page, r.receipt, null, null), /^VERIFIED/);
  await shot('verify-verified');
});

test('a caveat that script words can compare a text comes with a button that switches Words and runs again', async () => {
  const [zhA, zhB] = scriptPair(11, 400);
  const r = await compare(page, { text: zhA }, { text: zhB });
  assert.equal(r.verdict, 'INSUFFICIENT-DATA');
  assert.match(await page.textContent('#compare-notes'), /^Warning: document A: 1 word\(s\) in 400 characters, fewer than k = 5: word shingles cannot compare this text; script words can \(--words script\)\. /);
  assert.equal(await page.textContent('#compare-use-script'), 'Use script words');
  await shot('compare-script-caveat');

  await page.evaluate(() => (document.getElementById('result').dataset.state = 'pending'));
  await page.click('#compare-use-script');
  await page.waitForFunction(() => document.getElementById('result').dataset.state === 'done');
  assert.equal(await page.inputValue('#words'), 'script');
  assert.equal(await page.textContent('#verdict'), 'NEAR-DUPLICATE');
  const receipt = await page.textContent('#receipt');
  assert.match(receipt, /^\{"algorithm":"kar-script-shingle-minhash-v1","documents":\[\{"normalized_sha256":"[0-9a-f]{64}","shingles":3\d\d,/);
  assert.equal(await page.isVisible('#compare-notes'), false, 'no caveat once script words are used');
  assert.equal(await page.textContent('#k-out'), 'k = 5 script words');
  assert.match(await page.textContent('#compare-reference'), /^Checked by the readable reference in this page: same receipt/);
  await shot('compare-script-words');

  // Verify takes the rule from the receipt, and says which before it runs.
  await page.click('#use-receipt');
  assert.equal(await page.textContent('#verify-words'), 'Words: script words, as its algorithm kar-script-shingle-minhash-v1 says.');
  assert.match(await verify(page, receipt, null, null), /^VERIFIED — the receipt matches documents A and B \(NEAR-DUPLICATE; k = 5, n = 128, script words\)/);
  // The same receipt under the other id is another claim, about words split on spaces.
  const asSpace = receipt.replace('kar-script-shingle', 'kar-shingle');
  await page.fill('#verify-receipt', asSpace);
  assert.equal(await page.textContent('#verify-words'), 'Words: words split on spaces, as its algorithm kar-shingle-minhash-v1 says.');
  assert.match(await verify(page, asSpace, null, null), /^MISMATCH/);
  await page.fill('#verify-receipt', receipt.replace('kar-script-shingle', 'kar-glyph-shingle'));
  assert.equal(await page.textContent('#verify-words'), "Words: its algorithm 'kar-glyph-shingle-minhash-v1' is not one this page knows.");

  // Thai is written in letters: the caveat names k = 8 for script words,
  // and the button sets it too.
  const [thA, thB] = scriptPair(12, 400, { from: 0x0e01, count: 46 });
  assert.equal((await compare(page, { text: thA }, { text: thB })).verdict, 'INSUFFICIENT-DATA');
  assert.match(await page.textContent('#compare-notes'), /; script words can \(--words script -k 8\)\. /);
  assert.equal(await page.textContent('#compare-use-script'), 'Use script words, k = 8');
  await page.evaluate(() => (document.getElementById('result').dataset.state = 'pending'));
  await page.click('#compare-use-script');
  await page.waitForFunction(() => document.getElementById('result').dataset.state === 'done');
  assert.deepEqual([await page.inputValue('#words'), await page.inputValue('#k')], ['script', '8']);
  assert.match(await page.textContent('#receipt'), /^\{"algorithm":"kar-script-shingle-minhash-v1",.*,"k":8,/);
  assert.equal(await page.textContent('#verdict'), 'NEAR-DUPLICATE');
  await page.selectOption('#words', 'space');
});

test('out-of-range k and n are refused with a message, never clamped', async () => {
  for (const [k, n, id, message, words = 'space'] of [
    [0, 128, 'k', 'shingle size k must be 1..=64, got 0'],
    [65, 128, 'k', 'shingle size k must be 1..=64, got 65'],
    [5, 15, 'n', 'permutation count n must be 16..=256, got 15'],
    [5, 257, 'n', 'permutation count n must be 16..=256, got 257'],
    [5, '1e2', 'n', "permutation count n must be a whole number, got '1e2'"],
    // The select holds no other value (it shows none); the engine refuses
    // anything else on its own field.
    [5, 128, 'words', "words must be 'space' or 'script', got ''", 'bogus'],
  ]) {
    const r = await compare(page, { text: A }, { text: B }, k, n, words);
    assert.equal(r.state, 'error');
    assert.equal(await page.textContent(`#${id}-error`), message);
    assert.equal(await page.getAttribute(`#${id}`, 'aria-invalid'), 'true');
  }
  await shot('parameter-error');
  const ok = await compare(page, { text: A }, { text: B }, 64, 256);
  assert.equal(ok.state, 'done');
  assert.equal(await page.getAttribute('#k', 'aria-invalid'), 'false');
});

test('invalid UTF-8 in a file is refused with a message, and decoded on request', async () => {
  const bad = Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9]), Buffer.from(' au lait et un croissant chaud')]);
  const r = await compare(page, { bytes: bad, name: 'latin1.txt' }, { text: 'café au lait et un croissant chaud' }, 2, 64);
  assert.equal(r.state, 'error');
  assert.match(r.error, /'latin1\.txt' \(document A\): invalid UTF-8 at byte 3/);
  await shot('utf8-error');
  await page.check('#lossy');
  const lossy = await compare(page, { bytes: bad, name: 'latin1.txt' }, { text: 'caf\uFFFD au lait et un croissant chaud' }, 2, 64);
  await page.uncheck('#lossy');
  assert.equal(lossy.verdict, 'IDENTICAL');
});

test('keyboard: type, switch tabs with arrows, run with Ctrl+Enter', async () => {
  await page.evaluate(() => document.querySelectorAll('[id^=clear-]').forEach((b) => !b.closest('[hidden]') && b.click()));
  await page.fill('#text-a', '');
  await page.fill('#text-b', '');
  await page.focus('#text-a');
  await page.keyboard.type('one two three four five six seven');
  await page.keyboard.press('Tab'); // to B's "Open file…" button
  await page.keyboard.press('Tab'); // to B's textarea
  await page.keyboard.type('one two three four five six eight');
  await page.focus('#tab-compare');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-verify');
  assert.equal(await page.isVisible('#panel-verify'), true);
  await page.keyboard.press('ArrowLeft');
  assert.equal(await page.isVisible('#panel-compare'), true);
  await page.fill('#k', '2');
  await page.fill('#n', '16');
  await page.focus('#text-b');
  await page.evaluate(() => (document.getElementById('result').dataset.state = 'pending'));
  await page.keyboard.press('Control+Enter');
  await page.waitForFunction(() => document.getElementById('result').dataset.state === 'done');
  assert.match(await page.textContent('#receipt'), /"k":2,"matches":\d+,"n":16,/);
  assert.match(await page.textContent('#verdict'), /^(NEAR-DUPLICATE|OVERLAPPING)$/);
});

test('a 20 MB document shows progress and never freezes the page', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'neardup-big-'));
  try {
    // Deterministic pseudo-prose: 20 MB of words from a skewed vocabulary.
    let x = 12345;
    const rnd = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 4294967296;
    const vocab = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}`);
    const words = [];
    for (let len = 0; len < 20 << 20;) {
      const w = vocab[Math.floor(rnd() * rnd() * vocab.length)];
      words.push(w);
      len += w.length + 1;
    }
    const text = words.join(' ');
    writeFileSync(join(dir, 'big-a.txt'), text);
    writeFileSync(join(dir, 'big-b.txt'), text.replaceAll('w1 ', 'W1 x '));
    await page.setInputFiles('#file-a', join(dir, 'big-a.txt'));
    await page.setInputFiles('#file-b', join(dir, 'big-b.txt'));
    await page.fill('#k', '5');
    await page.fill('#n', '128');
    // Watch the progress bar and the main thread's heartbeat while it runs.
    await page.evaluate(() => {
      const bar = document.querySelector('#compare-progress progress');
      window.__progress = [];
      window.__gaps = [];
      let last = performance.now();
      window.__beat = setInterval(() => {
        const now = performance.now();
        window.__gaps.push(now - last);
        last = now;
      }, 20);
      new MutationObserver(() => window.__progress.push(bar.value)).observe(document.getElementById('compare-progress-label'), { childList: true, subtree: true, characterData: true });
      document.getElementById('result').dataset.state = 'pending';
    });
    const started = Date.now();
    await page.click('#compare');
    await page.waitForFunction(() => document.querySelector('#compare-progress progress').value > 0.3, null, { timeout: 60_000 });
    await shot('progress-20mb');
    await page.waitForFunction(() => document.getElementById('result').dataset.state === 'done', null, { timeout: 120_000 });
    const { progress, maxGap } = await page.evaluate(() => {
      clearInterval(window.__beat);
      return { progress: window.__progress, maxGap: Math.max(...window.__gaps) };
    });
    assert.ok(new Set(progress).size >= 8, `progress moved in steps: ${progress}`);
    assert.ok(progress.every((v, i) => i === 0 || v >= progress[i - 1]), 'progress never goes back');
    assertResponsive(maxGap, Date.now() - started);
    assert.equal(await page.textContent('#verdict'), 'NEAR-DUPLICATE');
    await shot('compare-20mb');
  } finally {
    await page.evaluate(() => document.querySelectorAll('[id^=clear-]').forEach((b) => !b.closest('[hidden]') && b.click()));
    rmSync(dir, { recursive: true, force: true });
  }
});

test('screenshots: narrow screen and dark mode', async () => {
  await compare(page, { text: A }, { text: B }, 3, 128);
  await page.setViewportSize({ width: 420, height: 900 });
  await shot('compare-mobile');
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot('compare-dark');
  await page.emulateMedia({ colorScheme: 'light' });
});

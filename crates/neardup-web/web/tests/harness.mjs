// Shared helpers for the browser tests: the committed page, Debian's
// Chromium through playwright-core, a loopback static server that logs every
// request, and page actions by the page's stable element ids.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const root = resolve(here, '../../../..');
export const dist = process.env.DIST || join(root, 'dist');
// The tests open the committed page, the file users download (NEARDUP_PAGE
// names another build to try); the build
// test and scripts/build-page --check hold it equal to a fresh build.
export const pagePath = process.env.NEARDUP_PAGE || join(root, 'neardup.html');
export const pageUrl = pathToFileURL(pagePath).href;
export const vectorsDir = join(root, 'vectors');
export const artifacts = process.env.WEB_ARTIFACTS || join(root, 'target', 'web-artifacts');
mkdirSync(artifacts, { recursive: true });

// The flags this machine needs: without the background-networking ones,
// Chromium itself tries to reach Google at start-up.
const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

export async function launch() {
  const profile = mkdtempSync(join(tmpdir(), 'neardup-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: FLAGS,
    headless: true,
    acceptDownloads: true,
    viewport: { width: 1280, height: 900 },
  });
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, close };
}

/** A static server on 127.0.0.1 for `files` ({'/path': Buffer|string}); logs every request. */
export async function serve(files) {
  const log = [];
  const server = createServer((req, res) => {
    log.push(req.url);
    const body = files[req.url.split('?')[0]];
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const base = `http://127.0.0.1:${server.address().port}`;
  const close = () => new Promise((ok) => {
    server.close(ok);
    server.closeAllConnections();
  });
  return { base, log, close };
}

/** Every request the page (and its workers) makes, seen by Playwright and by CDP. */
export async function watchNetwork(context, page) {
  const seen = [];
  page.on('request', (r) => seen.push(`playwright: ${r.url()}`));
  context.on('request', (r) => seen.push(`context: ${r.url()}`));
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  cdp.on('Network.requestWillBeSent', (e) => seen.push(`cdp: ${e.request.url}`));
  return seen;
}

/**
 * One browser and one page for a whole test file: opened before its tests
 * (`onOpen` receives `{ page, errors }`), closed after them, with a check
 * that the page raised no error.
 */
export function sharedPage(onOpen) {
  let browser;
  let opened;
  before(async () => {
    browser = await launch();
    opened = await openPage(browser.context);
    onOpen(opened);
  });
  after(async () => {
    assert.deepEqual(opened.errors, [], 'no page errors');
    await browser.close();
  });
}

export async function openPage(context, url = pageUrl) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(url);
  await page.waitForFunction(() => /^[0-9a-f]{64}$/.test(document.getElementById('wasm-sha256').textContent));
  return { page, errors };
}

/** Puts one document in the page: bytes through the file input, text into the textarea. */
async function setDoc(page, key, doc) {
  await page.evaluate(
    ({ key, text }) => {
      const clear = document.getElementById(`clear-${key}`);
      if (!document.getElementById(`chip-${key}`).hidden) clear.click();
      if (text !== undefined) {
        // Set the value directly: typing would be slow and some vectors
        // hold control characters a keyboard cannot produce.
        const el = document.getElementById(`text-${key}`);
        el.value = text;
        el.dispatchEvent(new Event('input', { bubbles: true }));
      }
    },
    { key, text: doc.bytes ? undefined : doc.text },
  );
  if (doc.bytes || doc.path) {
    await page.setInputFiles(`#file-${key}`, doc.path || { name: doc.name || `${key}.txt`, mimeType: 'text/plain', buffer: doc.bytes });
    await page.waitForFunction((k) => !document.getElementById(`chip-${k}`).hidden, key);
  }
}

/** Compares A and B on the Compare tab with K, N and the word rule (`space` or `script`). */
export async function compare(page, a, b, k = 5, n = 128, words = 'space') {
  await setDoc(page, 'a', a);
  await setDoc(page, 'b', b);
  return page.evaluate(
    async ({ k, n, words }) => {
      const $ = (id) => document.getElementById(id);
      $('tab-compare').click();
      $('k').value = String(k);
      $('n').value = String(n);
      $('words').value = words;
      $('result').dataset.state = 'pending';
      const done = new Promise((resolve) => {
        const mo = new MutationObserver(() => ['done', 'error'].includes($('result').dataset.state) && (mo.disconnect(), resolve()));
        mo.observe($('result'), { attributes: true, attributeFilter: ['data-state'] });
      });
      $('compare').click();
      await done;
      const t = (id) => $(id).textContent;
      return {
        state: $('result').dataset.state,
        verdict: t('verdict'),
        matches: t('matches'),
        receipt: t('receipt'),
        sha256: t('receipt-sha256'),
        error: [t('compare-error'), t('k-error'), t('n-error'), t('words-error')].filter(Boolean).join(' '),
      };
    },
    { k, n, words },
  );
}

export async function verify(page, receipt, a, b, sha256 = '') {
  if (a) await setDoc(page, 'a', a);
  if (b) await setDoc(page, 'b', b);
  return page.evaluate(
    async ({ receipt, sha256 }) => {
      const $ = (id) => document.getElementById(id);
      $('tab-verify').click();
      $('verify-receipt').value = receipt;
      $('verify-sha256').value = sha256;
      const box = $('verify-result');
      box.dataset.state = 'pending';
      const done = new Promise((resolve) => {
        const mo = new MutationObserver(() => box.dataset.state !== 'pending' && (mo.disconnect(), resolve()));
        mo.observe(box, { attributes: true, attributeFilter: ['data-state'] });
      });
      $('verify').click();
      await done;
      return box.textContent;
    },
    { receipt, sha256 },
  );
}

/** A vector's text as the page should receive it: inline text or a file's exact bytes. */
export function vectorDoc(c, key) {
  if (c[key] !== undefined) return { text: c[key] };
  const rel = c[`${key}_file`];
  return { bytes: readFileSync(join(vectorsDir, rel)), name: rel.split('/').pop() };
}

/**
 * Pseudo-prose of `chars` characters with no spaces, in Han by default
 * (`count` code points from `from`, with a comma or a full stop every
 * dozen or so), and a copy with about `rate` of its characters replaced:
 * one word each when cut on spaces, a near-duplicate pair in script words
 * (SPEC §11). The same `seed` gives the same texts.
 */
export function scriptPair(seed, chars, { rate = 0.01, from = 0x4e00, count = 2000 } = {}) {
  let x = seed >>> 0;
  const rnd = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 4294967296;
  // Skewed towards the first code points, as prose repeats its common ones.
  const letter = () => String.fromCodePoint(from + Math.floor(rnd() * rnd() * count));
  const text = Array.from({ length: chars }, () => (rnd() < 0.07 ? (rnd() < 0.7 ? '，' : '。') : letter())).join('');
  const edited = Array.from(text, (c) => (rnd() < rate ? letter() : c)).join('');
  return [text, edited];
}

/** The command line, built once: NEARDUP_BIN, or `cargo build --release -p neardup-cli`. */
export function cliPath() {
  if (process.env.NEARDUP_BIN) return process.env.NEARDUP_BIN;
  execFileSync('cargo', ['build', '--quiet', '--release', '-p', 'neardup-cli'], { cwd: root, stdio: 'inherit' });
  return join(process.env.CARGO_TARGET_DIR || join(root, 'target'), 'release', 'neardup');
}

/** Runs the Collection tab on what it holds; returns the result's data-state. */
export async function runCollection(p, { k = 5, n = 128, threshold = '0.35', words = 'space' } = {}) {
  await p.click('#tab-collection');
  await p.fill('#collection-k', String(k));
  await p.fill('#collection-n', String(n));
  await p.selectOption('#collection-words', words);
  await p.fill('#collection-threshold', threshold);
  await p.evaluate(() => (document.getElementById('collection-result').dataset.state = 'pending'));
  await p.click('#collection-run');
  await p.waitForFunction(() => !['pending', 'running'].includes(document.getElementById('collection-result').dataset.state), null, { timeout: 120_000 });
  return p.getAttribute('#collection-result', 'data-state');
}

/** Clicks the download button `id`; returns the downloaded file's text. */
export async function download(p, id) {
  const event = p.waitForEvent('download');
  await p.click(id);
  return readFileSync(await (await event).path(), 'utf8');
}

/**
 * Asserts that work lasting `ms` ran off the main thread: the heartbeat's
 * longest gap stays under half of that time (or under 500 ms). A page
 * that computed on its main thread would freeze for all of the run, a gap
 * of nearly `ms`. The bound is relative because in CI the suite shares two
 * cores with the Python suite's three JVMs, which stretches every gap and
 * the run alike: a quarter was once too tight there (a 680 ms gap in
 * 2,107 ms of work, the page's worker busy throughout).
 */
export function assertResponsive(maxGap, ms) {
  assert.ok(maxGap < Math.max(500, ms / 2), `the main thread stayed responsive (longest gap ${maxGap.toFixed(0)} ms in ${ms} ms of work)`);
}

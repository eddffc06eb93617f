// The readable reference (web/reference.js, the page's reference-src block)
// in Chromium: it reproduces every public vector, value by value, those of
// SPEC §11's script words included; mutated copies of it fail some; and the
// page's Compare shows what it found.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, test } from 'node:test';
import { compare, openPage, pagePath, root, sharedPage, vectorDoc, vectorsDir } from './harness.mjs';

const html = readFileSync(pagePath, 'utf8');
const source = html.match(/<script type="text\/plain" id="reference-src">([\s\S]*?)<\/script>/)[1];
const vector = (name) => JSON.parse(readFileSync(join(vectorsDir, name), 'utf8'));
const constants = vector('constants.json');
const wantConstants = JSON.stringify({ a: constants.a, b: constants.b });
const normalizeCases = vector('normalize.json');
const compareCases = vector('compare.json');
const scriptCases = vector('script-compare.json');
// Each with its word rule: compare.json's are all SPEC §2's.
const withWords = (c) => ({ ...c, words: c.words ?? 'space' });
const allCases = [...compareCases, ...scriptCases].map(withWords);
// The mutations' runs stop at their first failure: SPEC §11's vectors go
// first, where its mutations fail.
const scriptFirst = [...scriptCases, ...compareCases].map(withWords);
// Files in texts/ are exact UTF-8 bytes (a BOM among them is text too).
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const fileText = (rel) => utf8.decode(readFileSync(join(vectorsDir, rel)));
const textOf = (c, key) => c[key] ?? fileText(c[`${key}_file`]);

let page;
sharedPage((opened) => ({ page } = opened));
const scratch = mkdtempSync(join(tmpdir(), 'neardup-reference-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

// Runs in a worker made as the page makes its own: 'use strict', then the
// reference's source, in one blob: script (the CSP's worker-src). Given
// `expect`, it stops at the first value that differs from it: that is all a
// mutated reference has to show.
const RUNNER = `
self.onmessage = async (e) => {
  const R = NeardupReference;
  const { normalize, cases, expect } = e.data;
  const out = { unicode: R.unicodeVersion(), constants: await R.constants(256), normalized: normalize.map(R.normalize), compare: [] };
  if (expect && (JSON.stringify(out.constants) !== expect.constants || out.normalized.some((x, i) => x !== expect.normalized[i]))) {
    return self.postMessage(out);
  }
  for (const [i, c] of cases.entries()) {
    const r = await R.receipt(c.a, c.b, c.k, c.n, c.words);
    out.compare.push({
      canonical: r.canonical, receipt_sha256: r.sha256, verdict: r.receipt.verdict, matches: r.receipt.matches,
      documents: r.documents.map((d) => ({ normalized: d.normalized, ...d.entry, signature: d.signature })),
    });
    if (expect && r.sha256 !== expect.receipts[i]) break;
  }
  self.postMessage(out);
};`;

/**
 * Runs `src` (a reference's source) over every vector in a worker of the
 * page, the compare vectors in the order of `cases`; with `firstFailure`,
 * only until a value is wrong.
 */
function runReference(src, cases = allCases, firstFailure = false) {
  const data = {
    normalize: normalizeCases.map((c) => c.input),
    cases: cases.map((c) => ({ a: textOf(c, 'a'), b: textOf(c, 'b'), k: c.k, n: c.n, words: c.words })),
    expect: firstFailure && {
      constants: wantConstants,
      normalized: normalizeCases.map((c) => c.normalized),
      receipts: cases.map((c) => c.expected.receipt_sha256),
    },
  };
  return page.evaluate(({ script, data }) => new Promise((resolve, reject) => {
    const worker = new Worker(URL.createObjectURL(new Blob([script], { type: 'text/javascript' })));
    worker.onmessage = (e) => (worker.terminate(), resolve(e.data));
    worker.onerror = (e) => (worker.terminate(), reject(new Error(e.message)));
    worker.postMessage(data);
  }), { script: `'use strict';\n${src}\n${RUNNER}`, data });
}

/**
 * Every value of the vectors the reference got wrong, one line each; the
 * compare vectors are `cases`, of which a run stopped at its first failure
 * has only the first.
 */
function failures(got, cases = allCases) {
  const bad = [];
  if (JSON.stringify(got.constants) !== wantConstants) bad.push('constants.json');
  normalizeCases.forEach((c, i) => got.normalized[i] !== c.normalized && bad.push(`normalize ${c.name}`));
  cases.slice(0, got.compare.length).forEach((c, i) => {
    const have = got.compare[i];
    const e = c.expected;
    for (const key of ['canonical', 'receipt_sha256', 'verdict', 'matches']) {
      if (have[key] !== e[key]) bad.push(`${c.name}: ${key}`);
    }
    e.documents.forEach((doc, d) => {
      const want = { ...doc, normalized: doc.normalized ?? fileText(doc.normalized_file) };
      delete want.normalized_file;
      for (const key of ['normalized', 'normalized_sha256', 'shingles', 'signature', 'signature_sha256']) {
        if (JSON.stringify(have.documents[d][key]) !== JSON.stringify(want[key])) bad.push(`${c.name}: document ${'AB'[d]} ${key}`);
      }
    });
  });
  return bad;
}

test('the page embeds reference.js as it is, in its own block', () => {
  assert.equal(source, readFileSync(join(root, 'crates/neardup-web/web/reference.js'), 'utf8'));
  assert.match(html, /<script type="text\/plain" id="reference-src">/);
});

test("the footer says what view-source shows, with the wasm's SHA-256 that the build filled in", async () => {
  const built = html.match(/id="wasm-b64" data-sha256="([0-9a-f]{64})"/)[1];
  const foot = await page.textContent('footer');
  for (const part of ['Content-Security-Policy', 'the readable reference', 'reference-src', 'scripts/build-page', `whose SHA-256 as built is ${built}`]) {
    assert.ok(foot.includes(part), `the footer mentions ${part}`);
  }
  // The template holds a mark there, not a hash written by hand.
  const template = readFileSync(join(root, 'crates/neardup-web/web/index.html'), 'utf8');
  assert.match(template, /whose SHA-256 as built is <code>\{\{WASM_SHA256\}\}<\/code>/);
});

test(`the readable reference reproduces every value of the ${compareCases.length} compare, ${scriptCases.length} script-compare and ${normalizeCases.length} normalize vectors`, async () => {
  assert.ok(compareCases.length > 100 && scriptCases.length >= 20 && normalizeCases.length > 100);
  assert.ok(scriptCases.every((c) => c.words === 'script' && c.expected.canonical.startsWith('{"algorithm":"kar-script-shingle-minhash-v1"')));
  const got = await runReference(source);
  assert.equal(got.unicode, '17.0', "this Chromium's Unicode data is SPEC's 17.0");
  assert.equal(got.compare.length, allCases.length);
  assert.deepEqual(failures(got), []);
});

// Each mutation is a mistake an implementation could make; the vectors must
// catch every one (and the replacement must really change the source).
const MUTATIONS = [
  ['whitespace: a space instead of \\s', '/\\s+/g', '/ +/g'],
  ['whitespace collapsed before lowercasing', "text.toLowerCase().replace(/\\s+/g, ' ')", "text.replace(/\\s+/g, ' ').toLowerCase()"],
  ['h_i in floating point', '(Math.imul(a, h) + b) >>> 0', '(a * h + b) % 4294967296'],
  ['a_i not forced odd', '| 1) >>> 0', '| 0) >>> 0'],
  ['an empty text as one empty word', "if (normalized === '') return [];", ''],
  ['NEAR-DUPLICATE from more than 75%', '100 * matches >= 75 * n', '100 * matches > 75 * n'],
  // SPEC §11.
  ['script words under either algorithm id', "if (rule === 'space') return runs;", ''],
  ['a script receipt named kar-shingle-minhash-v1', 'algorithm: ALGORITHMS[rule],', 'algorithm: ALGORITHM,'],
  ['UTF-16 units for code points', 'for (const c of run) {', "for (const c of run.split('')) {"],
  ['the ideographic planes cut at U+2FFFF', '[0x20000, 0x3ffff]', '[0x20000, 0x2ffff]'],
  ['fullwidth Latin in the table', '[0xff61, 0xff9f]', '[0xff01, 0xff9f]'],
  ['Hangul in the table', '[0xa000, 0xa4cf], // Yi', '[0xa000, 0xa4cf], [0xac00, 0xd7a3], // Yi'],
  ['a table code point kept in its run', 'if (isScriptChar(c.codePointAt(0))) {', 'if (isScriptChar(c.codePointAt(0)) && word === "") {'],
];
for (const [name, from, to] of MUTATIONS) {
  test(`a mutated reference fails some vectors: ${name}`, async () => {
    assert.ok(source.includes(from), `the reference holds ${from}`);
    const bad = failures(await runReference(source.replace(from, to), scriptFirst, true), scriptFirst);
    assert.ok(bad.length > 0, 'the mutation passes every vector');
  });
}

/** The page's result line from the reference, after a Compare. */
const referenceLine = async (p = page) => (await p.textContent('#compare-reference')).trim();

test('Compare says that the readable reference found the same receipt', async () => {
  for (const name of ['paragraph-one-edit', 'whitespace-only-vs-empty', 'greek-sigma-contexts-k1', 'long-vs-other-long-k8-n256', 'zh-1pct-edits', 'thai-near-duplicate']) {
    const c = allCases.find((x) => x.name === name) ?? allCases.find((x) => x.name.startsWith(name));
    assert.ok(c, name);
    const r = await compare(page, vectorDoc(c, 'a'), vectorDoc(c, 'b'), c.k, c.n, c.words);
    assert.equal(r.sha256, c.expected.receipt_sha256, c.name);
    assert.match(await referenceLine(), /^Checked by the readable reference in this page: same receipt \(\d/, c.name);
  }
});

test('a document whose text is extracted is not checked by the reference, and says so', async (t) => {
  const doc = { bytes: Buffer.from('<!DOCTYPE html><html><body><p>one two three four five six seven</p></body></html>'), name: 'a.html' };
  const r = await compare(page, doc, { text: 'one two three four five six seven' });
  // Until the engine's HTML reader lands, it refuses the file.
  if (r.state === 'error' && /not read yet/.test(r.error)) return t.skip(`the engine does not read HTML yet: ${r.error}`);
  assert.equal(r.state, 'done', r.error);
  assert.match(await referenceLine(), /^Not checked by the readable reference: a document's text was extracted/);
});

/** The page with its reference block's source changed by `edit`, opened from a file. */
async function variant(name, edit, block = '<script type="text/plain" id="reference-src">') {
  const at = html.indexOf(block) + block.length;
  const end = html.indexOf('</script>', at);
  const changed = edit(html.slice(at, end));
  assert.notEqual(changed, html.slice(at, end));
  const file = join(scratch, `${name}.html`);
  writeFileSync(file, html.slice(0, at) + changed + html.slice(end));
  return openPage(page.context(), pathToFileURL(file).href);
}

test("a reference that disagrees with the engine makes Compare name the fields that differ", async () => {
  const v = await variant('mutated', (s) => s.replace('/\\s+/g', '/ +/g'));
  await compare(v.page, { text: 'one\ttwo three four five six' }, { text: 'one two three four five six seven' });
  const line = await referenceLine(v.page);
  assert.match(line, /^The readable reference in this page gives another receipt: document A's normalized text, document A's shingle count, document A's signature, matches(, verdict)? differ\. Please report this\.$/);
  assert.equal(await v.page.getAttribute('#compare-reference', 'data-state'), 'differs');
  assert.deepEqual(v.errors, []);
  await v.page.close();
});

test('with Unicode data older than 17.0 and characters it does not know, a difference is not reported as a mismatch', async () => {
  // A browser whose probe fails (as Unicode 16.0 data would) and whose
  // reference disagrees: the text holds U+0378, unassigned here.
  const v = await variant('unicode16', (s) => s.replace('lowers(0xa7ce, 0xa7cf)', 'lowers(0xa7ce, 0xa7ce)').replace('/\\s+/g', '/ +/g'));
  await compare(v.page, { text: 'one\ttwo three four five \u0378' }, { text: 'one two three four five six' });
  assert.match(await referenceLine(v.page), /^Not checked by the readable reference: this browser's Unicode data is 16\.0, not the 17\.0 that the algorithm pins, and the texts hold 1 character it does not know \(U\+0378\)/);
  // Without such a character, the same difference is a mismatch.
  await compare(v.page, { text: 'one\ttwo three four five six' }, { text: 'one two three four five six' });
  assert.match(await referenceLine(v.page), /^The readable reference in this page gives another receipt: document A's normalized text/);
  assert.deepEqual(v.errors, []);
  await v.page.close();
});

test('without WebCrypto (plain http), Compare still gives the engine\'s receipt and says the reference could not check it', async () => {
  const v = await variant('nocrypto', (s) => s.replace("'use strict';", "'use strict';\nObject.defineProperty(self, 'crypto', { value: undefined });"), '<script type="text/plain" id="worker-src">');
  const r = await compare(v.page, { text: 'one two three four five six' }, { text: 'one two three four five six seven' });
  assert.equal(r.state, 'done');
  assert.match(await referenceLine(v.page), /^Not checked by the readable reference: this browser gives it no SHA-256/);
  assert.deepEqual(v.errors, []);
  await v.page.close();
});

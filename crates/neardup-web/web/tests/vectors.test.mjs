// Every public vector in vectors/compare.json and vectors/script-compare.json
// (SPEC §11, with Words set to script), through the page in Chromium:
// textareas for inline texts, the file inputs for the texts/ files; the
// page's readable reference must find the same receipt for each, and each
// script receipt must verify in the page, which takes the rule from the
// receipt's algorithm alone.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { compare, sharedPage, vectorDoc, vectorsDir, verify } from './harness.mjs';

const vectors = (name) => JSON.parse(readFileSync(join(vectorsDir, name), 'utf8'));
let page;
let errors;
sharedPage((opened) => ({ page, errors } = opened));

for (const [file, words] of [['compare.json', 'space'], ['script-compare.json', 'script']]) {
  const cases = vectors(file);
  test(`all ${cases.length} ${file} vectors give the expected receipt in the page${words === 'script' ? ', and verify there' : ''}`, async () => {
    assert.ok(cases.length > 0);
    const failures = [];
    for (const c of cases) {
      assert.equal(c.words ?? 'space', words, c.name);
      const [a, b] = [vectorDoc(c, 'a'), vectorDoc(c, 'b')];
      const got = await compare(page, a, b, c.k, c.n, words);
      const e = c.expected;
      // The readable reference in the page's worker checked the same receipt.
      const checked = (await page.textContent('#compare-reference')).startsWith('Checked by the readable reference in this page: same receipt');
      const want = { state: 'done', verdict: e.verdict, matches: e.matches === null ? '—' : String(e.matches), sha256: e.receipt_sha256, receipt: e.canonical, checked: true };
      const have = { state: got.state, verdict: got.verdict, matches: got.matches, sha256: got.sha256, receipt: got.receipt, checked };
      if (words === 'script') {
        want.verified = true;
        have.verified = (await verify(page, e.canonical, null, null, e.receipt_sha256)).startsWith(`VERIFIED — the receipt matches documents A and B (${e.verdict}; k = ${c.k}, n = ${c.n}, script words)`);
      }
      try {
        assert.deepEqual(have, want);
      } catch {
        failures.push(`${c.name}: ${JSON.stringify(have)} ${got.error}`);
      }
    }
    assert.deepEqual(failures, [], `${failures.length} of ${cases.length} vectors failed`);
    assert.deepEqual(errors, []);
  });
}

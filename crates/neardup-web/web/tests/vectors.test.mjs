// Every public vector in vectors/compare.json, through the page in Chromium:
// textareas for inline texts, the file inputs for the texts/ files; the
// page's readable reference must find the same receipt for each.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { compare, sharedPage, vectorDoc, vectorsDir } from './harness.mjs';

const cases = JSON.parse(readFileSync(join(vectorsDir, 'compare.json'), 'utf8'));
let page;
let errors;
sharedPage((opened) => ({ page, errors } = opened));

test(`all ${cases.length} compare vectors give the expected receipt in the page`, async () => {
  assert.ok(cases.length > 0);
  const failures = [];
  for (const c of cases) {
    const got = await compare(page, vectorDoc(c, 'a'), vectorDoc(c, 'b'), c.k, c.n);
    const e = c.expected;
    // The readable reference in the page's worker checked the same receipt.
    const checked = (await page.textContent('#compare-reference')).startsWith('Checked by the readable reference in this page: same receipt');
    const want = { state: 'done', verdict: e.verdict, matches: e.matches === null ? '—' : String(e.matches), sha256: e.receipt_sha256, receipt: e.canonical, checked: true };
    const have = { state: got.state, verdict: got.verdict, matches: got.matches, sha256: got.sha256, receipt: got.receipt, checked };
    try {
      assert.deepEqual(have, want);
    } catch {
      failures.push(`${c.name}: ${JSON.stringify(have)} ${got.error}`);
    }
  }
  assert.deepEqual(failures, [], `${failures.length} of ${cases.length} vectors failed`);
  assert.deepEqual(errors, []);
});

// The committed neardup.html as a user gets it: downloaded alone into a
// folder, opened from file:// in a browser with a fresh profile, two files
// chosen with the "Open file…" buttons, one click on Compare.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { artifacts, launch, openPage, pagePath, root } from './harness.mjs';

test('the downloaded page, opened from file:// with a fresh profile, compares two files', async () => {
  const downloads = mkdtempSync(join(tmpdir(), 'neardup-downloads-'));
  const browser = await launch();
  try {
    const copy = join(downloads, 'neardup.html');
    copyFileSync(pagePath, copy);
    const { page, errors } = await openPage(browser.context, pathToFileURL(copy).href);
    for (const [key, name] of [['a', 'GFDL-1.2.txt'], ['b', 'GFDL-1.3.txt']]) {
      const chooser = page.waitForEvent('filechooser');
      await page.click(`#open-${key}`);
      await (await chooser).setFiles(join(root, 'examples', name));
      await page.waitForSelector(`#chip-${key}:not([hidden])`);
    }
    await page.click('#compare');
    await page.waitForSelector('#result[data-state="done"]');
    // The figures README.md shows for `neardup compare` on the same files.
    assert.equal(await page.textContent('#verdict'), 'NEAR-DUPLICATE');
    assert.equal(await page.textContent('#matches'), '106');
    const receipt = await page.textContent('#receipt');
    const hash = '595eb92bf4891b0e0187c373469fc1314b4af136a632f0bb20c0fdd2b9d6abc5';
    assert.equal(createHash('sha256').update(receipt).digest('hex'), hash);
    assert.equal(await page.textContent('#receipt-sha256'), hash);
    await page.screenshot({ path: join(artifacts, 'downloaded-compare.png'), fullPage: true });
    assert.deepEqual(errors, [], 'no page errors');
  } finally {
    await browser.close();
    rmSync(downloads, { recursive: true, force: true });
  }
});

// Documents in the page, as the command line reads them: a folder of DOCX,
// ODT, EPUB, HTML, PDF, RTF and text files gives the Collection tab the
// pairs `neardup scan` writes, byte for byte; Compare takes a DOCX and a
// text file and gives the CLI's receipt; Evidence shows and highlights the
// extracted text. The documents are the extractor's committed fixtures,
// made by LibreOffice, pandoc and Chromium.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, test } from 'node:test';
import { artifacts, cliPath, compare, download, root, runCollection, sharedPage } from './harness.mjs';

const fixtures = join(root, 'crates', 'neardup-extract', 'tests', 'fixtures');
const ENDINGS = ['.docx', '.odt', '.epub', '.html', '.pdf', '.rtf'];

/** The fixture documents (not the bad-input ones), in a stable order. */
function fixtureDocuments(dir = fixtures) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'bad') out.push(...fixtureDocuments(path));
    } else if (ENDINGS.some((e) => name.endsWith(e))) out.push(path);
  }
  return out;
}

let page;
sharedPage((opened) => ({ page } = opened));
let neardup;
let work;
let docx;
before(() => {
  neardup = cliPath();
  work = mkdtempSync(join(tmpdir(), 'neardup-documents-'));
  const dir = join(work, 'docs');
  mkdirSync(dir);
  const found = fixtureDocuments();
  assert.ok(found.length >= 5, `fixture documents in ${fixtures}`);
  for (const f of found) cpSync(f, join(dir, `${basename(join(f, '..'))}-${basename(f)}`));
  docx = found.find((f) => f.endsWith('.docx'));
  // The DOCX's text saved as a text file: an IDENTICAL pair across formats.
  writeFileSync(join(dir, 'copy-of-docx.txt'), execFileSync(neardup, ['extract', docx]));
  writeFileSync(join(dir, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
});
after(() => work && rmSync(work, { recursive: true, force: true }));

const scan = (args) => execFileSync(neardup, ['scan', '--quiet', ...args], { cwd: work }).toString('utf8');

test('a folder of documents: the pairs are the bytes `neardup scan` writes', async () => {
  await page.setInputFiles('#collection-folder', join(work, 'docs'));
  assert.equal(await runCollection(page), 'done');
  const pairs = await download(page, '#collection-download-pairs');
  assert.equal(pairs, scan(['docs', '--threshold', '0.35', '--pairs', '-']));
  assert.match(pairs, /"a":"docs\/copy-of-docx\.txt","b":"docs\/office-pandoc\.docx".*"verdict":"IDENTICAL"/);
  assert.match(pairs, /"a":"docs\/pdf-plain\.docx","b":"docs\/pdf-plain\.pdf".*"verdict":"IDENTICAL"/);
  // Skipped, as `neardup scan` skips them: the encrypted, scanned and
  // truncated PDFs, and the file that is not UTF-8.
  assert.match(await page.textContent('#collection-note'), /Skipped 4 files .*docs\/latin1\.txt .*docs\/pdf-encrypted\.pdf \(encrypted, not supported\)/);
  await page.screenshot({ path: join(artifacts, 'collection-documents.png'), fullPage: true });
});

test('Compare reads a DOCX as the CLI does; Evidence shows its extracted text', async () => {
  const copy = join(work, 'docs', 'copy-of-docx.txt');
  const r = await compare(page, { path: docx }, { path: copy });
  const want = JSON.parse(execFileSync(neardup, ['compare', '--json', docx, copy]).toString('utf8'));
  assert.equal(r.state, 'done', r.error);
  assert.equal(r.verdict, 'IDENTICAL');
  assert.equal(r.sha256, want.receipt_sha256);
  assert.match(await page.textContent('#compare-notes'), /A was read as DOCX \(text extracted by neardup-extract-v1\)/);

  await page.click('#tab-evidence');
  await page.evaluate(() => (document.getElementById('evidence').dataset.state = 'pending'));
  await page.click('#explain');
  await page.waitForFunction(() => ['done', 'error'].includes(document.getElementById('evidence').dataset.state));
  const extracted = execFileSync(neardup, ['extract', docx]).toString('utf8');
  assert.equal(await page.textContent('#evidence-a'), extracted, 'A shows the extracted text');
  assert.ok((await page.$$('#evidence-a mark')).length > 0, 'and highlights it');
});

// The page and the native command line give the same receipt for the same
// files: `neardup compare --json` (NEARDUP_BIN, or `cargo run -p neardup-cli`).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { compare, launch, openPage, root, vectorsDir } from './harness.mjs';

function run(args) {
  return process.env.NEARDUP_BIN
    ? execFileSync(process.env.NEARDUP_BIN, args, { cwd: root, encoding: 'utf8' })
    : execFileSync('cargo', ['run', '--quiet', '-p', 'neardup-cli', '--', ...args], { cwd: root, encoding: 'utf8' });
}

function cli(a, b, k, n) {
  return JSON.parse(run(['compare', '--json', '-k', String(k), '-n', String(n), a, b]));
}

let browser;
let page;
let dir;
before(async () => {
  browser = await launch();
  ({ page } = await openPage(browser.context));
  dir = mkdtempSync(join(tmpdir(), 'neardup-native-'));
});
after(async () => {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
});

test('page receipts equal `neardup compare --json` receipts on the same files', async () => {
  const texts = readdirSync(join(vectorsDir, 'texts')).filter((f) => !f.includes('.normalized')).sort();
  const crafted = (name, text) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const pairs = [
    [join(root, 'examples/GFDL-1.2.txt'), join(root, 'examples/GFDL-1.3.txt'), 5, 128],
    [join(root, 'examples/GFDL-1.2.txt'), join(root, 'examples/GFDL-1.3.txt'), 3, 16],
    [join(root, 'examples/GFDL-1.3.txt'), join(root, 'examples/GFDL-1.2.txt'), 9, 256],
    [join(vectorsDir, 'texts', texts[0]), join(vectorsDir, 'texts', texts[1]), 5, 128],
    [
      crafted('bom-crlf.txt', '\uFEFFΟΔΟΣ  İstanbul\r\nstraße ẞ one two three four five\r\n'),
      crafted('plain.txt', 'οδος i̇stanbul STRASSE ß one two three four six'),
      2,
      64,
    ],
  ];
  for (const [a, b, k, n] of pairs) {
    const native = cli(a, b, k, n);
    const web = await compare(page, { path: a }, { path: b }, k, n);
    assert.equal(web.sha256, native.receipt_sha256, `${a} ${b} k=${k} n=${n}`);
    assert.equal(web.receipt, JSON.stringify(native.receipt));
    assert.equal(web.verdict, native.verdict);
  }
});

test("the page starts at the command line's defaults and names its extractor version and cluster threshold", async () => {
  // A fresh page: the inputs as the page opens, before any test types.
  const { page: fresh } = await openPage(browser.context);
  const shown = await fresh.evaluate(() => {
    const $ = (id) => document.getElementById(id);
    return {
      k: ['k', 'evidence-k', 'collection-k'].map((id) => $(id).value),
      n: ['n', 'collection-n'].map((id) => $(id).value),
      extractor: $('extractor-version').textContent,
      clusters: document.querySelector('#collection-result dt [data-about="threshold"]').textContent,
    };
  });
  await fresh.close();
  const gfdl = ['examples/GFDL-1.2.txt', 'examples/GFDL-1.3.txt'].map((f) => join(root, f));
  const { receipt } = JSON.parse(run(['compare', '--json', ...gfdl]));
  assert.deepEqual(shown.k, Array(3).fill(String(receipt.k)), 'k as `neardup compare` without -k');
  assert.deepEqual(shown.n, Array(2).fill(String(receipt.n)), 'n as `neardup compare` without -n');
  assert.equal(shown.extractor, JSON.parse(run(['extract', '--json', gfdl[0]])).extractor);
  const threshold = /--threshold <T>[\s\S]*?\[default: ([0-9.]+)\]/.exec(run(['scan', '--help']));
  assert.ok(threshold, '`neardup scan --help` gives the default threshold');
  assert.equal(shown.clusters, threshold[1], 'clusters at `neardup scan`\'s default threshold');
});

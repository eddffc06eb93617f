// The page and the native command line give the same receipt for the same
// files: `neardup compare --json` (NEARDUP_BIN, or `cargo run -p neardup-cli`).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { compare, launch, openPage, root, vectorsDir } from './harness.mjs';

function cli(a, b, k, n) {
  const args = ['compare', '--json', '-k', String(k), '-n', String(n), a, b];
  const out = process.env.NEARDUP_BIN
    ? execFileSync(process.env.NEARDUP_BIN, args, { cwd: root })
    : execFileSync('cargo', ['run', '--quiet', '-p', 'neardup-cli', '--', ...args], { cwd: root });
  return JSON.parse(out);
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

// The build's output: its wasm names no local path and imports only the
// worker's callbacks, and the README's size line is the committed page's.
// That the build is reproducible is `scripts/build-page --check` (`ci.sh
// build`, run before these tests): it builds the page on the machine at
// hand and fails unless it equals, byte for byte, the committed
// neardup.html, which was built on another machine. (A second build here
// proved less, on the same machine, for a minute of CI's time.)
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { lzmaDecode } from '../app/lzma.js';
import { textDecode7 } from '../app/text7.js';
import { dist, pagePath, root } from './harness.mjs';

test('the wasm does not depend on where it was built', () => {
  const wasm = readFileSync(join(dist, 'neardup.wasm')).toString('latin1');
  for (const path of [root, process.env.HOME, process.env.CARGO_HOME].filter(Boolean)) {
    assert.ok(!wasm.includes(path), `the wasm mentions '${path}'`);
  }
});

test('the wasm imports only the two progress callbacks the worker gives it', async () => {
  // A dependency that links wasm-bindgen (zip 9 did, through getrandom)
  // adds `__wbindgen_*` imports that no plain instantiation can satisfy.
  const module = await WebAssembly.compile(readFileSync(join(dist, 'neardup.wasm')));
  const imports = WebAssembly.Module.imports(module).map((i) => `${i.module}.${i.name}`).sort();
  assert.deepEqual(imports, ['neardup.progress', 'neardup.progress_count']);
});

test("the crate README's size line is the committed page's (as build.sh prints it)", () => {
  const readme = readFileSync(join(root, 'crates/neardup-web/README.md'), 'utf8');
  const line = readme.replace(/\s+/g, ' ').match(/The page is ([\d,]+) KB, of which the wasm \(([\d,]+) KB\) is ([\d,]+) KB of LZMA in 7-bit text\./);
  assert.ok(line, 'the README has the size line that build.sh prints');
  const [page, wasm, embedded] = line.slice(1).map((kb) => Number(kb.replace(/,/g, '')));
  const html = readFileSync(pagePath, 'latin1');
  const b64 = html.match(/id="wasm-b64" data-sha256="[0-9a-f]{64}">([^<]*)<\/script>/)[1];
  const bytes = lzmaDecode(textDecode7(Buffer.from(b64, 'latin1').toString('utf8'))).length;
  // To the nearest 10 KB of 1,000 bytes, so that a small change of the page need not touch the README.
  const kb10 = (n) => Math.round(n / 10_000) * 10;
  const fix = 'run scripts/build-page and copy its "README:" line into crates/neardup-web/README.md';
  assert.equal(page, kb10(statSync(pagePath).size), `the page's size: ${fix}`);
  assert.equal(wasm, kb10(bytes), `the wasm's size: ${fix}`);
  assert.equal(embedded, kb10(b64.length), `the embedded wasm's size: ${fix}`);
});

// Building twice gives byte-identical output (the page and its wasm), and
// the committed neardup.html is that output.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { lzmaDecode } from '../app/lzma.js';
import { textDecode7 } from '../app/text7.js';
import { dist, pagePath, root } from './harness.mjs';

test('a second build is byte-identical to dist/ and to the committed neardup.html', () => {
  const again = mkdtempSync(join(tmpdir(), 'neardup-dist-'));
  try {
    execFileSync(join(root, 'crates/neardup-web/build.sh'), { env: { ...process.env, DIST: again }, stdio: ['ignore', 'ignore', 'inherit'] });
    for (const name of ['neardup.html', 'neardup.wasm']) {
      assert.ok(readFileSync(join(again, name)).equals(readFileSync(join(dist, name))), `${name} differs between builds (or the sources changed after dist/ was built)`);
    }
    assert.ok(readFileSync(join(again, 'neardup.html')).equals(readFileSync(pagePath)), 'neardup.html is not the page these sources build: run scripts/build-page and commit neardup.html');
  } finally {
    rmSync(again, { recursive: true, force: true });
  }
});

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

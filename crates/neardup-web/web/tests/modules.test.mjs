// The join of the page's modules (modules.mjs): ES module order, shared
// scope, and the refusals that keep the shared scope sound.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runInNewContext } from 'node:vm';
import { joinModules } from '../modules.mjs';

function join_(files) {
  const dir = mkdtempSync(join(tmpdir(), 'neardup-modules-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return joinModules(dir, 'main.js');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('modules run after their imports, once, cycles included, in one scope', () => {
  const script = join_({
    'main.js': "import { a } from './a.js';\nimport './b.js';\nlog.push(`main ${a()}`);\n",
    'a.js': "import { b } from './b.js';\nexport const a = () => b();\nlog.push('a');\n",
    'b.js': "import { a } from './a.js';\nimport { c } from './c.js';\nexport function b() {\n  return c;\n}\nlog.push('b');\n",
    'c.js': "export const c = 'c';\nlog.push('c');\n",
  });
  const log = [];
  runInNewContext(script, { log }, { filename: 'joined' });
  assert.deepEqual(log, ['c', 'b', 'a', 'main c']);
  assert.doesNotMatch(script, /^(import|export)\b/m);
});

test('refused: a name the module does not export, a top-level name two modules declare, other import forms', () => {
  assert.throws(() => join_({ 'main.js': "import { x } from './a.js';\n", 'a.js': 'const x = 1;\n' }), /main\.js:1: 'a\.js' does not export 'x'/);
  assert.throws(() => join_({ 'main.js': "import './a.js';\nfunction f() {}\n", 'a.js': 'function f() {}\n' }), /'f' is declared at the top of both a\.js and main\.js/);
  assert.throws(() => join_({ 'main.js': "import * as a from './a.js';\n", 'a.js': '' }), /main\.js:1: write an import on one line/);
  assert.throws(() => join_({ 'main.js': 'export default 1;\n' }), /main\.js:1: export only/);
  assert.throws(() => join_({ 'main.js': 'const x = ;\n' }), SyntaxError);
});

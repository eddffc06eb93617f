// Joins the page's ES modules (web/app/*.js) into the one classic script the
// page inlines, as a bundler's scope hoisting does: the modules run in the
// order ES modules would (each after its imports, from the entry), in one
// shared closure, with their import lines dropped and `export` kept off.
// The page stays one file whose script the CSP allows by its hash.
//
// The modules keep to a form this can check without a parser: one import per
// line, `import { a, b } from './x.js';` or `import './x.js';`, and exports
// only as `export function|async function|const|let name`. Every imported
// name must be exported by its module, and no two modules may declare the
// same top-level name (they share one scope).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Script } from 'node:vm';

const IMPORT = /^import (?:\{ ([\w$]+(?:, [\w$]+)*) \} from )?'\.\/([\w-]+\.js)';$/;
const EXPORT = /^export (?:async function|function|const|let) ([\w$]+)/;
const DECLARATION = /^(?:async function|function|const|let|class) ([\w$]+)/;

/** The script for `entry` in `dir` and its imports, as a string. */
export function joinModules(dir, entry) {
  const modules = new Map();
  const visiting = new Set();
  const order = [];
  const load = (name) => {
    if (modules.has(name) || visiting.has(name)) return;
    visiting.add(name);
    const imports = [];
    const exports = new Set();
    const lines = [];
    readFileSync(join(dir, name), 'utf8').split('\n').forEach((line, i) => {
      const where = `${name}:${i + 1}`;
      if (/^import\b/.test(line)) {
        const m = IMPORT.exec(line);
        if (!m) throw new Error(`${where}: write an import on one line as "import { a, b } from './x.js';" or "import './x.js';"`);
        imports.push({ from: m[2], names: m[1] ? m[1].split(', ') : [], where });
        return;
      }
      if (/^export\b/.test(line)) {
        const m = EXPORT.exec(line);
        if (!m) throw new Error(`${where}: export only "export function|async function|const|let name"`);
        exports.add(m[1]);
        line = line.slice('export '.length);
      }
      lines.push(line);
    });
    for (const { from } of imports) load(from);
    modules.set(name, { imports, exports, text: lines.join('\n').trim() });
    order.push(name);
  };
  load(entry);

  const declaredBy = new Map();
  for (const [name, { imports, text }] of modules) {
    for (const { from, names, where } of imports) {
      for (const imported of names) {
        if (!modules.get(from).exports.has(imported)) throw new Error(`${where}: '${from}' does not export '${imported}'`);
      }
    }
    for (const line of text.split('\n')) {
      const m = DECLARATION.exec(line);
      if (!m) continue;
      const other = declaredBy.get(m[1]);
      if (other) throw new Error(`'${m[1]}' is declared at the top of both ${other} and ${name}, which share one scope`);
      declaredBy.set(m[1], name);
    }
  }

  const body = order.map((name) => `// ---- ${name} ----\n${modules.get(name).text}\n`).join('\n');
  const script = `'use strict';\n(() => {\n${body}})();\n`;
  new Script(script, { filename: entry }); // a syntax error fails the build, not the page
  return script;
}

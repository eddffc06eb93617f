// Assembles dist/neardup.html from the template, the CSS, the page's modules
// (app/*.js, joined by modules.mjs), the worker and the optimized wasm.
// Deterministic: no dates, no paths, no randomness, so two builds from the
// same sources give the same bytes.
//
// usage: node assemble.mjs <neardup_web.wasm> <out.html>
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { joinModules } from './modules.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const [wasmPath, outPath] = process.argv.slice(2);
if (!wasmPath || !outPath) {
  console.error('usage: node assemble.mjs <neardup_web.wasm> <out.html>');
  process.exit(2);
}
const read = (name) => readFileSync(join(here, name), 'utf8');
const sha256 = (data, enc) => createHash('sha256').update(data).digest(enc);

const wasm = readFileSync(wasmPath);
// The wasm goes in gzipped, which halves the page: GNU gzip, whose output
// is the same on every CPU (node's zlib is not), -n without name and time.
// --rsyncable restarts the compressed stream where the content says, each
// restart ending with a sync flush's empty stored block (00 00 ff ff), and
// each restart starts a new base64 line: a change to the wasm then changes
// only the lines near it, and git keeps a commit of the page as a small
// delta (measured: 19 KB against 189 KB for a one-line change of Rust code;
// but a change that moves the data section still changes most lines, see
// the crate's README).
const SYNC = Buffer.from([0, 0, 0xff, 0xff]);
function gzipLines(data) {
  const gz = execFileSync('gzip', ['-9n', '--rsyncable'], { input: data, maxBuffer: 1 << 28 });
  const lines = [];
  let at = 0;
  for (let sync; (sync = gz.indexOf(SYNC, at)) >= 0; at = sync + SYNC.length) {
    lines.push(gz.subarray(at, sync + SYNC.length).toString('base64'));
  }
  lines.push(gz.subarray(at).toString('base64'));
  return lines.join('\n');
}
// The core's defaults and versions (nd_about, see src/about.rs), asked of
// the very wasm the page embeds: the page's inputs start at the core's
// defaults and its footer names the extractor without either being
// written again here (app/about.js applies them as the page starts).
async function about(bytes) {
  const { instance } = await WebAssembly.instantiate(bytes, { neardup: { progress() {}, progress_count() {} } });
  const x = instance.exports;
  const len = x.nd_about();
  return new TextDecoder().decode(new Uint8Array(x.memory.buffer, x.nd_out(), len));
}

const aboutJson = await about(wasm);
const style = read('style.css');
const script = joinModules(join(here, 'app'), 'main.js');
const worker = read('worker.js');
// The readable reference: its own text/plain block, shown as it is in
// view-source; the page joins it to the worker (see app/engine.js).
const reference = read('reference.js');
for (const [name, text] of Object.entries({ 'app/*.js': script, 'worker.js': worker, 'reference.js': reference, 'style.css': style, nd_about: aboutJson })) {
  if (/<\/(script|style)/i.test(text)) throw new Error(`${name} must not contain a closing </script> or </style> tag`);
}

// CSP hashes cover the exact text between the tags.
const csp = [
  "default-src 'none'",
  `script-src 'sha256-${sha256(script, 'base64')}' 'wasm-unsafe-eval'`,
  `style-src 'sha256-${sha256(style, 'base64')}'`,
  'worker-src blob:',
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const icon = 'data:image/svg+xml,' + encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="3" y="6" width="16" height="20" rx="3" fill="none" stroke="#3b5bdb" stroke-width="2.5"/><rect x="13" y="3" width="16" height="20" rx="3" fill="#3b5bdb"/></svg>',
);

const parts = {
  CSP: csp,
  ICON: icon,
  STYLE: style,
  SCRIPT: script,
  WORKER: worker,
  REFERENCE: reference,
  ABOUT: aboutJson,
  WASM_SHA256: sha256(wasm, 'hex'),
  WASM_B64: gzipLines(wasm),
};
// How many times the template holds each mark: once, but the wasm's hash
// is both on its block and in the footer.
const USES = { WASM_SHA256: 2 };
let html = read('index.html');
for (const [key, value] of Object.entries(parts)) {
  const mark = `{{${key}}}`;
  const uses = USES[key] || 1;
  if (html.split(mark).length !== uses + 1) throw new Error(`template must hold ${mark} exactly ${uses === 1 ? 'once' : `${uses} times`}`);
  html = html.split(mark).join(value);
}
writeFileSync(outPath, html);
console.log(`${outPath}: ${Buffer.byteLength(html)} bytes; wasm ${wasm.length} bytes, sha256 ${parts.WASM_SHA256}`);
// The crate README's size line, as web/tests/build.test.mjs checks it
// against the committed page (sizes in KB of 1,000 bytes, to the nearest 10).
const kb = (bytes) => `${(Math.round(bytes / 10_000) * 10).toLocaleString('en-US')} KB`;
console.log(`README: The page is ${kb(Buffer.byteLength(html))}, of which the wasm (${kb(wasm.length)}) is ${kb(parts.WASM_B64.length)} of gzip in base64.`);

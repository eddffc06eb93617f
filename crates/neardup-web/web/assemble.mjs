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
import { textDecode7 } from './app/text7.js';
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
// The wasm goes in as LZMA (`xz --format=lzma`, 5.4.1 pinned by build.sh,
// whose output is the same on every machine), 26% smaller than gzip -9
// made it: the page decodes it with app/lzma.js, since browsers have no LZMA
// of their own. xz writes an unknown unpacked size and an end marker; the
// header gets the real size instead, so the decoder knows the size up front.
// `pb=0`: wasm code is bytes, not 32-bit words (1 KB smaller). Written as
// 7-bit text (see app/text7.js), 8/7 of the bytes where base64 is 4/3.
// (gzip --rsyncable kept lines, and so git deltas, small across a small
// change; LZMA has no restart points, and a change redoes most lines.)
function lzmaText(data) {
  const lzma = execFileSync('xz', ['--format=lzma', '--lzma1=preset=9e,pb=0', '-c'], { input: data, maxBuffer: 1 << 28 });
  lzma.writeBigUInt64LE(BigInt(data.length), 5);
  const text = textEncode7(lzma);
  if (!Buffer.from(textDecode7(text)).equals(lzma)) throw new Error('7-bit text does not round-trip');
  return text;
}
// app/text7.js's form: 7-bit groups as ASCII, the four special ones (NUL, LF,
// CR, `<`) each with the group after it as one character from U+0080.
function textEncode7(bytes) {
  const special = [0x00, 0x0a, 0x0d, 0x3c];
  const groups = [];
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = ((acc << 8) | b) & 0x7fff;
    bits += 8;
    while (bits >= 7) {
      bits -= 7;
      groups.push((acc >>> bits) & 0x7f);
    }
  }
  if (bits > 0) groups.push((acc << (7 - bits)) & 0x7f);
  const chars = [];
  for (let i = 0; i < groups.length; i++) {
    const which = special.indexOf(groups[i]);
    if (which < 0) chars.push(String.fromCharCode(groups[i]));
    else if (i + 1 < groups.length) chars.push(String.fromCharCode(0x80 + which * 128 + groups[++i]));
    else chars.push(String.fromCharCode(0x80 + (4 + which) * 128));
  }
  const lines = [];
  for (let at = 0; at < chars.length; at += 1000) lines.push(chars.slice(at, at + 1000).join(''));
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
  WASM_B64: lzmaText(wasm),
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
console.log(`README: The page is ${kb(Buffer.byteLength(html))}, of which the wasm (${kb(wasm.length)}) is ${kb(Buffer.byteLength(parts.WASM_B64))} of LZMA in 7-bit text.`);

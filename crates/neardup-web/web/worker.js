// neardup worker: reads the documents, runs the wasm core, reports progress.
// It runs from a blob: URL made by the page, so it inherits the page's
// Content-Security-Policy: it can compile wasm but cannot reach the network.
'use strict';

let module = null;
let wasmBytes = null;

// Rough relative cost per byte of each step (measured on a 20 MB text),
// used only to move the progress bar evenly. Index = Stage::code() % 4.
const COST = [0.1, 1, 2.7, 2];
const STAGE_NAMES = ['Decoding', 'Normalizing', 'Shingling', 'Signing'];
const READ_COST = 1.4;

// The stage codes each job reports, in order (see Stage::code()); 10 is
// this worker's own: the readable reference's check of a Compare.
const ORDER = {
  compare: [0, 4, 1, 2, 3, 5, 6, 7, 8, 10],
  verify: [0, 4, 1, 2, 3, 5, 6, 7, 8],
  explain: [0, 4, 9],
};

function cost(code, sizes) {
  if (code === 8) return 1.3 * (sizes[0] + sizes[1]) / 2 + 1;
  // Explain: one core call over both texts (suffix automaton of B, walk of A).
  if (code === 9) return 6 * (sizes[0] + sizes[1]) + 1;
  // The readable reference's check, after a Compare (see referenceCheck).
  if (code === 10) return sizes[0] + sizes[1] > REFERENCE_MAX_BYTES ? 1 : 40 * (sizes[0] + sizes[1]) + 1;
  return COST[code % 4] * sizes[code >> 2] + 1;
}

function plan(op, sizes, readSizes) {
  // Cumulative weight before each stage, plus the reading phase.
  const read = READ_COST * (readSizes[0] + readSizes[1]);
  const before = {};
  let total = read;
  for (const code of ORDER[op]) {
    before[code] = total;
    total += cost(code, sizes);
  }
  return { read, before, total };
}

function label(code) {
  if (code === 8) return 'Building the receipt';
  if (code === 9) return 'Finding the shared passages';
  if (code === 10) return 'Checking with the readable reference';
  return `${STAGE_NAMES[code % 4]} document ${code < 4 ? 'A' : 'B'}`;
}

async function readDoc(doc, onBytes) {
  if (doc.file) {
    const out = new Uint8Array(doc.file.size);
    const reader = doc.file.stream().getReader();
    let at = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      out.set(value, at);
      at += value.length;
      onBytes(value.length);
    }
    return out.subarray(0, at);
  }
  return new TextEncoder().encode(doc.text);
}

function put(x, bytes) {
  const ptr = x.nd_alloc(bytes.length);
  new Uint8Array(x.memory.buffer, ptr, bytes.length).set(bytes);
  return [ptr, bytes.length];
}

function output(x, len) {
  return JSON.parse(new TextDecoder().decode(new Uint8Array(x.memory.buffer, x.nd_out(), len)));
}

function call(instance, fn, buffers) {
  const x = instance.exports;
  return output(x, x[fn](...buffers.flatMap((b) => put(x, b))));
}

/** A fresh instance per job: a trap or a 20 MB job leaves nothing behind. */
function instantiate(progress = () => {}, progressCount = () => {}) {
  return WebAssembly.instantiate(module, { neardup: { progress, progress_count: progressCount } });
}

// A collection's steps after reading, in Rust's CollectionStage order, and
// their rough cost per byte of the collection (signing dominates).
const COLLECTION_STEPS = [
  ['Signing the documents', 5.8],
  ['Scanning for pairs', 0.1],
  ['Building the receipts', 0.5],
  ['Clustering', 0.1],
  ['Drawing the heat map', 0.1],
  ['Finding each submission in the sources', 0.3],
];

/**
 * Scans a collection: reads every file straight into one wasm buffer, the
 * sources first, in the order given, and hands it to nd_collection with
 * the ids and sizes.
 */
async function collection(msg, post) {
  const all = [...msg.sources, ...msg.files];
  const sizes = all.map((f) => f.file.size);
  const bytes = sizes.reduce((a, b) => a + b, 0);
  const before = [READ_COST * bytes];
  for (const [, c] of COLLECTION_STEPS) before.push(before[before.length - 1] + c * bytes + 1);
  const total = before[before.length - 1];
  let lastPost = 0;
  const tell = (weight, text, force) => {
    const now = Date.now();
    if (force || now - lastPost > 50) {
      lastPost = now;
      post({ type: 'progress', fraction: Math.min(1, weight / total), label: text });
    }
  };
  let stage = -1;
  const instance = await instantiate(() => {}, (code, done, of) => {
    const [step, cost] = COLLECTION_STEPS[code];
    // The clusters are at scan's default threshold, which the page has from the core.
    const name = code === 3 ? `${step} at ${msg.clustersAt}` : step;
    const part = of > 0 ? done / of : 0;
    const count = code === 2 && of > 1 ? ` (${done} of ${of})` : '';
    tell(before[code] + part * (before[code + 1] - before[code]), name + count, code !== stage);
    stage = code;
  });
  const x = instance.exports;
  tell(0, 'Reading files', true);
  const data = x.nd_alloc(bytes);
  let at = 0;
  for (const [i, { id, file }] of all.entries()) {
    let chunk;
    try {
      chunk = new Uint8Array(await file.arrayBuffer());
    } catch (err) {
      throw new Error(`could not read '${id}': ${err.message}`);
    }
    if (chunk.length !== sizes[i]) throw new Error(`'${id}' changed while it was read; choose the files again`);
    // A fresh view each time: nothing runs in wasm here, but be safe.
    new Uint8Array(x.memory.buffer, data + at, chunk.length).set(chunk);
    at += chunk.length;
    tell(READ_COST * at, `Reading files (${i + 1} of ${all.length})`);
  }
  const refs = msg.sources.length;
  const request = {
    ...msg.request,
    sources: msg.sources.map((f) => f.id),
    source_sizes: sizes.slice(0, refs),
    ids: msg.files.map((f) => f.id),
    sizes: sizes.slice(refs),
  };
  const [req, reqLen] = put(x, new TextEncoder().encode(JSON.stringify(request)));
  const result = output(x, x.nd_collection(req, reqLen, data, bytes));
  post({ type: 'result', result });
}

/**
 * Renders the HTML report: the sources (a collection's), the documents
 * (files or typed text), then the base texts, one after another in one
 * buffer, handed to nd_report. The bytes are the CLI's `--report` for the
 * same files and settings.
 */
async function report(msg, post) {
  post({ type: 'progress', fraction: 0, label: 'Reading files' });
  const sources = msg.sources || [];
  const parts = [];
  for (const d of [...sources, ...msg.docs, ...msg.bases]) parts.push(await readDoc(d, () => {}));
  const lengths = parts.map((p) => p.length);
  const [refs, docs] = [sources.length, sources.length + msg.docs.length];
  const sourceSizes = lengths.slice(0, refs);
  const sizes = lengths.slice(refs, docs);
  const baseSizes = lengths.slice(docs);
  const total = parts.reduce((sum, p) => sum + p.length, 0);
  post({ type: 'progress', fraction: 0.3, label: 'Writing the report' });
  const instance = await instantiate();
  const x = instance.exports;
  const data = x.nd_alloc(total);
  let at = 0;
  for (const p of parts) {
    new Uint8Array(x.memory.buffer, data + at, p.length).set(p);
    at += p.length;
  }
  const request = { ...msg.request, source_sizes: sourceSizes, sizes, base_sizes: baseSizes };
  const [req, reqLen] = put(x, new TextEncoder().encode(JSON.stringify(request)));
  post({ type: 'result', result: output(x, x.nd_report(req, reqLen, data, total)) });
}

async function run(msg) {
  const { id, op } = msg;
  const post = (m) => self.postMessage({ id, ...m });
  if (op === 'collection') return collection(msg, post);
  if (op === 'report') return report(msg, post);
  if (op === 'sha256') {
    const instance = await instantiate();
    const r = call(instance, 'nd_sha256', [wasmBytes]);
    return post({ type: 'result', result: r });
  }
  const readSizes = msg.docs.map((d) => (d.file ? d.file.size : 0));
  const guess = msg.docs.map((d) => (d.file ? d.file.size : d.text.length));
  let p = plan(op, guess, readSizes);
  let done = 0;
  let lastPost = 0;
  const tell = (fraction, text) => {
    const now = Date.now();
    if (now - lastPost > 50 || fraction === 0) {
      lastPost = now;
      post({ type: 'progress', fraction: Math.min(1, fraction), label: text });
    }
  };
  tell(0, readSizes[0] + readSizes[1] ? 'Reading files' : 'Preparing');
  const texts = [];
  for (const d of msg.docs) {
    texts.push(await readDoc(d, (n) => {
      done += n;
      tell((READ_COST * done) / p.total, 'Reading files');
    }));
  }
  p = plan(op, texts.map((t) => t.length), readSizes);
  const instance = await instantiate((code) => {
    lastPost = 0;
    tell(p.before[code] / p.total, label(code));
  });
  const fn = { compare: 'nd_compare', verify: 'nd_verify', explain: 'nd_explain' }[op];
  const request = new TextEncoder().encode(JSON.stringify(msg.request));
  const result = call(instance, fn, [request, ...texts]);
  if (op === 'compare' && result.ok) {
    lastPost = 0;
    tell(p.before[10] / p.total, label(10));
    result.reference = await referenceCheck(texts, result);
  }
  if (op === 'explain' && result.ok) {
    // The page highlights the text that was explained. Valid UTF-8 decodes
    // to the same text as in the core; invalid UTF-8 only gets here when
    // lossy, and WHATWG's replacement is the core's (see decode.rs). The
    // BOM is kept: the core's offsets count it.
    const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
    // A document's text was extracted by the core, and comes back with
    // the result.
    result.texts = texts.map((t, i) => result.extracted[i] ?? decoder.decode(t));
  }
  post({ type: 'result', result });
}

// The readable reference (reference.js, which the page joins to this
// worker) recomputes every Compare receipt from the same bytes, decoded as
// the engine decodes plain text (a BOM kept is whitespace either way; invalid
// UTF-8 reaches here only when lossy, and WHATWG's replacement is the
// engine's). It reads plain text only, and it is plain rather than fast, so
// larger texts are left to the engine alone.
const REFERENCE_MAX_BYTES = 4 << 20;

async function referenceCheck(texts, result) {
  if (!result.formats || result.formats.some((f) => f !== 'text')) return { status: 'extracted' };
  if (texts[0].length + texts[1].length > REFERENCE_MAX_BYTES) return { status: 'large', max: REFERENCE_MAX_BYTES };
  // WebCrypto exists only in a secure context (a file, https, localhost).
  if (!self.crypto || !crypto.subtle) return { status: 'no-crypto' };
  const started = performance.now();
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  try {
    const check = await NeardupReference.check(decoder.decode(texts[0]), decoder.decode(texts[1]), result);
    return { ...check, ms: performance.now() - started };
  } catch (err) {
    // The engine's result stands; the page says the check did not finish.
    return { status: 'failed', error: String(err && err.message ? err.message : err) };
  }
}

self.onmessage = async (e) => {
  const msg = e.data;
  try {
    if (msg.op === 'init') {
      wasmBytes = new Uint8Array(msg.wasm);
      module = await WebAssembly.compile(wasmBytes);
      self.postMessage({ id: msg.id, type: 'result', result: { ok: true } });
      return;
    }
    await run(msg);
  } catch (err) {
    const text = err instanceof WebAssembly.RuntimeError
      ? `the engine stopped (${err.message}); the documents may be too large for this browser's memory`
      : String(err && err.message ? err.message : err);
    self.postMessage({ id: msg.id, type: 'error', error: text });
  }
};

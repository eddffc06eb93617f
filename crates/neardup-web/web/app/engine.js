// The engine: one worker, created from the page's own source, that runs the
// wasm core; jobs are messages to it, answered by id.
import { $ } from './dom.js';
import { lzmaDecode } from './lzma.js';
import { textDecode7 } from './text7.js';

const wasmBlock = $('wasm-b64');
// The page holds the wasm as LZMA in 7-bit text (see assemble.mjs), which it
// decodes once, as it opens.
const wasmBytes = (async () => lzmaDecode(textDecode7(wasmBlock.textContent)))();
// The worker's script is the worker block followed by the readable
// reference's block (which defines NeardupReference): one blob: script, which
// the CSP's worker-src allows, so the reference needs no eval and no other
// script source. The worker's 'use strict' comes first and covers both.
const workerUrl = URL.createObjectURL(new Blob([$('worker-src').textContent, '\n', $('reference-src').textContent], { type: 'text/javascript' }));
let worker = null;
let nextId = 1;
const pending = new Map();

function startWorker() {
  const started = new Worker(workerUrl);
  worker = started;
  worker.onmessage = (e) => {
    const m = e.data;
    const job = pending.get(m.id);
    if (!job) return;
    if (m.type === 'progress') return job.onProgress && job.onProgress(m.fraction, m.label);
    pending.delete(m.id);
    if (m.type === 'result') job.resolve(m.result);
    else job.reject(new Error(m.error));
  };
  worker.onerror = (e) => {
    e.preventDefault();
    for (const job of pending.values()) job.reject(new Error(e.message || 'the worker failed'));
    pending.clear();
  };
  // A worker cancelled before the wasm is inflated is never sent it.
  return wasmBytes.then((bytes) => worker === started && send({ op: 'init', wasm: bytes.slice().buffer }));
}

export function send(msg, onProgress) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, onProgress });
    worker.postMessage({ ...msg, id });
  });
}

export function cancelAll() {
  worker.terminate();
  for (const job of pending.values()) job.reject(new Error('cancelled'));
  pending.clear();
  ready = startWorker();
}

export let ready = startWorker();

// The hash shown is of the bytes this page actually runs, computed by the
// browser (WebCrypto), or by the engine where WebCrypto is unavailable.
const hex = (buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('');
(async () => {
  let digest;
  try {
    digest = hex(await crypto.subtle.digest('SHA-256', await wasmBytes));
  } catch {
    await ready;
    digest = await send({ op: 'sha256' });
  }
  const el = $('wasm-sha256');
  el.textContent = digest;
  if (digest !== wasmBlock.dataset.sha256) {
    el.classList.add('bad');
    el.title = `The build recorded ${wasmBlock.dataset.sha256}`;
  }
})();

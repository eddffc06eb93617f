// The Collection tab: every pair of many documents, as `neardup scan` finds them.
import { $, saveText, showError } from './dom.js';
import { fmtBytes, fmtInt, pct } from './format.js';
import { runJob } from './job.js';
import { collection, emit } from './state.js';
import { about } from './about.js';

// Ids are the files' paths as the command line prints them (see the rule
// under the form); the engine numbers and sorts the documents itself.
const MAX_ROWS = 1000;
const MAP_LIMIT = 200;

function chooseFiles(list) {
  collection.files = list;
  const bytes = list.reduce((sum, f) => sum + f.file.size, 0);
  const first = list.slice(0, 3).map((f) => f.id).join(', ');
  $('collection-chosen').textContent = list.length
    ? `${fmtInt(list.length)} document${list.length === 1 ? '' : 's'}, ${fmtBytes(bytes)}: ${first}${list.length > 3 ? ', …' : ''}`
    : 'No documents chosen. Every pair of them is checked, on this device.';
  $('collection-clear').hidden = !list.length;
}

/** A file of a folder is `FOLDER/sub/name`; a loose file is `./name` (see the rule on the page). */
const looseId = (file) => `./${file.name}`;

$('collection-open').addEventListener('click', () => $('collection-files').click());
$('collection-open-folder').addEventListener('click', () => $('collection-folder').click());
$('collection-clear').addEventListener('click', () => chooseFiles([]));
$('collection-files').addEventListener('change', (e) => {
  chooseFiles(Array.from(e.target.files, (file) => ({ id: looseId(file), file })));
  e.target.value = '';
});
$('collection-folder').addEventListener('change', (e) => {
  chooseFiles(Array.from(e.target.files, (file) => ({ id: file.webkitRelativePath || looseId(file), file })));
  e.target.value = '';
});

/** Every file under a dropped entry; a dropped folder's files are named by their path from it. */
async function walkEntry(entry, out, top) {
  if (entry.isFile) {
    const file = await new Promise((ok, fail) => entry.file(ok, fail));
    out.push({ id: top ? looseId(file) : entry.fullPath.replace(/^\//, ''), file });
  } else if (entry.isDirectory) {
    const reader = entry.createReader();
    for (;;) {
      const batch = await new Promise((ok, fail) => reader.readEntries(ok, fail));
      if (!batch.length) break;
      for (const e of batch) await walkEntry(e, out, false);
    }
  }
}

const zone = $('collection-drop');
zone.addEventListener('dragover', (e) => {
  e.preventDefault();
  zone.classList.add('drop');
});
zone.addEventListener('dragleave', (e) => {
  if (!zone.contains(e.relatedTarget)) zone.classList.remove('drop');
});
zone.addEventListener('drop', async (e) => {
  e.preventDefault();
  zone.classList.remove('drop');
  // Entries and files must be taken while the event lasts.
  const items = Array.from(e.dataTransfer.items || []).filter((i) => i.kind === 'file');
  const entries = items.map((i) => (i.webkitGetAsEntry ? i.webkitGetAsEntry() : null));
  const files = Array.from(e.dataTransfer.files);
  showError('collection-error', '');
  if (!entries.some((entry) => entry && entry.isDirectory)) {
    chooseFiles(files.map((file) => ({ id: looseId(file), file })));
    return;
  }
  const out = [];
  try {
    for (const entry of entries) await walkEntry(entry, out, true);
  } catch {
    // Chromium refuses to read a dropped folder into a page opened from
    // file:// (its origin is opaque); the folder picker has no such limit.
    showError('collection-error', 'This browser does not let a page opened from a file read a dropped folder. Use “Choose a folder…” instead (the same ids), or drop the files themselves.');
    return;
  }
  chooseFiles(out);
});

function collectionFieldError(field, message) {
  for (const f of ['k', 'n', 'threshold']) {
    const on = f === field;
    $(`collection-${f}`).setAttribute('aria-invalid', String(on));
    $(`collection-${f}-error`).textContent = on ? message : '';
  }
}

$('collection-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  collectionFieldError(null, '');
  showError('collection-error', '');
  const view = $('collection-result');
  const files = collection.files;
  if (!files.length) {
    view.dataset.state = 'error';
    showError('collection-error', 'Choose files or a folder first, or drop them on the box above.');
    return;
  }
  view.dataset.state = 'running';
  const raw = (id) => ($(id).validity.badInput ? 'not a number' : $(id).value);
  let job;
  try {
    job = await runJob('collection', {
      op: 'collection',
      files,
      clustersAt: about.threshold,
      request: {
        k: raw('collection-k'),
        n: raw('collection-n'),
        threshold: $('collection-threshold').value,
        lossy: $('lossy').checked,
        map_limit: MAP_LIMIT,
      },
    }, 'collection-run');
  } catch (err) {
    const cancelled = err.message === 'cancelled';
    view.dataset.state = cancelled ? 'cancelled' : 'error';
    view.hidden = true;
    showError('collection-error', cancelled ? 'Cancelled. Nothing was kept; run it again when you like.' : `Could not check the collection: ${err.message}`);
    return;
  }
  const r = job.result;
  if (!r.ok) {
    view.dataset.state = 'error';
    view.hidden = true;
    if (['k', 'n', 'threshold'].includes(r.field)) {
      collectionFieldError(r.field, r.error);
      $(`collection-${r.field}`).focus();
    } else showError('collection-error', r.error);
    return;
  }
  r.ms = job.ms;
  r.files = new Map(files.map((f) => [f.id, f.file]));
  r.bytes = files.reduce((sum, f) => sum + f.file.size, 0);
  collection.result = r;
  view.hidden = false;
  showCollection(r);
  view.dataset.state = 'done';
});

const verdictBadge = (verdict) => {
  const b = document.createElement('span');
  b.className = 'badge';
  b.dataset.verdict = verdict;
  b.textContent = verdict;
  return b;
};
const codeCell = (row, text, title) => {
  const td = row.insertCell();
  const code = document.createElement('code');
  code.textContent = text;
  if (title) code.title = title;
  td.append(code);
  return td;
};

function showCollection(r) {
  const docs = r.documents;
  const n = docs.length;
  $('collection-docs').textContent = fmtInt(n);
  $('collection-docs-sub').textContent = `${fmtBytes(r.bytes)}${r.skipped.length ? ` · ${fmtInt(r.skipped.length)} skipped` : ''} · k = ${r.k}, n = ${r.n}`;
  $('collection-pair-count').textContent = fmtInt(r.pairs.length);
  $('collection-pair-sub').textContent = `at or above ${r.threshold}`;
  const inClusters = r.clusters.reduce((sum, g) => sum + g.length, 0);
  $('collection-cluster-count').textContent = fmtInt(r.clusters.length);
  $('collection-cluster-sub').textContent = r.clusters.length ? `${fmtInt(inClusters)} documents, ${fmtInt(inClusters - r.clusters.length)} to drop` : 'no near-duplicates';
  $('collection-elapsed').textContent = r.ms < 1000 ? `${r.ms.toFixed(0)} ms` : `${(r.ms / 1000).toFixed(2)} s`;
  $('collection-lsh').textContent = `${r.bands} bands × ${r.rows} rows; a pair at ${r.threshold} is missed with probability ${(100 * r.miss_probability).toFixed(2)}%`;

  const notes = [];
  if (r.skipped.length) {
    const list = r.skipped.slice(0, 5).map((s) => `${s.id} (${s.error})`).join('; ');
    notes.push(`Skipped ${fmtInt(r.skipped.length)} file${r.skipped.length === 1 ? '' : 's'} that could not be read, as neardup scan does: ${list}${r.skipped.length > 5 ? '; …' : ''}. Tick “Replace invalid UTF-8” to read invalid UTF-8 lossily, as --lossy does.`);
  }
  if (r.warnings.length) {
    const list = r.warnings.slice(0, 3).map((w) => `${w.id}: ${w.warning}`).join('; ');
    notes.push(`Warnings for ${fmtInt(r.warnings.length)} document${r.warnings.length === 1 ? '' : 's'}: ${list}${r.warnings.length > 3 ? '; …' : ''}.`);
  }
  if (r.pairs.length > MAX_ROWS) notes.push(`The table shows the ${fmtInt(MAX_ROWS)} most similar of ${fmtInt(r.pairs.length)} pairs, to keep the page responsive; the downloads hold every pair.`);
  $('collection-note').textContent = notes.join(' ');
  $('collection-note').hidden = !notes.length;

  // Most similar first; a pair without a signature (two identical texts
  // shorter than k) is IDENTICAL and goes first; ties keep input order.
  const rank = (p) => (p.matches === null ? r.n + 1 : p.matches);
  const order = r.pairs.map((_, i) => i).sort((x, y) => rank(r.pairs[y]) - rank(r.pairs[x]) || x - y);
  const body = $('collection-pairs').tBodies[0];
  const frag = document.createDocumentFragment();
  for (const i of order.slice(0, MAX_ROWS)) {
    const p = r.pairs[i];
    const row = document.createElement('tr');
    row.className = 'pair-row';
    row.tabIndex = 0;
    row.dataset.pair = String(i);
    row.dataset.a = docs[p.a].id;
    row.dataset.b = docs[p.b].id;
    row.dataset.matches = String(p.matches);
    row.dataset.receiptSha256 = p.receipt_sha256;
    row.setAttribute('aria-label', `${docs[p.a].id} and ${docs[p.b].id}: ${p.verdict}; open in Evidence`);
    codeCell(row, docs[p.a].id);
    codeCell(row, docs[p.b].id);
    row.insertCell().append(verdictBadge(p.verdict));
    const sim = row.insertCell();
    sim.className = 'num';
    sim.textContent = p.similarity === null ? '—' : pct(p.similarity);
    sim.title = p.matches === null ? 'no signature: both texts are shorter than k words' : `${p.matches} of ${r.n} slots match`;
    const jac = row.insertCell();
    jac.className = 'num';
    jac.textContent = p.jaccard === null ? '—' : p.jaccard.toFixed(4);
    codeCell(row, `${p.receipt_sha256.slice(0, 12)}…`, p.receipt_sha256);
    const act = row.insertCell();
    const verify = document.createElement('button');
    verify.type = 'button';
    verify.className = 'btn btn-small pair-verify';
    verify.textContent = 'Verify';
    verify.setAttribute('aria-label', `Verify the receipt of ${docs[p.a].id} and ${docs[p.b].id}`);
    act.append(verify);
    frag.append(row);
  }
  body.replaceChildren(frag);
  const empty = $('collection-pairs-empty');
  empty.hidden = r.pairs.length > 0;
  empty.textContent = `No two of these ${fmtInt(n)} documents reach ${r.threshold}.`;

  const list = $('collection-clusters');
  list.replaceChildren(...r.clusters.map((g, i) => {
    const li = document.createElement('li');
    const head = document.createElement('p');
    head.className = 'cluster-head';
    head.textContent = `Cluster ${i + 1} · ${g.length} documents`;
    const members = document.createElement('ul');
    for (const [j, d] of g.entries()) {
      const m = document.createElement('li');
      const code = document.createElement('code');
      code.textContent = docs[d].id;
      m.append(code);
      if (j === 0) {
        const keep = document.createElement('span');
        keep.className = 'keep';
        keep.textContent = 'keep';
        m.append(' ', keep);
      }
      members.append(m);
    }
    li.append(head, members);
    return li;
  }));
  $('collection-clusters-note').textContent = r.clusters.length
    ? `Near-duplicate clusters (${about.threshold}, as neardup scan --clusters at its default threshold): each keeps its first document in path order.`
    : `No two documents are near-duplicates (${about.threshold}): nothing to cluster.`;

  $('collection-map-note').textContent = !r.map
    ? `The heat map shows up to ${MAP_LIMIT} documents; this collection has ${fmtInt(n)}, so only the table is shown.`
    : n < 2 ? 'The heat map needs two documents.' : '';
  emit('collection');
}

const stamp = () => `${collection.result.documents.length}docs-${collection.result.threshold}`;
$('collection-download-pairs').addEventListener('click', () => saveText(`neardup-pairs-${stamp()}.jsonl`, collection.result.pairs_jsonl, 'application/jsonl'));
// One canonical receipt per line, in the pairs file's order: line i's
// bytes (without the newline) hash to line i's receipt_sha256.
$('collection-download-receipts').addEventListener('click', () => saveText(`neardup-receipts-${stamp()}.jsonl`, collection.result.pairs.map((p) => `${p.receipt}\n`).join(''), 'application/jsonl'));
$('collection-download-clusters').addEventListener('click', () => saveText(`neardup-clusters-${stamp()}.jsonl`, collection.result.clusters_jsonl, 'application/jsonl'));

// The HTML report of the last run, with the base texts chosen now: byte for
// byte `neardup scan F --threshold T --report R [--base B]...`. No time is
// in it; a long collection takes a while, as evidence is found per pair.
$('collection-download-report').addEventListener('click', async () => {
  const r = collection.result;
  if (!r) return;
  showError('collection-error', '');
  const docs = Array.from(r.files, ([id, file]) => ({ id, file }));
  const bases = Array.from($('collection-base').files, (file) => ({ file }));
  let job;
  try {
    job = await runJob('collection', {
      op: 'report',
      docs,
      bases,
      request: {
        k: String(r.k),
        n: String(r.n),
        threshold: r.threshold,
        lossy: $('lossy').checked,
        ids: docs.map((d) => d.id),
        bases: bases.map((b) => b.file.name),
      },
    }, 'collection-download-report');
  } catch (err) {
    showError('collection-error', `Could not make the report: ${err.message}`);
    return;
  }
  if (!job.result.ok) return showError('collection-error', job.result.error);
  saveText(`neardup-report-${stamp()}.html`, job.result.html, 'text/html');
});

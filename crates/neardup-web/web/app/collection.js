// The Collection tab: every pair of many documents, as `neardup scan` finds them.
import { $, saveText, showError } from './dom.js';
import { fmtBytes, fmtInt, pct } from './format.js';
import { runJob } from './job.js';
import { collection, emit } from './state.js';
import { about } from './about.js';
import { ruleName, scriptSwitch } from './words.js';

// Ids are the files' paths as the command line prints them (see the rule
// under the form); the engine numbers and sorts the documents itself.
const MAX_ROWS = 1000;
const MAP_LIMIT = 200;

/** What a zone's line says about its files: how many, how big, the first few ids. */
function describe(list, one, many) {
  const bytes = list.reduce((sum, f) => sum + f.file.size, 0);
  const first = list.slice(0, 3).map((f) => f.id).join(', ');
  return `${fmtInt(list.length)} ${list.length === 1 ? one : many}, ${fmtBytes(bytes)}: ${first}${list.length > 3 ? ', …' : ''}`;
}

const against = () => $('collection-against').checked;

/** The lines under both zones, as the files chosen and the mode say. */
function describeZones() {
  const docs = collection.files;
  const subs = against();
  $('collection-chosen').textContent = docs.length
    ? describe(docs, subs ? 'submission' : 'document', subs ? 'submissions' : 'documents')
    : subs
      ? 'No submissions chosen. Each is checked against the sources, on this device.'
      : 'No documents chosen. Every pair of them is checked, on this device.';
  $('collection-clear').hidden = !docs.length;
  const sources = collection.sources;
  $('collection-sources-chosen').textContent = sources.length
    ? describe(sources, 'source', 'sources')
    : 'No sources chosen. Pairs of two sources are never reported.';
  $('collection-sources-clear').hidden = !sources.length;
}

/** A file of a folder is `FOLDER/sub/name`; a loose file is `./name` (see the rule on the page). */
const looseId = (file) => `./${file.name}`;

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

/**
 * One drop zone and its pickers (`${prefix}-drop`, `-open`, `-open-folder`,
 * `-clear`, `-files`, `-folder`): the documents (`collection`, the
 * submissions when checking against sources) or the sources
 * (`collection-sources`). What is chosen goes to `collection[key]`.
 */
function zone(prefix, key) {
  const choose = (list) => {
    collection[key] = list;
    describeZones();
  };
  $(`${prefix}-open`).addEventListener('click', () => $(`${prefix}-files`).click());
  $(`${prefix}-open-folder`).addEventListener('click', () => $(`${prefix}-folder`).click());
  $(`${prefix}-clear`).addEventListener('click', () => choose([]));
  $(`${prefix}-files`).addEventListener('change', (e) => {
    choose(Array.from(e.target.files, (file) => ({ id: looseId(file), file })));
    e.target.value = '';
  });
  $(`${prefix}-folder`).addEventListener('change', (e) => {
    choose(Array.from(e.target.files, (file) => ({ id: file.webkitRelativePath || looseId(file), file })));
    e.target.value = '';
  });
  const box = $(`${prefix}-drop`);
  box.addEventListener('dragover', (e) => {
    e.preventDefault();
    box.classList.add('drop');
  });
  box.addEventListener('dragleave', (e) => {
    if (!box.contains(e.relatedTarget)) box.classList.remove('drop');
  });
  box.addEventListener('drop', async (e) => {
    e.preventDefault();
    box.classList.remove('drop');
    // Entries and files must be taken while the event lasts.
    const items = Array.from(e.dataTransfer.items || []).filter((i) => i.kind === 'file');
    const entries = items.map((i) => (i.webkitGetAsEntry ? i.webkitGetAsEntry() : null));
    const files = Array.from(e.dataTransfer.files);
    showError('collection-error', '');
    if (!entries.some((entry) => entry && entry.isDirectory)) {
      choose(files.map((file) => ({ id: looseId(file), file })));
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
    choose(out);
  });
}
zone('collection', 'files');
zone('collection-sources', 'sources');

// "Check against sources": the sources' zone beside the documents', which
// become the submissions. Containment is what such a check is for, so an
// empty field gets 0.5; a check without it is a near-duplicate scan with
// the sources as references, as `neardup scan --against` without
// --containment.
$('collection-against').addEventListener('change', () => {
  const on = against();
  $('collection-sources-drop').hidden = !on;
  $('collection-zones').classList.toggle('two', on);
  const title = document.createElement('strong');
  title.textContent = on ? 'Submissions' : 'Drop many files or a folder here';
  $('collection-drop-title').replaceChildren(title, on ? ': drop many files or a folder, or' : ', or');
  $('collection-run').textContent = on ? 'Check the submissions' : 'Check every pair';
  if (on && !$('collection-containment').value.trim()) $('collection-containment').value = '0.5';
  containmentChanged();
  describeZones();
});

// The command line refuses --threshold with --containment: the field
// that is not read is disabled.
function containmentChanged() {
  const off = $('collection-containment').value.trim() !== '';
  $('collection-threshold').disabled = off;
  $('collection-threshold').title = off ? 'Not used with containment: clear Containment to scan for near-duplicates at this threshold.' : '';
}
$('collection-containment').addEventListener('input', containmentChanged);

const FIELDS = ['k', 'n', 'words', 'threshold', 'containment'];

function collectionFieldError(field, message) {
  for (const f of FIELDS) {
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
  const sources = against() ? collection.sources : [];
  if (!files.length || (against() && !sources.length)) {
    view.dataset.state = 'error';
    view.hidden = true;
    showError('collection-error', !files.length
      ? `Choose ${against() ? 'the submissions' : 'files or a folder'} first, or drop them on the box above.`
      : 'Choose the sources to check the submissions against, or untick “Check against sources”.');
    $(!files.length ? 'collection-open' : 'collection-sources-open').focus();
    return;
  }
  view.dataset.state = 'running';
  const raw = (id) => ($(id).validity.badInput ? 'not a number' : $(id).value);
  let job;
  try {
    job = await runJob('collection', {
      op: 'collection',
      files,
      sources,
      clustersAt: about.threshold,
      request: {
        k: raw('collection-k'),
        n: raw('collection-n'),
        words: $('collection-words').value,
        threshold: $('collection-threshold').value,
        containment: $('collection-containment').value,
        against: against(),
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
    if (FIELDS.includes(r.field)) {
      collectionFieldError(r.field, r.error);
      $(`collection-${r.field}`).focus();
    } else showError('collection-error', r.error);
    return;
  }
  r.ms = job.ms;
  r.sourceList = sources;
  r.docList = files;
  r.files = new Map([...sources, ...files].map((f) => [f.id, f.file]));
  r.bytes = [...sources, ...files].reduce((sum, f) => sum + f.file.size, 0);
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

/** The figures above the tables. */
function showStats(r) {
  const n = r.documents.length;
  const parts = r.refs ? `${fmtInt(n - r.refs)} submissions, ${fmtInt(r.refs)} sources · ` : '';
  $('collection-docs').textContent = fmtInt(n);
  $('collection-docs-sub').textContent = `${parts}${fmtBytes(r.bytes)}${r.skipped.length ? ` · ${fmtInt(r.skipped.length)} skipped` : ''} · k = ${r.k}, n = ${r.n}, ${ruleName(r.words)}`;
  $('collection-pair-count').textContent = fmtInt(r.pairs.length);
  $('collection-pair-sub').textContent = r.containment ? `containment at or above ${r.containment}` : `at or above ${r.threshold}`;
  const inClusters = r.clusters.reduce((sum, g) => sum + g.length, 0);
  $('collection-cluster-label').textContent = r.containment ? 'Clusters' : `Clusters at ${about.threshold}`;
  $('collection-cluster-count').textContent = fmtInt(r.clusters.length);
  $('collection-cluster-sub').textContent = r.clusters.length ? `${fmtInt(inClusters)} documents, ${fmtInt(r.dropped.length)} to drop` : r.containment ? 'no pairs' : 'no near-duplicates';
  $('collection-elapsed').textContent = r.ms < 1000 ? `${r.ms.toFixed(0)} ms` : `${(r.ms / 1000).toFixed(2)} s`;
  $('collection-lsh').textContent = r.containment
    ? `containment found exactly: no pair at ${r.containment} is missed`
    : `${r.bands} bands × ${r.rows} rows; a pair at ${r.threshold} is missed with probability ${(100 * r.miss_probability).toFixed(2)}%`;
}

/** A share as the report writes it, with a bar. */
function shareCell(row, share, fraction) {
  const td = row.insertCell();
  const box = document.createElement('span');
  box.className = 'share';
  const bar = document.createElement('span');
  bar.className = 'share-bar';
  bar.setAttribute('aria-hidden', 'true');
  const fill = document.createElement('span');
  fill.style.width = `${(100 * fraction).toFixed(1)}%`;
  bar.append(fill);
  const text = document.createElement('strong');
  text.textContent = share;
  box.append(bar, text);
  td.append(box);
}

// The report's submissions table, as the engine computed it (the same
// rule, order and rounding as `neardup scan --against --containment
// --report`): one row per submission.
function showSubmissions(r) {
  const box = $('collection-submissions-box');
  const body = $('collection-submissions').tBodies[0];
  box.hidden = !r.submissions;
  if (!r.submissions) {
    body.replaceChildren();
    return;
  }
  const docs = r.documents;
  const pairIndex = new Map(r.pairs.map((p, i) => [`${p.a} ${p.b}`, i]));
  const frag = document.createDocumentFragment();
  for (const [i, s] of r.submissions.slice(0, MAX_ROWS).entries()) {
    const row = document.createElement('tr');
    row.dataset.doc = docs[s.doc].id;
    row.dataset.share = s.share === null ? '' : s.share;
    const number = row.insertCell();
    number.className = 'num';
    number.textContent = String(i + 1);
    codeCell(row, docs[s.doc].id);
    const words = row.insertCell();
    words.className = 'num';
    if (s.share === null) {
      row.className = 'muted-row';
      words.textContent = '—';
      row.insertCell().textContent = '—';
      row.insertCell().textContent = `no source at or over ${r.containment}`;
    } else {
      words.textContent = fmtInt(s.words);
      shareCell(row, s.share, s.words ? s.found / s.words : 0);
      const list = document.createElement('ul');
      list.className = 'parts';
      for (const part of s.parts) {
        const li = document.createElement('li');
        const open = document.createElement('button');
        open.type = 'button';
        open.className = 'btn-link';
        open.dataset.pair = String(pairIndex.get(`${part.source} ${s.doc}`));
        open.textContent = docs[part.source].id;
        open.title = `Open ${docs[s.doc].id} and ${docs[part.source].id} in Evidence`;
        const share = document.createElement('span');
        share.className = 'part';
        share.textContent = ` ${part.share}`;
        li.append(open, share);
        list.append(li);
      }
      row.insertCell().append(list);
    }
    frag.append(row);
  }
  body.replaceChildren(frag);
  const more = r.submissions.length > MAX_ROWS ? ` The table shows the first ${fmtInt(MAX_ROWS)} of ${fmtInt(r.submissions.length)}; the report holds them all.` : '';
  $('collection-submissions-note').textContent = `For each submission, the share of its words found in any source: the words inside passages of at least ${r.k} words that a source has too, counted once however many sources have them. The sources listed are those paired with it: one of the two holds at least ${r.containment} of the other’s distinct shingles. Highest share first, as the report opens; click a source to see the passages in Evidence.${more}`;
}
$('collection-submissions').tBodies[0].addEventListener('click', (e) => {
  const open = e.target.closest && e.target.closest('button[data-pair]');
  const p = open && collection.result.pairs[Number(open.dataset.pair)];
  if (p) emit('open-pair', p);
});

function showCollection(r) {
  const docs = r.documents;
  const n = docs.length;
  showStats(r);

  const notes = [];
  if (r.skipped.length) {
    const list = r.skipped.slice(0, 5).map((s) => `${s.id} (${s.error})`).join('; ');
    notes.push(`Skipped ${fmtInt(r.skipped.length)} file${r.skipped.length === 1 ? '' : 's'} that could not be read, as neardup scan does: ${list}${r.skipped.length > 5 ? '; …' : ''}. Tick “Replace invalid UTF-8” to read invalid UTF-8 lossily, as --lossy does.`);
  }
  if (r.warnings.length) {
    const list = r.warnings.slice(0, 3).map((w) => `${w.id}: ${w.warning}`).join('; ');
    notes.push(`Warnings for ${fmtInt(r.warnings.length)} document${r.warnings.length === 1 ? '' : 's'}: ${list}${r.warnings.length > 3 ? '; …' : ''}.`);
  }
  if (r.pairs.length > MAX_ROWS) notes.push(`The table shows the ${fmtInt(MAX_ROWS)} ${r.containment ? 'most contained' : 'most similar'} of ${fmtInt(r.pairs.length)} pairs, to keep the page responsive; the downloads hold every pair.`);
  $('collection-note').textContent = notes.join(' ');
  const useScript = scriptSwitch('collection-use-script', r.warnings.map((w) => w.warning), { words: 'collection-words', k: 'collection-k', form: 'collection-form' });
  if (useScript) $('collection-note').append(useScript);
  $('collection-note').hidden = !notes.length;
  showSubmissions(r);

  // Most similar first; a pair without a signature (two identical texts
  // shorter than k) is IDENTICAL and goes first; ties keep input order.
  // With containment, the report's order: the most contained first, then
  // identical pairs, then by matching slots.
  const held = (p) => Math.max(p.containment.a_in_b ?? 0, p.containment.b_in_a ?? 0);
  const rank = r.containment
    ? (p) => (p.verdict === 'IDENTICAL' ? r.n + 1 : 0) + (p.matches ?? 0)
    : (p) => (p.matches === null ? r.n + 1 : p.matches);
  const by = r.containment ? (x, y) => held(y) - held(x) : () => 0;
  const order = r.pairs.map((_, i) => i).sort((x, y) => by(r.pairs[x], r.pairs[y]) || rank(r.pairs[y]) - rank(r.pairs[x]) || x - y);
  for (const th of $('collection-pairs').querySelectorAll('th.col-contained')) th.hidden = !r.containment;
  $('collection-pairs-order').textContent = r.containment ? 'Most contained first.' : 'Most similar first.';
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
    if (r.containment) {
      for (const [x, of] of [[p.containment_pct[0], p.a], [p.containment_pct[1], p.b]]) {
        const td = row.insertCell();
        td.className = 'num';
        td.textContent = x === null ? '—' : x;
        td.title = `${fmtInt(p.containment.shared)} of the ${fmtInt(docs[of].shingles)} distinct shingles of ${docs[of].id}`;
      }
    }
    codeCell(row, `${p.receipt_sha256.slice(0, 12)}…`, p.receipt_sha256).className = 'col-receipt';
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
  empty.textContent = r.containment
    ? `No pair of these ${fmtInt(n)} documents reaches containment ${r.containment}.`
    : `No two of these ${fmtInt(n)} documents reach ${r.threshold}.`;

  // Who is kept: the first of each cluster, any source, and with
  // containment every document that is the smaller side of no pair.
  const dropped = new Set(r.dropped);
  const list = $('collection-clusters');
  list.replaceChildren(...r.clusters.map((g, i) => {
    const li = document.createElement('li');
    const head = document.createElement('p');
    head.className = 'cluster-head';
    head.textContent = `Cluster ${i + 1} · ${g.length} documents`;
    const members = document.createElement('ul');
    for (const d of g) {
      const m = document.createElement('li');
      const code = document.createElement('code');
      code.textContent = docs[d].id;
      m.append(code);
      if (!dropped.has(d)) {
        const keep = document.createElement('span');
        keep.className = 'keep';
        keep.textContent = d < r.refs ? 'source' : 'keep';
        m.append(' ', keep);
      }
      members.append(m);
    }
    li.append(head, members);
    return li;
  }));
  $('collection-clusters-note').textContent = r.containment
    ? r.clusters.length
      ? `Documents joined by the pairs at containment ${r.containment}, as neardup scan --containment --clusters: each cluster lists its largest document first; in each pair the smaller side is dropped${r.refs ? ', never a source' : ''}.`
      : 'No pairs: nothing to cluster.'
    : r.clusters.length
      ? `Near-duplicate clusters (${about.threshold}, as neardup scan --clusters at its default threshold): each keeps its first document in path order${r.refs ? ', and the sources' : ''}.`
      : `No two documents are near-duplicates (${about.threshold}): nothing to cluster.`;

  $('collection-map-note').textContent = !r.map
    ? `The heat map shows up to ${MAP_LIMIT} documents; this collection has ${fmtInt(n)}, so only the table is shown.`
    : n < 2 ? 'The heat map needs two documents.' : '';
  emit('collection');
}

const stamp = () => {
  const r = collection.result;
  return `${r.documents.length}docs-${r.containment ? `containment${r.containment}` : r.threshold}`;
};
$('collection-download-pairs').addEventListener('click', () => saveText(`neardup-pairs-${stamp()}.jsonl`, collection.result.pairs_jsonl, 'application/jsonl'));
// One canonical receipt per line, in the pairs file's order: line i's
// bytes (without the newline) hash to line i's receipt_sha256.
$('collection-download-receipts').addEventListener('click', () => saveText(`neardup-receipts-${stamp()}.jsonl`, collection.result.pairs.map((p) => `${p.receipt}\n`).join(''), 'application/jsonl'));
$('collection-download-clusters').addEventListener('click', () => saveText(`neardup-clusters-${stamp()}.jsonl`, collection.result.clusters_jsonl, 'application/jsonl'));

// The HTML report of the last run, with the base texts chosen now: byte for
// byte `neardup scan F [--against S] [--threshold T | --containment C]
// --report R [--base B]...`. No time is in it; a long collection takes a
// while, as evidence is found per pair.
$('collection-download-report').addEventListener('click', async () => {
  const r = collection.result;
  if (!r) return;
  showError('collection-error', '');
  const docs = r.docList.map(({ id, file }) => ({ id, file }));
  const sources = r.sourceList.map(({ id, file }) => ({ id, file }));
  const bases = Array.from($('collection-base').files, (file) => ({ file }));
  let job;
  try {
    job = await runJob('collection', {
      op: 'report',
      sources,
      docs,
      bases,
      request: {
        k: String(r.k),
        n: String(r.n),
        words: r.words,
        threshold: r.threshold,
        containment: r.containment || '',
        lossy: $('lossy').checked,
        sources: sources.map((d) => d.id),
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

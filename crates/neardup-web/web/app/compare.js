// The Compare tab: the verdict, the figures and the receipt of A and B.
import { $, saveText, showError } from './dom.js';
import { documents, files, labels, names } from './documents.js';
import { fmtInt, pct } from './format.js';
import { runJob } from './job.js';
import { selectTab } from './tabs.js';
import { ruleName, scriptSwitch } from './words.js';

const VERDICT_WHY = {
  IDENTICAL: 'After lowercasing and collapsing whitespace, the two texts are exactly the same.',
  'NEAR-DUPLICATE': 'At least 75% of the signature slots match.',
  OVERLAPPING: 'Between 35% and 75% of the signature slots match.',
  DISTINCT: 'Fewer than 35% of the signature slots match.',
  'INSUFFICIENT-DATA': 'A document has fewer than k words, so it has no signature to compare.',
};

let lastReceipt = null;

const hexCode = (cp) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
const inMs = (ms) => (ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`);

/** What the readable reference (reference.js, run by the worker) said of this receipt. */
function referenceLine(ref) {
  if (!ref) return ['idle', ''];
  switch (ref.status) {
    case 'same':
      return ['same', `Checked by the readable reference in this page: same receipt (${inMs(ref.ms)}).`];
    case 'differs':
      return ['differs', `The readable reference in this page gives another receipt: ${ref.fields.join(', ')} ${ref.fields.length > 1 ? 'differ' : 'differs'}. Please report this.`];
    case 'unicode':
      return ['unicode', `Not checked by the readable reference: this browser's Unicode data is ${ref.version}, not the 17.0 that the algorithm pins, and the texts hold ${ref.unknown.length} character${ref.unknown.length > 1 ? 's' : ''} it does not know (${ref.unknown.slice(0, 3).map(hexCode).join(', ')}${ref.unknown.length > 3 ? ', …' : ''}), which its toLowerCase may read differently. The receipt above is the engine's, which carries Unicode 17.0.`];
    case 'extracted':
      return ['skipped', 'Not checked by the readable reference: a document\'s text was extracted from its format by the engine, and the reference reads plain text only.'];
    case 'no-crypto':
      return ['skipped', 'Not checked by the readable reference: this browser gives it no SHA-256 (WebCrypto) here, as over plain http; open the page from a file or over https.'];
    case 'failed':
      return ['skipped', `Not checked by the readable reference: it stopped (${ref.error}).`];
    case 'large':
      return ['skipped', `Not checked by the readable reference: it is plain, not fast, and checks texts up to ${ref.max >> 20} MB together.`];
    default:
      return ['idle', ''];
  }
}

const COMPARE_FIELDS = ['k', 'n', 'words'];

function fieldError(field, message) {
  for (const f of COMPARE_FIELDS) {
    const on = f === field;
    $(f).setAttribute('aria-invalid', String(on));
    $(`${f}-error`).textContent = on ? message : '';
  }
}

$('compare-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  fieldError(null, '');
  showError('compare-error', '');
  const result = $('result');
  result.dataset.state = 'running';
  // A number input holds '' for text it cannot parse; say so, don't guess.
  const raw = (id) => ($(id).validity.badInput ? 'not a number' : $(id).value);
  let job;
  try {
    job = await runJob('compare', {
      op: 'compare',
      docs: documents(),
      request: { k: raw('k'), n: raw('n'), words: $('words').value, lossy: $('lossy').checked, names: names(), files: files() },
    });
  } catch (err) {
    result.dataset.state = 'error';
    result.hidden = true;
    showError('compare-error', `Could not compare: ${err.message}`);
    return;
  }
  const r = job.result;
  if (!r.ok) {
    // A result left on screen would look like the answer for these inputs.
    result.dataset.state = 'error';
    result.hidden = true;
    if (COMPARE_FIELDS.includes(r.field)) {
      fieldError(r.field, r.error);
      $(r.field).focus();
    } else showError('compare-error', r.error);
    return;
  }
  // The receipt object keeps serde's canonical key order and holds only
  // integers, nulls and ASCII strings, so JSON.stringify gives back
  // exactly the canonical bytes.
  r.canonical = JSON.stringify(r.receipt);
  lastReceipt = r;
  const v = $('verdict');
  v.textContent = r.verdict;
  v.dataset.verdict = r.verdict;
  $('verdict-why').textContent = VERDICT_WHY[r.verdict];
  const read = r.formats.map((f, i) => (f === 'text' ? null : `${'AB'[i]} was read as ${f.toUpperCase()}`)).filter(Boolean);
  const notes = [...(read.length ? [`${read.join(', ')} (text extracted by ${r.extractor}).`] : []), ...r.warnings.map((w) => `Warning: ${w}.`)];
  $('compare-notes').textContent = notes.join(' ');
  const useScript = scriptSwitch('compare-use-script', r.warnings, { words: 'words', k: 'k', form: 'compare-form' });
  if (useScript) $('compare-notes').append(useScript);
  $('compare-notes').hidden = !notes.length;
  $('matches').textContent = r.matches === null ? '—' : String(r.matches);
  $('n-out').textContent = String(r.n);
  $('similarity').textContent = r.similarity === null
    ? 'no signature'
    : `${pct(r.similarity)} · 95% interval ${pct(r.similarity_interval_95[0])} to ${pct(r.similarity_interval_95[1])}`;
  $('jaccard').textContent = r.jaccard === null ? '—' : r.jaccard.toFixed(4);
  showContainment(r);
  $('shingles-a').textContent = fmtInt(r.receipt.documents[0].shingles);
  $('shingles-b').textContent = fmtInt(r.receipt.documents[1].shingles);
  $('k-out').textContent = `k = ${r.receipt.k} ${ruleName(r.words)}`;
  // The reference's own check ran after the engine, in the same job.
  $('elapsed').textContent = inMs(job.ms - (r.reference && r.reference.ms ? r.reference.ms : 0));
  const [state, line] = referenceLine(r.reference);
  $('compare-reference').dataset.state = state;
  $('compare-reference').textContent = line;
  $('receipt').textContent = r.canonical;
  $('receipt-sha256').textContent = r.receipt_sha256;
  result.hidden = false;
  result.dataset.state = 'done';
});

// How much of each document is found in the other, as `neardup compare`
// prints it: a short text copied from a long one reads DISTINCT, so the
// sentence says so when either direction reaches 20%.
function showContainment(r) {
  const c = r.containment;
  const share = (x) => (x === null ? 'undefined' : `${(100 * x).toFixed(1)}%`);
  $('containment').textContent = `A in B ${share(c.a_in_b)} · B in A ${share(c.b_in_a)}`;
  $('containment-sub').textContent = `${fmtInt(c.shared)} shared shingle${c.shared === 1 ? '' : 's'} · exact, not part of the receipt`;
  const [sa, sb] = r.receipt.documents.map((d) => d.shingles);
  // The smaller set is the one most contained (A on a tie), decided in
  // integers as the CLI decides it: 5·shared ≥ size.
  const side = sa === 0 && sb === 0 ? -1 : sb === 0 || (sa > 0 && sa <= sb) ? 0 : 1;
  const size = side === 0 ? sa : sb;
  const show = side >= 0 && (r.verdict === 'DISTINCT' || r.verdict === 'OVERLAPPING') && 5 * c.shared >= size;
  const [me, other] = side === 0 ? ['A', 'B'] : ['B', 'A'];
  $('contained').textContent = show
    ? `${share(side === 0 ? c.a_in_b : c.b_in_a)} of ${me} (${r[me.toLowerCase()]}) is found in ${other} (${r[other.toLowerCase()]}). ${r.verdict} judges the two documents as wholes; containment says how much of one is in the other.`
    : '';
  $('contained').hidden = !show;
}

function flash(button, text) {
  const old = button.dataset.label || button.textContent;
  button.dataset.label = old;
  button.textContent = text;
  setTimeout(() => (button.textContent = old), 1500);
}

$('copy-receipt').addEventListener('click', async (e) => {
  const button = e.currentTarget;
  const text = $('receipt').textContent;
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const range = document.createRange();
    range.selectNodeContents($('receipt'));
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    document.execCommand('copy');
  }
  flash(button, 'Copied ✓');
});

// Exactly the canonical bytes, so that sha256sum of the file is the receipt hash.
$('download-receipt').addEventListener('click', () => saveText(`receipt-${$('receipt-sha256').textContent.slice(0, 12)}.json`, $('receipt').textContent, 'application/json'));

$('use-receipt').addEventListener('click', () => {
  if (!lastReceipt) return;
  $('verify-receipt').value = lastReceipt.canonical;
  $('verify-sha256').value = lastReceipt.receipt_sha256;
  selectTab($('tab-verify'), false);
  $('verify').focus();
});

// The HTML report of this comparison: byte for byte `neardup compare A B
// --report` run where A and B have these names. No time is in it.
$('download-report').addEventListener('click', async () => {
  if (!lastReceipt) return;
  showError('compare-error', '');
  let job;
  try {
    job = await runJob('compare', {
      op: 'report',
      docs: documents(),
      bases: [],
      request: { k: String(lastReceipt.receipt.k), n: String(lastReceipt.receipt.n), words: lastReceipt.words, lossy: $('lossy').checked, ids: labels(), files: files() },
    }, 'download-report');
  } catch (err) {
    showError('compare-error', `Could not make the report: ${err.message}`);
    return;
  }
  const r = job.result;
  if (!r.ok) return showError('compare-error', r.error);
  saveText(`neardup-report-${lastReceipt.receipt_sha256.slice(0, 12)}.html`, r.html, 'text/html');
});

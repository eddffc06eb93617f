// A pair of the collection, opened in Evidence and Verify.
import { $ } from './dom.js';
import { setFile } from './documents.js';
import { selectTab } from './tabs.js';
import { collection, on } from './state.js';

let fromPair = null;

/** The Evidence banner belongs to the pair it came from; new documents end it. */
function forgetPair() {
  fromPair = null;
  $('evidence-from').hidden = true;
}

async function loadPair(p) {
  const r = collection.result;
  const [a, b] = [r.documents[p.a].id, r.documents[p.b].id];
  await Promise.all([setFile('a', r.files.get(a), a), setFile('b', r.files.get(b), b)]);
  fromPair = p;
  $('evidence-from-names').textContent = `A = ${a}, B = ${b}`;
  $('evidence-from-verdict').textContent = p.receipt ? `${p.verdict}, receipt ${p.receipt_sha256.slice(0, 12)}…` : `not reported at ${r.containment ? `containment ${r.containment}` : r.threshold}`;
  $('evidence-verify-receipt').hidden = !p.receipt;
  $('evidence-from').hidden = false;
}

async function openPair(p) {
  await loadPair(p);
  $('evidence-k').value = String(collection.result.k);
  $('evidence-words').value = collection.result.words;
  selectTab($('tab-evidence'), false);
  $('evidence-form').requestSubmit();
}

function verifyReceipt(p) {
  $('verify-receipt').value = p.receipt;
  $('verify-sha256').value = p.receipt_sha256;
  selectTab($('tab-verify'), false);
  $('verify').focus();
}

const pairOf = (target) => {
  const row = target.closest && target.closest('tr.pair-row');
  return row ? collection.result.pairs[Number(row.dataset.pair)] : null;
};
const pairsBody = $('collection-pairs').tBodies[0];
pairsBody.addEventListener('click', async (e) => {
  const p = pairOf(e.target);
  if (!p) return;
  if (e.target.closest('.pair-verify')) {
    await loadPair(p);
    verifyReceipt(p);
  } else openPair(p);
});
pairsBody.addEventListener('keydown', (e) => {
  if ((e.key === 'Enter' || e.key === ' ') && e.target.matches('tr.pair-row')) {
    e.preventDefault();
    openPair(pairOf(e.target));
  }
});
$('evidence-verify-receipt').addEventListener('click', () => fromPair && fromPair.receipt && verifyReceipt(fromPair));
$('evidence-back').addEventListener('click', () => {
  selectTab($('tab-collection'), false);
  const row = fromPair && pairsBody.querySelector(`tr[data-pair="${collection.result.pairs.indexOf(fromPair)}"]`);
  if (row) row.focus();
});
on('documents-replaced', forgetPair);
on('open-pair', openPair);

// The Verify tab: a receipt checked against documents A and B.
import { $ } from './dom.js';
import { documents, files, names } from './documents.js';
import { fmtBytes } from './format.js';
import { runJob } from './job.js';
import { on } from './state.js';
import { ruleName, ruleOf } from './words.js';

$('open-receipt').addEventListener('click', () => $('verify-file').click());
async function loadReceipt(file) {
  if (file.size > 1 << 20) {
    showStatus('ERROR', `'${file.name}' is ${fmtBytes(file.size)}; a receipt is a few hundred bytes.`);
    return;
  }
  $('verify-receipt').value = await file.text();
  showWords();
}
$('verify-file').addEventListener('change', (e) => e.target.files[0] && loadReceipt(e.target.files[0]));
$('verify-receipt').addEventListener('drop', (e) => {
  const f = e.dataTransfer.files[0];
  if (!f) return;
  e.preventDefault();
  e.stopPropagation();
  loadReceipt(f);
});

/**
 * The Words line: the rule that the receipt's algorithm names, as far as
 * its JSON can be read here (the engine reads it again, strictly, and its
 * answer has the last word). A receipt is the canonical object, or inside
 * `neardup compare --json`'s output.
 */
function showWords(algorithm) {
  if (algorithm === undefined) {
    try {
      const json = JSON.parse($('verify-receipt').value);
      algorithm = (json.receipt ?? json).algorithm;
    } catch {
      // Not JSON yet: say nothing about it.
    }
  }
  const rule = typeof algorithm === 'string' ? ruleOf(algorithm) : null;
  $('verify-words').textContent = rule
    ? `Words: ${ruleName(rule)}, as its algorithm ${algorithm} says.`
    : typeof algorithm === 'string'
      ? `Words: its algorithm '${algorithm}' is not one this page knows.`
      : "Words: from the receipt's algorithm.";
}
$('verify-receipt').addEventListener('input', () => showWords());
// Other tabs fill the receipt in and then show this one.
on('tab', (tab) => tab.id === 'tab-verify' && showWords());

function showStatus(status, detail, mismatches) {
  const box = $('verify-result');
  box.replaceChildren();
  box.dataset.state = status.toLowerCase();
  const head = document.createElement('p');
  head.className = 'status-head';
  const word = document.createElement('strong');
  word.textContent = status;
  head.append(word, document.createTextNode(` ${detail}`));
  box.append(head);
  if (mismatches && mismatches.length) {
    const table = document.createElement('table');
    table.className = 'mismatches';
    const cap = table.createCaption();
    cap.textContent = 'Fields that differ';
    const hr = table.createTHead().insertRow();
    for (const h of ['Field', 'What it means', 'Receipt says', 'Texts give']) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = h;
      hr.append(th);
    }
    const body = table.createTBody();
    for (const m of mismatches) {
      const row = body.insertRow();
      const cells = [m.field, m.meaning, m.claimed, m.actual];
      cells.forEach((text, i) => {
        const td = row.insertCell();
        if (i === 1) td.textContent = text;
        else {
          const code = document.createElement('code');
          code.textContent = text;
          td.append(code);
        }
      });
    }
    box.append(table);
  }
  box.hidden = false;
}

$('verify-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  let job;
  try {
    job = await runJob('verify', {
      op: 'verify',
      docs: documents(),
      request: { receipt: $('verify-receipt').value, sha256: $('verify-sha256').value, lossy: $('lossy').checked, names: names(), files: files() },
    });
  } catch (err) {
    showStatus('ERROR', `Could not verify: ${err.message}`);
    return;
  }
  const r = job.result;
  if (r.ok && r.algorithm) showWords(r.algorithm);
  if (!r.ok) showStatus('ERROR', r.error);
  else if (r.status === 'MALFORMED') showStatus('MALFORMED', `— ${r.error}`);
  else if (r.status === 'VERIFIED') showStatus('VERIFIED', `— the receipt matches documents A and B (${r.verdict}; k = ${r.k}, n = ${r.n}, ${ruleName(r.words)}). Receipt SHA-256 ${r.receipt_sha256}`);
  else {
    const n = r.mismatches.length;
    showStatus('MISMATCH', `— ${n} field${n === 1 ? '' : 's'} differ: the receipt was not made from these documents with these settings.${r.note ? ` ${r.note}` : ''}`, r.mismatches);
  }
});

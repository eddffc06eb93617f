// The Verify tab: a receipt checked against documents A and B.
import { $ } from './dom.js';
import { documents, files, names } from './documents.js';
import { fmtBytes } from './format.js';
import { runJob } from './job.js';

$('open-receipt').addEventListener('click', () => $('verify-file').click());
async function loadReceipt(file) {
  if (file.size > 1 << 20) {
    showStatus('ERROR', `'${file.name}' is ${fmtBytes(file.size)}; a receipt is a few hundred bytes.`);
    return;
  }
  $('verify-receipt').value = await file.text();
}
$('verify-file').addEventListener('change', (e) => e.target.files[0] && loadReceipt(e.target.files[0]));
$('verify-receipt').addEventListener('drop', (e) => {
  const f = e.dataTransfer.files[0];
  if (!f) return;
  e.preventDefault();
  e.stopPropagation();
  loadReceipt(f);
});

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
  if (!r.ok) showStatus('ERROR', r.error);
  else if (r.status === 'MALFORMED') showStatus('MALFORMED', `— ${r.error}`);
  else if (r.status === 'VERIFIED') showStatus('VERIFIED', `— the receipt matches documents A and B (${r.verdict}). Receipt SHA-256 ${r.receipt_sha256}`);
  else {
    const n = r.mismatches.length;
    showStatus('MISMATCH', `— ${n} field${n === 1 ? '' : 's'} differ: the receipt was not made from these documents with these settings.${r.note ? ` ${r.note}` : ''}`, r.mismatches);
  }
});

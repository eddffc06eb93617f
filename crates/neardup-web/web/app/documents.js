// Documents A and B: typed text or a file (opened, dropped, or a pair of the
// collection), as the Compare, Verify and Evidence tabs read them.
import { $ } from './dom.js';
import { fmtBytes, fmtInt } from './format.js';
import { emit } from './state.js';

const docs = { a: { file: null }, b: { file: null } };

function updateCount(key) {
  const d = docs[key];
  const out = $(`count-${key}`);
  if (d.file) out.textContent = d.file.size > 4096 ? 'Showing the first 4 KB; the whole file is read when you run.' : 'The file is read when you run.';
  else {
    const n = $(`text-${key}`).value.length;
    out.textContent = n ? `${fmtInt(n)} characters` : 'Empty';
  }
}

/** A document format that has no readable preview, told by its first bytes (EXTRACT.md). */
function documentKind(b) {
  const starts = (s) => s.split('').every((c, i) => b[i] === c.charCodeAt(0));
  if (starts('PK\x03\x04')) return 'a zipped document (DOCX, ODT or EPUB)';
  if (starts('{\\rtf')) return 'an RTF document';
  const head = new TextDecoder('latin1').decode(b.subarray(0, 1024));
  return head.includes('%PDF-') ? 'a PDF document' : null;
}

/** Makes `file` document `key`; `label` names it (a collection id), else its file name. */
export async function setFile(key, file, label) {
  const d = docs[key];
  d.file = file;
  d.label = file ? label || file.name : null;
  const area = $(`text-${key}`);
  $(`chip-${key}`).hidden = !file;
  $(`doc-${key}`).classList.toggle('has-file', !!file);
  if (file) {
    $(`chip-name-${key}`).textContent = d.label;
    $(`chip-size-${key}`).textContent = fmtBytes(file.size);
    d.savedText = area.value;
    area.readOnly = true;
    area.setAttribute('aria-readonly', 'true');
    const bytes = new Uint8Array(await file.slice(0, 4096).arrayBuffer());
    const kind = documentKind(bytes);
    const head = kind
      ? `(${kind}: its text is extracted when you run; the Evidence tab shows it)`
      : new TextDecoder().decode(bytes) + (file.size > 4096 ? '\n…' : '');
    if (d.file === file) area.value = head;
  } else {
    area.readOnly = false;
    area.removeAttribute('aria-readonly');
    area.value = d.savedText || '';
    $(`file-${key}`).value = '';
  }
  updateCount(key);
}

for (const key of ['a', 'b']) {
  const area = $(`text-${key}`);
  const input = $(`file-${key}`);
  const card = $(`doc-${key}`);
  area.addEventListener('input', () => {
    updateCount(key);
    emit('documents-replaced');
  });
  $(`open-${key}`).addEventListener('click', () => input.click());
  input.addEventListener('change', () => input.files[0] && (emit('documents-replaced'), setFile(key, input.files[0])));
  $(`clear-${key}`).addEventListener('click', () => {
    emit('documents-replaced');
    setFile(key, null);
    area.focus();
  });
  card.addEventListener('dragover', (e) => {
    e.preventDefault();
    card.classList.add('drop');
  });
  card.addEventListener('dragleave', (e) => {
    if (!card.contains(e.relatedTarget)) card.classList.remove('drop');
  });
  card.addEventListener('drop', (e) => {
    e.preventDefault();
    card.classList.remove('drop');
    const f = e.dataTransfer.files[0];
    if (f) emit('documents-replaced'), setFile(key, f);
  });
}
// A file dropped anywhere else must not navigate away from the page.
window.addEventListener('dragover', (e) => e.preventDefault());
window.addEventListener('drop', (e) => e.preventDefault());

export function documents() {
  return ['a', 'b'].map((key) => (docs[key].file ? { file: docs[key].file } : { text: $(`text-${key}`).value }));
}
/** The documents' file names (null for typed text): they tell HTML from plain text. */
export const files = () => ['a', 'b'].map((key) => (docs[key].file ? docs[key].file.name : null));
/** The documents' names as a report shows them: the file's label, else "document A". */
export const labels = () => ['a', 'b'].map((key) => (docs[key].file ? docs[key].label : `document ${key.toUpperCase()}`));
export const names = () => ['a', 'b'].map((key) => (docs[key].file ? `'${docs[key].label}' (document ${key.toUpperCase()})` : `document ${key.toUpperCase()}`));

// The Evidence tab: the passages A and B share, highlighted side by side.
import { $, showError } from './dom.js';
import { documents, files, names } from './documents.js';
import { fmtInt, pct } from './format.js';
import { runJob } from './job.js';
import { ruleName, scriptSwitch } from './words.js';

// The texts can be a few MB: they are cut into chunks of about CHUNK UTF-16
// units that the browser lays out only when scrolled near
// (content-visibility), and at most MAX_PASSAGES (the longest) are marked.
const CHUNK = 16384;
const MAX_PASSAGES = 500;
const evidence = { passages: [], marks: [[], []], current: -1 };

/** Chunk ends: after a line break near CHUNK units on, else after a space, never inside a surrogate pair. */
function chunkEnds(text) {
  const ends = [];
  for (let at = 0; at < text.length;) {
    let end = Math.min(text.length, at + CHUNK);
    if (end < text.length) {
      const nl = text.indexOf('\n', end);
      const sp = text.indexOf(' ', end);
      if (nl >= 0 && nl < end + CHUNK / 2) end = nl + 1;
      else if (sp >= 0 && sp < end + CHUNK / 2) end = sp + 1;
      else if (/[\uDC00-\uDFFF]/.test(text[end])) end += 1;
    }
    ends.push(end);
    at = end;
  }
  return ends;
}

/**
 * Elementary highlighted pieces of one text: [start, end, passage ids], in
 * order, not overlapping. A's passages never overlap; B's may (two passages
 * of A can share text of B), so B's are cut where any span starts or ends.
 */
function pieces(spans) {
  const cuts = [...new Set(spans.flatMap(([s, e]) => [s, e]))].sort((x, y) => x - y);
  const out = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    const [s, e] = [cuts[i], cuts[i + 1]];
    const ids = [];
    spans.forEach(([ps, pe, id]) => ps <= s && e <= pe && ids.push(id));
    if (ids.length) out.push([s, e, ids]);
  }
  return out;
}

/** Fills `pane` with `text`, marking `parts`; returns each passage's mark elements. */
function renderText(pane, text, parts, side) {
  const marks = evidence.passages.map(() => []);
  const frag = document.createDocumentFragment();
  let p = 0;
  let start = 0;
  const ends = chunkEnds(text);
  // Only a long text is laid out lazily; a short one is simply shown.
  pane.classList.toggle('lazy', ends.length > 1);
  for (const end of ends) {
    const chunk = document.createElement('div');
    chunk.className = 'chunk';
    let at = start;
    while (p < parts.length && parts[p][0] < end) {
      const [s, e, ids] = parts[p];
      if (s > at) chunk.append(text.slice(at, s));
      const from = Math.max(s, at);
      const to = Math.min(e, end);
      const mark = document.createElement('mark');
      mark.className = `p-${side}`;
      mark.dataset.p = ids.join(' ');
      mark.textContent = text.slice(from, to);
      if (side === 'a') {
        if (from === s) {
          mark.tabIndex = -1;
          mark.setAttribute('role', 'button');
          mark.setAttribute('aria-label', `Passage ${ids[0] + 1}: ${evidence.passages[ids[0]].words} words; show it in B`);
        } else mark.classList.add('cont');
      }
      for (const id of ids) marks[id].push(mark);
      chunk.append(mark);
      at = to;
      if (e <= end) p += 1;
      else break;
    }
    if (at < end) chunk.append(text.slice(at, end));
    frag.append(chunk);
    start = end;
  }
  pane.replaceChildren(frag);
  pane.scrollTop = 0;
  return marks;
}

/** Scrolls `pane` (only) so that `el` starts in its upper third, or near its top if `el` is tall. */
function reveal(pane, el) {
  const move = () => {
    const box = el.getBoundingClientRect();
    const room = pane.clientHeight;
    const at = box.height < (2 * room) / 3 ? room / 3 : Math.min(room / 3, 24);
    const delta = box.top - pane.getBoundingClientRect().top - at;
    pane.scrollTop += delta;
    return Math.abs(delta);
  };
  // Chunks laid out for the first time may change height: settle once more.
  if (move() > 1) requestAnimationFrame(move);
}

function showPassage(i, focus) {
  const n = evidence.passages.length;
  if (!n) return;
  i = Math.max(0, Math.min(n - 1, i));
  for (const side of [0, 1]) {
    for (const m of evidence.marks[side][evidence.current] || []) m.classList.remove('current');
    for (const m of evidence.marks[side][i]) m.classList.add('current');
  }
  const [a] = evidence.marks[0][i];
  const old = evidence.marks[0][evidence.current];
  if (old) old[0].tabIndex = -1;
  a.tabIndex = 0;
  evidence.current = i;
  reveal($('evidence-a'), a);
  reveal($('evidence-b'), evidence.marks[1][i][0]);
  if (focus) a.focus({ preventScroll: true });
  const p = evidence.passages[i];
  const times = p.b_occurrences > 1 ? ` · B holds it ${fmtInt(p.b_occurrences)} times; the first is shown` : '';
  $('evidence-current').textContent = `Passage ${fmtInt(i + 1)} of ${fmtInt(n)} · ${fmtInt(p.words)} words · line ${fmtInt(p.a.line)} of A, line ${fmtInt(p.b.line)} of B${times}`;
  $('passage-prev').disabled = i === 0;
  $('passage-next').disabled = i === n - 1;
}

const passageOf = (target) => {
  const mark = target.closest && target.closest('mark.p-a');
  return mark ? Number(mark.dataset.p) : -1;
};
$('evidence-a').addEventListener('click', (e) => {
  const i = passageOf(e.target);
  if (i >= 0) showPassage(i, true);
});
$('evidence-a').addEventListener('keydown', (e) => {
  const i = passageOf(e.target);
  if (i < 0) return;
  const to = {
    Enter: i, ' ': i, ArrowDown: i + 1, ArrowRight: i + 1, ArrowUp: i - 1, ArrowLeft: i - 1,
    Home: 0, End: evidence.passages.length - 1,
  }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  showPassage(to, true);
});
$('passage-prev').addEventListener('click', () => showPassage(evidence.current - 1, false));
$('passage-next').addEventListener('click', () => showPassage(evidence.current + 1, false));

function showEvidence(r) {
  const total = r.passages_total;
  const shown = r.passages.length;
  evidence.passages = r.passages;
  evidence.current = -1;
  for (const [i, key] of ['a', 'b'].entries()) {
    $(`coverage-${key}`).textContent = pct(r.coverage[i]);
    $(`meter-${key}`).style.width = `${(100 * r.coverage[i]).toFixed(1)}%`;
    $(`coverage-${key}-words`).textContent = `${fmtInt(r.shared_words[i])} of ${fmtInt(r.words[i])} words`;
  }
  $('passages-total').textContent = fmtInt(total);
  const k = `k = ${r.k} ${ruleName(r.word_rule)}`;
  $('passages-longest').textContent = total ? `longest ${fmtInt(r.longest)} words · ${k}` : k;
  const note = $('evidence-note');
  note.hidden = shown === total && total > 0;
  note.textContent = total === 0
    ? `A and B share no run of ${r.k} words or more.`
    : `Highlighting the ${fmtInt(shown)} longest of ${fmtInt(total)} passages, to keep the page responsive. The coverage figures count them all.`;
  // What the core warns about these texts (as Compare shows it), and
  // script words when they can find what spaces cannot.
  const warnings = $('evidence-warnings');
  warnings.textContent = r.warnings.map((w) => `Warning: ${w}.`).join(' ');
  const useScript = scriptSwitch('explain-use-script', r.warnings, { words: 'evidence-words', k: 'evidence-k', form: 'evidence-form' });
  if (useScript) warnings.append(useScript);
  warnings.hidden = !r.warnings.length;
  const spansA = r.passages.map((p, i) => [p.a.start_utf16, p.a.end_utf16, i]);
  const spansB = r.passages.map((p, i) => [p.b.start_utf16, p.b.end_utf16, i]);
  evidence.marks = [
    renderText($('evidence-a'), r.texts[0], spansA.map(([s, e, i]) => [s, e, [i]]), 'a'),
    renderText($('evidence-b'), r.texts[1], pieces(spansB), 'b'),
  ];
  // Passages whose words are all from a base text are shaded, not evidence.
  const base = r.shared_outside_base;
  r.passages.forEach((p, i) => {
    if (base && p.from_base === p.words) for (const side of [0, 1]) for (const m of evidence.marks[side][i]) m.classList.add('base');
  });
  const baseNote = $('evidence-base-note');
  baseNote.hidden = !base;
  if (base) {
    baseNote.textContent = `Shared outside the base text: A ${pct(base.a)} (${fmtInt(base.shared_words_a)} words), B ${pct(base.b)} (${fmtInt(base.shared_words_b)} words); passages from the base text are shaded. The verdict and the receipt are still those of the whole texts.`;
  }
  const first = evidence.marks[0][0];
  if (first) first[0].tabIndex = 0;
  $('passage-prev').disabled = true;
  $('passage-next').disabled = !shown;
  $('evidence-current').textContent = shown ? 'Click a highlighted passage in A to find it in B.' : '';
}

const EVIDENCE_FIELDS = ['k', 'words'];

function evidenceError(field, message) {
  for (const f of EVIDENCE_FIELDS) {
    const on = f === field;
    $(`evidence-${f}`).setAttribute('aria-invalid', String(on));
    $(`evidence-${f}-error`).textContent = on ? message : '';
  }
  showError('explain-error', EVIDENCE_FIELDS.includes(field) ? '' : message);
}

$('evidence-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  evidenceError(null, '');
  const view = $('evidence');
  view.dataset.state = 'running';
  const k = $('evidence-k').validity.badInput ? 'not a number' : $('evidence-k').value;
  let job;
  try {
    // Base texts go in the request as text: plain text only.
    const bases = await Promise.all(Array.from($('evidence-base').files, (f) => f.text()));
    job = await runJob('explain', {
      op: 'explain',
      docs: documents(),
      request: { k, words: $('evidence-words').value, max_passages: MAX_PASSAGES, lossy: $('lossy').checked, names: names(), files: files(), bases },
    });
  } catch (err) {
    view.dataset.state = 'error';
    view.hidden = true;
    evidenceError(null, `Could not find the shared passages: ${err.message}`);
    return;
  }
  const r = job.result;
  if (!r.ok) {
    view.dataset.state = 'error';
    view.hidden = true;
    evidenceError(r.field, r.error);
    if (EVIDENCE_FIELDS.includes(r.field)) $(`evidence-${r.field}`).focus();
    return;
  }
  view.hidden = false;
  showEvidence(r);
  view.dataset.state = 'done';
});

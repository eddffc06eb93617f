// neardup page: UI on the main thread; all work happens in a worker.
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);

  // ---- The engine: one worker, created from the page's own source. ----
  const wasmBlock = $('wasm-b64');
  const wasmBytes = Uint8Array.from(atob(wasmBlock.textContent.trim()), (c) => c.charCodeAt(0));
  const workerUrl = URL.createObjectURL(new Blob([$('worker-src').textContent], { type: 'text/javascript' }));
  let worker = null;
  let nextId = 1;
  const pending = new Map();

  function startWorker() {
    worker = new Worker(workerUrl);
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
    return send({ op: 'init', wasm: wasmBytes.slice().buffer });
  }

  function send(msg, onProgress) {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject, onProgress });
      worker.postMessage({ ...msg, id });
    });
  }

  function cancelAll() {
    worker.terminate();
    for (const job of pending.values()) job.reject(new Error('cancelled'));
    pending.clear();
    ready = startWorker();
  }

  let ready = startWorker();

  // The hash shown is of the bytes this page actually runs, computed by the
  // browser (WebCrypto), or by the engine where WebCrypto is unavailable.
  const hex = (buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('');
  (async () => {
    let digest;
    try {
      digest = hex(await crypto.subtle.digest('SHA-256', wasmBytes));
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

  // ---- Documents: text or file. ----
  const docs = { a: { file: null }, b: { file: null } };
  const fmtBytes = (n) => (n < 1024 ? `${n} bytes` : n < 1048576 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(1)} MB`);
  const fmtInt = (n) => n.toLocaleString('en-US');

  function updateCount(key) {
    const d = docs[key];
    const out = $(`count-${key}`);
    if (d.file) out.textContent = d.file.size > 4096 ? 'Showing the first 4 KB; the whole file is read when you run.' : 'The file is read when you run.';
    else {
      const n = $(`text-${key}`).value.length;
      out.textContent = n ? `${fmtInt(n)} characters` : 'Empty';
    }
  }

  async function setFile(key, file) {
    const d = docs[key];
    d.file = file;
    const area = $(`text-${key}`);
    $(`chip-${key}`).hidden = !file;
    $(`doc-${key}`).classList.toggle('has-file', !!file);
    if (file) {
      $(`chip-name-${key}`).textContent = file.name;
      $(`chip-size-${key}`).textContent = fmtBytes(file.size);
      d.savedText = area.value;
      area.readOnly = true;
      area.setAttribute('aria-readonly', 'true');
      const head = await file.slice(0, 4096).text();
      if (d.file === file) area.value = head + (file.size > 4096 ? '\n…' : '');
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
    area.addEventListener('input', () => updateCount(key));
    $(`open-${key}`).addEventListener('click', () => input.click());
    input.addEventListener('change', () => input.files[0] && setFile(key, input.files[0]));
    $(`clear-${key}`).addEventListener('click', () => {
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
      if (f) setFile(key, f);
    });
  }
  // A file dropped anywhere else must not navigate away from the page.
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', (e) => e.preventDefault());

  function documents() {
    return ['a', 'b'].map((key) => (docs[key].file ? { file: docs[key].file } : { text: $(`text-${key}`).value }));
  }
  const names = () => ['a', 'b'].map((key) => (docs[key].file ? `'${docs[key].file.name}' (document ${key.toUpperCase()})` : `document ${key.toUpperCase()}`));

  // ---- Tabs (WAI-ARIA tabs pattern: arrows move, Home/End jump). ----
  const tabs = Array.from(document.querySelectorAll('[role=tab]'));
  function selectTab(tab, focus) {
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute('aria-selected', String(on));
      t.tabIndex = on ? 0 : -1;
      $(t.getAttribute('aria-controls')).hidden = !on;
    }
    if (focus) tab.focus();
  }
  for (const tab of tabs) {
    tab.addEventListener('click', () => selectTab(tab, false));
    tab.addEventListener('keydown', (e) => {
      const i = tabs.indexOf(tab);
      const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[e.key];
      if (to === undefined) return;
      e.preventDefault();
      selectTab(tabs[(to + tabs.length) % tabs.length], true);
    });
  }
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      const active = tabs.find((t) => t.getAttribute('aria-selected') === 'true');
      $({ 'tab-verify': 'verify', 'tab-evidence': 'explain' }[active.id] || 'compare').click();
    }
  });

  // ---- Running a job with progress. ----
  async function runJob(kind, msg) {
    const box = $(`${kind}-progress`);
    const bar = box.querySelector('progress');
    const text = $(`${kind}-progress-label`);
    const button = $(kind);
    button.disabled = true;
    const started = performance.now();
    // Only show the bar for jobs that take a noticeable time.
    const timer = setTimeout(() => (box.hidden = false), 150);
    bar.value = 0;
    text.textContent = 'Starting…';
    try {
      await ready;
      const result = await send(msg, (fraction, label) => {
        bar.value = fraction;
        text.textContent = `${label}… ${Math.round(fraction * 100)}%`;
      });
      return { result, ms: performance.now() - started };
    } finally {
      clearTimeout(timer);
      box.hidden = true;
      button.disabled = false;
    }
  }
  $('compare-cancel').addEventListener('click', cancelAll);
  $('verify-cancel').addEventListener('click', cancelAll);
  $('explain-cancel').addEventListener('click', cancelAll);

  // ---- Compare. ----
  const VERDICT_WHY = {
    IDENTICAL: 'After lowercasing and collapsing whitespace, the two texts are exactly the same.',
    'NEAR-DUPLICATE': 'At least 75% of the signature slots match.',
    OVERLAPPING: 'Between 35% and 75% of the signature slots match.',
    DISTINCT: 'Fewer than 35% of the signature slots match.',
    'INSUFFICIENT-DATA': 'A document has fewer than k words, so it has no signature to compare.',
  };
  const pct = (x) => `${(100 * x).toFixed(1)}%`;
  let lastReceipt = null;

  function fieldError(field, message) {
    for (const f of ['k', 'n']) {
      const on = f === field;
      $(f).setAttribute('aria-invalid', String(on));
      $(`${f}-error`).textContent = on ? message : '';
    }
  }

  function showError(id, message) {
    const el = $(id);
    el.textContent = message;
    el.hidden = !message;
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
        request: { k: raw('k'), n: raw('n'), lossy: $('lossy').checked, names: names() },
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
      if (r.field === 'k' || r.field === 'n') {
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
    $('matches').textContent = r.matches === null ? '—' : String(r.matches);
    $('n-out').textContent = String(r.n);
    $('similarity').textContent = r.similarity === null
      ? 'no signature'
      : `${pct(r.similarity)} · 95% interval ${pct(r.similarity_interval_95[0])} to ${pct(r.similarity_interval_95[1])}`;
    $('jaccard').textContent = r.jaccard === null ? '—' : r.jaccard.toFixed(4);
    $('shingles-a').textContent = fmtInt(r.receipt.documents[0].shingles);
    $('shingles-b').textContent = fmtInt(r.receipt.documents[1].shingles);
    $('k-out').textContent = `k = ${r.receipt.k} words`;
    $('elapsed').textContent = job.ms < 1000 ? `${job.ms.toFixed(0)} ms` : `${(job.ms / 1000).toFixed(2)} s`;
    $('receipt').textContent = r.canonical;
    $('receipt-sha256').textContent = r.receipt_sha256;
    result.hidden = false;
    result.dataset.state = 'done';
  });

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

  $('download-receipt').addEventListener('click', () => {
    // Exactly the canonical bytes, so that sha256sum of the file is the receipt hash.
    const url = URL.createObjectURL(new Blob([$('receipt').textContent], { type: 'application/json' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `receipt-${$('receipt-sha256').textContent.slice(0, 12)}.json`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  });

  $('use-receipt').addEventListener('click', () => {
    if (!lastReceipt) return;
    $('verify-receipt').value = lastReceipt.canonical;
    $('verify-sha256').value = lastReceipt.receipt_sha256;
    selectTab($('tab-verify'), false);
    $('verify').focus();
  });

  // ---- Verify. ----
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
        request: { receipt: $('verify-receipt').value, sha256: $('verify-sha256').value, lossy: $('lossy').checked, names: names() },
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
      showStatus('MISMATCH', `— ${n} field${n === 1 ? '' : 's'} differ: the receipt was not made from these documents with these settings.`, r.mismatches);
    }
  });

  // ---- Evidence: the passages A and B share, highlighted side by side. ----
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
    $('passages-longest').textContent = total ? `longest ${fmtInt(r.longest)} words · k = ${r.k}` : `k = ${r.k}`;
    const note = $('evidence-note');
    note.hidden = shown === total && total > 0;
    note.textContent = total === 0
      ? `A and B share no run of ${r.k} words or more.`
      : `Highlighting the ${fmtInt(shown)} longest of ${fmtInt(total)} passages, to keep the page responsive. The coverage figures count them all.`;
    const spansA = r.passages.map((p, i) => [p.a.start_utf16, p.a.end_utf16, i]);
    const spansB = r.passages.map((p, i) => [p.b.start_utf16, p.b.end_utf16, i]);
    evidence.marks = [
      renderText($('evidence-a'), r.texts[0], spansA.map(([s, e, i]) => [s, e, [i]]), 'a'),
      renderText($('evidence-b'), r.texts[1], pieces(spansB), 'b'),
    ];
    const first = evidence.marks[0][0];
    if (first) first[0].tabIndex = 0;
    $('passage-prev').disabled = true;
    $('passage-next').disabled = !shown;
    $('evidence-current').textContent = shown ? 'Click a highlighted passage in A to find it in B.' : '';
  }

  function evidenceError(field, message) {
    const bad = field === 'k';
    $('evidence-k').setAttribute('aria-invalid', String(bad));
    $('evidence-k-error').textContent = bad ? message : '';
    showError('explain-error', bad ? '' : message);
  }

  $('evidence-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    evidenceError(null, '');
    const view = $('evidence');
    view.dataset.state = 'running';
    const k = $('evidence-k').validity.badInput ? 'not a number' : $('evidence-k').value;
    let job;
    try {
      job = await runJob('explain', {
        op: 'explain',
        docs: documents(),
        request: { k, max_passages: MAX_PASSAGES, lossy: $('lossy').checked, names: names() },
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
      if (r.field === 'k') $('evidence-k').focus();
      return;
    }
    view.hidden = false;
    showEvidence(r);
    view.dataset.state = 'done';
  });
})();

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

  /** Makes `file` document `key`; `label` names it (a collection id), else its file name. */
  async function setFile(key, file, label) {
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
    area.addEventListener('input', () => {
      updateCount(key);
      forgetPair();
    });
    $(`open-${key}`).addEventListener('click', () => input.click());
    input.addEventListener('change', () => input.files[0] && (forgetPair(), setFile(key, input.files[0])));
    $(`clear-${key}`).addEventListener('click', () => {
      forgetPair();
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
      if (f) forgetPair(), setFile(key, f);
    });
  }
  // A file dropped anywhere else must not navigate away from the page.
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', (e) => e.preventDefault());

  function documents() {
    return ['a', 'b'].map((key) => (docs[key].file ? { file: docs[key].file } : { text: $(`text-${key}`).value }));
  }
  const names = () => ['a', 'b'].map((key) => (docs[key].file ? `'${docs[key].label}' (document ${key.toUpperCase()})` : `document ${key.toUpperCase()}`));

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
    // A hidden panel has no width: the heat map is drawn when it shows.
    if (tab.id === 'tab-collection') drawMap();
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
      $({ 'tab-verify': 'verify', 'tab-evidence': 'explain', 'tab-collection': 'collection-run' }[active.id] || 'compare').click();
    }
  });

  // ---- Running a job with progress. ----
  async function runJob(kind, msg, buttonId = kind) {
    const box = $(`${kind}-progress`);
    const bar = box.querySelector('progress');
    const text = $(`${kind}-progress-label`);
    const button = $(buttonId);
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
  $('collection-cancel').addEventListener('click', cancelAll);

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

  /** Saves `text` as a file named `name`, exactly these bytes (UTF-8). */
  function saveText(name, text, type) {
    const url = URL.createObjectURL(new Blob([text], { type }));
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  // Exactly the canonical bytes, so that sha256sum of the file is the receipt hash.
  $('download-receipt').addEventListener('click', () => saveText(`receipt-${$('receipt-sha256').textContent.slice(0, 12)}.json`, $('receipt').textContent, 'application/json'));

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

  // ---- Collection: every pair of many documents, as `neardup scan` finds them. ----
  // Ids are the files' paths as the command line prints them (see the rule
  // under the form); the engine numbers and sorts the documents itself.
  const MAX_ROWS = 1000;
  const MAP_LIMIT = 200;
  const collection = { files: [], result: null };
  let fromPair = null;

  /** The Evidence banner belongs to the pair it came from; new documents end it. */
  function forgetPair() {
    fromPair = null;
    $('evidence-from').hidden = true;
  }

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
      notes.push(`Skipped ${fmtInt(r.skipped.length)} file${r.skipped.length === 1 ? '' : 's'} that ${r.skipped.length === 1 ? 'is' : 'are'} not valid UTF-8, as neardup scan does: ${list}${r.skipped.length > 5 ? '; …' : ''}. Tick “Replace invalid UTF-8” to read them lossily, as --lossy does.`);
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
      ? 'Near-duplicate clusters (0.75, as neardup scan --clusters at its default threshold): each keeps its first document in path order.'
      : 'No two documents are near-duplicates (0.75): nothing to cluster.';

    $('collection-map-note').textContent = !r.map
      ? `The heat map shows up to ${MAP_LIMIT} documents; this collection has ${fmtInt(n)}, so only the table is shown.`
      : n < 2 ? 'The heat map needs two documents.' : '';
    drawMap();
  }

  // The heat map: one cell per two documents, each group of pairs at the
  // threshold kept together so that near-duplicates form blocks.
  const map = { order: [], cell: 0, reported: new Map() };

  /** Slot-match count of documents i < j from the upper triangle the engine sent, or null. */
  function mapMatches(r, i, j) {
    if (i > j) [i, j] = [j, i];
    const n = r.documents.length;
    return r.map[i * n - (i * (i + 1)) / 2 + (j - i - 1)];
  }

  function hexColor(s) {
    const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(s.trim());
    return m ? m.slice(1).map((h) => parseInt(h, 16)) : [128, 128, 128];
  }

  function drawMap() {
    const r = collection.result;
    const box = $('collection-map-box');
    const n = r ? r.documents.length : 0;
    box.hidden = !r || !r.map || n < 2 || $('panel-collection').hidden;
    if (box.hidden) return;
    const groupOf = new Map();
    for (const g of r.groups) for (const d of g) groupOf.set(d, g);
    const seen = new Uint8Array(n);
    map.order = [];
    for (let d = 0; d < n; d++) {
      if (seen[d]) continue;
      for (const m of groupOf.get(d) || [d]) {
        seen[m] = 1;
        map.order.push(m);
      }
    }
    map.reported = new Map(r.pairs.map((p) => [p.a * n + p.b, p]));
    const body = box.parentElement;
    const pad = getComputedStyle(body);
    const room = Math.min(640, body.clientWidth - parseFloat(pad.paddingLeft) - parseFloat(pad.paddingRight));
    const cell = Math.max(2, Math.floor(room / n));
    map.cell = cell;
    const side = cell * n;
    const canvas = $('collection-map');
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(side * dpr);
    canvas.height = Math.round(side * dpr);
    canvas.style.width = `${side}px`;
    canvas.style.height = `${side}px`;
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const css = getComputedStyle(document.documentElement);
    const [lo, hi] = ['--map-0', '--map-1'].map((v) => hexColor(css.getPropertyValue(v)));
    const none = css.getPropertyValue('--map-none').trim();
    const ring = css.getPropertyValue('--map-ring').trim();
    const gap = cell >= 6 ? 1 : 0;
    for (let y = 0; y < n; y++) {
      for (let x = 0; x < n; x++) {
        const [i, j] = [map.order[y], map.order[x]];
        let color = none;
        if (i !== j) {
          const m = mapMatches(r, i, j);
          if (m !== null) {
            const t = m / r.n;
            color = `rgb(${lo.map((c, k) => Math.round(c + (hi[k] - c) * t)).join(',')})`;
          }
        }
        ctx.fillStyle = color;
        ctx.fillRect(x * cell, y * cell, cell - gap, cell - gap);
      }
    }
    if (cell >= 4) {
      ctx.strokeStyle = ring;
      ctx.lineWidth = cell >= 10 ? 2 : 1;
      for (let y = 0; y < n; y++) {
        for (let x = 0; x < n; x++) {
          const [i, j] = [map.order[y], map.order[x]];
          if (i !== j && map.reported.has(Math.min(i, j) * n + Math.max(i, j))) {
            ctx.strokeRect(x * cell + 0.5, y * cell + 0.5, cell - gap - 1, cell - gap - 1);
          }
        }
      }
    }
  }

  /** The two documents under a mouse position on the map, or null. */
  function mapCell(e) {
    const r = collection.result;
    const x = Math.floor(e.offsetX / map.cell);
    const y = Math.floor(e.offsetY / map.cell);
    const n = r.documents.length;
    if (x < 0 || y < 0 || x >= n || y >= n || x === y) return null;
    const [i, j] = [map.order[y], map.order[x]];
    const [a, b] = [Math.min(i, j), Math.max(i, j)];
    return { a, b, x, y, matches: mapMatches(r, a, b), pair: map.reported.get(a * n + b) };
  }

  const canvas = $('collection-map');
  const tip = $('collection-map-tip');
  canvas.addEventListener('mousemove', (e) => {
    const c = mapCell(e);
    tip.hidden = !c;
    if (!c) return;
    const r = collection.result;
    const sim = c.matches === null ? 'no signature' : `${pct(c.matches / r.n)} (${c.matches} of ${r.n})`;
    tip.textContent = `${r.documents[c.a].id} ↔ ${r.documents[c.b].id}: ${sim}${c.pair ? ` · ${c.pair.verdict}` : ''}`;
    tip.style.left = `${Math.min(e.offsetX + 14, canvas.clientWidth - 40)}px`;
    tip.style.top = `${e.offsetY + 14}px`;
  });
  canvas.addEventListener('mouseleave', () => (tip.hidden = true));
  canvas.addEventListener('click', (e) => {
    const c = mapCell(e);
    if (c) openPair(c.pair || { a: c.a, b: c.b, verdict: null, receipt: null });
  });
  let resizeTimer = 0;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(drawMap, 100);
  });
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', drawMap);

  // ---- A pair of the collection, in Evidence and Verify. ----
  async function loadPair(p) {
    const r = collection.result;
    const [a, b] = [r.documents[p.a].id, r.documents[p.b].id];
    await Promise.all([setFile('a', r.files.get(a), a), setFile('b', r.files.get(b), b)]);
    fromPair = p;
    $('evidence-from-names').textContent = `A = ${a}, B = ${b}`;
    $('evidence-from-verdict').textContent = p.receipt ? `${p.verdict}, receipt ${p.receipt_sha256.slice(0, 12)}…` : `not reported at ${r.threshold}`;
    $('evidence-verify-receipt').hidden = !p.receipt;
    $('evidence-from').hidden = false;
  }

  async function openPair(p) {
    await loadPair(p);
    $('evidence-k').value = String(collection.result.k);
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

  const stamp = () => `${collection.result.documents.length}docs-${collection.result.threshold}`;
  $('collection-download-pairs').addEventListener('click', () => saveText(`neardup-pairs-${stamp()}.jsonl`, collection.result.pairs_jsonl, 'application/jsonl'));
  // One canonical receipt per line, in the pairs file's order: line i's
  // bytes (without the newline) hash to line i's receipt_sha256.
  $('collection-download-receipts').addEventListener('click', () => saveText(`neardup-receipts-${stamp()}.jsonl`, collection.result.pairs.map((p) => `${p.receipt}\n`).join(''), 'application/jsonl'));
  $('collection-download-clusters').addEventListener('click', () => saveText(`neardup-clusters-${stamp()}.jsonl`, collection.result.clusters_jsonl, 'application/jsonl'));
})();

// The Evidence view in a real browser: for a crafted pair (a paragraph
// moved, a sentence inserted that splits a passage, case and line-break
// changes) it highlights exactly the expected passages of the original
// texts; clicking or arrowing through A's passages scrolls B to each
// counterpart; texts without spaces find their passage with script words,
// from the caveat's button; a few-MB pair stays responsive and says what
// it caps.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { artifacts, assertResponsive, scriptPair, sharedPage } from './harness.mjs';

const P1 = 'The first paragraph talks about the weather in the hills above our village.';
const S1 = 'A second paragraph describes the river and its old stone bridge.';
const S2 = 'Children fish from it every summer evening.';
const P3 = 'Finally the third one ends the story with a quiet dinner at home.';
const INSERTED = 'Nobody remembers who built it.';
// What B says instead, in its own case and line breaks.
const S1b = 'A SECOND paragraph describes the river\nand its old Stone Bridge.';
const P1b = 'The first paragraph talks about the weather\n  in the hills above our village.';
// Notes only B has, long enough that B's copy of P1 starts far below the fold.
const NOTES = Array.from({ length: 80 }, (_, i) => `Note ${i + 1}: an aside that only this draft carries, numbered ${i + 1}.`).join('\n');

const A = `${P1}\n\n${S1} ${S2}\n\n${P3}\n`;
const B = `${S1b} ${INSERTED} ${S2}\n\n${P3}\n\n${NOTES}\n\n${P1b}\n`;

let page;
sharedPage((opened) => ({ page } = opened));

const shot = (name) => page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });

/** Runs the Evidence view on what documents A and B hold now, with shingle size `k`. */
async function explain(k) {
  return page.evaluate(async (k) => {
    const $ = (id) => document.getElementById(id);
    $('tab-evidence').click();
    $('evidence-k').value = String(k);
    const view = $('evidence');
    view.dataset.state = 'pending';
    const done = new Promise((resolve) => {
      const mo = new MutationObserver(() => ['done', 'error'].includes(view.dataset.state) && (mo.disconnect(), resolve()));
      mo.observe(view, { attributes: true, attributeFilter: ['data-state'] });
    });
    $('explain').click();
    await done;
    return view.dataset.state;
  }, k);
}

const marks = (side) => page.$$eval(`#evidence-${side} mark`, (ms) => ms.map((m) => m.textContent));
const current = (side) => page.$$eval(`#evidence-${side} mark.current`, (ms) => ms.map((m) => m.textContent).join(''));
/** Whether the marked passage in `side` is in its scroll pane's visible box (its start, if it is taller). */
const inView = (side) => page.evaluate((side) => {
  const pane = document.getElementById(`evidence-${side}`).getBoundingClientRect();
  const marks = Array.from(document.querySelectorAll(`#evidence-${side} mark.current`), (m) => m.getBoundingClientRect());
  const [top, bottom] = [Math.min(...marks.map((m) => m.top)), Math.max(...marks.map((m) => m.bottom))];
  return top >= pane.top && (bottom <= pane.bottom || top < pane.top + pane.height / 3);
}, side);

test('a moved paragraph and a split passage are highlighted in the original texts', async () => {
  await page.fill('#text-a', A);
  await page.fill('#text-b', B);
  assert.equal(await explain(3), 'done');

  // A's passages in A's order: P1 (moved to B's end), S1 (cut short where B
  // inserts a sentence), and S2 running on into P3, as B has them too.
  assert.deepEqual(await marks('a'), [P1, S1, `${S2}\n\n${P3}`]);
  // B's passages in B's order, in B's own case and line breaks.
  assert.deepEqual(await marks('b'), [S1b, `${S2}\n\n${P3}`, P1b]);
  assert.equal(await page.textContent('#evidence-a'), A, 'A is shown exactly as given');
  assert.equal(await page.textContent('#evidence-b'), B, 'B is shown exactly as given');

  // Every word of A is shared; B's inserted sentence and notes are not.
  assert.equal(await page.textContent('#coverage-a'), '100.0%');
  const words = (s) => s.split(/\s+/).filter(Boolean).length;
  const sharedB = words(S1b) + words(S2) + words(P3) + words(P1b);
  assert.equal(await page.textContent('#coverage-b-words'), `${sharedB} of ${words(B)} words`);
  assert.equal(await page.textContent('#passages-total'), '3');
  assert.equal(await page.isVisible('#evidence-note'), false, 'nothing is capped');

  // Clicking A's first passage scrolls B down to its copy of P1 and marks it.
  assert.equal(await inViewOrNone('b'), null);
  await page.click('#evidence-a mark >> nth=0');
  assert.equal(await current('a'), P1);
  assert.equal(await current('b'), P1b);
  assert.ok(await page.$eval('#evidence-b', (el) => el.scrollTop > 0), 'B scrolled');
  assert.ok(await inView('b'), "B's counterpart is in view");
  assert.match(await page.textContent('#evidence-current'), /^Passage 1 of 3 · 13 words · line 1 of A, line \d+ of B$/);
  await shot('evidence');

  // Keyboard: the current passage has focus; arrows walk the passages.
  assert.equal(await page.evaluate(() => document.activeElement.textContent), P1);
  await page.keyboard.press('ArrowDown');
  assert.equal(await current('b'), S1b);
  assert.ok(await inView('b'));
  assert.ok(await page.$eval('#evidence-b', (el) => el.scrollTop === 0), 'B scrolled back up');
  await page.keyboard.press('End');
  assert.equal(await page.evaluate(() => document.activeElement.textContent), `${S2}\n\n${P3}`);
  assert.equal(await current('b'), `${S2}\n\n${P3}`);
  await page.keyboard.press('Home');
  assert.equal(await current('b'), P1b);
  await page.click('#passage-next');
  assert.equal(await current('a'), S1);
});

async function inViewOrNone(side) {
  return (await page.$(`#evidence-${side} mark.current`)) ? inView(side) : null;
}

test('no shared passage, texts shorter than k, and a refused k', async () => {
  await page.fill('#text-a', 'one two three four');
  await page.fill('#text-b', 'five six seven eight');
  assert.equal(await explain(2), 'done');
  assert.equal((await marks('a')).length, 0);
  assert.equal(await page.textContent('#evidence-note'), 'A and B share no run of 2 words or more.');
  await page.fill('#text-b', 'one two');
  assert.equal(await explain(5), 'done');
  assert.equal(await page.textContent('#passages-total'), '0');
  assert.equal(await explain(0), 'error');
  assert.equal(await page.textContent('#evidence-k-error'), 'shingle size k must be 1..=64, got 0');
  assert.equal(await page.getAttribute('#evidence-k', 'aria-invalid'), 'true');
  assert.equal(await page.isVisible('#evidence'), false, 'no stale result');
});

test('texts without spaces: the caveat offers script words, which highlight the shared passage', async () => {
  // A passage both hold, between parts only one holds; Latin words that
  // differ mark its edges under either rule.
  const [shared] = scriptPair(21, 80, { rate: 0 });
  const [[x], [y], [z], [w]] = [31, 32, 33, 34].map((seed) => scriptPair(seed, 60, { rate: 0 }));
  await page.fill('#text-a', `${x} alpha ${shared} beta ${y}`);
  await page.fill('#text-b', `${z} gamma ${shared}\ndelta ${w}`);
  await page.click('#tab-evidence');
  await page.selectOption('#evidence-words', 'space');
  assert.equal(await explain(5), 'done');
  assert.equal(await page.textContent('#passages-total'), '0');
  assert.match(await page.textContent('#evidence-warnings'), /^Warning: document A: \d+% of its characters are in runs of 30\+ without spaces .*; script words can \(--words script\)\. /);
  await page.evaluate(() => (document.getElementById('evidence').dataset.state = 'pending'));
  await page.click('#explain-use-script');
  await page.waitForFunction(() => document.getElementById('evidence').dataset.state === 'done');
  assert.equal(await page.inputValue('#evidence-words'), 'script');
  assert.deepEqual(await marks('a'), [shared]);
  assert.deepEqual(await marks('b'), [shared]);
  assert.equal(await page.isVisible('#evidence-warnings'), false, 'no caveat once script words are used');
  assert.equal(await page.textContent('#passages-longest'), `longest ${Array.from(shared).length} words · k = 5 script words`);
  await shot('evidence-script-words');
  await page.selectOption('#evidence-words', 'space');
});

test('a few-MB pair: the longest 500 passages, a clear note, a responsive page', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'neardup-evidence-'));
  try {
    // Deterministic pseudo-prose, 3 MB; B changes one word in about 60.
    let x = 777;
    const rnd = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 4294967296;
    const vocab = Array.from({ length: 3000 }, (_, i) => `w${i.toString(36)}`);
    const a = [];
    const b = [];
    for (let len = 0; len < 3 << 20;) {
      const w = vocab[Math.floor(rnd() * rnd() * vocab.length)];
      a.push(w);
      b.push(rnd() < 1 / 60 ? 'CHANGED' : w);
      len += w.length + 1;
      if (rnd() < 0.02) a.push('\n'), b.push('\n');
    }
    writeFileSync(join(dir, 'big-a.txt'), a.join(' '));
    writeFileSync(join(dir, 'big-b.txt'), b.join(' '));
    await page.setInputFiles('#file-a', join(dir, 'big-a.txt'));
    await page.setInputFiles('#file-b', join(dir, 'big-b.txt'));
    await page.evaluate(() => {
      window.__gaps = [];
      let last = performance.now();
      window.__beat = setInterval(() => {
        const now = performance.now();
        window.__gaps.push(now - last);
        last = now;
      }, 20);
    });
    const started = Date.now();
    assert.equal(await explain(5), 'done');
    const ms = Date.now() - started;
    // Scroll both panes through, then walk to the last passage.
    await page.evaluate(() => new Promise((resolve) => {
      const panes = ['evidence-a', 'evidence-b'].map((id) => document.getElementById(id));
      let step = 0;
      const tick = () => {
        for (const p of panes) p.scrollTop = (p.scrollHeight * step) / 20;
        if (++step > 20) resolve();
        else requestAnimationFrame(tick);
      };
      tick();
    }));
    await page.focus('#evidence-a mark:not(.cont) >> nth=0');
    await page.keyboard.press('End');
    const maxGap = await page.evaluate(() => {
      clearInterval(window.__beat);
      return Math.max(...window.__gaps);
    });
    const total = Number((await page.textContent('#passages-total')).replace(/,/g, ''));
    assert.ok(total > 500, `${total} passages`);
    assert.equal(await page.$$eval('#evidence-a mark:not(.cont)', (m) => m.length), 500);
    assert.equal(
      await page.textContent('#evidence-note'),
      `Highlighting the 500 longest of ${total.toLocaleString('en-US')} passages, to keep the page responsive. The coverage figures count them all.`,
    );
    assert.match(await page.textContent('#evidence-current'), /^Passage 500 of 500 /);
    assert.ok(await inView('b'), "B's counterpart of the last passage is in view");
    assertResponsive(maxGap, ms);
    console.log(`3 MB pair: ${total} passages, explained and shown in ${ms} ms, longest main-thread gap ${maxGap.toFixed(0)} ms`);
    await shot('evidence-3mb');
  } finally {
    await page.evaluate(() => document.querySelectorAll('[id^=clear-]').forEach((b) => !b.closest('[hidden]') && b.click()));
    rmSync(dir, { recursive: true, force: true });
  }
});

test('screenshots: Evidence on a narrow screen and in dark mode', async () => {
  await page.fill('#text-a', A);
  await page.fill('#text-b', B);
  assert.equal(await explain(3), 'done');
  await page.click('#evidence-a mark >> nth=1');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot('evidence-dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 420, height: 900 });
  await shot('evidence-mobile');
  await page.setViewportSize({ width: 1280, height: 900 });
});

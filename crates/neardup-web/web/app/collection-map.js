// The Collection tab's heat map of every pair's similarity.
import { $ } from './dom.js';
import { pct } from './format.js';
import { collection, emit, on } from './state.js';

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

export function drawMap() {
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
  if (c) emit('open-pair', c.pair || { a: c.a, b: c.b, verdict: null, receipt: null });
});
let resizeTimer = 0;
window.addEventListener('resize', () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(drawMap, 100);
});
matchMedia('(prefers-color-scheme: dark)').addEventListener('change', drawMap);
on('collection', drawMap);
// A hidden panel has no width: the heat map is drawn when it shows.
on('tab', (tab) => tab.id === 'tab-collection' && drawMap());

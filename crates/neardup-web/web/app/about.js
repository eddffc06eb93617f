// What the core says about itself (src/about.rs, asked of the embedded wasm
// when the page is built, see assemble.mjs): the inputs start at its
// defaults, and the page shows its algorithm, extractor version and cluster
// threshold wherever they are named. Applied as the page starts, before
// anyone can type, and as the inputs' default values, which a form's reset
// returns to.
import { $ } from './dom.js';

/** `{"algorithm", "algorithms", "extractor", "k", "n", "threshold", "words"}` */
export const about = JSON.parse($('about').textContent);

for (const input of document.querySelectorAll('input[data-default]')) input.defaultValue = String(about[input.dataset.default]);
for (const select of document.querySelectorAll('select[data-default]')) {
  for (const option of select.options) option.defaultSelected = option.value === about[select.dataset.default];
}
for (const el of document.querySelectorAll('[data-about]')) el.textContent = String(about[el.dataset.about]);

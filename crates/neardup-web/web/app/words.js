// The Words setting (SPEC §11): a text's words split on spaces, the
// default, or script words, where each Chinese, Japanese, Thai… character
// is a word. Each tab has its own, as it has its own k; a receipt carries
// its rule in its algorithm id. When the core's caveat says that script
// words can compare a text, the tab offers them in place.
import { $ } from './dom.js';
import { about } from './about.js';

/**
 * How a core caveat (neardup::Caveat) ends when its text was cut on spaces
 * and script words would cut it: naming them, and the K to use with them
 * when it is not 5 (8 for Thai, Lao, Khmer or Myanmar, whose code points
 * are letters).
 */
const SCRIPT_HINT = /; script words can \(--words script(?: -k (\d+))?\)$/;

/** The word rule whose receipts carry `algorithm` (from the core's about), or null. */
export const ruleOf = (algorithm) => Object.keys(about.algorithms).find((rule) => about.algorithms[rule] === algorithm) ?? null;

/** The rule as a sentence names it. */
export const ruleName = (rule) => (rule === 'script' ? 'script words' : 'words split on spaces');

/**
 * A "Use script words" button (id `id`) when one of `warnings` is a caveat
 * that script words can help and the tab's select (`words`) is not on them
 * yet: it sets the select to script, and the tab's K input (`k`) to the K
 * a caveat names, and submits `form` again. Else null. Of several Ks named,
 * the largest: it keeps unrelated texts of letters apart, and costs
 * near-copies of other texts little.
 */
export function scriptSwitch(id, warnings, { words, k, form }) {
  const hints = warnings.map((w) => SCRIPT_HINT.exec(w)).filter(Boolean);
  if ($(words).value === 'script' || !hints.length) return null;
  const named = Math.max(...hints.map((m) => Number(m[1] ?? 0)));
  const button = document.createElement('button');
  button.type = 'button';
  button.id = id;
  button.className = 'btn btn-small script-switch';
  button.textContent = named ? `Use script words, k = ${named}` : 'Use script words';
  button.addEventListener('click', () => {
    $(words).value = 'script';
    if (named) $(k).value = String(named);
    $(form).requestSubmit();
  });
  return button;
}

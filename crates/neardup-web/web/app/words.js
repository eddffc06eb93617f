// The Words setting (SPEC §11): a text's words split on spaces, the
// default, or script words, where each Chinese, Japanese, Thai… character
// is a word. Each tab has its own, as it has its own k; a receipt carries
// its rule in its algorithm id. When the core's caveat says that script
// words can compare a text, the tab offers them in place.
import { $ } from './dom.js';
import { about } from './about.js';

/** How a core caveat (neardup::Caveat) ends when the text was cut on spaces and script words would cut it. */
const SCRIPT_HINT = 'script words can (--words script)';

/** The word rule whose receipts carry `algorithm` (from the core's about), or null. */
export const ruleOf = (algorithm) => Object.keys(about.algorithms).find((rule) => about.algorithms[rule] === algorithm) ?? null;

/** The rule as a sentence names it. */
export const ruleName = (rule) => (rule === 'script' ? 'script words' : 'words split on spaces');

/**
 * A "Use script words" button (id `id`) when one of `warnings` is a caveat
 * that script words can help and the select `selectId` is not on them
 * yet: it sets the select to script and submits `formId` again. Else null.
 */
export function scriptSwitch(id, warnings, selectId, formId) {
  if ($(selectId).value === 'script' || !warnings.some((w) => w.endsWith(SCRIPT_HINT))) return null;
  const button = document.createElement('button');
  button.type = 'button';
  button.id = id;
  button.className = 'btn btn-small script-switch';
  button.textContent = 'Use script words';
  button.addEventListener('click', () => {
    $(selectId).value = 'script';
    $(formId).requestSubmit();
  });
  return button;
}

// The tabs (WAI-ARIA tabs pattern: arrows move, Home/End jump), and
// Ctrl+Enter, which runs the selected tab.
import { $ } from './dom.js';
import { emit } from './state.js';

const tabs = Array.from(document.querySelectorAll('[role=tab]'));
export function selectTab(tab, focus) {
  for (const t of tabs) {
    const on = t === tab;
    t.setAttribute('aria-selected', String(on));
    t.tabIndex = on ? 0 : -1;
    $(t.getAttribute('aria-controls')).hidden = !on;
  }
  if (focus) tab.focus();
  emit('tab', tab);
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

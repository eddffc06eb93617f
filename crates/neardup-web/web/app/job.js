// Running a job in the engine, with a progress bar and a cancel button.
import { $ } from './dom.js';
import { cancelAll, ready, send } from './engine.js';

export async function runJob(kind, msg, buttonId = kind) {
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

// The page's elements, by id, and what every tab does with them.

export const $ = (id) => document.getElementById(id);

/** Shows `message` in the error box `id`, or hides the box when it is empty. */
export function showError(id, message) {
  const el = $(id);
  el.textContent = message;
  el.hidden = !message;
}

/** Saves `text` as a file named `name`, exactly these bytes (UTF-8). */
export function saveText(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// Small element builders the views and panels share, kept apart from views/kit.js so modules
// that build no view (the hub panel, the benchmark run) need not load kit's plots.

/** A new element with an optional class and text. */
export function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

/**
 * A hidden progress bar (0 of 1) named for screen readers by `label`, and the status line
 * beside it (class `${className}-text`), for a load that reports how far it has got.
 */
export function progressBar(className, label) {
  const bar = el('progress', className);
  bar.max = 1;
  bar.value = 0;
  bar.hidden = true;
  bar.setAttribute('aria-label', label);
  const text = el('span', `${className}-text`);
  text.setAttribute('role', 'status');
  return { bar, text };
}

/**
 * Scrolls `target` (an error line beside the control that caused it) into the viewport when
 * any of it is outside: a message far down a tall settings column is otherwise never seen.
 */
export function reveal(target) {
  const r = target.getBoundingClientRect();
  if (r.top >= 0 && r.bottom <= innerHeight) return;
  target.scrollIntoView({ block: 'nearest' });
}

/**
 * A box that scrolls sideways what cannot shrink to a phone (a table, a formula): focusable and
 * named by `label`, so a keyboard can scroll it and a screen reader says what it holds (axe-core's
 * scrollable-region-focusable). A box of focusable cells (the head grids) scrolls by them.
 */
export function scrollBox(className, label) {
  const box = el('div', className);
  box.tabIndex = 0;
  box.setAttribute('role', 'group');
  box.setAttribute('aria-label', label);
  return box;
}

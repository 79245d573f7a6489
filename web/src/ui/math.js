// KaTeX rendering of the formulas (bundled with its fonts: no CDN). TeX strings come from
// content/ only; KaTeX's trust option stays off so no formula can carry HTML or links.
// KaTeX loads on first use, as its own chunk: embeds show no formulas and never fetch it.
let enabled = true;
let katex = null;
const latest = new WeakMap(); // element → the TeX it should show

/** Embeds call this: formulas are skipped and KaTeX is never loaded. */
export function disableMath() {
  enabled = false;
}

export function renderMath(el, tex, display = true) {
  if (!enabled) return;
  katex ??= import('./katex-render.js');
  // The latest call for an element wins even if an earlier one resolves after it.
  latest.set(el, tex);
  // Typesetting waits for an idle moment (the formula's box holds its height meanwhile), so it
  // never lengthens the task that draws the first plots.
  katex.then(({ render }) => whenIdle(() => latest.get(el) === tex && render(el, tex, display)));
}

const whenIdle = (fn) =>
  typeof requestIdleCallback === 'function' ? requestIdleCallback(fn, { timeout: 1000 }) : setTimeout(fn, 0);

// Input → recompute → redraw timings, kept for the e2e run to read and print
// (window.__poslabTimings); nothing here affects what is drawn.
let inputAt = null;

export function markInput() {
  inputAt = performance.now();
}

/** Records one finished redraw of `view`; the worker's own split comes with it. */
export function markDrawn(view, workerTiming) {
  const now = performance.now();
  const entry = { view, totalMs: inputAt === null ? null : now - inputAt, ...workerTiming, at: now };
  inputAt = null;
  const list = (globalThis.__poslabTimings ??= []);
  list.push(entry);
  if (list.length > 500) list.shift();
  return entry;
}

// Input → recompute → redraw timings, kept for the e2e run to read and print
// (window.__poslabTimings); nothing here affects what is drawn.
let inputAt = null;

export function markInput() {
  inputAt = performance.now();
}

/**
 * Records one finished redraw of `view`; the worker's own split comes with it, and for a job
 * that went to a worker the time between threads (betweenThreadsMs: posted → result taken on
 * the main thread, less the worker's own time; long when the main thread held the message).
 */
export function markDrawn(view, workerTiming = {}) {
  const now = performance.now();
  const { roundTripMs, workerMs, ...split } = workerTiming;
  const trips = roundTripMs === undefined ? {} : { betweenThreadsMs: roundTripMs - workerMs };
  const entry = { view, totalMs: inputAt === null ? null : now - inputAt, ...split, ...trips, at: now };
  inputAt = null;
  const list = (globalThis.__poslabTimings ??= []);
  list.push(entry);
  if (list.length > 500) list.shift();
  return entry;
}

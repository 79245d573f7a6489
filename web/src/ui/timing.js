// Input → recompute → redraw timings, kept for the e2e run to read and print
// (window.__poslabTimings); nothing here affects what is drawn.
let inputAt = null;

export function markInput() {
  inputAt = performance.now();
}

/**
 * Records one finished redraw of `view`; the worker's own split comes with it, and where the
 * job's trip was stamped (worker/client.js, compute.worker.js: ms since the epoch) the time
 * spent between threads: toWorkerMs (posted → the worker took it), toMainMs (the worker sent
 * the result → the main thread took it; long when the main thread was busy rendering).
 */
export function markDrawn(view, workerTiming = {}) {
  const now = performance.now();
  const { postedAt, receivedAt, sentAt, arrivedAt, ...split } = workerTiming;
  const trips = postedAt ? { toWorkerMs: receivedAt - postedAt, toMainMs: arrivedAt - sentAt } : {};
  const entry = { view, totalMs: inputAt === null ? null : now - inputAt, ...split, ...trips, at: now };
  inputAt = null;
  const list = (globalThis.__poslabTimings ??= []);
  list.push(entry);
  if (list.length > 500) list.shift();
  return entry;
}

// The Long context view's passes, one per RoPE scaling, with their progress: which pass of how
// many, how long the rest should take, and each pass's time. Both of its model families run
// through here (jobs/long-context.js, jobs/lab-rope.js).

/** Seconds left when `done` of `total` equal steps took `elapsedMs`, as text ('' before the first). */
export function etaText(done, total, elapsedMs) {
  if (done <= 0 || done >= total) return '';
  const s = Math.round(((total - done) * elapsedMs) / done / 1000);
  return s < 90 ? `about ${s} s left` : `about ${Math.round(s / 60)} min left`;
}

/**
 * `pass(scaling)` for each of `methods`, reporting { phase: 'run', method, index, count, eta }
 * before each and { phase: 'curve', method, index, count, losses, ...info } after it (the view
 * draws each curve as it arrives; info: what it needs to, such as N and T). Returns
 * { losses: { [scaling]: pass's result }, ms: { [scaling]: its time } }.
 */
export function passPerScaling(methods, progress, pass, info = {}) {
  const losses = {};
  const ms = {};
  const t0 = performance.now();
  methods.forEach((scaling, index) => {
    const eta = etaText(index, methods.length, performance.now() - t0);
    progress?.({ phase: 'run', method: scaling, index, count: methods.length, eta });
    const t = performance.now();
    losses[scaling] = pass(scaling);
    ms[scaling] = performance.now() - t;
    progress?.({ phase: 'curve', method: scaling, index, count: methods.length, losses: losses[scaling], ...info });
  });
  return { losses, ms };
}

// Loss curves for the lab's plot: a training loss jumps from batch to batch, so the curve is
// drawn smoothed by an exponential moving average, debiased (as TensorBoard's) so it starts at
// the first losses rather than at 0, and thinned to a few hundred points.

/**
 * The EMA of `y` with time constant `tau` steps (weight e^(−1/tau) on the past), divided by the
 * weights' sum so far so that early values are not pulled towards 0.
 * @param {ArrayLike<number>} y
 * @param {number} tau
 * @returns {Float64Array}
 */
export function ema(y, tau) {
  const keep = tau > 0 ? Math.exp(-1 / tau) : 0;
  const out = new Float64Array(y.length);
  let sum = 0;
  let weight = 0;
  for (let i = 0; i < y.length; i++) {
    sum = keep * sum + y[i];
    weight = keep * weight + 1;
    out[i] = sum / weight;
  }
  return out;
}

/**
 * A run's loss curve ([[step, loss], …]) smoothed over a fiftieth of the steps it has run (at
 * least 5; not of those planned, which would lag far behind a long run stopped early), then
 * every k-th point kept so at most `points` remain (the last always).
 * @param {[number, number][]} curve
 * @returns {{ x: Float64Array, y: Float64Array }}
 */
export function smoothLoss(curve, points = 250) {
  const y = ema(
    curve.map((s) => s[1]),
    Math.max(5, curve.length / 50),
  );
  const every = Math.max(1, Math.ceil(curve.length / points));
  const keep = [];
  for (let i = 0; i < curve.length; i += every) keep.push(i);
  if (curve.length && keep[keep.length - 1] !== curve.length - 1) keep.push(curve.length - 1);
  return { x: Float64Array.from(keep, (i) => curve[i][0]), y: Float64Array.from(keep, (i) => y[i]) };
}

// The moving average the loss-by-position plots draw (Long context, the lens): a pure function
// on its own, so a view that smooths need not load a job's module.

/** Moving average over a window of `w` positions (centred, shrinking at the ends); w ≤ 1: a copy. */
export function movingAverage(data, w) {
  const n = data.length;
  const out = new Float32Array(n);
  if (!(w > 1)) {
    out.set(data);
    return out;
  }
  const half = Math.floor(w / 2);
  const prefix = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i] + data[i];
  for (let i = 0; i < n; i++) {
    const a = Math.max(0, i - half);
    const b = Math.min(n, i - half + w);
    out[i] = (prefix[b] - prefix[a]) / (b - a);
  }
  return out;
}

// Small dense helpers for the glue around wasm results (matrix-vector products, per-head
// scores, entropies). Sizes here are tiny (D ≤ 1024, L ≤ 64 tokens); accumulation in double.

/** y = M x for M (n, n) row-major. */
export function matVec(M, x, n) {
  const y = new Float32Array(n);
  for (let r = 0; r < n; r++) {
    let s = 0;
    for (let c = 0; c < n; c++) s += M[r * n + c] * x[c];
    y[r] = s;
  }
  return y;
}

/** scores[h, i, j] = scale · q[h, i, :] · k[h, j, :] for q, k (H, L, d). */
export function headScores(q, k, H, L, d, scale) {
  const out = new Float32Array(H * L * L);
  for (let h = 0; h < H; h++) {
    const base = h * L * d;
    for (let i = 0; i < L; i++) {
      for (let j = 0; j < L; j++) {
        let s = 0;
        for (let t = 0; t < d; t++) s += q[base + i * d + t] * k[base + j * d + t];
        out[(h * L + i) * L + j] = s * scale;
      }
    }
  }
  return out;
}

/**
 * Mean Shannon entropy (nats) of the rows of weights (H, L, L) per head. Rows with no
 * visible key (all zero) are left out of the mean; a head with none left gets NaN.
 */
export function headEntropy(w, H, L) {
  const out = new Float32Array(H);
  for (let h = 0; h < H; h++) {
    let total = 0;
    let rows = 0;
    for (let i = 0; i < L; i++) {
      let e = 0;
      let mass = 0;
      for (let j = 0; j < L; j++) {
        const v = w[(h * L + i) * L + j];
        mass += v;
        if (v > 0) e -= v * Math.log(v);
      }
      if (mass > 0) {
        total += e;
        rows++;
      }
    }
    out[h] = rows ? total / rows : NaN;
  }
  return out;
}

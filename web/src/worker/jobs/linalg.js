// Small dense helpers for the glue around wasm results (matrix-vector products, per-head
// outputs, entropies). Sizes here are tiny (D ≤ 1024, L ≤ 64 tokens); accumulation in double.

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

/** out[i, t] = Σ_j w[h, i, j] · v[h, j, t]: head h's output for weights (H, L, L), v (H, L, d). */
export function headOutput(w, v, h, L, d) {
  const out = new Float32Array(L * d);
  for (let i = 0; i < L; i++) {
    for (let t = 0; t < d; t++) {
      let s = 0;
      for (let j = 0; j < L; j++) s += w[(h * L + i) * L + j] * v[(h * L + j) * d + t];
      out[i * d + t] = s;
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

// Small dense helpers for the glue around wasm results (matrix-vector products,
// entropies). Sizes here are tiny (D ≤ 1024, L ≤ 64 tokens); accumulation in double.

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

// Plain-JavaScript versions of the benchmarked ops: the baseline a web page would write
// without WebAssembly. Same math as the core (float64 angles, stable softmax, causal skip).

// (L, D) interleaved sinusoidal table.
export function sinusoidal(length, dim, base = 10000) {
  const out = new Float32Array(length * dim);
  const half = dim / 2;
  const freq = new Float64Array(half);
  for (let i = 0; i < half; i++) freq[i] = Math.pow(base, (-2 * i) / dim);
  for (let p = 0; p < length; p++) {
    for (let i = 0; i < half; i++) {
      const a = p * freq[i];
      out[p * dim + 2 * i] = Math.sin(a);
      out[p * dim + 2 * i + 1] = Math.cos(a);
    }
  }
  return out;
}

// x (H, L, D) rotated in neox pairing (x[i], x[i + D/2]) at positions 0..L-1.
export function rope(x, heads, length, dim, base = 10000) {
  const out = new Float32Array(x.length);
  const half = dim / 2;
  const cos = new Float32Array(half);
  const sin = new Float32Array(half);
  for (let p = 0; p < length; p++) {
    for (let i = 0; i < half; i++) {
      const a = p * Math.pow(base, (-2 * i) / dim);
      cos[i] = Math.cos(a);
      sin[i] = Math.sin(a);
    }
    for (let h = 0; h < heads; h++) {
      const row = (h * length + p) * dim;
      for (let i = 0; i < half; i++) {
        const u = x[row + i];
        const v = x[row + i + half];
        out[row + i] = u * cos[i] - v * sin[i];
        out[row + i + half] = u * sin[i] + v * cos[i];
      }
    }
  }
  return out;
}

// Causal attention on q, k, v (H, L, d): output (H, L, d).
export function causalAttention(q, k, v, heads, length, d) {
  const out = new Float32Array(heads * length * d);
  const scores = new Float32Array(length);
  const scale = 1 / Math.sqrt(d);
  for (let h = 0; h < heads; h++) {
    const base = h * length * d;
    for (let i = 0; i < length; i++) {
      let max = -Infinity;
      for (let j = 0; j <= i; j++) {
        let s = 0;
        for (let c = 0; c < d; c++) s += q[base + i * d + c] * k[base + j * d + c];
        s *= scale;
        scores[j] = s;
        if (s > max) max = s;
      }
      let sum = 0;
      for (let j = 0; j <= i; j++) {
        scores[j] = Math.exp(scores[j] - max);
        sum += scores[j];
      }
      const o = base + i * d;
      for (let j = 0; j <= i; j++) {
        const w = scores[j] / sum;
        for (let c = 0; c < d; c++) out[o + c] += w * v[base + j * d + c];
      }
    }
  }
  return out;
}

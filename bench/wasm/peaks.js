// The SIMD peaks of one thread, measured in the engine that runs the benchmark (Node or a
// Chromium page; no Node imports here): simdPeak of the poslab-bench module, register-only
// chains of f32x4 mul + add and, in its relaxed twin (build/wasm/simd/relaxed), of
// f32x4.relaxed_madd, the multiply-add the relaxed build's GEMM and attention run on. Every
// kernel is printed as a % of the peak of the instruction it uses.

/**
 * @param {object} m a poslab-bench module (SIMD build or its relaxed twin)
 * @returns {{ simd: number, relaxed: number | null }} GFLOP/s, the best of `runs`; relaxed is null
 *   for the SIMD build's module
 */
export function measurePeaks(m, { iterations = 20_000_000, runs = 3 } = {}) {
  m.simdPeak(2_000_000, 0.9999, 1e-4); // tier up to the optimising compiler
  const results = Array.from({ length: runs }, () => m.simdPeak(iterations, 0.9999, 1e-4));
  const best = (key) => Math.max(...results.map((r) => (key ? r[key].gflops : r.gflops)));
  return { simd: best(), relaxed: results[0].relaxed ? best('relaxed') : null };
}

/** "SIMD128 peak of one thread: 23.1 GFLOP/s (f32x4 mul + add), 41.0 (f32x4.relaxed_madd)". */
export function peaksLine({ simd, relaxed }) {
  const madd = relaxed === null ? 'relaxed SIMD: not in this engine' : `${relaxed.toFixed(1)} (f32x4.relaxed_madd)`;
  return `SIMD128 peak of one thread, measured (simdPeak): ${simd.toFixed(1)} GFLOP/s (f32x4 mul + add), ${madd}`;
}

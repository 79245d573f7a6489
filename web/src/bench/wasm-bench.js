// The wasm benchmark's shared part: timing, inputs, the cases (attention, RoPE, the sinusoidal
// table) and a runner that times PosLab's SIMD and scalar builds and plain JS, each checked
// against the SIMD result first. `npm run bench:wasm` (bench/wasm/bench.mjs) and the
// Benchmarks view's "Run on this machine" (worker/bench.worker.js) both use it.
import * as plain from './plain.js';
import { shapeLabel } from './results.js';

/** Median wall time in ms of `fn` over at least `minRuns` runs and about `budgetMs`. */
export function median(fn, { minRuns = 5, budgetMs = 3000, warmup = 1, maxRuns = 50 } = {}) {
  return timeRuns(fn, { minRuns, budgetMs, warmup, maxRuns }).median;
}

/**
 * { median, min, repeats, calls } of `fn`'s wall time in ms per call. With `minRepeatMs`, each
 * repeat times `calls` calls in a row lasting at least that long, so a call far shorter than
 * the clock's resolution (browsers coarsen performance.now() to 0.1 ms) still gets a time.
 */
export function timeRuns(fn, { minRuns = 5, budgetMs = 3000, warmup = 1, maxRuns = 50, minRepeatMs = 0 } = {}) {
  for (let i = 0; i < warmup; i++) fn();
  let calls = 1;
  const times = [];
  const start = performance.now();
  while (times.length < minRuns || (performance.now() - start < budgetMs && times.length < maxRuns)) {
    const t0 = performance.now();
    for (let i = 0; i < calls; i++) fn();
    const ms = performance.now() - t0;
    // Too short for the clock, at first or once the engine has optimised fn: twice the calls,
    // and the repeats so far dropped, so every time kept is of the same number of calls.
    if (ms < minRepeatMs && calls < 2 ** 20) {
      calls *= 2;
      times.length = 0;
      continue;
    }
    times.push(ms / calls);
  }
  times.sort((a, b) => a - b);
  return { median: times[times.length >> 1], min: times[0], repeats: times.length, calls };
}

export function maxAbsDiff(a, b) {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

/** xorshift32 uniform in [-1, 1): inputs only need to be reproducible. */
export function randomArray(n, seed) {
  let s = seed >>> 0 || 1;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    out[i] = (s >>> 0) / 2 ** 31 - 1;
  }
  return out;
}

/**
 * Sizes of a run: `tiny` for tests and the page's quick check (well under a second), `default`
 * what bench.mjs times and the page runs unless asked otherwise.
 */
export const SIZES = {
  tiny: { attention: [[2, 32, 16]], rope: [[2, 64, 32]], sinusoidal: [[64, 64]], budgetMs: 20, minRuns: 3 },
  default: {
    attention: [
      [8, 512, 64],
      [8, 2048, 64],
    ],
    rope: [[8, 4096, 64]],
    sinusoidal: [[4096, 1024]],
    budgetMs: 3000,
    minRuns: 3,
  },
};

/** The cases of a size preset: each with its shape, work and one callable per implementation. */
export function benchCases(size = 'default') {
  const preset = SIZES[size];
  if (!preset) throw new Error(`size: unknown preset ${JSON.stringify(size)}`);
  const cases = [];
  for (const [H, L, d] of preset.attention) {
    const q = randomArray(H * L * d, 1);
    const k = randomArray(H * L * d, 2);
    const v = randomArray(H * L * d, 3);
    const shape = [H, L, d];
    cases.push({
      kernel: 'attention',
      shape: { H, L, d },
      params: { mask: 'causal' },
      flops: (4 * H * d * (L * (L + 1))) / 2, // QKᵀ and PV over the unmasked half
      wasm: (lab) => () =>
        lab.attention(
          { data: q, shape },
          { data: k, shape },
          { data: v, shape },
          { mask: 'causal', returnWeights: false },
        ).output.data,
      plain: () => plain.causalAttention(q, k, v, H, L, d),
    });
  }
  for (const [H, L, D] of preset.rope) {
    const x = randomArray(H * L * D, 4);
    const shape = [H, L, D];
    cases.push({
      kernel: 'rope',
      shape: { H, L, D },
      params: { style: 'neox' },
      bytes: H * L * D * 8, // read + write
      wasm: (lab) => () => lab.rope({ data: x, shape }, { style: 'neox' }).data,
      plain: () => plain.rope(x, H, L, D),
    });
  }
  for (const [L, D] of preset.sinusoidal) {
    cases.push({
      kernel: 'sinusoidal',
      shape: { L, D },
      params: { layout: 'interleaved' },
      bytes: L * D * 4,
      wasm: (lab) => () => lab.sinusoidal({ length: L, dim: D }).data,
      plain: () => plain.sinusoidal(L, D),
    });
  }
  return cases;
}

// Implementations checked against the SIMD build's result (itself checked against the native CLI
// by tests/wasm): float32 with different summation orders.
const TOLERANCE = { atol: 1e-4, rtol: 0 };

// A repeat lasts at least this long: 20 × the 0.1 ms a browser's clock may be rounded to.
const MIN_REPEAT_MS = 2;

/** The variants a run times, in the order of its rows. */
export const VARIANTS = ['wasm-simd', 'wasm-scalar', 'plain-js'];

/**
 * Runs every case; returns a results file in the schema of public/bench/ (poslab-bench/1).
 * @param {{ simd: any, scalar?: any, size?: string, device?: object, onProgress?: (done: number, total: number, label: string) => void }} o
 */
export function runWasmBench({ simd, scalar, size = 'default', device = {}, onProgress = () => {} }) {
  const preset = SIZES[size];
  const cases = benchCases(size);
  const makers = {
    'wasm-simd': (c) => c.wasm(simd),
    'wasm-scalar': scalar && ((c) => c.wasm(scalar)),
    'plain-js': (c) => c.plain,
  };
  const impls = VARIANTS.filter((v) => makers[v]).map((v) => [v, makers[v]]);
  const total = cases.length * impls.length;
  const results = [];
  let done = 0;
  for (const c of cases) {
    const ref = c.wasm(simd)();
    for (const [variant, make] of impls) {
      const fn = make(c);
      onProgress(done, total, `${c.kernel} ${shapeLabel(c)} ${variant}`);
      const err = variant === 'wasm-simd' ? 0 : maxAbsDiff(fn(), ref);
      const validated = err <= TOLERANCE.atol;
      const row = {
        kernel: c.kernel,
        variant,
        dtype: 'fp32',
        shape: c.shape,
        params: c.params,
        max_abs_error: err,
        tolerance: TOLERANCE,
        validated,
        validated_on: variant === 'wasm-simd' ? 'the reference of this run' : 'every element, against wasm-simd',
      };
      if (validated) {
        const t = timeRuns(fn, { budgetMs: preset.budgetMs, minRuns: preset.minRuns, minRepeatMs: MIN_REPEAT_MS });
        Object.assign(row, { median_ms: t.median, min_ms: t.min, repeats: t.repeats, calls_per_repeat: t.calls });
        if (c.flops) Object.assign(row, { flops: c.flops, gflops: c.flops / (t.median / 1000) / 1e9 });
        if (c.bytes) Object.assign(row, { bytes: c.bytes, gbs: c.bytes / (t.median / 1000) / 1e9 });
      } else {
        row.median_ms = null; // never timed: a wrong answer has no speed
      }
      results.push(row);
      done += 1;
    }
  }
  onProgress(done, total, 'done');
  const now = new Date();
  return {
    schema: 'poslab-bench/1',
    source: 'poslab-wasm',
    preset: size,
    date: now.toISOString().slice(0, 10),
    time_utc: now.toISOString().replace(/\.\d+Z$/, 'Z'),
    device,
    timing: `median_ms: median over repeats of the wall time per call; a repeat is calls_per_repeat calls in a row lasting at least ${MIN_REPEAT_MS} ms; at least ${preset.minRuns} repeats and about ${preset.budgetMs} ms per row; one thread`,
    results,
  };
}

// Calls the CLI does not offer (Shaw indices, T5 bias, learned std) and facts about the
// build: checked against their definitions and against the calls that the CLI does check.
import { beforeAll, describe, expect, test } from 'vitest';
import { assertClose } from './helpers/compare.js';
import { loadLab } from './helpers/lab.js';
import { VARIANTS } from './helpers/paths.js';

describe.each(VARIANTS)('%s wasm', (variant) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(variant);
  });

  test('simdTarget names the instruction set of the build', () => {
    if (variant === 'simd') expect(lab.simdTarget()).toBe('WASM');
    else if (variant === 'relaxed') expect(lab.simdTarget()).toBe('WASM+RELAXED');
    else expect(['EMU128', 'SCALAR']).toContain(lab.simdTarget());
  });

  test('ropeFrequencies keeps θ_i in double: base^(−2i/R) to the last bit of a float64', () => {
    // The CLI writes float32 .npy, so this is checked against the formula, not the CLI. Once
    // narrowed to float32 (relative error up to 6e-8), far above what is allowed here.
    const R = 64;
    const base = 500;
    const { invFreq } = lab.ropeFrequencies({ headDim: R, base });
    expect(invFreq.data).toBeInstanceOf(Float64Array);
    expect(invFreq.shape).toEqual([R / 2]);
    invFreq.data.forEach((theta, i) => {
      const exact = Math.pow(base, (-2 * i) / R);
      expect(Math.abs(theta - exact) / exact, `θ_${i}`).toBeLessThan(1e-14);
    });
  });

  test('maxElements is the documented per-tensor cap, 2^26', () => {
    expect(lab.maxElements).toBe(2 ** 26);
  });

  test('shawIndices[i, j] = clip(j − i, −K, K) + K', () => {
    const [Lq, Lk, K] = [7, 11, 3];
    const r = lab.shawIndices({ queryLength: Lq, keyLength: Lk, maxDistance: K });
    expect(r.shape).toEqual([Lq, Lk]);
    expect(r.data).toBeInstanceOf(Int32Array);
    const expected = Int32Array.from({ length: Lq * Lk }, (_, n) => {
      const rel = (n % Lk) - Math.floor(n / Lk);
      return Math.max(-K, Math.min(K, rel)) + K;
    });
    expect(r.data).toEqual(expected);
  });

  test('shaw rows are the table rows the Shaw indices pick', () => {
    const o = { queryLength: 6, keyLength: 9, maxDistance: 2 };
    const D = 5;
    const idx = lab.shawIndices(o).data;
    const emb = lab.shaw({ ...o, dim: D, seed: 4 }).data;
    const row = new Map();
    for (let n = 0; n < idx.length; n++) {
      const vec = Array.from(emb.subarray(n * D, (n + 1) * D));
      if (!row.has(idx[n])) row.set(idx[n], vec);
      expect(vec, `pair ${n} (index ${idx[n]})`).toEqual(row.get(idx[n]));
    }
    expect(row.size).toBe(2 * o.maxDistance + 1);
  });

  test('T5 defaults to unidirectional buckets, as the core and the CLI', () => {
    const o = { queryLength: 6, keyLength: 9 };
    expect(lab.t5Buckets(o).data).toEqual(lab.t5Buckets({ ...o, bidirectional: false }).data);
    expect(lab.t5Buckets(o).data).not.toEqual(lab.t5Buckets({ ...o, bidirectional: true }).data);
  });

  test('t5Bias[h, i, j] depends only on the bucket of (i, j), and on the seed', () => {
    const o = { queryLength: 10, keyLength: 14, bidirectional: true, numBuckets: 8, maxDistance: 16 };
    const H = 3;
    const buckets = lab.t5Buckets(o).data;
    const bias = lab.t5Bias({ heads: H, ...o, seed: 1 });
    expect(bias.shape).toEqual([H, o.queryLength, o.keyLength]);
    const n = buckets.length;
    for (let h = 0; h < H; h++) {
      const value = new Map();
      for (let p = 0; p < n; p++) {
        const b = bias.data[h * n + p];
        if (!value.has(buckets[p])) value.set(buckets[p], b);
        expect(b, `head ${h} pair ${p}`).toBe(value.get(buckets[p]));
      }
    }
    expect(lab.t5Bias({ heads: H, ...o, seed: 1 }).data).toEqual(bias.data);
    expect(lab.t5Bias({ heads: H, ...o, seed: 2 }).data).not.toEqual(bias.data);
  });

  test('learned std scales the same seeded draws', () => {
    const base = lab.learned({ length: 6, dim: 10, seed: 9 });
    const double = lab.learned({ length: 6, dim: 10, seed: 9, std: 0.04 });
    assertClose(double, { data: base.data.map((x) => 2 * x), shape: base.shape }, 'std 0.04 vs 2 × std 0.02');
    expect(lab.learned({ length: 6, dim: 10, seed: 10 }).data).not.toEqual(base.data);
  });

  test('alibi with Lq ≠ Lk is −m_h·|i − j| with the alibiSlopes', () => {
    const [H, Lq, Lk] = [5, 4, 7];
    const slopes = lab.alibiSlopes({ heads: H }).data;
    const bias = lab.alibi({ heads: H, queryLength: Lq, keyLength: Lk });
    expect(bias.shape).toEqual([H, Lq, Lk]);
    const expected = Float32Array.from({ length: H * Lq * Lk }, (_, n) => {
      const h = Math.floor(n / (Lq * Lk));
      const i = Math.floor(n / Lk) % Lq;
      return -slopes[h] * Math.abs(i - (n % Lk));
    });
    assertClose(bias, { data: expected, shape: [H, Lq, Lk] }, 'alibi');
  });
});

// Results are copies JS owns: they survive heap growth (a typed_memory_view would be
// detached), later calls do not overwrite them, and inputs are never written to.
import { beforeAll, describe, expect, test } from 'vitest';
import { loadLab } from './helpers/lab.js';
import { VARIANTS } from './helpers/paths.js';
import { randomNormal } from './helpers/prng.js';

describe.each(VARIANTS)('%s wasm results are owned copies', (variant) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(variant);
  });

  test('a result sits in its own buffer, not in the wasm heap', () => {
    const r = lab.sinusoidal({ length: 4, dim: 8 });
    expect(r.data).toBeInstanceOf(Float32Array);
    expect(r.data.buffer.byteLength).toBe(r.data.byteLength);
    const b = lab.t5Buckets({ queryLength: 4, keyLength: 5, bidirectional: true });
    expect(b.data).toBeInstanceOf(Int32Array);
    expect(b.data.buffer.byteLength).toBe(b.data.byteLength);
  });

  test('a later call does not overwrite an earlier result', () => {
    const a = lab.sinusoidal({ length: 16, dim: 16 });
    const copy = a.data.slice();
    lab.sinusoidal({ length: 16, dim: 16, offset: 100 });
    lab.rope(randomNormal(5, [16, 16]));
    expect(a.data).toEqual(copy);
  });

  test('results survive heap growth', () => {
    const x = randomNormal(6, [8, 32]);
    const a = lab.rope(x, { offset: 9 });
    const w = lab.attention(x, x, x, { mask: 'causal' });
    const copies = [a.data.slice(), w.output.data.slice(), w.weights.data.slice()];
    const before = lab.heapBytes();
    // 2048 × 4096 floats = 32 MiB: more than the heap has spare, so memory must grow.
    const big = lab.sinusoidal({ length: 2048, dim: 4096 });
    expect(big.data.length).toBe(2048 * 4096);
    expect(lab.heapBytes()).toBeGreaterThan(before);
    expect(a.data.length).toBe(copies[0].length);
    expect(a.data).toEqual(copies[0]);
    expect(w.output.data).toEqual(copies[1]);
    expect(w.weights.data).toEqual(copies[2]);
    // And the module still computes the same thing after growing.
    expect(lab.rope(x, { offset: 9 }).data).toEqual(copies[0]);
  });

  test('number[] inputs give the same result as Float32Array inputs', () => {
    const x = randomNormal(7, [3, 8]);
    const fromArray = lab.rope({ data: Array.from(x.data), shape: x.shape }, { style: 'gptj' });
    expect(fromArray.data).toEqual(lab.rope(x, { style: 'gptj' }).data);
  });
});

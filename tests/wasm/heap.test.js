// 10 000 calls (successes and failures mixed) must not grow the wasm heap once warmed up:
// a leak of the inputs' or results' heap copies, or of a caught C++ exception, would.
import { beforeAll, describe, expect, test } from 'vitest';
import { loadLab, loadWrapper } from './helpers/lab.js';
import { VARIANTS } from './helpers/paths.js';
import { randomNormal } from './helpers/prng.js';

const x = randomNormal(1, [2, 16, 32]);
const q = randomNormal(2, [2, 24, 16]);
const k = randomNormal(3, [2, 24, 16]);
const v = randomNormal(4, [2, 24, 16]);

// Call i of the mix; every seventh call fails on purpose (in JS or in the core).
function call(lab, PosLabError, i) {
  switch (i % 7) {
    case 0:
      return lab.sinusoidal({ length: 32, dim: 64, offset: i });
    case 1:
      return lab.rope(x, { style: i % 2 ? 'neox' : 'gptj', offset: i % 100 });
    case 2:
      return lab.attention(q, k, v, { mask: 'causal' });
    case 3:
      return lab.attention(q, k, v, { mask: 'window:5', returnWeights: false });
    case 4:
      return lab.ropeFrequencies({ headDim: 32, scaling: 'yarn', factor: 4, originalLength: 64 });
    case 5:
      return lab.t5Buckets({ queryLength: 16, keyLength: 16, bidirectional: true });
    default:
      try {
        // Alternate a JS-side rejection and one only the core detects.
        if (i % 2) lab.sinusoidal({ length: 8, dim: 7 });
        else lab.ropeFrequencies({ headDim: 6, rotaryFraction: 0.5 });
      } catch (e) {
        if (!(e instanceof PosLabError)) throw e;
        return null;
      }
      throw new Error('the failing call did not fail');
  }
}

describe.each(VARIANTS)('%s wasm heap', (variant) => {
  let lab;
  let PosLabError;
  beforeAll(async () => {
    ({ PosLabError } = await loadWrapper());
    lab = await loadLab(variant);
  });

  test('10 000 mixed calls leave heapBytes() unchanged after a warm-up', () => {
    const first = lab.attention(q, k, v, { mask: 'causal' }).output.data;
    for (let i = 0; i < 700; i++) call(lab, PosLabError, i);
    const warm = lab.heapBytes();
    expect(warm).toBeGreaterThan(0);
    for (let i = 0; i < 10_000; i++) call(lab, PosLabError, i);
    expect(lab.heapBytes()).toBe(warm);
    expect(lab.attention(q, k, v, { mask: 'causal' }).output.data).toEqual(first);
  }, 60_000);
});

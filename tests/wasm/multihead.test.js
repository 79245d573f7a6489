// multiHeadAttention has no CLI counterpart: check its invariants, and that its weights are
// exactly what lab.attention gives on the q, k, v (and position bias) it returns.
import { beforeAll, describe, expect, test } from 'vitest';
import { assertClose } from './helpers/compare.js';
import { loadLab } from './helpers/lab.js';
import { VARIANTS } from './helpers/paths.js';
import { randomNormal } from './helpers/prng.js';

const L = 12;
const padded = [3, 10];
const keyPadding = Uint8Array.from({ length: L }, (_, j) => (padded.includes(j) ? 1 : 0));

// [name, model width D, options]
const CONFIGS = [
  ['one head, explicit scale', 16, { heads: 1, scale: 0.5 }],
  ['4 heads, no mask', 32, { heads: 4 }],
  ['4 heads, causal', 32, { heads: 4, mask: 'causal' }],
  ['2 heads, window:3 + key padding', 32, { heads: 2, mask: 'window:3', keyPadding }],
  ['2 heads, {window: 4}', 32, { heads: 2, mask: { window: 4 } }],
  ['4 heads, causal, neox RoPE', 32, { heads: 4, mask: 'causal', rope: { style: 'neox' } }],
  [
    '8 heads, causal, gptj yarn RoPE',
    64,
    { heads: 8, mask: 'causal', rope: { style: 'gptj', scaling: 'yarn', factor: 4, originalLength: 8 } },
  ],
  ['4 heads, causal, xPos', 32, { heads: 4, mask: 'causal', rope: { method: 'xpos', scaleBase: 8 } }],
  ['2 heads, xPos (defaults) + ALiBi', 16, { heads: 2, rope: { method: 'xpos' }, bias: 'alibi' }],
  ['4 heads, causal, ALiBi', 32, { heads: 4, mask: 'causal', bias: 'alibi' }],
  [
    '4 heads, T5 bias',
    32,
    { heads: 4, bias: 't5', t5: { bidirectional: true, numBuckets: 16, maxDistance: 32 }, t5Seed: 3 },
  ],
  ['4 heads, causal, KERPLE (seeded r1, r2)', 32, { heads: 4, mask: 'causal', bias: 'kerple', kerpleSeed: 5 }],
  ['2 heads, KERPLE r1 = 0.7, r2 = 2', 16, { heads: 2, bias: 'kerple', kerple: { r1: 0.7, r2: 2 } }],
  [
    '2 heads, causal, p-RoPE p = 0.25',
    32,
    { heads: 2, mask: 'causal', rope: { method: 'p-rope', keepFraction: 0.25 } },
  ],
];

// Is key j visible to query i under the config's mask and padding?
function visible(o, i, j) {
  if (o.keyPadding && o.keyPadding[j]) return false;
  const mask = typeof o.mask === 'object' ? `window:${o.mask.window}` : (o.mask ?? 'none');
  if (mask === 'none') return true;
  if (j > i) return false;
  return mask === 'causal' || i - j < Number(mask.slice('window:'.length));
}

describe.each(VARIANTS)('%s wasm multiHeadAttention', (variant) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(variant);
  });

  describe.each(CONFIGS)('%s', (name, D, o) => {
    const x = randomNormal(11, [L, D]);
    const H = o.heads;
    const d = D / H;
    let r;
    beforeAll(() => {
      r = lab.multiHeadAttention(x, { seed: 7, ...o });
    });

    test('shapes: output (L, D), weights (H, L, L), q/k/v/heads (H, L, d)', () => {
      expect(r.output.shape).toEqual([L, D]);
      expect(r.output.data.length).toBe(L * D);
      expect(r.output.data.every(Number.isFinite)).toBe(true);
      expect(r.weights.shape).toEqual([H, L, L]);
      for (const t of [r.q, r.k, r.v, r.heads]) expect(t.shape).toEqual([H, L, d]);
      if (o.bias && o.bias !== 'none') expect(r.bias.shape).toEqual([H, L, L]);
      else expect(r.bias === undefined || r.bias.data.length === 0).toBe(true);
    });

    test('weights: visible keys sum to 1, hidden keys are exactly 0', () => {
      for (let h = 0; h < H; h++) {
        for (let i = 0; i < L; i++) {
          let sum = 0;
          for (let j = 0; j < L; j++) {
            const w = r.weights.data[(h * L + i) * L + j];
            if (!visible(o, i, j)) expect(w, `w[${h},${i},${j}]`).toBe(0);
            sum += w;
          }
          const anyVisible = Array.from({ length: L }, (_, j) => visible(o, i, j)).some(Boolean);
          expect(Math.abs(sum - (anyVisible ? 1 : 0)), `row ${h},${i} sums to ${sum}`).toBeLessThanOrEqual(1e-6);
        }
      }
    });

    test('weights equal lab.attention on the returned q, k, v (and bias)', () => {
      const a = lab.attention(r.q, r.k, r.v, {
        ...(o.mask && { mask: o.mask }),
        ...(o.keyPadding && { keyPadding: o.keyPadding }),
        ...(o.scale !== undefined && { scale: o.scale }),
        ...(r.bias && r.bias.data.length > 0 && { bias: r.bias }),
      });
      assertClose(r.weights, a.weights, `${name}: weights`);
      assertClose(r.heads, a.output, `${name}: per-head output`);
    });

    test('scores: q·kᵀ·scale + bias from the returned q, k (computed here), −∞ where hidden', () => {
      expect(r.scores.shape).toEqual([H, L, L]);
      const scale = o.scale ?? 1 / Math.sqrt(d);
      for (let h = 0; h < H; h++) {
        for (let i = 0; i < L; i++) {
          for (let j = 0; j < L; j++) {
            const got = r.scores.data[(h * L + i) * L + j];
            if (!visible(o, i, j)) {
              expect(got, `s[${h},${i},${j}]`).toBe(-Infinity);
              continue;
            }
            let dot = 0;
            for (let c = 0; c < d; c++) dot += r.q.data[(h * L + i) * d + c] * r.k.data[(h * L + j) * d + c];
            const bias = r.bias ? r.bias.data[(h * L + i) * L + j] : 0;
            expect(Math.abs(got - (dot * scale + bias)), `s[${h},${i},${j}]`).toBeLessThanOrEqual(1e-4);
          }
        }
      }
    });

    test('the same seed gives the same result, another seed another', () => {
      expect(lab.multiHeadAttention(x, { seed: 7, ...o }).output.data).toEqual(r.output.data);
      expect(lab.multiHeadAttention(x, { ...o, seed: 8 }).output.data).not.toEqual(r.output.data);
    });

    if (o.rope) {
      // A decaying rotation (xPos) scales q as queries and k as keys; a plain one treats both alike.
      test('q and k are the unrotated projections through lab.rope as queries and as keys; v is untouched', () => {
        const plain = lab.multiHeadAttention(x, { seed: 7, ...o, rope: false });
        assertClose(r.q, lab.rope(plain.q, o.rope), `${name}: q`);
        assertClose(r.k, lab.rope(plain.k, { ...o.rope, key: true }), `${name}: k`);
        expect(r.v.data).toEqual(plain.v.data);
      });
    }

    if (o.bias === 'alibi') {
      test('the bias is lab.alibi', () => {
        assertClose(r.bias, lab.alibi({ heads: H, queryLength: L, keyLength: L }), `${name}: bias`);
      });
    }

    if (o.bias === 'kerple') {
      test('the bias is lab.kerple, and -r1·log(1 + r2·|i − j|) in float64 when r1, r2 are given', () => {
        const expected = lab.kerple({ heads: H, queryLength: L, keyLength: L, ...o.kerple, seed: o.kerpleSeed });
        assertClose(r.bias, expected, `${name}: bias`);
        if (!o.kerple) return;
        for (let n = 0; n < H * L * L; n++) {
          const i = Math.floor(n / L) % L;
          const j = n % L;
          const want = -o.kerple.r1 * Math.log1p(o.kerple.r2 * Math.abs(i - j));
          expect(Math.abs(r.bias.data[n] - want), `bias[${n}]`).toBeLessThanOrEqual(1e-6 + 1e-6 * Math.abs(want));
        }
      });
    }

    if (o.bias === 't5') {
      test('the bias is lab.t5Bias with t5Seed', () => {
        const expected = lab.t5Bias({ heads: H, queryLength: L, keyLength: L, ...o.t5, seed: o.t5Seed });
        assertClose(r.bias, expected, `${name}: bias`);
      });
    }
  });

  test('rope: true is RoPE with its default options', () => {
    const x = randomNormal(13, [6, 16]);
    const a = lab.multiHeadAttention(x, { heads: 2, rope: true });
    expect(a.q.data).toEqual(lab.multiHeadAttention(x, { heads: 2, rope: {} }).q.data);
    expect(a.q.data).not.toEqual(lab.multiHeadAttention(x, { heads: 2 }).q.data);
  });

  test("rope: { method } starts from the method's defaults: 'rope' is rope: {}, 'xpos' gptj pairs with a decay", () => {
    const x = randomNormal(15, [6, 16]);
    const q = (rope) => lab.multiHeadAttention(x, { heads: 2, rope }).q.data;
    expect(q({ method: 'rope' })).toEqual(q({}));
    expect(q({ method: 'xpos' })).toEqual(q({ style: 'gptj', scaleBase: 512 }));
    // Other fields override the method's: xPos without its decay is RoPE on gptj pairs.
    expect(q({ method: 'xpos', scaleBase: 0 })).toEqual(q({ style: 'gptj' }));
    expect(q({ method: 'xpos' })).not.toEqual(q({ style: 'gptj' }));
  });

  test('rope: false and no rope option are the same', () => {
    const x = randomNormal(12, [6, 16]);
    const a = lab.multiHeadAttention(x, { heads: 2, rope: false });
    const b = lab.multiHeadAttention(x, { heads: 2 });
    expect(a.output.data).toEqual(b.output.data);
  });

  test('customMask hides its cells in every head, on top of the mask, as a −∞ bias would', () => {
    const x = randomNormal(14, [6, 16]);
    const custom = new Uint8Array(36);
    for (const c of [1, 8, 14, 20, 35]) custom[c] = 1; // (0,1), (1,2), (2,2), (3,2), (5,5)
    const o = { heads: 2, mask: 'causal', bias: 'alibi', seed: 3 };
    const r = lab.multiHeadAttention(x, { ...o, customMask: custom });
    const plain = lab.multiHeadAttention(x, o);
    expect(r.bias.data).toEqual(plain.bias.data); // the position bias alone
    const bias = Float32Array.from(plain.bias.data, (b, n) => (custom[n % 36] ? -Infinity : b));
    const a = lab.attention(plain.q, plain.k, plain.v, { mask: 'causal', bias: { data: bias, shape: [2, 6, 6] } });
    assertClose(r.weights, a.weights, 'customMask weights');
    for (let h = 0; h < 2; h++) {
      for (let c = 0; c < 36; c++) {
        const hidden = custom[c] || c % 6 > Math.floor(c / 6);
        if (hidden) expect(r.scores.data[h * 36 + c], `s[${h}, ${c}]`).toBe(-Infinity);
        else expect(r.scores.data[h * 36 + c]).toBe(plain.scores.data[h * 36 + c]);
      }
    }
  });
});

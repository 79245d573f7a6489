// lab.attentionMask is the core's mask rule (cpp/include/poslab/layers/mask.hpp): checked against a
// loop written here from the definition (query i at position i + offset), and against what
// lab.attention does with the same mask (a visible key gets a positive weight, a hidden one
// exactly 0). Also lab.names and lab.defaults, against the values the docs state.
import { beforeAll, describe, expect, test } from 'vitest';
import { loadLab } from './helpers/lab.js';
import { VARIANTS } from './helpers/paths.js';
import { randomNormal } from './helpers/prng.js';

// The definition: causal hides j > p, a window W also hides p − j >= W, padding hides key j.
function hiddenByDefinition(Lq, Lk, mask, offset, padding) {
  const W = typeof mask === 'object' ? mask.window : mask.startsWith('window:') ? Number(mask.slice(7)) : 0;
  const causal = mask !== 'none';
  const out = new Uint8Array(Lq * Lk);
  for (let i = 0; i < Lq; i++) {
    const p = i + offset;
    for (let j = 0; j < Lk; j++) {
      const hidden = (causal && j > p) || (W > 0 && p - j >= W) || (padding ? padding[j] !== 0 : false);
      out[i * Lk + j] = hidden ? 1 : 0;
    }
  }
  return out;
}

const SHAPES = [
  [5, 5],
  [3, 8],
  [8, 3],
  [1, 6],
  [6, 1],
];
const MASKS = ['none', 'causal', 'window:1', 'window:2', { window: 3 }, 'window:50'];
const OFFSETS = [0, 1, 2, -1, -3, 5, 10, -10];

describe.each(VARIANTS)('%s wasm attentionMask', (variant) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(variant);
  });

  test('matches the definition for every mask, offset, padding and Lq, Lk', () => {
    for (const [Lq, Lk] of SHAPES) {
      const padding = Uint8Array.from({ length: Lk }, (_, j) => (j % 3 === 1 ? 1 : 0));
      for (const mask of MASKS) {
        for (const offset of OFFSETS) {
          for (const keyPadding of [undefined, padding]) {
            const what = `${JSON.stringify(mask)} offset ${offset} Lq ${Lq} Lk ${Lk} padded ${!!keyPadding}`;
            const got = lab.attentionMask({ queries: Lq, keys: Lk, mask, offset, ...(keyPadding && { keyPadding }) });
            expect(got.shape, what).toEqual([Lq, Lk]);
            expect(got.data, what).toBeInstanceOf(Uint8Array);
            expect(Array.from(got.data), what).toEqual(
              Array.from(hiddenByDefinition(Lq, Lk, mask, offset, keyPadding)),
            );
          }
        }
      }
    }
  });

  test('defaults: no mask, offset 0, no padding', () => {
    expect(Array.from(lab.attentionMask({ queries: 2, keys: 3 }).data)).toEqual([0, 0, 0, 0, 0, 0]);
    const causal = lab.attentionMask({ queries: 3, keys: 3, mask: 'causal' });
    expect(Array.from(causal.data)).toEqual([0, 1, 1, 0, 0, 1, 0, 0, 0]);
  });

  test('attention hides exactly the cells attentionMask reports', () => {
    const [H, Lq, Lk, d] = [2, 7, 11, 8];
    const q = randomNormal(51, [H, Lq, d]);
    const k = randomNormal(52, [H, Lk, d]);
    const v = randomNormal(53, [H, Lk, d]);
    const keyPadding = Uint8Array.from({ length: Lk }, (_, j) => (j === 6 ? 1 : 0));
    for (const mask of MASKS) {
      for (const offset of OFFSETS) {
        const hidden = lab.attentionMask({ queries: Lq, keys: Lk, mask, offset, keyPadding }).data;
        const { weights } = lab.attention(q, k, v, { mask, offset, keyPadding });
        for (let h = 0; h < H; h++) {
          for (let c = 0; c < Lq * Lk; c++) {
            const w = weights.data[h * Lq * Lk + c];
            const what = `${JSON.stringify(mask)} offset ${offset} cell ${c}`;
            if (hidden[c]) expect(w, what).toBe(0);
            else expect(w, what).toBeGreaterThan(0);
          }
        }
      }
    }
  });

  test('lab.names lists what each string option accepts, NoPE as none', () => {
    const { positionMethods, ...lists } = lab.names;
    expect(lists).toEqual({
      ropeStyles: ['neox', 'gptj'],
      ropeScalings: ['none', 'linear', 'ntk', 'dynamic', 'yarn', 'llama3'],
      masks: ['none', 'causal', 'window'],
      metrics: ['cosine', 'dot'],
      layouts: ['interleaved', 'concat'],
      positionBiases: ['alibi', 't5', 'kerple', 'none'],
      gpt2Positions: ['learned', 'sinusoidal', 'rope', 'alibi', 'none'],
    });
    // The one table of position methods, from which the lists above are cut.
    expect(positionMethods.map((m) => m.name)).toEqual([
      'learned',
      'sinusoidal',
      'shaw',
      'rope',
      'p-rope',
      'xpos',
      'alibi',
      't5',
      'kerple',
      'fire',
      'cope',
      'fox',
      'abacus',
      'none',
    ]);
    for (const m of positionMethods) {
      if (m.support.bias) expect(lists.positionBiases).toContain(m.name);
      if (m.support.gpt2) expect(lists.gpt2Positions).toContain(m.name);
      if (m.support.coupled) expect(m.support.trainer).toBe(true);
    }
    // Position coupling: the methods that read positions in any order (the trainer's check).
    expect(positionMethods.filter((m) => m.support.coupled).map((m) => m.name)).toEqual([
      'learned',
      'sinusoidal',
      'rope',
      'p-rope',
      'alibi',
      't5',
      'kerple',
    ]);
    expect(positionMethods.find((m) => m.name === 'none').aliases).toEqual(['nope']);
    expect(positionMethods.find((m) => m.name === 't5').options.map((o) => [o.name, o.default])).toEqual([
      ['numBuckets', 32],
      ['maxDistance', 128],
    ]);
    expect(positionMethods.find((m) => m.name === 'xpos').options.map((o) => [o.name, o.default])).toEqual([
      ['base', 10000],
      ['scaleBase', 512],
    ]);
    // A rotation's pairs (its rope option's style); the other kinds have none.
    expect(positionMethods.filter((m) => m.pairs !== undefined).map((m) => [m.name, m.kind, m.pairs])).toEqual([
      ['rope', 'rotation', 'neox'],
      ['p-rope', 'rotation', 'neox'],
      ['xpos', 'rotation', 'gptj'],
    ]);
    expect(Object.isFrozen(lab.names.masks)).toBe(true);
    // Every name is accepted where it belongs.
    for (const style of lab.names.ropeStyles) expect(() => lab.ropeFrequencies({ headDim: 8, style })).not.toThrow();
    for (const metric of lab.names.metrics)
      expect(() => lab.similarity({ data: [1, 2], shape: [1, 2] }, { metric })).not.toThrow();
    for (const layout of lab.names.layouts) expect(() => lab.sinusoidal({ length: 2, dim: 4, layout })).not.toThrow();
  });

  test('lab.defaults are what an omitted option means', () => {
    expect(lab.defaults).toEqual({
      base: 10000,
      layout: 'interleaved',
      std: 0.02,
      eps: 1e-5,
      metric: 'cosine',
      mask: 'none',
      offset: 0,
      heads: 1,
      bias: 'none',
      seed: 0,
      rope: {
        style: 'neox',
        scaling: 'none',
        base: 10000,
        rotaryFraction: 1,
        factor: 1,
        originalLength: 0,
        lowFreqFactor: 1,
        highFreqFactor: 4,
        betaFast: 32,
        betaSlow: 1,
      },
      t5: { bidirectional: false, numBuckets: 32, maxDistance: 128 },
    });
    const { defaults } = lab;
    const explicit = lab.sinusoidal({ length: 3, dim: 8, base: defaults.base, layout: defaults.layout });
    expect(lab.sinusoidal({ length: 3, dim: 8 }).data).toEqual(explicit.data);
    const rope = lab.ropeFrequencies({ headDim: 16, ...defaults.rope, originalLength: undefined });
    expect(rope.invFreq.data).toEqual(lab.ropeFrequencies({ headDim: 16 }).invFreq.data);
  });
});

// The compute glue of each view, run on the built wasm core as the worker runs it, checked
// against values computed independently: the formulas in plain JS (in double), or numbers
// worked out by hand. Comparing a job with the core call it makes would prove nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLab } from './helpers/lab.js';
import { attention } from '../../web/src/worker/jobs/attention.js';
import { encodings } from '../../web/src/worker/jobs/encodings.js';
import { extrapolation, nearestTrained, ropeOptions } from '../../web/src/worker/jobs/extrapolation.js';
import { headEntropy, matVec } from '../../web/src/worker/jobs/linalg.js';
import { offset } from '../../web/src/worker/jobs/offset.js';
import { similarity } from '../../web/src/worker/jobs/similarity.js';
import { encodingTable, ropeUnitInput } from '../../web/src/worker/jobs/tables.js';
import { tokenize, wordSeed } from '../../web/src/worker/jobs/tokens.js';
import { decodeMask, encodeMask } from '../../web/src/state/mask-bits.js';
import { defaults } from '../../web/src/state/registry.js';
import { pick } from '../../web/src/views/kit.js';

let lab;

beforeAll(async () => {
  lab = await loadLab();
});

const params = (prefix, patch = {}) => ({ ...pick(defaults(), prefix), ...patch });
const close = (a, b, tol = 1e-5) => Math.abs(a - b) <= tol;
// The reference formulas (docs/ARCHITECTURE.md §4), in double.
const omega = (i, D, base = 10000) => base ** ((-2 * i) / D);
const sinusoidalRef = (p, d, D, base) => (d % 2 ? Math.cos : Math.sin)(p * omega(Math.floor(d / 2), D, base));
const maxError = (data, rows, cols, ref) => {
  let worst = 0;
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) worst = Math.max(worst, Math.abs(data[r * cols + c] - ref(r, c)));
  return worst;
};

describe('compute glue', () => {
  it('Encodings.DefaultIsSeed002Table', () => {
    const r = encodings(lab, params('enc'));
    const m = r.heatmaps.main;
    expect([m.rows, m.cols, m.cmap]).toEqual([50, 512, 'viridis']);
    // Every cell against sin/cos of p·base^(−2i/D) (interleaved, base 10000), in double.
    expect(maxError(m.data, 50, 512, (p, d) => sinusoidalRef(p, d, 512, 10000))).toBeLessThan(1e-6);
    expect(m.data[3 * 512 + 2]).toBeCloseTo(Math.sin(3 * 10000 ** (-2 / 512)), 6);
    const b = encodings(lab, params('enc', { base: 100, L: 7, D: 6 })).heatmaps.main;
    expect(maxError(b.data, 7, 6, (p, d) => sinusoidalRef(p, d, 6, 100))).toBeLessThan(1e-6); // the base reaches the core
  });

  it('Encodings.RopeUnitRowsAreCosSinPairs', () => {
    for (const style of ['neox', 'gptj']) {
      const L = 20;
      const D = 8;
      const t = encodingTable(lab, { method: 'rope', L, D, style });
      for (let p = 0; p < L; p++) {
        for (let i = 0; i < D / 2; i++) {
          const [a, b] = style === 'neox' ? [i, i + D / 2] : [2 * i, 2 * i + 1];
          const theta = p * 10000 ** ((-2 * i) / D);
          expect(close(t.data[p * D + a], Math.cos(theta)), `${style} p=${p} i=${i}`).toBe(true);
          expect(close(t.data[p * D + b], Math.sin(theta)), `${style} p=${p} i=${i}`).toBe(true);
        }
      }
    }
    expect(Array.from(ropeUnitInput(1, 6, 'gptj').data)).toEqual([1, 0, 1, 0, 1, 0]);
    expect(Array.from(ropeUnitInput(1, 6, 'neox').data)).toEqual([1, 1, 1, 0, 0, 0]);
    // The view's scale base (always among its settings) is a decay's: RoPE, which has none, ignores it.
    const viewRope = encodings(lab, params('enc', { method: 'rope', L: 20, D: 8, style: 'gptj', scalebase: 4 }));
    expect(viewRope.heatmaps.main.data).toEqual(
      encodingTable(lab, { method: 'rope', L: 20, D: 8, style: 'gptj' }).data,
    );
  });

  it('Encodings.XposRowsAreCosSinPairsTimesZetaToTheCentredPosition', () => {
    // torchscale's XPOS on the unit vector, in double: pair i of row p is
    // ζᵢ^e·(cos pθᵢ, sin pθᵢ), ζᵢ = (2i + 0.4·D)/(1.4·D), e = (p − ⌈L/2⌉)/s, θᵢ = b^(−2i/D).
    const [L, D, base, scalebase] = [9, 8, 100, 4];
    const m = encodings(lab, params('enc', { method: 'xpos', L, D, base, scalebase })).heatmaps.main;
    expect([m.rows, m.cols]).toEqual([L, D]);
    const ref = (p, d) => {
      const i = Math.floor(d / 2);
      const zeta = (2 * i + 0.4 * D) / (1.4 * D);
      const angle = p * base ** ((-2 * i) / D);
      return zeta ** ((p - Math.ceil(L / 2)) / scalebase) * (d % 2 ? Math.sin : Math.cos)(angle);
    };
    for (let p = 0; p < L; p++)
      for (let d = 0; d < D; d++)
        expect(close(m.data[p * D + d], ref(p, d), 1e-6 + 1e-6 * Math.abs(ref(p, d)))).toBe(true);
    // Position 0 of pair 0 is ζ₀^(−⌈L/2⌉/s) = 3.5^(5/4): the decay is in the table, not only the turn.
    expect(m.data[0]).toBeCloseTo(3.5 ** (5 / 4), 5);
    // Its pairs are the table row's (gptj), whatever RoPE's pairing setting says.
    const neox = encodings(lab, params('enc', { method: 'xpos', L, D, base, scalebase, style: 'neox' })).heatmaps.main;
    expect(neox.data).toEqual(m.data);
  });

  it('Encodings.NopeIsZeroAndBiasMethodsAreSquare', () => {
    expect(encodings(lab, params('enc', { method: 'none' })).heatmaps.main.data.every((v) => v === 0)).toBe(true);
    const alibi = encodings(lab, params('enc', { method: 'alibi', L: 6, heads: 4, head: 1 }));
    expect([alibi.heatmaps.main.rows, alibi.heatmaps.main.cols]).toEqual([6, 6]);
    // H = 4: slopes 2^(−8/4·(h+1)) = 1/4, 1/16, 1/64, 1/256; head 1 at distance 5: −5/16.
    expect(Array.from(alibi.bars.values)).toEqual([1 / 4, 1 / 16, 1 / 64, 1 / 256]);
    expect(alibi.heatmaps.main.data[0 * 6 + 5]).toBe(-5 / 16);
    expect(alibi.heatmaps.main.data[4 * 6 + 1]).toBe(-3 / 16);
    const t5 = encodings(lab, params('enc', { method: 't5', L: 8 }));
    expect(t5.heatmaps.main.data).toBeInstanceOf(Int32Array);
    const shaw = encodings(lab, params('enc', { method: 'shaw', L: 10, clip: 2 }));
    expect(shaw.heatmaps.main.data[0 * 10 + 9]).toBe(4); // clip(9, −2, 2) + 2
  });

  it('Encodings.RefusesOversizedTables', () => {
    expect(() => encodings(lab, params('enc', { L: 8192, D: 2048 }))).toThrow(/at most/);
    expect(() => encodings(lab, params('enc', { method: 'alibi', L: 4096 }))).toThrow(/limited/);
    expect(() => encodings(lab, params('enc', { method: 'alibi', heads: 2, head: 5 }))).toThrow(/head 5/);
    expect(() => encodings(lab, params('enc', { D: 7 }))).toThrow();
  });

  it('Similarity.SinusoidalIsToeplitzAndRopeHasDecay', () => {
    const r = similarity(lab, params('sim', { L: 40, D: 64 }));
    const S = r.heatmaps.main.data;
    for (const [i, j] of [
      [3, 7],
      [10, 20],
      [0, 38],
      [20, 5],
    ])
      expect(close(S[i * 40 + j], S[(i + 1) * 40 + j + 1])).toBe(true);
    expect(close(r.byOffset[0], 1)).toBe(true);
    // Each pair has norm 1, so cos(PE_i, PE_j) = mean over pairs of cos((i − j)·ω_k).
    const cosRef = (i, j) =>
      Array.from({ length: 32 }, (_, k) => Math.cos((i - j) * omega(k, 64))).reduce((a, b) => a + b) / 32;
    expect(maxError(S, 40, 40, cosRef)).toBeLessThan(1e-5);
    expect(r.decay).toBeUndefined();
    const rope = similarity(lab, params('sim', { method: 'rope', L: 40, D: 64 }));
    expect(rope.decay).toHaveLength(40);
  });

  it('Extrapolation.NearestTrainedSkipsItselfAndUnseenAreLessFamiliar', () => {
    const sim = Float32Array.from([1, 0.2, 0.9, 0.2, 1, 0.3, 0.9, 0.3, 1]);
    const n = nearestTrained(sim, 3, 2);
    expect(Array.from(n.arg)).toEqual([1, 0, 0]);
    expect(Array.from(n.best)).toEqual([Math.fround(0.2), Math.fround(0.2), Math.fround(0.9)]);
    const r = extrapolation(lab, params('ext'));
    expect(r.heatmaps.eval.rows).toBe(100);
    expect(Math.min(...r.nearest.slice(50))).toBeLessThan(Math.min(...r.nearest.slice(1, 50)));
    expect(r.attentionFactor).toBeGreaterThan(1); // YaRN f = 2: 0.1 ln 2 + 1
    expect(close(r.attentionFactor, 0.1 * Math.log(2) + 1)).toBe(true);
  });

  it('Extrapolation.RopeOptionsPassOnlyWhatAScalingReads', () => {
    const p = params('ext');
    expect(ropeOptions({ ...p, scaling: 'none' })).toEqual({ base: 10000 });
    expect(ropeOptions({ ...p, scaling: 'linear' })).toEqual({ base: 10000, scaling: 'linear', factor: 2 });
    expect(ropeOptions({ ...p, scaling: 'llama3' })).toMatchObject({
      originalLength: 50,
      lowFreqFactor: 1,
      highFreqFactor: 4,
    });
    const linear = extrapolation(lab, { ...p, scaling: 'linear', factor: 4, base: 500 });
    // θ_i = base^(−2i/D) (D = 64), and linear scaling divides it by f.
    linear.invFreq.plain.forEach((v, i) => expect(v / omega(i, 64, 500)).toBeCloseTo(1, 6));
    linear.invFreq.scaled.forEach((v, i) => expect(v / (omega(i, 64, 500) / 4)).toBeCloseTo(1, 6));
    // θᵢ reach the view as the core gives them (the view divides the two curves in double).
    const core = lab.ropeFrequencies({ headDim: 64, base: 500 }).invFreq.data;
    expect(linear.invFreq.plain.constructor).toBe(core.constructor);
  });

  it('Offset.ResidualIsRoundingLevel', () => {
    for (const [D, k, p] of [
      [16, 3, 10],
      [64, -5, 7],
      [512, 100, 4000],
    ]) {
      const r = offset(lab, { D, k, p, base: 10000 });
      expect(r.maxAbs, `D=${D} k=${k} p=${p}`).toBeLessThan(1e-5);
    }
    // M_k's first block is the rotation by k·ω_0 = k (ω_0 = 1): [cos k, sin k; −sin k, cos k].
    const M = offset(lab, { D: 4, k: 2, p: 0, base: 10000 }).heatmaps.main.data;
    expect([M[0], M[1], M[4], M[5]].map((v) => Number(v.toFixed(6)))).toEqual(
      [Math.cos(2), Math.sin(2), -Math.sin(2), Math.cos(2)].map((v) => Number(v.toFixed(6))),
    );
    expect(M[2]).toBe(0); // block diagonal
    expect(() => offset(lab, { D: 16, k: -11, p: 10, base: 10000 })).toThrow(/before position 0/);
    expect(Array.from(matVec(new Float32Array([1, 2, 3, 4]), new Float32Array([1, 1]), 2))).toEqual([3, 7]);
  });

  it('Attention.DisplayedLogitsSoftmaxToTheCoresWeights', () => {
    for (const patch of [
      {},
      { bias: 'alibi' },
      { bias: 't5', mask: 'none' },
      { rope: 'rope', mask: 'window', window: 2 },
      { rope: 'xpos', bias: 'alibi' },
      { input: 'position', pe: 'learned' },
    ]) {
      const p = params('att', patch);
      const r = attention(lab, p);
      const L = r.tokens.length;
      const logits = r.heatmaps.logits.data;
      const weights = r.heatmaps.weights.data;
      for (let i = 0; i < L; i++) {
        const row = Array.from(logits.slice(i * L, (i + 1) * L));
        const max = Math.max(...row);
        const e = row.map((v) => (v === -Infinity ? 0 : Math.exp(v - max)));
        const sum = e.reduce((a, b) => a + b, 0);
        for (let j = 0; j < L; j++) {
          const expected = sum > 0 ? e[j] / sum : 0;
          expect(Math.abs(weights[i * L + j] - expected), `${JSON.stringify(patch)} ${i},${j}`).toBeLessThan(2e-5);
        }
      }
    }
  });

  it('Attention.PaddingAndCausalHideKeysAndAllMaskedRowsAreZero', () => {
    const r = attention(lab, params('att', { text: 'a b [PAD] c' }));
    const W = r.heatmaps.weights.data;
    const L = 4;
    for (let i = 0; i < L; i++) {
      expect(W[i * L + 2]).toBe(0); // the pad key
      for (let j = i + 1; j < L; j++) expect(W[i * L + j]).toBe(0); // the future
    }
    const lonely = attention(lab, params('att', { text: '[PAD] b' })); // query 0 sees only the pad key
    expect(Array.from(lonely.heatmaps.weights.data.slice(0, 2))).toEqual([0, 0]);
    expect(lonely.heatmaps.output.data.slice(0, lonely.headWidth).every((v) => v === 0)).toBe(true);
  });

  it('Attention.CustomCellsAreHiddenAndEntropyIsBounded', () => {
    const L = 5;
    const hidden = new Uint8Array(L * L);
    hidden[2 * L + 1] = 1;
    const r = attention(
      lab,
      params('att', { text: 'one two three four five', mask: 'custom', custom: encodeMask(hidden, L) }),
    );
    expect(r.heatmaps.weights.data[2 * L + 1]).toBe(0);
    expect(r.heatmaps.mask.data[2 * L + 1]).toBe(-Infinity);
    expect(r.heatmaps.mask.data[2 * L + 2]).toBe(0);
    for (const e of r.entropy) (expect(e).toBeGreaterThanOrEqual(0), expect(e).toBeLessThanOrEqual(Math.log(L) + 1e-6));
    expect(decodeMask(encodeMask(r.baseHidden, L), L)).toEqual(r.baseHidden);
  });

  it('Attention.RefusesBadShapes', () => {
    expect(() => attention(lab, params('att', { D: 64, H: 3 }))).toThrow(/divisible/);
    expect(() => attention(lab, params('att', { text: '   ' }))).toThrow(/at least one word/);
    expect(() => attention(lab, params('att', { rope: 'rope', D: 12, H: 4 }))).toThrow(/rope rotates pairs.*even/);
    expect(() => attention(lab, params('att', { rope: 'xpos', D: 12, H: 4 }))).toThrow(/xpos rotates pairs.*even/);
    expect(() => attention(lab, params('att', { mask: 'custom', custom: '9.!' }))).toThrow(/malformed/);
  });

  it('Attention.HeadOutputIsTheShownHeadsWeightsTimesV', () => {
    // The core's per-head output (heads) sliced for the shown head, against weights · v summed
    // here from the same call's weights (H, L, L) and v (H, L, d).
    let mh = null;
    const spy = { ...lab, multiHeadAttention: (...a) => (mh = lab.multiHeadAttention(...a)) };
    const r = attention(spy, params('att', { text: 'a b c d', head: 1 }));
    const [H, L, d] = mh.v.shape;
    expect(H).toBeGreaterThan(1);
    for (let i = 0; i < L; i++) {
      for (let t = 0; t < d; t++) {
        let sum = 0;
        for (let j = 0; j < L; j++) sum += mh.weights.data[(L + i) * L + j] * mh.v.data[(L + j) * d + t];
        expect(Math.abs(r.heatmaps.output.data[i * d + t] - sum)).toBeLessThan(1e-5);
      }
    }
  });

  it('Attention.OneCoreCallAndTheMaskTheCoreApplied', () => {
    const calls = [];
    const spy = Object.fromEntries(
      Object.entries(lab).map(([n, f]) => [n, typeof f === 'function' ? (...a) => (calls.push(n), f(...a)) : f]),
    );
    const r = attention(spy, params('att', { text: 'a b c d [PAD]', mask: 'window', window: 2 }));
    expect(calls.filter((n) => n === 'multiHeadAttention')).toHaveLength(1);
    expect(calls).not.toContain('attention');
    // Window W = 2 (query i sees keys i − 1 and i) and the padding key 4, worked out by hand.
    const hidden = [
      [0, 1, 1, 1, 1],
      [0, 0, 1, 1, 1],
      [1, 0, 0, 1, 1],
      [1, 1, 0, 0, 1],
      [1, 1, 1, 0, 1],
    ].flat();
    expect(Array.from(r.heatmaps.mask.data, (v) => (v === -Infinity ? 1 : 0))).toEqual(hidden);
    // What a click starts from: the window alone, without the padding (query 4 sees key 4).
    expect(Array.from(r.baseHidden)).toEqual([...hidden.slice(0, 24), 0]);
  });

  it('Attention.XposScoresAreTheUnrotatedProjectionsThroughXpos', () => {
    // The job with the xPos rotation against torchscale's XPOS written here (gptj pairs, queries
    // ζ^e, keys ζ^−e, e = position − ⌈L/2⌉ over 512) on the q, k of the job without a rotation.
    let mh = null;
    const spy = { ...lab, multiHeadAttention: (...a) => (mh = lab.multiHeadAttention(...a)) };
    const text = 'a b c d e f g';
    attention(spy, params('att', { text, rope: 'none', mask: 'none', pad: false }));
    const plain = mh;
    const r = attention(spy, params('att', { text, rope: 'xpos', mask: 'none', pad: false }));
    const [, L, d] = plain.q.shape;
    const xpos = (t, h, pos, key) => {
      const row = t.data.subarray((h * L + pos) * d, (h * L + pos + 1) * d);
      const out = [];
      for (let i = 0; i < d / 2; i++) {
        const angle = pos * 10000 ** ((-2 * i) / d);
        const e = (pos - Math.ceil(L / 2)) / 512;
        const s = ((2 * i + 0.4 * d) / (1.4 * d)) ** (key ? -e : e);
        const [u, v] = [row[2 * i], row[2 * i + 1]];
        out.push(s * (u * Math.cos(angle) - v * Math.sin(angle)), s * (u * Math.sin(angle) + v * Math.cos(angle)));
      }
      return out;
    };
    const head = params('att').head;
    for (let i = 0; i < L; i++) {
      const q = xpos(plain.q, head, i, false);
      for (let j = 0; j < L; j++) {
        const k = xpos(plain.k, head, j, true);
        const score = q.reduce((acc, qc, c) => acc + qc * k[c], 0) / Math.sqrt(d);
        expect(Math.abs(r.heatmaps.scores.data[i * L + j] - score), `${i},${j}`).toBeLessThan(1e-4);
      }
    }
  });

  it('Attention.HelpersComputeWhatTheySay', () => {
    const uniform = Float32Array.from([0.5, 0.5, 0, 0]);
    expect(close(headEntropy(uniform, 1, 2)[0], Math.log(2))).toBe(true); // the all-zero row is left out
    expect(tokenize(' a  b\tc ')).toEqual(['a', 'b', 'c']);
    // FNV-1a of the UTF-16 code units, low 31 bits (worked out in Python, not with wordSeed).
    expect([wordSeed('cat'), wordSeed('dog'), wordSeed('cat', 1), wordSeed('')]).toEqual([
      108289031, 1718140169, 1891070888, 18652613,
    ]);
  });
});

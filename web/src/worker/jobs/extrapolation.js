// The Out-of-scope lengths view's job: a model trained on positions 0…N−1 and run on 0…L−1.
// Sinusoidal tables for both lengths, how close each position's vector is to the nearest trained
// one, and what each RoPE scaling does to the frequencies, wavelengths and attention factor.
import { assertAllowed, fieldError } from '../../state/combinations.js';
import { ropeUnitInput } from './tables.js';
import { valueRange } from '../../plots/colormap.js';

export const MAX_EVAL_LENGTH = 4096;

/** The RoPE options a scaling actually reads (others would be refused or ignored). */
export function ropeOptions(p) {
  const o = { base: p.base };
  if (p.scaling === 'none') return o;
  Object.assign(o, { scaling: p.scaling, factor: p.factor });
  if (['dynamic', 'yarn', 'llama3'].includes(p.scaling)) o.originalLength = p.N;
  if (p.scaling === 'yarn') Object.assign(o, { betaFast: p.bfast, betaSlow: p.bslow });
  if (p.scaling === 'llama3') Object.assign(o, { lowFreqFactor: p.lowff, highFreqFactor: p.highff });
  return o;
}

/**
 * For each position p of an (L, L) similarity matrix: the highest similarity to a trained
 * position j < N other than p itself, and which j that is.
 */
export function nearestTrained(sim, L, N) {
  const best = new Float32Array(L);
  const arg = new Int32Array(L);
  for (let p = 0; p < L; p++) {
    let b = -Infinity;
    let a = -1;
    for (let j = 0; j < Math.min(N, L); j++) {
      if (j === p) continue;
      const v = sim[p * L + j];
      if (v > b) {
        b = v;
        a = j;
      }
    }
    best[p] = a < 0 ? NaN : b;
    arg[p] = a;
  }
  return { best, arg };
}

export function extrapolation(lab, p) {
  const { N, L, D } = p;
  if (L > MAX_EVAL_LENGTH) throw fieldError('L', `the evaluation length is limited to ${MAX_EVAL_LENGTH} here`);
  assertAllowed('ext', p); // even D, L ≥ N
  const train = lab.sinusoidal({ length: N, dim: D, base: p.base });
  const evalTable = lab.sinusoidal({ length: L, dim: D, base: p.base });
  const range = valueRange(evalTable.data, p.cmap === 'RdBu');
  const sim = lab.similarity(evalTable, { metric: 'cosine' });
  const nearest = nearestTrained(sim.data, L, N);
  const neighbour = new Float32Array(L).fill(NaN);
  for (let q = 1; q < L; q++) neighbour[q] = sim.data[q * L + q - 1];

  const plain = { base: p.base };
  const scaled = ropeOptions(p);
  const f0 = lab.ropeFrequencies({ headDim: D, totalLength: L, ...plain });
  const f1 = lab.ropeFrequencies({ headDim: D, totalLength: L, ...scaled });
  const wl0 = lab.ropeWavelengths({ headDim: D, totalLength: L, ...plain });
  const wl1 = lab.ropeWavelengths({ headDim: D, totalLength: L, ...scaled });
  const unit = ropeUnitInput(L, D, 'neox');
  const rot0 = lab.rope(unit, plain);
  const rot1 = lab.rope(unit, scaled);

  return {
    heatmaps: {
      train: { data: train.data, rows: N, cols: D, cmap: p.cmap, range },
      eval: { data: evalTable.data, rows: L, cols: D, cmap: p.cmap, range },
    },
    nearest: nearest.best,
    nearestIndex: nearest.arg,
    neighbour,
    invFreq: { plain: f0.invFreq.data, scaled: f1.invFreq.data },
    wavelengths: { plain: wl0.data, scaled: wl1.data },
    attentionFactor: f1.attentionFactor,
    ropeByOffset: {
      plain: lab.similarityByOffset(rot0, { metric: 'cosine' }).data,
      scaled: lab.similarityByOffset(rot1, { metric: 'cosine' }).data,
    },
  };
}

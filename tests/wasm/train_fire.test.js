// FIRE's bias as the training JS API hands it to the Length generalisation view
// (attentionExample(...).fireBias), both builds, against the formula computed here in float64
// from the run's own checkpoint (never through the module): for keys j ≤ i
//   bias_h(i, j) = Σ_k ReLU(fc1_k·u + b1_k)·fc2[k, h],
//   u = log(|c|·(p_i − p_j) + 1) / (log(|c|·max(|s|·512, p_i + 1) + 1) + 1e-6),
// and 0 above the diagonal, where the causal mask hides the key.
//
// Tolerance: the module computes u and the MLP in double and stores float32, so each entry is
// within a float32 rounding of the formula: 1e-6·max|bias| + 1e-7.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { readSafetensors } from '../helpers/read-safetensors.js';
import { modulePath, repoRoot, VARIANTS } from './helpers/paths.js';

async function loadLab(variant) {
  const { createTrainLab } = await import(path.join(repoRoot, 'web/src/core/poslab.js'));
  const wasm = modulePath(variant, 'poslab-train');
  return createTrainLab({ variant, wasmBinary: fs.readFileSync(wasm) });
}

/** (nLayer, nHead, T, T) in float64 from the checkpoint's FIRE weights at `positions`. */
function fireBiasFromWeights(tensors, nLayer, nHead, positions) {
  const T = positions.length;
  const out = new Float64Array(nLayer * nHead * T * T);
  for (let l = 0; l < nLayer; l++) {
    const w = (name) => tensors[`h.${l}.attn.fire.${name}`].data;
    const c = Math.abs(w('c')[0]);
    const threshold = Math.abs(w('threshold_scale')[0]) * 512;
    const [w1, b1, w2] = [w('fc1.weight'), w('fc1.bias'), w('fc2.weight')];
    for (let i = 0; i < T; i++) {
      const den = Math.log(c * Math.max(threshold, positions[i] + 1) + 1) + 1e-6;
      for (let j = 0; j <= i; j++) {
        const u = Math.log(c * (positions[i] - positions[j]) + 1) / den;
        for (let h = 0; h < nHead; h++) {
          let value = 0;
          for (let k = 0; k < w1.length; k++) value += Math.max(0, w1[k] * u + b1[k]) * w2[k * nHead + h];
          out[((l * nHead + h) * T + i) * T + j] = value;
        }
      }
    }
  }
  return out;
}

function expectClose(got, want, label) {
  expect(got.length, label).toBe(want.length);
  const peak = want.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
  expect(peak, `${label}: a bias that is not all zeros`).toBeGreaterThan(0);
  let worst = 0;
  for (let e = 0; e < want.length; e++) worst = Math.max(worst, Math.abs(got[e] - want[e]));
  expect(worst, label).toBeLessThanOrEqual(1e-6 * peak + 1e-7);
}

describe.each(VARIANTS)('FIRE bias of a trained run, %s build', (variant) => {
  // Random positions up to 2000 put queries past the threshold's 512: both sides of the max.
  test.each([{}, { randomizedPositions: 2000 }])('matches the formula on its weights: %o', async (extra) => {
    const lab = await loadLab(variant);
    expect(lab.names.positions).toContain('fire');
    const run = lab.createRun({
      position: 'fire',
      trainLen: 5,
      layers: 2,
      width: 16,
      heads: 2,
      batch: 6,
      steps: 20,
      seed: 2,
      evalExamples: 4,
      ...extra,
    });
    run.step(20);
    const { tensors } = readSafetensors(run.checkpoint());
    for (const length of [3, 12]) {
      const ex = run.attentionExample(length, 1);
      const [nLayer, nHead, T] = ex.shape;
      expect(ex.fireBias).toBeInstanceOf(Float32Array);
      const want = fireBiasFromWeights(tensors, nLayer, nHead, Array.from(ex.positions));
      expectClose(ex.fireBias, want, `length ${length} (T = ${T})`);
    }
    run.dispose();
  });

  test('other methods carry no FIRE bias', async () => {
    const lab = await loadLab(variant);
    const run = lab.createRun({ position: 't5', trainLen: 3, layers: 1, width: 8, heads: 2, steps: 1 });
    expect(run.attentionExample(2, 0).fireBias).toBeUndefined();
    run.dispose();
  });
});

// The Surgery job on the built modules (build/wasm/simd), against values it does not compute
// itself: the lab's unmodified model is the text task's own evaluation of the same windows
// (textLoss, the trainer's path, no surgery code); every pair zeroed is every layer NoPE; each
// change is its two losses' difference, within and past the trained context too; the maps
// under no surgery are the lens's own; and a language model's sweep is its forward pass with the
// same surgery (the sweep reuses the unmodified pass's residual stream, the forward does not).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { createGpt2Lab } from '../../web/src/core/poslab.js';
import { createTrainLab } from '../../web/src/core/train.js';
import { loadTokenizer } from '../../web/src/lm/tokenizer.js';
import { defaults, pick } from '../../web/src/state/registry.js';
import { heldOutSample } from '../../web/src/worker/jobs/lab-rope.js';
import { RANDOM_MODELS } from '../../web/src/worker/jobs/lm-models.js';
import { surgery } from '../../web/src/worker/jobs/surgery.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SHIPPED = new Uint8Array(fs.readFileSync(path.join(root, 'web/src/content/text-rope.safetensors')));
const base = { ...pick(defaults(), 'sg'), text: '' };
const mean = (a) => a.reduce((s, v) => s + v, 0) / a.length;

let lab; // the language-model module
let train; // the training module, as the job loads it
beforeAll(async () => {
  lab = await createGpt2Lab({
    variant: 'simd',
    wasmBinary: fs.readFileSync(path.join(root, 'build/wasm/simd/poslab-lm.wasm')),
  });
  train = await createTrainLab({ variant: 'simd' });
});

describe('the surgery job on the lab’s shipped model', () => {
  it('SurgeryModule.TheUnmodifiedModelIsTheTextTasksOwnLossOnTheSameWindows', async () => {
    const r = await surgery(lab, { ...base, sweep: 'layers', len: 1024 });
    const { report } = r;
    expect([report.windows, report.window, report.trained_context]).toEqual([4, 256, 64]);
    // textLoss reads windows of 257 bytes, 256 apart: the sweep's losses are its first 255.
    const bytes = (await heldOutSample()).subarray(0, 1025);
    const own = train.textLoss(SHIPPED, bytes, { context: 256, maxWindows: 4 }).losses;
    const base255 = report.baseline.loss_by_position;
    expect(base255).toHaveLength(255);
    for (let t = 0; t < 255; t++) expect(Math.abs(base255[t] - own[t]), `position ${t}`).toBeLessThan(1e-5);
    expect(report.baseline.loss_mean).toBeCloseTo(mean(base255), 9);
  });

  it('SurgeryModule.EachChangeIsItsTwoLossesDifferenceWithinAndPastTheContext', async () => {
    const { report } = await surgery(lab, { ...base, len: 2048 }); // bands, 8 windows: intervals over windows
    expect(report.bootstrap.unit).toBe('windows');
    const b = report.baseline.loss_by_position;
    const N = report.trained_context;
    for (const x of report.interventions) {
      const d = x.loss_by_position.map((v, t) => v - b[t]);
      expect(x.delta_mean, x.name).toBeCloseTo(x.loss_mean - report.baseline.loss_mean, 9);
      expect(x.delta_mean, x.name).toBeCloseTo(mean(d), 9);
      expect(x.delta_within_context, x.name).toBeCloseTo(mean(d.slice(0, N)), 9);
      expect(x.delta_past_context, x.name).toBeCloseTo(mean(d.slice(N)), 9);
      expect(x.delta_ci[0], x.name).toBeLessThanOrEqual(x.delta_mean + 1e-12);
      expect(x.delta_ci[1], x.name).toBeGreaterThanOrEqual(x.delta_mean - 1e-12);
    }
    const kept = (f) => report.interventions.find((x) => x.kind === 'keep_top' && x.params.fraction === f);
    expect(kept(1).delta_mean).toBe(0); // every pair kept: the model as trained
    // No pair kept is every layer NoPE, through another intervention.
    const nope = await surgery(lab, { ...base, len: 2048, sweep: 'single', nopel: [0, 1] });
    expect(nope.report.interventions[0].loss_mean).toBeCloseTo(kept(0).loss_mean, 6);
  });

  it('SurgeryModule.MapsAreTheLensesOwnAndChangeUnderTheBarShown', async () => {
    const r = await surgery(lab, { ...base, sweep: 'heads', head: '0.1', show: 3 }); // NoPE head 0.1
    const ids = (await heldOutSample()).subarray(0, 256);
    const lens = train.textLensMap(SHIPPED, ids, { layer: 0, head: 1 });
    const { before, after } = r.heatmaps;
    expect(before.rows).toBe(256);
    expect(Array.from(before.data)).toEqual(Array.from(lens.attention));
    const blind = train.textLensMap(SHIPPED, ids, { layer: 0, head: 1, surgery: { nopeHeads: [[0, 1]] } });
    expect(Array.from(after.data)).toEqual(Array.from(blind.attention));
    expect(Array.from(after.data)).not.toEqual(Array.from(before.data));
    for (let i = 0; i < 256; i += 51) {
      const row = after.data.subarray(i * 256, (i + 1) * 256);
      expect(mean(Array.from(row)) * 256).toBeCloseTo(1, 4); // each row a distribution
      expect(row.slice(i + 1).every((v) => v === 0)).toBe(true); // over the keys j ≤ i
    }
    // The heads sweep says each head's role beside its bar.
    expect(r.report.interventions.every((x) => typeof x.lens?.role === 'string')).toBe(true);
  });
});

describe('the surgery job on a language model', () => {
  it('SurgeryModule.ALanguageModelsSweepIsItsForwardPassWithTheSameSurgery', async () => {
    const r = await surgery(lab, { ...base, model: 'tiny-llama', sweep: 'layers', len: 64, window: 64 });
    const tok = await loadTokenizer();
    const ids = tok.encode(new TextDecoder().decode(await heldOutSample())).slice(0, 64);
    const model = lab.llamaRandom({ config: RANDOM_MODELS['tiny-llama'].config, seed: 0 });
    try {
      const losses = (surgeryOption) =>
        Array.from(
          model.forward(ids, { logits: false, lossByPosition: true, topK: 1, surgery: surgeryOption }).losses.data,
        );
      expect(r.report.baseline.loss_mean).toBeCloseTo(mean(losses({})), 5);
      for (const x of r.report.interventions) {
        expect(x.loss_mean, x.name).toBeCloseTo(mean(losses({ nopeLayers: x.params.nope_layers })), 5);
      }
    } finally {
      model.delete();
    }
  });
});

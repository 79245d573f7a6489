// The position lens through the wasm modules in Node against the native CLI (`poslab lens`) on
// the same checkpoints: a tiny Llama (RoPE: bands, shift, shuffle; a scaling in place of the
// config's), a tiny SmolLM3 (its NoPE layer read against pairs that never turn), a tiny GPT-2
// (learned positions) and the lab's shipped byte-level RoPE model on
// the training module. Double path: every score, profile and energy within the suite's
// 1e-6 + 1e-6·|native| (compare.js), the roles equal; the lab's model (float only, with and
// without a scaling) within 1e-5. lensMap is the traced forward's head map; bad requests name their field.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { requireCli, runCli } from './helpers/cli.js';
import { assertClose } from './helpers/compare.js';
import { TINY_LLAMA as LLAMA, writeTinyLm } from './helpers/gpt_neox.js';
import { loadInChunks, loadLmLab } from './helpers/lm.js';
import { modulePath, repoRoot, scratchFiles, VARIANTS } from './helpers/paths.js';

const TOKENS = [3, 99, 0, 42, 42, 17, 5, 61, 2, 7, 7, 7, 80, 13, 1, 64];
const GPT2 = { model_type: 'gpt2', vocab_size: 100, n_positions: 32, n_embd: 32, n_layer: 2, n_head: 4 };
const LAB_CHECKPOINT = path.join(repoRoot, 'web/src/content/text-rope.safetensors');
// transformers' tiny Gemma 3 (tests/fixtures/transformers): layers 0 and 2 slide at the local base.
const GEMMA_DIR = path.join(repoRoot, 'tests/fixtures/transformers/gemma3-text');
const GEMMA_TOKENS = TOKENS.map((t) => t % 61);
const LAB_TEXT = new TextEncoder().encode('The lens reads how each head of the lab model uses position.');
// Layer 1 NoPE by its config.
const SMOLLM3 = { ...LLAMA, model_type: 'smollm3', rope_theta: 100, no_rope_layers: [1, 0] };
const file = scratchFiles('poslab-lens-wasm-');

let lensRuns = 0;
async function nativeLens(weights, args) {
  const out = file(`lens${lensRuns++}.json`);
  const { code, stderr } = await runCli(['lens', '--weights', weights, ...args, '-o', out]);
  if (code !== 0) throw new Error(`poslab lens: ${stderr}`);
  return JSON.parse(fs.readFileSync(out, 'utf8'));
}

const SCORES = ['sink', 'previous_token', 'induction', 'local'];
const vec = (a) => ({ data: Float64Array.from(a), shape: [a.length] });

/** The wasm report against lens.json: the same keys, roles and counts; numbers within tolerance. */
function expectSameReport(got, want, label, tolerance = {}) {
  const close = (a, b, what) => assertClose(vec(a), vec(b), `${label}: ${what}`, tolerance);
  expect(got.tokens).toBe(want.tokens);
  expect(got.induction).toEqual(want.induction);
  expect(got.thresholds).toEqual(want.thresholds);
  expect(got.role_counts).toEqual(want.role_counts);
  expect(got.heads.map((h) => [h.layer, h.head, h.role, h.bands])).toEqual(
    want.heads.map((h) => [h.layer, h.head, h.role, h.bands]),
  );
  got.heads.forEach((h, i) => {
    const w = want.heads[i];
    const scores = (x) => SCORES.map((key) => x.scores[key]);
    close(scores(h), scores(w), `head ${i} scores`);
    close(h.distance_profile, w.distance_profile, `head ${i} distance profile`);
    if (w.pair_energy) close(h.pair_energy, w.pair_energy, `head ${i} pair energy`);
  });
  for (const key of ['shift', 'shuffle', 'rope_bands']) expect(got[key] === null).toBe(want[key] === null);
  if (want.shift) {
    expect(got.shift.k).toBe(want.shift.k);
    expect(got.shift.invariant_expected).toBe(want.shift.invariant_expected);
    close([got.shift.max_abs_logit], [want.shift.max_abs_logit], 'shift');
  }
  if (want.shuffle) {
    for (const pass of ['index', 'shuffled', 'constant']) {
      close(got.shuffle.loss_by_position[pass], want.shuffle.loss_by_position[pass], `shuffle ${pass}`);
    }
  }
  if (want.rope_bands) {
    close(got.rope_bands.inv_freq, want.rope_bands.inv_freq, 'inv_freq');
    expect(got.rope_bands.layers === null).toBe(want.rope_bands.layers === null);
    (want.rope_bands.layers ?? []).forEach((l, i) =>
      close(got.rope_bands.layers[i].inv_freq, l.inv_freq, `layer ${i}`),
    );
    expect(got.rope_bands.positional_heads).toBe(want.rope_bands.positional_heads);
  }
}

const ckpts = {};
const natives = {};
beforeAll(async () => {
  requireCli();
  ckpts.llama = await writeTinyLm(file('llama'), { config: LLAMA, seed: 7 });
  ckpts.gpt2 = await writeTinyLm(file('gpt2'), { config: GPT2, seed: 5 });
  const tokens = ['--tokens', TOKENS.join(','), '--period', '5', '--precision', 'double'];
  natives.llama = await nativeLens(ckpts.llama.weights, ['--config', ckpts.llama.config, ...tokens]);
  natives.yarn = await nativeLens(ckpts.llama.weights, [
    '--config',
    ckpts.llama.config,
    ...tokens,
    '--rope-scaling',
    'yarn',
    '--rope-factor',
    '4',
  ]);
  natives.gpt2 = await nativeLens(ckpts.gpt2.weights, ['--config', ckpts.gpt2.config, ...tokens]);
  ckpts.smollm3 = await writeTinyLm(file('smollm3'), { config: SMOLLM3, seed: 9 });
  natives.smollm3 = await nativeLens(ckpts.smollm3.weights, ['--config', ckpts.smollm3.config, ...tokens]);
  ckpts.gemma = {
    bytes: new Uint8Array(fs.readFileSync(path.join(GEMMA_DIR, 'model.safetensors'))),
    configText: fs.readFileSync(path.join(GEMMA_DIR, 'config.json'), 'utf8'),
  };
  natives.gemma = await nativeLens(path.join(GEMMA_DIR, 'model.safetensors'), [
    '--config',
    path.join(GEMMA_DIR, 'config.json'),
    '--tokens',
    GEMMA_TOKENS.join(','),
    '--period',
    '5',
    '--precision',
    'double',
  ]);
  natives.lab = await nativeLens(LAB_CHECKPOINT, ['--tokens', Array.from(LAB_TEXT).join(',')]);
  natives.labYarn = await nativeLens(LAB_CHECKPOINT, [
    '--tokens',
    Array.from(LAB_TEXT).join(','),
    '--rope-scaling',
    'yarn',
    '--rope-factor',
    '4',
  ]);
}, 120_000);

describe.each(VARIANTS)('the position lens in the %s build', (variant) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLmLab(variant);
  });

  test('a Llama checkpoint: the report equals the native CLI (double), with and without a scaling', () => {
    const model = loadInChunks(lab, 'llamaLoader', ckpts.llama.bytes, 4096, { config: ckpts.llama.configText });
    try {
      const options = { period: 5, precision: 'double' };
      const got = model.lens(TOKENS, options);
      expectSameReport(got, natives.llama, `${variant} llama`);
      expect(got.heads[0].distance_profile).toBeInstanceOf(Float32Array);
      expect(got.shift.relative_change).toBeLessThan(1e-6); // RoPE: a shift leaves the logits
      const yarn = model.lens(TOKENS, { ...options, rope: { scaling: 'yarn', factor: 4 } });
      expectSameReport(yarn, natives.yarn, `${variant} yarn`);
      // lensMap: the traced forward's map of that head.
      const map = model.lensMap(TOKENS, { layer: 1, head: 2 });
      const trace = model.forward(TOKENS, { trace: true }).layers[1].attention;
      const T = TOKENS.length;
      expect(map.size).toBe(T);
      assertClose(
        { data: map.attention, shape: [T, T] },
        { data: trace.data.subarray(2 * T * T, 3 * T * T), shape: [T, T] },
        'lensMap',
      );
      const field = (fn) => {
        try {
          fn();
        } catch (e) {
          return e.field;
        }
        return 'none';
      };
      expect(field(() => model.lens(TOKENS, { period: 9 }))).toBe('period');
      expect(field(() => model.lens([1, 2, 3]))).toBe('tokens');
      expect(field(() => model.lens(TOKENS, { rope: { scaling: 'warp' } }))).toBe('scaling');
      expect(field(() => model.lens(TOKENS, { colour: 1 }))).toBe('colour');
      expect(field(() => model.lensMap(TOKENS, { layer: 2 }))).toBe('layer');
      expect(field(() => model.lensMap(TOKENS, { head: 4 }))).toBe('head');
    } finally {
      model.delete();
    }
  });

  test('a Gemma 3 checkpoint: each layer read against its own pairs, as the native CLI', () => {
    const model = loadInChunks(lab, 'llamaLoader', ckpts.gemma.bytes, 4096, { config: ckpts.gemma.configText });
    try {
      const got = model.lens(GEMMA_TOKENS, { period: 5, precision: 'double' });
      expectSameReport(got, natives.gemma, `${variant} gemma`);
      expect(got.rope_bands.layers).toHaveLength(3);
      expect(got.rope_bands.layers[0].inv_freq[1]).toBeCloseTo(10000 ** (-2 / 16), 12); // local base
    } finally {
      model.delete();
    }
  });

  test('a SmolLM3 checkpoint: its NoPE layer read against pairs that never turn, as the native CLI', () => {
    const model = loadInChunks(lab, 'llamaLoader', ckpts.smollm3.bytes, 4096, { config: ckpts.smollm3.configText });
    try {
      const got = model.lens(TOKENS, { period: 5, precision: 'double' });
      expectSameReport(got, natives.smollm3, `${variant} smollm3`);
      expect(got.rope_bands.layers).toHaveLength(2);
      expect(Array.from(got.rope_bands.layers[0].inv_freq)).toEqual(Array.from(got.rope_bands.inv_freq));
      expect(Array.from(got.rope_bands.layers[1].inv_freq).every((f) => f === 0)).toBe(true);
      for (const h of got.heads.filter((x) => x.layer === 1)) {
        expect(h.turning_share).toBe(0);
        expect(h.bands).toBe('semantic');
      }
    } finally {
      model.delete();
    }
  });

  test('a GPT-2 checkpoint: learned positions move the logits; no rotation to scale', () => {
    const model = loadInChunks(lab, 'gpt2Loader', ckpts.gpt2.bytes, 5000, { config: ckpts.gpt2.configText });
    try {
      const got = model.lens(TOKENS, { period: 5, precision: 'double' });
      expectSameReport(got, natives.gpt2, `${variant} gpt2`);
      expect(got.rope_bands).toBeNull();
      expect(got.shift.invariant_expected).toBe(false);
      expect(() => model.lens(TOKENS, { rope: { scaling: 'linear', factor: 2 } })).toThrow(/no rotation to scale/);
    } finally {
      model.delete();
    }
  });
});

describe.each(VARIANTS)('the lab model on the training module, %s build', (variant) => {
  test('textLens equals the native CLI on the shipped checkpoint (float)', async () => {
    const { createTrainLab } = await import(path.join(repoRoot, 'web/src/core/poslab.js'));
    const train = await createTrainLab({
      variant,
      wasmBinary: fs.readFileSync(modulePath(variant, 'poslab-train')),
    });
    const checkpoint = new Uint8Array(fs.readFileSync(LAB_CHECKPOINT));
    const got = train.textLens(checkpoint, LAB_TEXT);
    expectSameReport(got, natives.lab, `${variant} lab`, { atol: 1e-5, rtol: 1e-5 });
    expect(got.heads).toHaveLength(8); // 2 layers × 4 heads
    const map = train.textLensMap(checkpoint, LAB_TEXT, { layer: 0, head: 3 });
    expect(map.size).toBe(LAB_TEXT.length);
    for (let i = 0; i < map.size; i++) {
      const row = map.attention.subarray(i * map.size, (i + 1) * map.size);
      expect(row.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 5); // a softmax row
      expect(row.slice(i + 1).every((x) => x === 0)).toBe(true); // causal
    }
    expect(() => train.textLens(checkpoint, LAB_TEXT, { precision: 'double' })).toThrow(/float only/);
    // The lab's RoPE model with a scaling, as the text task evaluates it: the CLI's --rope-*.
    const yarn = train.textLens(checkpoint, LAB_TEXT, { rope: { scaling: 'yarn', factor: 4 } });
    expectSameReport(yarn, natives.labYarn, `${variant} lab yarn`, { atol: 1e-5, rtol: 1e-5 });
    expect(yarn.rope_bands.inv_freq[1]).toBeLessThan(got.rope_bands.inv_freq[1]); // interpolated
  });
});

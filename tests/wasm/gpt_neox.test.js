// GPT-NeoX (Pythia) through the language-model wasm module in Node, against the native CLI
// (`poslab lm`) on the same checkpoint, written by `poslab lm-random`. The double path (the
// reference): logits, losses and every traced tensor within the suite's 1e-6 + 1e-6·|native|
// (compare.js), for both builds, F32 and F16 checkpoints, parallel and sequential residuals,
// streamed in chunks that cut tensors anywhere. The float32 path (the default) is judged
// through that reference: logits within 1e-4 of the largest |logit|, attention within 1e-5.
// RoPE scalings passed through as `--rope-*`; bad files and options refused with the core's
// message, the module still working after.
import fs from 'node:fs';
import { beforeAll, describe, expect, test } from 'vitest';
import { encodeSafetensors, tinyGpt2Tensors } from '../helpers/safetensors.js';
import { cliErrorMessage, requireCli, runCli } from './helpers/cli.js';
import { assertClose } from './helpers/compare.js';
import { loadNeoxInChunks, TINY_NEOX, writeTinyLm } from './helpers/gpt_neox.js';
import { expectTraceSameAsNative, loadLmLab, nativeLm, nativeRopeArgs } from './helpers/lm.js';
import { scratchFiles, VARIANTS } from './helpers/paths.js';

// 24 tokens: past the trained context of 16, where the scalings differ.
const TOKENS = [3, 99, 0, 42, 42, 17, 5, 61, 2, 7, 7, 7, 80, 13, 1, 64, 33, 98, 21, 4, 55, 9, 0, 12];
const SEQUENTIAL = { ...TINY_NEOX, use_parallel_residual: false, rotary_pct: 1 };
const file = scratchFiles('poslab-neox-wasm-');
const LINEAR = { scaling: 'linear', factor: 2 };
const YARN = { scaling: 'yarn', factor: 4, originalLength: 8, betaFast: 16 };

const native = (ckpt, args) => nativeLm(file, ckpt, TOKENS, args);

function expectSameAsNative(got, want, label) {
  assertClose(got.logits, want.out, `${label}: logits`);
  expectTraceSameAsNative(got, want.trace, want.index.model.num_hidden_layers, label);
}

const ckpts = {};
const nativeRuns = {};
beforeAll(async () => {
  requireCli();
  ckpts.F32 = await writeTinyLm(file('f32'));
  ckpts.F16 = await writeTinyLm(file('f16'), { dtype: 'F16', seed: 5 });
  ckpts.sequential = await writeTinyLm(file('seq'), { config: SEQUENTIAL, seed: 9 });
  // The native references, once for both builds.
  for (const key of Object.keys(ckpts)) nativeRuns[key] = await native(ckpts[key], ['--precision', 'double']);
  nativeRuns.linear = await native(ckpts.F32, nativeRopeArgs(LINEAR));
  nativeRuns.yarn = await native(ckpts.F32, nativeRopeArgs(YARN));
  nativeRuns.losses = await native(ckpts.F32, ['--precision', 'double', '--loss-by-position']);
  nativeRuns.dynamicLosses = await native(ckpts.sequential, [
    '--precision',
    'double',
    '--loss-by-position',
    '--rope-scaling',
    'dynamic',
    '--rope-factor',
    2,
  ]);
}, 120_000);

describe.each(VARIANTS)('GPT-NeoX in the %s build', (variant) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLmLab(variant);
  });

  test.each([
    ['F32', 4096],
    ['F16', 777],
    ['sequential', 13],
  ])('a %s checkpoint streamed in %i-byte chunks equals the native CLI (double)', (key, chunk) => {
    const model = loadNeoxInChunks(lab, ckpts[key].bytes, chunk, ckpts[key].configText);
    try {
      expect(model.dtype).toBe(key === 'F16' ? 'F16' : 'F32');
      const got = model.forward(TOKENS, { precision: 'double', trace: true });
      expect(got.precision).toBe('double');
      expect(got.rope).toEqual({ scaling: 'none', factor: 1, originalLength: 16 });
      expectSameAsNative(got, nativeRuns[key], `${variant} ${key}`);
    } finally {
      model.delete();
    }
  });

  test('the float path is within 1e-4·max|logit| (logits) and 1e-5 (attention) of the double reference', () => {
    const model = loadNeoxInChunks(lab, ckpts.F32.bytes, 100000, JSON.parse(ckpts.F32.configText));
    try {
      const got = model.forward(TOKENS, { trace: true });
      expect(got.precision).toBe('float');
      const want = nativeRuns.F32;
      const maxLogit = want.out.data.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
      assertClose(got.logits, want.out, 'float logits', { atol: 1e-4 * maxLogit, rtol: 0 });
      got.layers.forEach((layer, i) =>
        assertClose(layer.attention, want.trace[`attention_layer${i}`], `float attention ${i}`, {
          atol: 1e-5,
          rtol: 0,
        }),
      );
    } finally {
      model.delete();
    }
  });

  test('rope scalings pass through as the CLI --rope-* options', () => {
    const model = loadNeoxInChunks(lab, ckpts.F32.bytes, 999, ckpts.F32.configText);
    try {
      const linear = model.forward(TOKENS, { precision: 'double', trace: true, rope: LINEAR });
      expect(linear.rope).toEqual({ scaling: 'linear', factor: 2, originalLength: 16 });
      expectSameAsNative(linear, nativeRuns.linear, `${variant} linear`);
      const yarn = model.forward(TOKENS, { precision: 'double', trace: true, rope: YARN });
      expectSameAsNative(yarn, nativeRuns.yarn, `${variant} yarn`);
      // The scaling changes the result (the comparison above could not pass by accident).
      const none = model.forward(TOKENS, { precision: 'double' });
      expect(Math.abs(none.logits.data[23 * 100] - linear.logits.data[23 * 100])).toBeGreaterThan(0);
    } finally {
      model.delete();
    }
  });

  test('losses by position equal the CLI --loss-by-position, without the logits', () => {
    const model = loadNeoxInChunks(lab, ckpts.F32.bytes, 5000, ckpts.F32.configText);
    const seq = loadNeoxInChunks(lab, ckpts.sequential.bytes, 5000, ckpts.sequential.configText);
    try {
      const got = model.forward(TOKENS, { precision: 'double', logits: false, lossByPosition: true });
      expect(got.logits).toBeUndefined();
      expect(got.losses.shape).toEqual([TOKENS.length - 1]);
      assertClose(got.losses, nativeRuns.losses.out, `${variant} losses`);
      const dynamic = seq.forward(TOKENS, {
        precision: 'double',
        logits: false,
        lossByPosition: true,
        rope: { scaling: 'dynamic', factor: 2 },
      });
      assertClose(dynamic.losses, nativeRuns.dynamicLosses.out, `${variant} dynamic losses`);
      // The float path's losses are within 1e-4 of the reference's.
      const float = model.forward(TOKENS, { logits: false, lossByPosition: true });
      assertClose(float.losses, nativeRuns.losses.out, `${variant} float losses`, { atol: 1e-4, rtol: 0 });
    } finally {
      model.delete();
      seq.delete();
    }
  });

  test('random init equals the CLI lm-random checkpoint of the same seed', () => {
    const model = lab.gptNeoxRandom({ config: TINY_NEOX, seed: 3 });
    try {
      expect(model.config.parameters).toBe(lab.gptNeoxConfig({ config: TINY_NEOX }).parameters);
      expectSameAsNative(model.forward(TOKENS, { precision: 'double', trace: true }), nativeRuns.F32, 'random');
    } finally {
      model.delete();
    }
    const half = lab.gptNeoxRandom({ config: TINY_NEOX, seed: 3, dtype: 'F16' });
    expect(half.dtype).toBe('F16');
    half.delete();
  });

  test('configs: the Pythia presets, config.json object or text', () => {
    const p70 = lab.gptNeoxConfig({ preset: 'pythia-70m' });
    expect(p70).toMatchObject({
      vocab_size: 50304,
      hidden_size: 512,
      num_hidden_layers: 6,
      max_position_embeddings: 2048,
    });
    expect(p70.rope).toEqual({ scaling: 'none', factor: 1, originalLength: 2048, rotaryDim: 16, base: 10000 });
    expect(lab.gptNeoxConfig({ preset: 'pythia-160m' }).hidden_size).toBe(768);
    expect(lab.gptNeoxConfig({ config: p70.json }).parameters).toBe(p70.parameters);
    const scaled = lab.gptNeoxConfig({ config: { ...TINY_NEOX, rope_scaling: { type: 'linear', factor: 4 } } });
    expect(scaled.rope.scaling).toBe('linear');
    expect(lab.ropeScalings).toEqual(['none', 'linear', 'ntk', 'dynamic', 'yarn', 'llama3']);
  });

  test('architectureOf tells GPT-NeoX from GPT-2 by the header', () => {
    const header = (bytes) => {
      const N = lab.safetensorsHeaderLength(bytes.subarray(0, 8), bytes.length);
      return [bytes.subarray(0, 8 + N), bytes.length];
    };
    expect(lab.architectureOf(...header(ckpts.F32.bytes))).toBe('gpt_neox');
    const gpt2 = encodeSafetensors(
      tinyGpt2Tensors({ vocab_size: 10, n_positions: 4, n_embd: 8, n_layer: 1, n_head: 2 }, 1),
    );
    expect(lab.architectureOf(...header(gpt2))).toBe('gpt2');
    expect(lab.architectureOfConfig(ckpts.F32.configText)).toBe('gpt_neox');
    expect(lab.architectureOfConfig('{"vocab_size": 3}')).toBeNull();
    expect(lab.architectureOfConfig('{"model_type": "llama"}')).toBe('llama'); // the CLI's, not the page's yet
    expect(() => lab.architectureOfConfig('{"model_type": "bogus"}')).toThrow(/model_type/);
  });

  test('bad files are refused with the core message (as the CLI words it), and the module still works', async () => {
    const { bytes, configText } = ckpts.F32;
    const N = lab.safetensorsHeaderLength(bytes.subarray(0, 8), bytes.length);
    const head = bytes.subarray(0, 8 + N);
    // A config the checkpoint does not match: the CLI and wasm say the same.
    const wrong = { ...TINY_NEOX, intermediate_size: 48 };
    fs.writeFileSync(file('wrong.json'), JSON.stringify(wrong));
    const { stderr } = await runCli([
      'lm',
      '--weights',
      ckpts.F32.weights,
      '--config',
      file('wrong.json'),
      '--tokens',
      '1',
      '-o',
      file('x.npy'),
    ]);
    const message = cliErrorMessage(stderr);
    expect(message).toMatch(/intermediate|dense_h_to_4h|shape/);
    expect(() =>
      lab.gptNeoxLoader({ header: head, fileSize: bytes.length, name: ckpts.F32.weights, config: wrong }),
    ).toThrow(message);
    // Cut short: finish names what is missing.
    const loader = lab.gptNeoxLoader({ header: head, fileSize: bytes.length, config: configText });
    loader.append(bytes.subarray(8 + N, 8 + N + 1000));
    expect(() => loader.finish()).toThrow(/file ended early/);
    loader.delete();
    expect(() => loader.append(new Uint8Array(1))).toThrow(/deleted/);
    // A GPT-2 checkpoint is not GPT-NeoX: the header names the first unknown tensor.
    const gpt2 = encodeSafetensors(
      tinyGpt2Tensors({ vocab_size: 10, n_positions: 4, n_embd: 8, n_layer: 1, n_head: 2 }, 1),
    );
    const N2 = lab.safetensorsHeaderLength(gpt2.subarray(0, 8), gpt2.length);
    expect(() =>
      lab.gptNeoxLoader({ header: gpt2.subarray(0, 8 + N2), fileSize: gpt2.length, config: configText }),
    ).toThrow(/unexpected tensor/);
    expect(() => lab.gptNeoxLoader({ header: head, fileSize: bytes.length })).toThrow(/config/);

    const model = loadNeoxInChunks(lab, bytes, 3333, configText);
    const field = (fn) => {
      try {
        fn();
      } catch (e) {
        return [e.message, e.field];
      }
      return null;
    };
    expect(field(() => model.forward([1, 100]))).toEqual([expect.stringMatching(/outside the vocabulary/), 'tokens']);
    expect(field(() => model.forward([]))[1]).toBe('tokens');
    expect(field(() => model.forward([1.5]))[1]).toBe('tokens');
    expect(field(() => model.forward([1], { precision: 'half' }))[1]).toBe('precision');
    expect(field(() => model.forward([1], { rope: { scaling: 'xpos' } }))).toEqual([
      "unknown RoPE scaling 'xpos' (expected none, linear, ntk, dynamic, yarn, llama3)",
      'scaling',
    ]);
    expect(field(() => model.forward([1], { rope: { scaling: 'linear', factor: 0.5 } }))).toEqual([
      expect.stringMatching(/factor >= 1/),
      'factor',
    ]);
    expect(field(() => model.forward([1], { rope: { factor: 2 } }))[1]).toBe('scaling');
    expect(field(() => model.forward([1], { rope: { scaling: 'linear', fator: 2 } }))[1]).toBe('fator');
    expect(field(() => model.forward([1], { colour: 'red' }))[1]).toBe('colour');
    expect(field(() => model.forward([1], { lossByPosition: true }))[0]).toMatch(/2|two|tokens/);
    expect(field(() => lab.gptNeoxRandom({ config: { ...TINY_NEOX, num_attention_heads: 5 } }))[0]).toMatch(/5/);
    expect(field(() => lab.gptNeoxRandom({ config: { ...TINY_NEOX, hidden_act: 'relu' } }))[0]).toMatch(/hidden_act/);
    expect(field(() => lab.gptNeoxRandom({ preset: 'pythia-7b' }))[0]).toMatch(/pythia-7b/);
    expect(field(() => lab.gptNeoxRandom({ config: TINY_NEOX, dtype: 'BF16' }))[1]).toBe('dtype');
    // Still working after every refusal.
    expectSameAsNative(model.forward(TOKENS, { precision: 'double', trace: true }), nativeRuns.F32, 'after errors');
    model.delete();
    expect(() => model.forward([1])).toThrow(/deleted/);
  });

  test('the element cap: (T, V) logits past 2^26 are refused before any work, the losses fit', () => {
    // V = 70 000, T = 1 000: (T, V) = 7e7 > 2^26 = 67 108 864.
    const wide = {
      ...TINY_NEOX,
      vocab_size: 70000,
      hidden_size: 8,
      num_attention_heads: 2,
      intermediate_size: 16,
      num_hidden_layers: 1,
    };
    const model = lab.gptNeoxRandom({ config: wide, seed: 1 });
    try {
      const tokens = Int32Array.from({ length: 1000 }, (_, i) => (i * 7919) % 70000);
      expect(() => model.forward(tokens)).toThrow(/67108864/);
      const got = model.forward(tokens, { logits: false, lossByPosition: true });
      expect(got.losses.shape).toEqual([999]);
      expect(got.losses.data.every(Number.isFinite)).toBe(true);
    } finally {
      model.delete();
    }
  });
});

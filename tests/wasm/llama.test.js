// The Llama family (llama, mistral, qwen2, qwen3, smollm3) through the language-model wasm module in
// Node, against the native CLI (`poslab lm`) on the same checkpoints, written by
// `poslab lm-random`: the double path (the reference) within the suite's 1e-6 + 1e-6·|native|
// (compare.js) for logits and every traced tensor, in both builds, streamed in chunks that cut
// tensors anywhere; the float path within 1e-4 of the largest |logit|; a RoPE scaling passed
// as `--rope-*`; losses by position; bad input refused with the core's message. And the
// checkpoints Hugging Face transformers itself made and ran (tests/fixtures/transformers:
// gemma3_text, longrope short and long, qwen3, BF16), against its float64 logits.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { requireCli } from './helpers/cli.js';
import { assertClose } from './helpers/compare.js';
import { writeTinyLm } from './helpers/gpt_neox.js';
import { expectTraceSameAsNative, loadInChunks, loadLmLab, nativeLm, nativeRopeArgs } from './helpers/lm.js';
import { readNpy } from './helpers/npy.js';
import { repoRoot, scratchFiles, VARIANTS } from './helpers/paths.js';
import { llamaLayout } from '../helpers/model-layouts.js';
import { layoutEntries, safetensorsHeader, shardSafetensors } from '../helpers/safetensors.js';

// 20 tokens past a trained context of 12, where the scalings differ.
const TOKENS = [3, 99, 0, 42, 42, 17, 5, 61, 2, 7, 7, 7, 80, 13, 1, 64, 33, 98, 21, 4];
const BASE = {
  vocab_size: 100,
  hidden_size: 32,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  intermediate_size: 48,
  max_position_embeddings: 12,
};
// GQA (2 kv heads), untied; Qwen3 (q/k norms, explicit head_dim, one sliding layer); Mistral
// (a window of 5 on every layer, MQA, tied); SmolLM3 (layer 1 NoPE by its no_rope_layers, and
// sliding there, use_sliding_window; tied, its default).
const CONFIGS = {
  llama: { ...BASE, model_type: 'llama', num_key_value_heads: 2, rope_theta: 5000 },
  qwen3: {
    ...BASE,
    model_type: 'qwen3',
    num_key_value_heads: 2,
    head_dim: 16,
    use_sliding_window: true,
    sliding_window: 6,
    layer_types: ['full_attention', 'sliding_attention'],
  },
  mistral: { ...BASE, model_type: 'mistral', num_key_value_heads: 1, sliding_window: 5, tie_word_embeddings: true },
  smollm3: {
    ...BASE,
    model_type: 'smollm3',
    num_key_value_heads: 2,
    rope_theta: 5000,
    no_rope_layers: [1, 0],
    use_sliding_window: true,
    sliding_window: 7,
  },
};
const file = scratchFiles('poslab-llama-wasm-');
const YARN = { scaling: 'yarn', factor: 4, originalLength: 6 };

const native = (ckpt, args) => nativeLm(file, ckpt, TOKENS, args);

// A fixture of tests/fixtures/transformers: its single-file checkpoint, the config.json the
// Hub ships and transformers 5's, and every run's ids and float64 logits.
function transformersCase(name) {
  const dir = path.join(repoRoot, 'tests/fixtures/transformers', name);
  const read = (f) => fs.readFileSync(path.join(dir, f));
  const runs = JSON.parse(read('meta.json')).runs.map((_, k) => ({
    ids: Array.from(readNpy(path.join(dir, `ids-${k}.npy`)).data, Number),
    logits: readNpy(path.join(dir, `logits-${k}.npy`)),
  }));
  const configs = [read('config.json').toString(), read('config-transformers5.json').toString()];
  if (fs.existsSync(path.join(dir, 'model.safetensors.index.json'))) {
    const index = read('model.safetensors.index.json').toString();
    const names = [...new Set(Object.values(JSON.parse(index).weight_map))];
    return { index, shards: names.map((name) => ({ name, bytes: new Uint8Array(read(name)) })), configs, runs };
  }
  return { bytes: new Uint8Array(read('model.safetensors')), configs, runs };
}

const ckpts = {};
const nativeRuns = {};
beforeAll(async () => {
  requireCli();
  for (const [key, config] of Object.entries(CONFIGS)) {
    ckpts[key] = await writeTinyLm(file(key), { config, seed: 7 });
    nativeRuns[key] = await native(ckpts[key], ['--precision', 'double']);
  }
  ckpts.F16 = await writeTinyLm(file('f16'), { config: CONFIGS.llama, seed: 8, dtype: 'F16' });
  nativeRuns.F16 = await native(ckpts.F16, ['--precision', 'double']);
  nativeRuns.yarn = await native(ckpts.llama, nativeRopeArgs(YARN));
  nativeRuns.losses = await native(ckpts.qwen3, ['--precision', 'double', '--loss-by-position']);
  // The llama checkpoint in two shards beside their index, as save_pretrained lays them out.
  const split = shardSafetensors(ckpts.llama.bytes, 2);
  const dir = file('sharded');
  fs.mkdirSync(dir, { recursive: true });
  for (const shard of split.shards) fs.writeFileSync(path.join(dir, shard.name), shard.bytes);
  fs.writeFileSync(path.join(dir, 'model.safetensors.index.json'), split.index);
  ckpts.sharded = { ...split, weights: path.join(dir, 'model.safetensors.index.json'), config: ckpts.llama.config };
  nativeRuns.sharded = await native(ckpts.sharded, ['--precision', 'double']);
}, 120_000);

describe.each(VARIANTS)('Llama family in the %s build', (variant) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLmLab(variant);
  });

  // Qwen2.5's vocabulary matrix (151936, 896) holds 136M elements, past the 2^26 of a tensor
  // the core computes: a weight, held as stored and read a panel at a time, may hold 4 · 2^26.
  test('a weight past the computed-tensor cap is allocated up to the weight cap (Qwen2.5’s vocabulary)', () => {
    const loader = (vocab) => {
      const config = {
        model_type: 'qwen2',
        vocab_size: vocab,
        hidden_size: 896,
        num_hidden_layers: 1,
        num_attention_heads: 14,
        num_key_value_heads: 2,
        intermediate_size: 32,
        max_position_embeddings: 64,
        rope_theta: 1e6,
        rms_norm_eps: 1e-6,
        tie_word_embeddings: true,
      };
      const entries = layoutEntries(llamaLayout(config), 'F16').map((e) => ({ ...e, dtype: 'BF16' }));
      const { prefix, dataBytes } = safetensorsHeader(entries);
      const name = 'qwen.safetensors';
      return lab.llamaLoader({
        header: prefix,
        fileSize: prefix.length + dataBytes,
        name,
        config: JSON.stringify(config),
      });
    };
    loader(151936).delete(); // 272 MB of BF16, allocated
    expect(() => loader(300000)).toThrow(
      "qwen.safetensors: tensor 'model.embed_tokens.weight' (300000, 896) would have 268800000 elements; the limit is 268435456",
    );
  });

  const expectSameAsNative = (got, want, label) => {
    assertClose(got.logits, want.out, `${label}: logits`);
    expectTraceSameAsNative(got, want.trace, want.index.model.num_hidden_layers, label);
  };

  test.each([
    ['llama', 4096],
    ['qwen3', 333],
    ['mistral', 17],
    ['smollm3', 2222],
    ['F16', 1000],
  ])('a %s checkpoint streamed in %i-byte chunks equals the native CLI (double)', (key, chunk) => {
    const model = loadInChunks(lab, 'llamaLoader', ckpts[key].bytes, chunk, { config: ckpts[key].configText });
    try {
      expect(model.architecture).toBe('llama');
      expect(model.config.model_type).toBe(key === 'F16' ? 'llama' : key);
      expect(model.dtype).toBe(key === 'F16' ? 'F16' : 'F32');
      const got = model.forward(TOKENS, { precision: 'double', trace: true });
      expectSameAsNative(got, nativeRuns[key], `${variant} ${key}`);
      if (key === 'smollm3') {
        expect(model.config.no_rope_layers).toEqual([1, 0]);
        expect(model.config.sliding_window).toBe(7);
        // The float path through the reference, as for every model.
        const want = nativeRuns.smollm3.out;
        const maxLogit = want.data.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
        assertClose(model.forward(TOKENS).logits, want, 'smollm3 float logits', { atol: 1e-4 * maxLogit, rtol: 0 });
      }
    } finally {
      model.delete();
    }
  });

  // Each shard's header and size, as the page reads them from the shard files.
  const shardFiles = (shards) =>
    shards.map(({ name, bytes }) => {
      const N = lab.safetensorsHeaderLength(bytes.subarray(0, 8), bytes.length, name);
      return { name, header: bytes.subarray(0, 8 + N), fileSize: bytes.length, start: 8 + N, bytes };
    });
  const shardedLoader = (shards) =>
    lab.llamaShardedLoader({
      index: ckpts.sharded.index,
      shards: shards.map(({ name, header, fileSize }) => ({ name, header, fileSize })),
      config: ckpts.llama.configText,
    });

  test('a checkpoint in shards, streamed shard after shard, equals the native CLI on its index (double)', () => {
    const files = shardFiles(ckpts.sharded.shards);
    const loading = shardedLoader([...files].reverse()); // any order in; the index's order out
    let model;
    try {
      expect(loading.shards).toEqual(['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors']);
      expect(loading.expected).toBe(files.reduce((n, f) => n + f.fileSize - f.start, 0));
      for (const [k, name] of loading.shards.entries()) {
        if (k > 0) loading.nextFile();
        const { bytes, start } = files.find((f) => f.name === name);
        for (let at = start; at < bytes.length; at += 999) loading.append(bytes.subarray(at, at + 999));
      }
      model = loading.finish();
    } finally {
      loading.delete();
    }
    try {
      expectSameAsNative(
        model.forward(TOKENS, { precision: 'double', trace: true }),
        nativeRuns.sharded,
        `${variant} sharded`,
      );
    } finally {
      model.delete();
    }
  });

  test('a sharded checkpoint with a shard missing, cut short or left unread is refused, naming it', () => {
    const files = shardFiles(ckpts.sharded.shards);
    let notAnArray;
    try {
      lab.llamaShardedLoader({
        index: ckpts.sharded.index,
        shards: 'model.safetensors',
        config: ckpts.llama.configText,
      });
    } catch (e) {
      notAnArray = e;
    }
    expect([notAnArray?.name, notAnArray?.field]).toEqual(['PosLabError', 'shards']);
    expect(() => shardedLoader(files.slice(0, 1))).toThrow(
      'model.safetensors.index.json names model-00002-of-00002.safetensors, which is not among the shards given',
    );
    const loading = shardedLoader(files);
    try {
      const first = files[0];
      loading.append(first.bytes.subarray(first.start, first.bytes.length - 4));
      expect(() => loading.nextFile()).toThrow(/model-00001-of-00002\.safetensors: file ended early in tensor '[^']+'/);
    } finally {
      loading.delete();
    }
    const unread = shardedLoader(files);
    try {
      unread.append(files[0].bytes.subarray(files[0].start));
      expect(() => unread.finish()).toThrow('model.safetensors.index.json: only 1 of its 2 shards were read');
    } finally {
      unread.delete();
    }
  });

  test('the float path is within 1e-4·max|logit| of the double reference; a yarn scaling as --rope-*', () => {
    const model = loadInChunks(lab, 'llamaLoader', ckpts.llama.bytes, 100000, { config: ckpts.llama.configText });
    try {
      const got = model.forward(TOKENS);
      const want = nativeRuns.llama.out;
      const maxLogit = want.data.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
      assertClose(got.logits, want, 'float logits', { atol: 1e-4 * maxLogit, rtol: 0 });
      const yarn = model.forward(TOKENS, { precision: 'double', trace: true, rope: YARN });
      expect(yarn.rope).toEqual({ scaling: 'yarn', factor: 4, originalLength: 6 });
      expectSameAsNative(yarn, nativeRuns.yarn, `${variant} yarn`);
    } finally {
      model.delete();
    }
  });

  test('losses by position equal the CLI --loss-by-position', () => {
    const model = loadInChunks(lab, 'llamaLoader', ckpts.qwen3.bytes, 5000, { config: ckpts.qwen3.configText });
    try {
      const got = model.forward(TOKENS, { precision: 'double', logits: false, lossByPosition: true });
      expect(got.logits).toBeUndefined();
      assertClose(got.losses, nativeRuns.losses.out, `${variant} losses`);
    } finally {
      model.delete();
    }
  });

  // The dtype held is the file's: BF16 and F16 stay 16-bit, widened a panel at a time.
  // A sharded fixture through llamaShardedLoader, the shards handed over in reverse.
  const loadFixture = (fixture, config) => {
    if (!fixture.shards) return loadInChunks(lab, 'llamaLoader', fixture.bytes, 7777, { config });
    const files = shardFiles(fixture.shards).reverse();
    const shards = files.map(({ name, header, fileSize }) => ({ name, header, fileSize }));
    const loading = lab.llamaShardedLoader({ index: fixture.index, shards, config });
    try {
      for (const [k, name] of loading.shards.entries()) {
        if (k > 0) loading.nextFile();
        const { bytes, start } = files.find((f) => f.name === name);
        for (let at = start; at < bytes.length; at += 7777) loading.append(bytes.subarray(at, at + 7777));
      }
      return loading.finish();
    } finally {
      loading.delete();
    }
  };

  test.each([
    ['gemma3-text', 'gemma3_text', 'BF16'],
    ['llama-longrope', 'llama', 'BF16'],
    ['qwen3-qk-norm', 'qwen3', 'BF16'],
    ['llama-head-dim-bias-f16', 'llama', 'F16'],
    ['llama-gqa-sharded', 'llama', 'BF16'],
  ])('%s as transformers saved it gives transformers’ logits (both precisions)', (name, type, dtype) => {
    const fixture = transformersCase(name);
    for (const config of fixture.configs) {
      const model = loadFixture(fixture, config);
      try {
        expect(model.config.model_type).toBe(type);
        expect(model.dtype).toBe(dtype);
        if (name === 'llama-longrope') expect(model.config.rope.scaling).toBe('longrope');
        for (const { ids, logits } of fixture.runs) {
          const maxLogit = logits.data.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
          for (const [precision, tol] of [
            ['float', 1e-4],
            ['double', 1e-5],
          ]) {
            const got = model.forward(ids, { precision });
            assertClose(got.logits, logits, `${variant} ${name} T=${ids.length} ${precision}`, {
              atol: tol * maxLogit,
              rtol: 0,
            });
          }
        }
      } finally {
        model.delete();
      }
    }
  });

  test('presets, random weights and bad input', () => {
    expect(lab.llamaConfig({ preset: 'qwen2.5-0.5b' }).parameters).toBe(494032768);
    // SmolLM3-3B's shape (3.08 B parameters, past the wasm cap of 2^30: its config only).
    expect(() => lab.llamaConfig({ preset: 'smollm3-3b' })).toThrow(/parameters/);
    const model = lab.llamaRandom({ config: JSON.stringify(CONFIGS.mistral), seed: 1, dtype: 'F16' });
    try {
      expect(model.dtype).toBe('F16');
      expect(() => model.forward([100])).toThrow(/vocabulary/);
      expect(model.forward([1, 2, 3]).topIds).toHaveLength(10);
    } finally {
      model.delete();
    }
    const refused = (config, pattern) => {
      let error;
      try {
        lab.llamaConfig({ config: JSON.stringify(config) });
      } catch (e) {
        error = e;
      }
      expect(error?.name).toBe('PosLabError');
      expect(error.message).toMatch(pattern);
    };
    refused({ ...BASE, num_key_value_heads: 3 }, /num_key_value_heads/);
    refused({ ...BASE, model_type: 'gemma2' }, /model_type/);
    refused({ ...BASE, model_type: 'gemma3_text', final_logit_softcapping: 30 }, /final_logit_softcapping/);
    refused({ ...BASE, rope_scaling: { rope_type: 'yarn' } }, /factor/);
    expect(() => lab.llamaLoader({ header: ckpts.llama.bytes.subarray(0, 8), fileSize: 8 })).toThrow(/required/);
  });
});

// GPT-2 through the poslab-lm wasm module in Node, against the native CLI on the same
// .safetensors file. The double path (the reference): logits and every traced tensor within
// the suite's 1e-6 + 1e-6·|native| (compare.js), for both builds, F32 and F16 checkpoints,
// streamed in chunks that cut tensors anywhere. The float32 path (the default) is judged
// through that reference, not against native float32 (which may fuse multiply-adds where
// wasm cannot): logits within 1e-4 of the largest |logit|, attention maps within 1e-5.
// Random init against the CLI's; bad files refused with the core's message.
import fs from 'node:fs';
import { beforeAll, describe, expect, test } from 'vitest';
import { encodeSafetensors, tinyGpt2Tensors } from '../helpers/safetensors.js';
import { cliErrorMessage, requireCli, runCli } from './helpers/cli.js';
import { assertClose } from './helpers/compare.js';
import { expectTraceSameAsNative, loadInChunks, loadLmLab, readTraceDir } from './helpers/lm.js';
import { readNpy } from './helpers/npy.js';
import { scratchFiles, VARIANTS } from './helpers/paths.js';

const TINY = { vocab_size: 100, n_positions: 16, n_embd: 32, n_layer: 2, n_head: 4, layer_norm_epsilon: 1e-5 };
const TOKENS = [3, 99, 0, 42, 42, 17, 5, 61, 2];
const file = scratchFiles('poslab-lm-wasm-');

// A checkpoint's bytes through gpt2Loader in `chunk`-byte pieces. config null: read off the
// checkpoint.
const loadGpt2InChunks = (lab, bytes, chunk, config = TINY) =>
  loadInChunks(lab, 'gpt2Loader', bytes, chunk, { config: config ?? undefined });

// The CLI's logits and trace for one run: { logits, index, trace: name → tensor }.
async function native(args, tag) {
  const out = file(`${tag}.npy`);
  const traceDir = file(`${tag}-trace`);
  const { code, stderr } = await runCli(['gpt2', ...args, '--trace', traceDir, '-o', out]);
  if (code !== 0) throw new Error(`poslab gpt2 ${args.join(' ')}: ${stderr}`);
  const { index, trace } = readTraceDir(traceDir);
  return { logits: readNpy(out), index, trace };
}

// The CLI's arguments for TOKENS through the tiny checkpoint of `dtype`, then `more`.
const onTiny = (dtype, ...more) => [
  '--weights',
  file(`tiny-${dtype}.safetensors`),
  '--config',
  file('tiny.json'),
  '--tokens',
  TOKENS.join(','),
  ...more,
];

// Every traced tensor of a wasm forward pass against the CLI's files.
function expectSameAsNative(got, want, label) {
  assertClose(got.logits, want.logits, `${label}: logits`);
  expectTraceSameAsNative(got, want.trace, want.index.model.n_layer, label);
}

const checkpoints = {};
beforeAll(() => {
  requireCli();
  fs.writeFileSync(file('tiny.json'), JSON.stringify(TINY));
  for (const dtype of ['F32', 'F16']) {
    checkpoints[dtype] = encodeSafetensors(tinyGpt2Tensors(TINY, 7, dtype));
    fs.writeFileSync(file(`tiny-${dtype}.safetensors`), checkpoints[dtype]);
  }
});

describe.each(VARIANTS)('GPT-2 in the %s build', (variant) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLmLab(variant);
  });

  test.each([
    ['F32', 'learned', 4096],
    ['F16', 'learned', 1000],
    ['F32', 'sinusoidal', 777],
    ['F32', 'rope', 100000],
    ['F16', 'alibi', 333],
    ['F32', 'none', 4096],
  ])('a %s checkpoint with %s positions equals the native CLI', async (dtype, position, chunk) => {
    const model = loadGpt2InChunks(lab, checkpoints[dtype], chunk);
    try {
      expect(model.dtype).toBe(dtype);
      const got = model.forward(TOKENS, { position, precision: 'double' });
      expect(got.position).toBe(position);
      expect(got.precision).toBe('double');
      const want = await native(
        onTiny(dtype, '--position', position, '--precision', 'double'),
        `${variant}-${dtype}-${position}`,
      );
      expect(want.index.position.method).toBe(position);
      expect(got.positionNote).toBe(want.index.position.note);
      expectSameAsNative(got, want, `${variant} ${dtype} ${position}`);
    } finally {
      model.delete();
    }
  });

  test.each(['F32', 'F16'])(
    'the float32 path (the default) of a %s checkpoint is within the policy of the double reference',
    async (dtype) => {
      const model = loadGpt2InChunks(lab, checkpoints[dtype], 4096);
      try {
        const got = model.forward(TOKENS);
        expect(got.precision).toBe('float');
        const want = await native(onTiny(dtype, '--precision', 'double'), `${variant}-${dtype}-float`);
        const largest = want.logits.data.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
        expect(largest).toBeGreaterThan(0);
        const worst = (a, b) => a.data.reduce((m, x, i) => Math.max(m, Math.abs(x - b.data[i])), 0);
        expect(worst(got.logits, want.logits)).toBeLessThanOrEqual(1e-4 * largest);
        got.layers.forEach((layer, i) =>
          expect(worst(layer.attention, want.trace[`attention_layer${i}`])).toBeLessThanOrEqual(1e-5),
        );
        expect(Array.from(got.topIds)).toEqual(Array.from(want.trace.top_k_ids.data));
        expect(() => model.forward(TOKENS, { precision: 'half' })).toThrow(
          /unknown precision 'half' \(expected float or double\)/,
        );
      } finally {
        model.delete();
      }
    },
  );

  // A vocabulary past the GEMM's 2048-column block (whose panels are 8 columns wide in this
  // SIMD128 build, 16 natively), through the same reference.
  test('the float32 path of a wider random model is within the policy of the CLI reference', async () => {
    const WIDE = { vocab_size: 2500, n_positions: 40, n_embd: 64, n_layer: 1, n_head: 2 };
    fs.writeFileSync(file('wide.json'), JSON.stringify(WIDE));
    const tokens = Array.from({ length: 37 }, (_, i) => (i * 613) % 2500);
    const model = lab.gpt2Random({ config: WIDE, seed: 3 });
    try {
      const got = model.forward(tokens);
      const want = await native(
        ['--config', file('wide.json'), '--tokens', tokens.join(','), '--seed', 3, '--precision', 'double'],
        `${variant}-wide`,
      );
      const largest = want.logits.data.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
      const worst = got.logits.data.reduce((m, x, i) => Math.max(m, Math.abs(x - want.logits.data[i])), 0);
      expect(largest).toBeGreaterThan(0.05);
      expect(worst).toBeLessThanOrEqual(1e-4 * largest);
    } finally {
      model.delete();
    }
  });

  test('F16 weights stay half precision in the heap', () => {
    const half = loadGpt2InChunks(lab, checkpoints.F16, 1 << 20);
    const full = loadGpt2InChunks(lab, checkpoints.F32, 1 << 20);
    expect(half.bytes * 2).toBe(full.bytes);
    expect(full.bytes).toBe(4 * half.config.parameters.total);
    half.delete();
    full.delete();
  });

  test('random init equals the CLI random init with the same seed', async () => {
    const model = lab.gpt2Random({ config: TINY, seed: 5 });
    try {
      const want = await native(
        ['--config', file('tiny.json'), '--tokens', TOKENS.join(','), '--seed', 5, '--precision', 'double'],
        `${variant}-random`,
      );
      expectSameAsNative(model.forward(TOKENS, { precision: 'double' }), want, `${variant} random`);
    } finally {
      model.delete();
    }
  });

  test('the config is read off a checkpoint given without one', () => {
    const wide = { ...TINY, n_embd: 128, n_head: 2, n_layer: 3 };
    const model = loadGpt2InChunks(lab, encodeSafetensors(tinyGpt2Tensors(wide, 3)), 5000, null);
    expect(model.config).toMatchObject(wide);
    model.delete();
    expect(() => loadGpt2InChunks(lab, checkpoints.F32, 5000, null)).toThrow(/config\.json/);
  });

  test('parameter counts are those of the released models', () => {
    const small = lab.gpt2Config({ preset: 'small' });
    expect(small.parameters.total).toBe(124439808);
    expect(small.parameters.block).toBe(7087872);
    expect(lab.gpt2Config({ preset: 'medium' }).parameters.total).toBe(354823168);
    expect(lab.gpt2Config({ config: TINY })).toMatchObject(TINY);
  });

  describe('bad files are refused with the core message, and the module keeps working', () => {
    const tensors = () => tinyGpt2Tensors(TINY, 7);
    const cases = {
      truncated: [encodeSafetensors(tensors()).subarray(0, -10), /file ended early|truncated/],
      'wrong header length': [
        (() => {
          const b = encodeSafetensors(tensors()).slice();
          new DataView(b.buffer).setBigUint64(0, 1n << 40n, true);
          return b;
        })(),
        /header length/,
      ],
      'wrong dtype': [
        encodeSafetensors(tensors(), { headerOverride: (h) => (h['wte.weight'].dtype = 'I32') }),
        /wte\.weight.*dtype "I32"/,
      ],
      'missing tensor': [
        encodeSafetensors(tensors().filter((t) => t.name !== 'h.1.ln_2.bias')),
        /missing tensor 'h\.1\.ln_2\.bias'/,
      ],
      'wrong shape': [
        encodeSafetensors(tensors().map((t) => (t.name === 'wpe.weight' ? { ...t, shape: [32, 16] } : t))),
        /tensor 'wpe\.weight' has shape \(32, 16\), the config needs \(16, 32\)/,
      ],
      'huge declared size': [
        encodeSafetensors(tensors(), { headerOverride: (h) => (h['wte.weight'].shape = [1e9, 1e9]) }),
        /wte\.weight/,
      ],
    };
    test.each(Object.keys(cases))('%s', async (name) => {
      const [bytes, message] = cases[name];
      fs.writeFileSync(file(`bad-${variant}.safetensors`), bytes);
      let wasmError;
      try {
        loadGpt2InChunks(lab, bytes, 999);
      } catch (e) {
        wasmError = e;
      }
      expect(wasmError?.name).toBe('PosLabError');
      expect(wasmError.message).toMatch(message);
      // The CLI refuses the same file with the same message.
      const { code, stderr } = await runCli([
        'gpt2',
        '--weights',
        file(`bad-${variant}.safetensors`),
        '--config',
        file('tiny.json'),
        '--tokens',
        '1',
        '-o',
        file('never.npy'),
      ]);
      expect(code).not.toBe(0);
      expect(cliErrorMessage(stderr)).toMatch(message);
      const model = loadGpt2InChunks(lab, checkpoints.F32, 1 << 16);
      expect(model.forward([1, 2]).logits.shape).toEqual([2, 100]);
      model.delete();
    });
  });

  test('bad tokens and options are refused', () => {
    const model = lab.gpt2Random({ config: TINY });
    expect(() => model.forward([1, 100])).toThrow(/token 100 at position 1 is outside the vocabulary \[0, 100\)/);
    expect(() => model.forward([])).toThrow(/at least one token/);
    expect(() => model.forward([1.5])).toThrow(/integer/);
    expect(() => model.forward(Array(17).fill(1))).toThrow(/n_positions 16/);
    expect(() => model.forward([1], { position: 't5' })).toThrow(/unknown position method 't5'/);
    expect(() => model.forward([1], { colour: 'red' })).toThrow(/unknown option 'colour'/);
    model.delete();
    expect(() => model.forward([1])).toThrow(/deleted/);
    expect(() => lab.gpt2Random({ config: { ...TINY, n_head: 5 } })).toThrow(/not divisible by n_head 5/);
    expect(() => lab.gpt2Random({ config: { ...TINY, activation_function: 'relu' } })).toThrow(/activation_function/);
  });
});

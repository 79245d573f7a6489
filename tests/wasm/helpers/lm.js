// What the language-model suites (gpt2.test.js, gpt_neox.test.js) share, for either
// architecture: the language-model module loaded through the JS wrapper, a checkpoint
// streamed through its loader, the CLI's trace
// directory read back, and a wasm forward pass's trace compared with it (every layer's
// attention, the per-layer statistics the CLI stacks into (N, T), the top-k).
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { runCli } from './cli.js';
import { assertClose } from './compare.js';
import { readNpy } from './npy.js';
import { modulePath, wrapperPath } from './paths.js';

export async function loadLmLab(variant) {
  const { createGpt2Lab } = await import(wrapperPath);
  const wasm = modulePath(variant, 'poslab-lm');
  return createGpt2Lab({ variant, wasmBinary: fs.readFileSync(wasm) });
}

/**
 * A checkpoint's bytes through the architecture's loader (`loader`: 'gpt2Loader' or
 * 'gptNeoxLoader') in `chunk`-byte pieces, as the playground's worker feeds a File.
 */
export function loadInChunks(lab, loader, bytes, chunk, { config, name = 'tiny.safetensors' } = {}) {
  const N = lab.safetensorsHeaderLength(bytes.subarray(0, 8), bytes.length, name);
  const loading = lab[loader]({ header: bytes.subarray(0, 8 + N), fileSize: bytes.length, name, config });
  try {
    for (let at = 8 + N; at < bytes.length; at += chunk) loading.append(bytes.subarray(at, at + chunk));
    return loading.finish();
  } finally {
    loading.delete();
  }
}

// A `--trace DIR` of `poslab lm` or `poslab gpt2`: { index, trace: name → tensor }.
export function readTraceDir(traceDir) {
  const index = JSON.parse(fs.readFileSync(path.join(traceDir, 'index.json'), 'utf8'));
  const trace = Object.fromEntries(index.tensors.map((t) => [t.name, readNpy(path.join(traceDir, t.file))]));
  return { index, trace };
}

// Per-layer JS trace names and the CLI's stacked files.
const STACKED = {
  ln_1_mean: 'ln1Mean',
  ln_1_variance: 'ln1Variance',
  ln_2_mean: 'ln2Mean',
  ln_2_variance: 'ln2Variance',
  resid_attn_norm: 'residAttnNorm',
  resid_mlp_norm: 'residMlpNorm',
};

// A wasm forward result's trace against the CLI's trace files of a model with `layers` layers.
export function expectTraceSameAsNative(got, trace, layers, label) {
  const N = got.layers.length;
  expect(N).toBe(layers);
  got.layers.forEach((layer, i) =>
    assertClose(layer.attention, trace[`attention_layer${i}`], `${label}: attention ${i}`),
  );
  // The CLI stacks the per-layer (T,) vectors into (N, T).
  const stacked = (key) => {
    const T = got.layers[0][key].shape[0];
    const data = new Float32Array(N * T);
    got.layers.forEach((layer, i) => data.set(layer[key].data, i * T));
    return { data, shape: [N, T] };
  };
  for (const [cli, js] of Object.entries(STACKED)) assertClose(stacked(js), trace[cli], `${label}: ${cli}`);
  expect(Array.from(got.topIds)).toEqual(Array.from(trace.top_k_ids.data));
  assertClose({ data: got.topProbs, shape: [got.topProbs.length] }, trace.top_k_probs, `${label}: top-k`);
}

let nativeRuns = 0;
/**
 * `poslab lm` on a checkpoint ({ weights, config }) and `tokens`, files under `file` (a
 * scratchFiles maker): { out } (losses, with --loss-by-position) or { out (logits), index, trace }.
 */
export async function nativeLm(file, ckpt, tokens, args) {
  const tag = `run${nativeRuns++}`;
  const out = file(`${tag}.npy`);
  const traceDir = file(`${tag}-trace`);
  const losses = args.includes('--loss-by-position');
  const all = ['lm', '--weights', ckpt.weights, '--config', ckpt.config, '--tokens', tokens.join(','), ...args];
  if (!losses) all.push('--trace', traceDir);
  const { code, stderr } = await runCli([...all, '-o', out]);
  if (code !== 0) throw new Error(`poslab ${all.join(' ')}: ${stderr}`);
  if (losses) return { out: readNpy(out) };
  return { out: readNpy(out), ...readTraceDir(traceDir) };
}

const ROPE_FLAGS = { factor: '--rope-factor', originalLength: '--rope-original-len', betaFast: '--rope-beta-fast' };
/** `poslab lm`'s flags for forward's `rope` option ({ scaling, factor, originalLength, betaFast }), on the double path. */
export function nativeRopeArgs({ scaling, ...rest }) {
  const args = ['--precision', 'double', '--rope-scaling', scaling];
  for (const [key, value] of Object.entries(rest)) args.push(ROPE_FLAGS[key], value);
  return args;
}

// GPT-2 in WebAssembly (`npm run bench:gpt2`): what the playground's GPT-2 view waits for, in
// one Node process on the build the page would pick here (the relaxed twin where this Node has
// relaxed SIMD, machine.js switching it on; `--variant simd|relaxed` to choose) — random init
// of GPT-2 small, a checkpoint streamed through the loader in 4 MiB chunks (written here with
// random values, F32 and F16), and traced forward passes for a few text lengths. Figures for
// the record, not a test. `--small`: T = 8 only.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gpt2Layout } from '../../tests/helpers/model-layouts.js';
import { layoutEntries, safetensorsBuffer } from '../../tests/helpers/safetensors.js';
import { createGpt2Lab } from '../../web/src/core/poslab.js';
import { bestSimdVariant, printMachine } from './machine.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const argv = process.argv.slice(2);
const variant = argv.includes('--variant') ? argv[argv.indexOf('--variant') + 1] : bestSimdVariant();
const small = argv.includes('--small');
await printMachine();
console.log(`build: ${variant}`);
const lab = await createGpt2Lab({
  variant,
  wasmBinary: readFileSync(
    path.join(root, 'build/wasm', variant === 'relaxed' ? 'simd/relaxed' : variant, 'poslab-lm.wasm'),
  ),
});
const ms = (t0) => `${(performance.now() - t0).toFixed(0)} ms`;
const MB = (bytes) => `${(bytes / 1e6).toFixed(0)} MB`;

// A GPT-2 small checkpoint's bytes, values 0.02·uniform: header + data, as one buffer.
function checkpoint(dtype) {
  const layout = gpt2Layout(lab.gpt2Config({ preset: 'small' }));
  const { bytes, data } = safetensorsBuffer(layoutEntries(layout, dtype));
  // Small values in either dtype: F32 0.01 (0x3c23d70a) or F16 0.01 (0x211f), repeated.
  if (dtype === 'F16') new Uint16Array(data.buffer, data.byteOffset, data.length / 2).fill(0x211f);
  else new Uint32Array(data.buffer, data.byteOffset, data.length / 4).fill(0x3c23d70a);
  return bytes;
}

let t0 = performance.now();
const random = lab.gpt2Random({ preset: 'small' });
console.log(`random init, GPT-2 small (124M, F32): ${ms(t0)}, ${MB(random.bytes)} of weights`);
const tokens = (T) => Array.from({ length: T }, (_, i) => (i * 7919) % 50257);
for (const T of small ? [8] : [8, 32, 128]) {
  random.forward(tokens(T));
  t0 = performance.now();
  const r = random.forward(tokens(T));
  console.log(
    `forward + trace, T=${T}: ${ms(t0)} (${r.layers.length} layers × ${r.layers[0].attention.shape[0]} heads of (T, T))`,
  );
}
random.delete();

for (const dtype of ['F32', 'F16']) {
  const bytes = checkpoint(dtype);
  t0 = performance.now();
  const N = lab.safetensorsHeaderLength(bytes.subarray(0, 8), bytes.length);
  const loader = lab.gpt2Loader({ header: bytes.subarray(0, 8 + N), fileSize: bytes.length });
  for (let at = 8 + N; at < bytes.length; at += 4 << 20) loader.append(bytes.subarray(at, at + (4 << 20)));
  const model = loader.finish();
  loader.delete();
  const s = (performance.now() - t0) / 1000;
  console.log(
    `load ${dtype} checkpoint (${MB(bytes.length)}) in 4 MiB chunks: ${(s * 1000).toFixed(0)} ms (${(bytes.length / 1e6 / s).toFixed(0)} MB/s), ${MB(model.bytes)} in the heap`,
  );
  model.forward(tokens(32));
  t0 = performance.now();
  model.forward(tokens(32));
  console.log(`forward + trace from ${dtype} weights, T=32: ${ms(t0)}`);
  model.delete();
}

// The position lens in WebAssembly (`npm run bench:lens`): the whole lens (the repeated-sequence
// pass for the induction score, the text's traced pass with RoPE's bands, the shift check's two
// logit passes, the three shuffle passes) of GPT-2 small and SmolLM2-135M's shape with random
// weights at T = 256, one thread, in one Node process on the SIMD build — the engine Chromium
// runs the page's worker on. Figures for the record, not a test.
//   node bench/wasm/lens.mjs [T]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGpt2Lab } from '../../web/src/core/poslab.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const T = Number(process.argv[2] ?? 256);
const lab = await createGpt2Lab({
  variant: 'simd',
  wasmBinary: readFileSync(path.join(root, 'build/wasm/simd/poslab-gpt2.wasm')),
});
const seconds = (t0) => ((performance.now() - t0) / 1000).toFixed(1);

const MODELS = [
  ['GPT-2 small (124M)', () => lab.gpt2Random({ preset: 'small', seed: 0 })],
  ['SmolLM2-135M shape', () => lab.llamaRandom({ preset: 'smollm2-135m', seed: 0 })],
];
for (const [label, create] of MODELS) {
  const model = create();
  const vocab = model.config.vocab_size;
  const ids = Array.from({ length: T }, (_, i) => (i * 7919 + 13) % vocab);
  let t0 = performance.now();
  model.forward(ids.slice(0, 8)); // tier up to the optimising compiler
  t0 = performance.now();
  const report = model.lens(ids);
  const whole = seconds(t0);
  t0 = performance.now();
  model.forward(ids, { trace: true, topK: 1 });
  const forward = seconds(t0);
  const counts = Object.entries(report.role_counts)
    .map(([role, n]) => `${role} ${n}`)
    .join(', ');
  console.log(`${label}, T = ${T}: whole lens ${whole} s (one traced forward: ${forward} s); ${counts}`);
  model.delete();
}

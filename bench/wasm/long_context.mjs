// The Long context view's computation in WebAssembly (`npm run bench:long-context`): random
// weights of Pythia-70m's shapes (the real weights cannot be fetched here; the runtime does
// not depend on their values), T token ids, and per RoPE scaling one forward pass that
// returns only the next-token losses (T−1,): the logits are reduced a vocabulary block at a
// time and no attention map is kept, as the view's job does. Prints each method's time, the
// total, and the wasm heap (its size only grows: the high-water mark) before and after.
//
// Options: --t 8192   --methods none | all (none, linear, ntk, dynamic, yarn)   --factor 4
// --variant simd|relaxed|scalar (relaxed: the SIMD build's twin on f32x4.relaxed_madd, which
// machine.js switches on in Node 20)   --precision float|double   --seed 0
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGpt2Lab } from '../../web/src/core/poslab.js';
import { printMachine } from './machine.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ALL = ['none', 'linear', 'ntk', 'dynamic', 'yarn'];

function parseArgs(argv) {
  const o = { t: 8192, methods: 'all', factor: 4, variant: 'simd', precision: 'float', seed: 0 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in o))
      throw new Error(
        `unknown option ${argv[i]} (expected ${Object.keys(o)
          .map((k) => `--${k}`)
          .join(' ')})`,
      );
    o[key] = typeof o[key] === 'number' ? Number(argv[i + 1]) : argv[i + 1];
  }
  return o;
}

const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

const o = parseArgs(process.argv.slice(2));
const methods = o.methods === 'all' ? ALL : o.methods.split(',');
await printMachine();
const dir = o.variant === 'relaxed' ? 'simd/relaxed' : o.variant;
const wasm = readFileSync(path.join(root, 'build/wasm', dir, 'poslab-lm.wasm'));
const lab = await createGpt2Lab({ variant: o.variant, wasmBinary: wasm });
console.log(`wasm ${o.variant}, ${o.precision}, T = ${o.t}, factor ${o.factor}, Node ${process.version}`);
console.log(`heap at start: ${mb(lab.wasmHeapBytes())}`);

let t0 = performance.now();
const model = lab.gptNeoxRandom({ preset: 'pythia-70m', seed: o.seed });
console.log(
  `random Pythia-70m shapes (${(model.config.parameters / 1e6).toFixed(1)} M parameters, ${mb(model.bytes)}): ` +
    `${((performance.now() - t0) / 1000).toFixed(1)} s; heap ${mb(lab.wasmHeapBytes())}`,
);

// Deterministic ids spread over the vocabulary (a text's ids would cost the same).
const tokens = Int32Array.from({ length: o.t }, (_, i) => (i * 7919 + 13) % model.config.vocab_size);
const N = model.config.max_position_embeddings;
let total = 0;
for (const scaling of methods) {
  t0 = performance.now();
  const r = model.forward(tokens, {
    precision: o.precision,
    logits: false,
    lossByPosition: true,
    topK: 1,
    rope: { scaling, factor: scaling === 'none' ? 1 : o.factor },
  });
  const s = (performance.now() - t0) / 1000;
  total += s;
  const mean = (a, b) => {
    let sum = 0;
    for (let i = a; i < b; i++) sum += r.losses.data[i];
    return sum / (b - a);
  };
  const past =
    o.t - 1 > N
      ? ` mean loss ≤ ${N}: ${mean(0, Math.min(N, o.t - 1)).toFixed(3)}, past: ${mean(N, o.t - 1).toFixed(3)};`
      : '';
  console.log(`${scaling.padEnd(8)} ${s.toFixed(1)} s;${past} heap ${mb(lab.wasmHeapBytes())}`);
}
console.log(
  `${methods.length} method(s): ${total.toFixed(1)} s in all; heap high-water ${mb(lab.wasmHeapBytes())}, live ${mb(lab.liveHeapBytes())}`,
);
model.delete();

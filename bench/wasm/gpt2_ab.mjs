// Two builds of PosLab's GPT-2 module in one Node process (`npm run bench:gpt2-ab -- --base
// FILE.wasm`): the checkpoint `npm run bench:ort` writes, loaded by each, and their float
// forwards timed alternately at every T, so that the machine's noise, which moves the ORT ratio
// by ±0.1–0.3 from run to run, slows both alike. Prints each median, base/current (above 1: the
// current build is faster) and the largest difference of their logits.
//
// Keep the base first: `cp build/wasm/simd/poslab-lm.wasm /tmp/base.wasm`, change and rebuild
// (`cmake --build build/wasm/simd --target poslab_lm_wasm`), then run this. The two builds
// share the current JS glue, so they must bind the same functions: the glue of the build in
// whose folder each file lies (a file under a relaxed/ folder runs the relaxed twin's glue, so
// `--base build/wasm/simd/poslab-lm.wasm --current build/wasm/simd/relaxed/poslab-lm.wasm`
// times the SIMD build against its relaxed twin; machine.js switches relaxed SIMD on).
//
// Options: --base FILE (required)   --current FILE (default build/wasm/simd/poslab-lm.wasm)
// --t 1,4,8,16,128   --runs N (per T and build; default 11, T ≥ 128: 5)   --seed S
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bindGpt2 } from '../../web/src/core/gpt2.js';
import { loadModule } from '../../web/src/core/load.js';
import { loadGpt2Checkpoint } from './gpt2-checkpoint.js';
import { printMachine } from './machine.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function parseArgs(argv) {
  const args = {
    base: undefined,
    current: 'build/wasm/simd/poslab-lm.wasm',
    t: [1, 4, 8, 16, 128],
    runs: undefined,
    seed: 1,
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [key, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${key} needs a value`);
    if (key === '--base') args.base = value;
    else if (key === '--current') args.current = value;
    else if (key === '--t') args.t = value.split(',').map(Number);
    else if (key === '--runs') args.runs = Number(value);
    else if (key === '--seed') args.seed = Number(value);
    else throw new Error(`unknown option ${key} (expected --base, --current, --t, --runs, --seed)`);
  }
  if (!args.base) throw new Error('--base FILE.wasm is required: the build to compare against');
  return args;
}

async function loadModel(file, bytes) {
  const lab = bindGpt2(
    await loadModule(
      {
        variant: /(^|\/)relaxed\//.test(file) ? 'relaxed' : 'simd',
        wasmBinary: readFileSync(path.resolve(root, file)),
      },
      'poslab-lm',
    ),
  );
  return loadGpt2Checkpoint(lab, bytes);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

async function main() {
  const args = parseArgs(process.argv.slice(2));
  await printMachine();
  const file = path.join(root, `build/bench/gpt2-small-seed${args.seed}.safetensors`);
  if (!existsSync(file)) throw new Error(`${path.relative(root, file)} is missing: run \`npm run bench:ort\` once`);
  const bytes = new Uint8Array(readFileSync(file));
  const models = { base: await loadModel(args.base, bytes), current: await loadModel(args.current, bytes) };
  const options = { trace: false, topK: 1, precision: 'float' };
  console.log(`GPT-2 small float forward, ${args.base} (base) against ${args.current} (current), medians:`);
  for (const T of args.t) {
    const tokens = Int32Array.from({ length: T }, (_, i) => (i * 7919 + args.seed) % 50257);
    const a = models.base.forward(tokens, options).logits.data; // also the warm-up
    const b = models.current.forward(tokens, options).logits.data;
    let diff = 0;
    for (let i = 0; i < a.length; i++) diff = Math.max(diff, Math.abs(a[i] - b[i]));
    const times = { base: [], current: [] };
    const runs = args.runs ?? (T >= 128 ? 5 : 11);
    for (let r = 0; r < runs; r++) {
      for (const k of ['base', 'current']) {
        const t0 = performance.now();
        models[k].forward(tokens, options);
        times[k].push(performance.now() - t0);
      }
    }
    const [tb, tc] = [median(times.base), median(times.current)];
    console.log(
      `  T ${String(T).padStart(4)}: base ${tb.toFixed(1).padStart(7)} ms, current ${tc.toFixed(1).padStart(7)} ms, ` +
        `base/current ${(tb / tc).toFixed(3)}, max |Δ logit| ${diff.toExponential(1)}`,
    );
  }
  models.base.delete();
  models.current.delete();
}

main().catch((error) => {
  console.error(error.message);
  process.exit(1);
});

// GPT-2 small in WebAssembly, PosLab against onnxruntime-web (`npm run bench:ort`): one Node
// process, one thread each, the same random weights, every T row of the logits computed by
// both. For each T: a warm-up, then PosLab and ORT runs interleaved (so a noisy neighbour
// slows both alike), medians printed with the speed-up, GFLOP/s and % of the SIMD128 peak
// measured in the same engine (simdPeak, the poslab-bench module), and the logits checked
// against ORT's: exits 1 when max |Δ| > 1e-3 · max |logit|. PosLab runs as each of its SIMD
// builds in turn: the SIMD build and, where this Node has relaxed SIMD (machine.js switches it
// on), its relaxed twin (GEMM and attention on f32x4.relaxed_madd, % of that instruction's peak).
//
// The weights: a GPT-2 small .safetensors written here from a seeded generator (N(0, 0.02²)
// matrices and embeddings, small random biases, LayerNorm gains 1 ± 0.1), loaded by PosLab's
// checkpoint loader and exported to ONNX by export_onnx.py (torch, opset 14; installs
// Debian's python3-torch when missing; ~45 s, 650 MB). Both files are kept in build/bench/
// and made again only when missing or older than what they come from.
//
// Options: --t 8,32,128,512   --runs N (timed runs per T and implementation, default 5;
// T ≥ 512: 3)   --precision float|double (PosLab's forward, default float)
// --seed S   --variants simd,relaxed (default: both where relaxed SIMD runs, else simd)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeSync, closeSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-web';
import { bindGpt2 } from '../../web/src/core/gpt2.js';
import { loadModule } from '../../web/src/core/load.js';
import { loadBenchModule } from './bench-module.js';
import { loadGpt2Checkpoint } from './gpt2-checkpoint.js';
import { bestSimdVariant, printMachine } from './machine.js';
import { gpt2Layout } from '../../tests/helpers/model-layouts.js';
import { layoutEntries, safetensorsBuffer } from '../../tests/helpers/safetensors.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const outDir = path.join(root, 'build/bench');

function parseArgs(argv) {
  const variants = bestSimdVariant() === 'relaxed' ? ['simd', 'relaxed'] : ['simd'];
  const args = { t: [8, 32, 128, 512], runs: undefined, precision: undefined, seed: 1, variants };
  for (let i = 0; i < argv.length; i += 2) {
    const [key, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${key} needs a value`);
    if (key === '--t') args.t = value.split(',').map(Number);
    else if (key === '--runs') args.runs = Number(value);
    else if (key === '--precision') args.precision = value;
    else if (key === '--seed') args.seed = Number(value);
    else if (key === '--variants') args.variants = value.split(',');
    else throw new Error(`unknown option ${key} (expected --t, --runs, --precision, --seed, --variants)`);
  }
  return args;
}

// xorshift32 → uniform in (0, 1), Box-Muller for normals: reproducible, and 124 M values
// take a couple of seconds.
function normalGenerator(seed) {
  let s = (seed * 0x9e3779b9) >>> 0 || 1;
  const uniform = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return ((s >>> 0) + 0.5) / 4294967296;
  };
  let spare = null;
  return () => {
    if (spare !== null) {
      const v = spare;
      spare = null;
      return v;
    }
    const r = Math.sqrt(-2 * Math.log(uniform()));
    const a = 2 * Math.PI * uniform();
    spare = r * Math.sin(a);
    return r * Math.cos(a);
  };
}

// The checkpoint's bytes (F32 safetensors), written once to `file` (through a temporary).
function checkpoint(config, seed, file) {
  if (existsSync(file)) return new Uint8Array(readFileSync(file));
  const layout = gpt2Layout(config);
  const { bytes: out, data: raw, header } = safetensorsBuffer(layoutEntries(layout));
  const data = new Float32Array(raw.buffer, raw.byteOffset, raw.length / 4);
  const normal = normalGenerator(seed);
  for (const { name, role } of layout) {
    const [begin, end] = header[name].data_offsets.map((b) => b / 4);
    const scale = role === 'gain' ? 0.1 : 0.02;
    const base = role === 'gain' ? 1 : 0;
    for (let i = begin; i < end; i++) data[i] = base + scale * normal();
  }
  const tmp = `${file}.tmp`;
  const fd = openSync(tmp, 'w');
  for (let at = 0; at < out.length; at += 1 << 28) writeSync(fd, out, at, Math.min(1 << 28, out.length - at));
  closeSync(fd);
  renameSync(tmp, file);
  return out;
}

// The ONNX file, exported again when missing or older than the checkpoint or the script.
function onnxModel(checkpointFile, onnxFile, config) {
  const script = path.join(here, 'export_onnx.py');
  const mtime = (f) => statSync(f).mtimeMs;
  if (existsSync(onnxFile) && mtime(onnxFile) > Math.max(mtime(checkpointFile), mtime(script))) return;
  console.log(`exporting ${path.relative(root, onnxFile)} with torch (about 45 s)…`);
  // Debian's python first: apt's python3-torch lives there, whatever python3 is on PATH.
  const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
  const r = spawnSync(
    python,
    [script, checkpointFile, onnxFile, '--n-head', String(config.n_head), '--eps', String(config.layer_norm_epsilon)],
    { stdio: 'inherit' },
  );
  if (r.status !== 0) throw new Error(`export_onnx.py failed (exit ${r.status})`);
}

// Token ids in [0, V), seeded.
function tokenIds(T, V, seed) {
  let s = (seed * 2654435761) >>> 0 || 1;
  return Int32Array.from({ length: T }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % V;
  });
}

// FLOPs of one forward at T tokens (2 per multiply-add): the weight matmuls, lm_head (tied to
// wte) included, plus causal attention's QKᵀ and PV (only keys j ≤ i). LayerNorm, softmax,
// GELU, biases and the embedding lookup are not counted.
//   FLOP(T) = 2·T·(12·N·E² + V·E) + 2·N·E·T·(T + 1)
function forwardFlops(config, T) {
  const { vocab_size: V, n_embd: E, n_layer: N } = config;
  return 2 * T * (12 * N * E * E + V * E) + 2 * N * E * T * (T + 1);
}

function compare(ours, theirs) {
  let diff = 0;
  let max = 0;
  for (let i = 0; i < theirs.length; i++) {
    diff = Math.max(diff, Math.abs(ours[i] - theirs[i]));
    max = Math.max(max, Math.abs(theirs[i]));
  }
  return { diff, max, relative: diff / max };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const fmt = (x, digits = 0) => x.toFixed(digits);

async function main() {
  const args = parseArgs(process.argv.slice(2));
  mkdirSync(outDir, { recursive: true });
  const { peaks } = await printMachine();
  const lab = await gpt2Lab('simd');
  const config = lab.gpt2Config({ preset: 'small' });

  // Weights: PosLab reads the checkpoint through its loader; ORT reads the ONNX export of it.
  const stem = path.join(outDir, `gpt2-small-seed${args.seed}`);
  let t0 = performance.now();
  const bytes = checkpoint(config, args.seed, `${stem}.safetensors`);
  console.log(
    `checkpoint ${path.relative(root, stem)}.safetensors: ${(bytes.length / 1e6).toFixed(0)} MB (${fmt(performance.now() - t0)} ms)`,
  );
  onnxModel(`${stem}.safetensors`, `${stem}.onnx`, config);

  ort.env.wasm.numThreads = 1;
  ort.env.wasm.proxy = false;
  t0 = performance.now();
  const session = await ort.InferenceSession.create(`${stem}.onnx`, {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
  });
  console.log(`onnxruntime-web ${ort.env.versions?.web ?? ''} session: ${fmt(performance.now() - t0)} ms`);

  const precision = args.precision ?? 'float';
  const theirs = async (tokens) => {
    const ids = new ort.Tensor('int64', BigInt64Array.from(tokens, BigInt), [1, tokens.length]);
    const out = await session.run({ input_ids: ids });
    return out.logits.data;
  };

  let worst = 0;
  for (const variant of args.variants) {
    // % of the peak of the multiply-add this build's kernels use.
    const peak = variant === 'relaxed' ? peaks.relaxed : peaks.simd;
    const model = loadGpt2Checkpoint(variant === 'simd' ? lab : await gpt2Lab(variant), bytes);
    worst = Math.max(worst, await forwardTable(variant, peak, model, theirs, config, args, precision));
    model.delete();
    gemmTable(variant, peak, await loadBenchModule(variant), config);
  }
  await session.release();
  if (worst > 1e-3) {
    console.error(`logits disagree with ORT: max |Δ| / max |logit| = ${worst.toExponential(2)} > 1e-3`);
    process.exit(1);
  }
}

/** The GPT-2 API of one build of the language-model module. */
async function gpt2Lab(variant) {
  const file = path.join(root, 'build/wasm', variant === 'relaxed' ? 'simd/relaxed' : variant, 'poslab-lm.wasm');
  if (!existsSync(file)) throw new Error(`${path.relative(root, file)} is missing: run \`npm run build:wasm\``);
  return bindGpt2(await loadModule({ variant, wasmBinary: readFileSync(file) }, 'poslab-lm'));
}

/** One build's forward against ORT's, every T; returns the worst max |Δ| / max |logit|. */
async function forwardTable(variant, peak, model, theirs, config, args, precision) {
  // PosLab's forward at equal work: no trace, top-1 only (the logits of every row are
  // computed and returned either way, as ORT's are).
  const forwardOptions = { trace: false, topK: 1, precision };
  const ours = (tokens) => model.forward(tokens, forwardOptions).logits.data;
  const pct = (gflops) => `${fmt((100 * gflops) / peak)}%`;
  let t0;
  console.log(
    `\nGPT-2 small forward, all T rows of logits (PosLab's ${variant} build, precision ${precision}); median of interleaved runs:`,
  );
  console.log('FLOP(T) = 2·T·(12·N·E² + V·E) + 2·N·E·T·(T+1)  (weight matmuls incl. tied lm_head + causal QKᵀ, PV)');
  const head = ['T', 'PosLab ms', 'ORT ms', 'ORT/PosLab', 'PosLab GFLOP/s', 'ORT GFLOP/s', 'max |Δ|', '/ max |logit|'];
  const widths = [5, 10, 10, 11, 18, 18, 10, 14];
  const line = (cells) => cells.map((c, i) => String(c).padStart(widths[i])).join(' ');
  const rows = [];
  let worst = 0;
  for (const T of args.t) {
    const tokens = tokenIds(T, config.vocab_size, args.seed + T);
    const check = compare(ours(tokens), await theirs(tokens)); // also the warm-up
    worst = Math.max(worst, check.relative);
    const runs = args.runs ?? (T >= 512 ? 3 : 5);
    const times = { ours: [], theirs: [] };
    for (let r = 0; r < runs; r++) {
      t0 = performance.now();
      ours(tokens);
      times.ours.push(performance.now() - t0);
      t0 = performance.now();
      await theirs(tokens);
      times.theirs.push(performance.now() - t0);
    }
    const a = median(times.ours);
    const b = median(times.theirs);
    const gf = (ms) => forwardFlops(config, T) / (ms * 1e6);
    rows.push(
      line([
        T,
        fmt(a, 1),
        fmt(b, 1),
        `${fmt(b / a, 2)}×`,
        `${fmt(gf(a), 1)} (${pct(gf(a))})`,
        `${fmt(gf(b), 1)} (${pct(gf(b))})`,
        check.diff.toExponential(1),
        check.relative.toExponential(1),
      ]),
    );
    if (rows.length === 1) console.log(line(head));
    console.log(rows.at(-1));
  }
  return worst;
}

// GEMM alone, on GPT-2 small's shapes as the forward runs them (every weight held (out, in),
// x·Wᵀ), and what N blocks of them plus lm_head add up to (the forward's matmul time if
// nothing else cost anything), in one build's bench module.
function gemmTable(variant, peak, yardsticks, config) {
  const pct = (gflops) => `${fmt((100 * gflops) / peak)}%`;
  {
    const { n_embd: E, n_layer: N, vocab_size: V } = config;
    for (const T of [8, 128]) {
      const shapes = [
        ['attn.c_attn', T, 3 * E, E, true, N],
        ['attn.c_proj', T, E, E, true, N],
        ['mlp.c_fc', T, 4 * E, E, true, N],
        ['mlp.c_proj', T, E, 4 * E, true, N],
        ['lm_head (wte)', T, V, E, true, 1],
      ];
      console.log(`\nPosLab float32 GEMM alone (poslab::fast::gemm, ${variant} build), T = ${T}, median time:`);
      let flops = 0;
      let seconds = 0;
      for (const [name, M, Nc, K, transposeB, count] of shapes) {
        const r = yardsticks.gemmBench(M, Nc, K, transposeB, 1);
        flops += count * 2 * M * Nc * K;
        seconds += count * r.seconds;
        const shape = `(${M}, ${K}) · (${Nc}, ${K})ᵀ`;
        console.log(
          `  ${name.padEnd(15)} ${shape.padEnd(26)} ${fmt(r.seconds * 1e3, 2).padStart(8)} ms ${fmt(r.gflops, 1).padStart(6)} GFLOP/s ${pct(r.gflops).padStart(5)} of peak`,
        );
      }
      const gf = flops / seconds / 1e9;
      console.log(`  ${N} blocks + lm_head: ${fmt(seconds * 1e3, 1)} ms, ${fmt(gf, 1)} GFLOP/s, ${pct(gf)} of peak`);
    }
  }
}

await main();

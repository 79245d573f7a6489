// SmolLM2-135M's shape in WebAssembly, PosLab against onnxruntime-web at equal threads
// (`npm run bench:ort-llama`): one cross-origin isolated Chromium page per thread count, both
// runtimes in it, the same random weights, every T row of the logits computed by both. At 1
// thread PosLab runs its single-threaded SIMD build (what a page without isolation gets), at
// N > 1 its threaded build; ORT runs its SIMD threaded build with numThreads = N. Per T: a
// warm-up, then interleaved runs (a noisy neighbour slows both alike), medians, the speed-up,
// GFLOP/s, % of the SIMD128 peak measured in the same page (simdPeak), and the logits checked
// against ORT's: exits 1 when max |Δ| > 1e-3 · max |logit|. Each thread count runs each of
// PosLab's SIMD builds in its own page: the SIMD build and its relaxed twin (the GEMM and
// attention products on f32x4.relaxed_madd; Chromium has relaxed SIMD), the latter's % of the
// relaxed_madd peak.
//
// The weights: `poslab lm-random --arch llama --preset smollm2-135m --seed S` (what llamaRandom makes in
// the page from the same seed), exported to ONNX by export_onnx.py (torch, opset 14, FP32, no
// contrib ops; installs Debian's python3-torch when missing). Kept in build/bench/.
//
// Options: --t 128   --threads 1,2   --runs N (default 5)   --seed S (default 1)
//          --variants simd,relaxed (default both)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { isolatedPage, loadLabInPage, root, withChromium } from './chromium-page.js';
import { printChromiumMachine } from './machine.js';

function parseArgs(argv) {
  const args = { t: [128], threads: [1, 2], runs: 5, seed: 1, variants: ['simd', 'relaxed'] };
  for (let i = 0; i < argv.length; i += 2) {
    const [key, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${key} needs a value`);
    const list = () => value.split(',').map(Number);
    if (key === '--t') args.t = list();
    else if (key === '--threads') args.threads = list();
    else if (key === '--runs') args.runs = Number(value);
    else if (key === '--seed') args.seed = Number(value);
    else if (key === '--variants') args.variants = value.split(',');
    else throw new Error(`unknown option ${key} (expected --t, --threads, --runs, --seed, --variants)`);
  }
  return args;
}

const run = (command, argv) => {
  const r = spawnSync(command, argv, { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${path.basename(command)} ${argv[0]} failed (exit ${r.status})`);
};

// The checkpoint (made by the CLI) and its ONNX export, each made again only when missing or stale.
function weights(seed) {
  const dir = path.join(root, `build/bench/smollm2-135m-seed${seed}`);
  const cli = path.join(root, 'build/release/cpp/poslab');
  if (!existsSync(cli)) throw new Error('build/release/cpp/poslab is missing: run the native build (scripts/test.sh)');
  const checkpoint = path.join(dir, 'model.safetensors');
  if (!existsSync(checkpoint)) {
    mkdirSync(path.dirname(dir), { recursive: true });
    run(cli, ['lm-random', '--arch', 'llama', '--preset', 'smollm2-135m', '--seed', String(seed), '-o', dir]);
  }
  const onnx = path.join(dir, 'model.onnx');
  const script = path.join(root, 'bench/wasm/export_onnx.py');
  const mtime = (f) => statSync(f).mtimeMs;
  if (!existsSync(onnx) || mtime(onnx) < Math.max(mtime(checkpoint), mtime(script))) {
    console.log(`exporting ${path.relative(root, onnx)} with torch…`);
    const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
    run(python, [script, checkpoint, onnx, '--config', path.join(dir, 'config.json')]);
  }
  return { onnx: `/${path.relative(root, onnx)}` };
}

// FLOP of one forward at T tokens (2 per multiply-add): the projections (q, o: E·H·d; k, v:
// E·K·d), the SwiGLU MLP (3·E·I), lm_head (V·E) and causal attention's QKᵀ and PV.
//   FLOP(T) = 2·T·(N·(2·E·H·d + 2·E·K·d + 3·E·I) + V·E) + 2·N·H·d·T·(T + 1)
function forwardFlops(c, T) {
  const E = c.hidden_size;
  const H = c.num_attention_heads;
  const K = c.num_key_value_heads;
  const d = c.head_dim ?? E / H;
  const N = c.num_hidden_layers;
  const per = 2 * E * H * d + 2 * E * K * d + 3 * E * c.intermediate_size;
  return 2 * T * (N * per + c.vocab_size * E) + 2 * N * H * d * T * (T + 1);
}

// One thread count, in its own page: { config, peak, rows: [{ T, ours, theirs, diff, max }] }.
function measure(page, { threads, t, runs, seed, onnx }) {
  return page.evaluate(
    async ({ threads, t, runs, seed, onnx }) => {
      const ort = await import('/node_modules/onnxruntime-web/dist/ort.min.mjs');
      ort.env.wasm.numThreads = threads;
      ort.env.wasm.wasmPaths = '/node_modules/onnxruntime-web/dist/';
      const session = await ort.InferenceSession.create(new Uint8Array(await (await fetch(onnx)).arrayBuffer()), {
        executionProviders: ['wasm'],
        graphOptimizationLevel: 'all',
      });
      const lab = globalThis.benchLab;
      const model = lab.llamaRandom({ preset: 'smollm2-135m', seed });
      const config = model.config;
      const ours = (ids) => model.forward(ids, { trace: false, topK: 1 }).logits.data;
      const theirs = async (ids) => {
        const input = new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]);
        return (await session.run({ input_ids: input })).logits.data;
      };
      const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
      const rows = [];
      for (const T of t) {
        const ids = Array.from({ length: T }, (_, i) => (i * 7919 + seed * 13) % config.vocab_size);
        const a = ours(ids);
        const b = await theirs(ids); // with the line above, the warm-up
        let diff = 0;
        let max = 0;
        for (let i = 0; i < b.length; i++) {
          diff = Math.max(diff, Math.abs(a[i] - b[i]));
          max = Math.max(max, Math.abs(b[i]));
        }
        const times = { ours: [], theirs: [] };
        for (let r = 0; r < runs; r++) {
          let t0 = performance.now();
          ours(ids);
          times.ours.push(performance.now() - t0);
          t0 = performance.now();
          await theirs(ids);
          times.theirs.push(performance.now() - t0);
        }
        // One more forward, the pool's profile reset before it (base/threads.hpp): where the other
        // threads waited.
        lab.resetPoolProfile();
        const t0 = performance.now();
        ours(ids);
        const profile = { wallMs: performance.now() - t0, ...lab.poolProfile() };
        rows.push({ T, ours: median(times.ours), theirs: median(times.theirs), diff, max, profile });
      }
      model.delete();
      await session.release();
      return { config, threads: lab.threads(), rows };
    },
    { threads, t, runs, seed, onnx },
  );
}

// Where one forward's thread time went at n > 1 threads (the pool's profile, base/threads.hpp):
// serial (outside parallel_for: the other threads wait), the pool's overhead (waking workers and
// learning they are done), idle because chunks differ, and the work itself; in thread-ms, so the
// four add up to n × the forward's wall time.
function printPoolProfiles(profiles) {
  if (profiles.length === 0) return;
  console.log('\nOne forward at n threads, thread time by where it went (thread-ms, % of n × wall):');
  const head = [
    'build',
    'threads',
    'T',
    'wall ms',
    'batches',
    'serial',
    'overhead',
    'imbalance',
    'work',
    'caller : workers',
  ];
  const widths = [8, 7, 5, 9, 8, 14, 14, 14, 15, 17];
  const line = (cells) => cells.map((c, i) => String(c).padStart(widths[i])).join(' ');
  console.log(line(head));
  for (const p of profiles) {
    const n = p.threads;
    const total = n * p.wallMs;
    const cell = (ms) => `${ms.toFixed(1)} (${((100 * ms) / total).toFixed(1)}%)`;
    const serial = n * (p.wallMs - p.batchMs);
    const overhead = n * (p.batchMs - p.slowestMs);
    const work = p.callerWorkMs + p.workerWorkMs;
    const imbalance = n * p.slowestMs - work;
    console.log(
      line([
        p.variant,
        n,
        p.T,
        p.wallMs.toFixed(1),
        p.batches,
        cell(serial),
        cell(overhead),
        cell(imbalance),
        cell(work),
        `${p.callerWorkMs.toFixed(0)} : ${p.workerWorkMs.toFixed(0)}`,
      ]),
    );
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const { onnx } = weights(args.seed);
  const fmt = (x, digits = 0) => x.toFixed(digits);
  let worst = 0;
  const profiles = [];
  await withChromium(async (browser, base) => {
    const { peaks } = await printChromiumMachine(browser, await isolatedPage(browser, base));
    console.log('SmolLM2-135M shape, random weights, all T rows of logits; median of interleaved runs:');
    const head = [
      'build',
      'threads',
      'T',
      'PosLab ms',
      'ORT ms',
      'ORT/PosLab',
      'PosLab GFLOP/s',
      'ORT GFLOP/s',
      '/ max |logit|',
    ];
    const widths = [8, 7, 5, 10, 10, 11, 22, 22, 14];
    const line = (cells) => cells.map((c, i) => String(c).padStart(widths[i])).join(' ');
    console.log(line(head));
    for (const threads of args.threads) {
      for (const variant of args.variants) {
        if (variant === 'relaxed' && peaks.relaxed === null) continue; // no relaxed SIMD in this Chromium
        const page = await isolatedPage(browser, base);
        await loadLabInPage(page, threads, variant);
        const result = await measure(page, { threads, t: args.t, runs: args.runs, seed: args.seed, onnx });
        await page.close();
        // % of the peak of this build's multiply-add, of as many threads as ran (one thread's × threads).
        const peak = variant === 'relaxed' ? peaks.relaxed : peaks.simd;
        const pct = (gflops) => `${fmt((100 * gflops) / (peak * threads))}%`;
        for (const r of result.rows) {
          if (result.threads > 1) profiles.push({ variant, threads: result.threads, T: r.T, ...r.profile });
          const gf = (ms) => forwardFlops(result.config, r.T) / (ms * 1e6);
          worst = Math.max(worst, r.diff / r.max);
          console.log(
            line([
              variant,
              result.threads,
              r.T,
              fmt(r.ours, 1),
              fmt(r.theirs, 1),
              `${fmt(r.theirs / r.ours, 2)}×`,
              `${fmt(gf(r.ours), 1)} (${pct(gf(r.ours))})`,
              `${fmt(gf(r.theirs), 1)} (${pct(gf(r.theirs))})`,
              (r.diff / r.max).toExponential(1),
            ]),
          );
        }
      }
    }
  });
  printPoolProfiles(profiles);
  console.log(
    'FLOP(T) = 2·T·(N·(2·E·H·d + 2·E·K·d + 3·E·I) + V·E) + 2·N·H·d·T·(T+1); % of peak: of one thread × threads, ' +
      "of the build's multiply-add (relaxed: f32x4.relaxed_madd)",
  );
  if (worst > 1e-3) {
    console.error(`logits disagree with ORT: max |Δ| / max |logit| = ${worst.toExponential(2)} > 1e-3`);
    process.exit(1);
  }
}

await main();

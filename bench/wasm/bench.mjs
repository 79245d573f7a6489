// WebAssembly benchmark (`npm run bench:wasm`): PosLab's SIMD and scalar wasm builds (and the
// SIMD build's relaxed twin, whose attention products run on f32x4.relaxed_madd, where this
// Node has relaxed SIMD: machine.js switches it on) next to a plain-JS implementation and
// tfjs-backend-wasm, in one Node process. Every implementation is checked against the SIMD
// result before it is timed; medians are printed with the ratios the issue asks for. Figures
// for the record, not a test. `--small`: one small shape per op, to check that it runs.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPosLab } from '../../web/src/core/poslab.js';
import * as plain from '../../web/src/bench/plain.js';
import { maxAbsDiff, median, randomArray } from '../../web/src/bench/wasm-bench.js';
import { bestSimdVariant, printMachine } from './machine.js';
import * as tfjs from './tfjs.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const wasmDir = path.join(root, 'build/wasm');

const small = process.argv.includes('--small');
const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));

async function main() {
  const simd = await createPosLab({
    variant: 'simd',
    wasmBinary: readFileSync(path.join(wasmDir, 'simd/poslab.wasm')),
  });
  const scalar = await createPosLab({
    variant: 'scalar',
    wasmBinary: readFileSync(path.join(wasmDir, 'scalar/poslab.wasm')),
  });
  const relaxed =
    bestSimdVariant() === 'relaxed'
      ? await createPosLab({
          variant: 'relaxed',
          wasmBinary: readFileSync(path.join(wasmDir, 'simd/relaxed/poslab.wasm')),
        })
      : null;
  const backend = await tfjs.initTfjs();
  // The yardsticks: the SIMD128 peaks measured in this engine (simdPeak: register-only chains,
  // the best of several runs), never a clock rate times an assumed width.
  const { peaks } = await printMachine();
  const peakGflops = peaks.simd;
  console.log(`tfjs backend: ${backend}, one thread${small ? '; --small: one small shape per op' : ''}\n`);

  const rows = [];
  const report = (op, impl, ms, extra = '') => {
    rows.push({ op, impl, ms, extra });
    console.log(`${op.padEnd(34)} ${impl.padEnd(12)} ${fmt(ms).padStart(9)} ms  ${extra}`);
  };

  for (const L of small ? [128] : [512, 2048]) {
    const H = 8;
    const d = 64;
    const op = `attention H=${H} L=${L} d=${d} causal`;
    const q = randomArray(H * L * d, 1);
    const k = randomArray(H * L * d, 2);
    const v = randomArray(H * L * d, 3);
    const shape = [H, L, d];
    const call = (lab) => () =>
      lab.attention(
        { data: q, shape },
        { data: k, shape },
        { data: v, shape },
        { mask: 'causal', returnWeights: false },
      ).output.data;
    const ref = call(simd)();
    const tf = tfjs.makeCausalAttention(q, k, v, H, L, d);
    const checks = {
      scalar: maxAbsDiff(call(scalar)(), ref),
      'plain JS': maxAbsDiff(plain.causalAttention(q, k, v, H, L, d), ref),
      tfjs: maxAbsDiff(tf.run(), ref),
    };
    console.log(
      `${op}: max |diff| vs SIMD: ${Object.entries(checks)
        .map(([n, e]) => `${n} ${e.toExponential(1)}`)
        .join(', ')}`,
    );
    const usefulGflop = (4 * H * d * (L * (L + 1))) / 2 / 1e9;
    const budget = small ? 300 : L > 1000 ? 6000 : 3000;
    const tSimd = median(call(simd), { budgetMs: budget });
    const rate = usefulGflop / (tSimd / 1000);
    report(
      op,
      'wasm SIMD',
      tSimd,
      `${rate.toFixed(1)} GFLOP/s (QKᵀ+PV, unmasked), ${((100 * rate) / peakGflops).toFixed(0)}% of peak`,
    );
    if (relaxed) {
      const diff = maxAbsDiff(call(relaxed)(), ref);
      const tRelaxed = median(call(relaxed), { budgetMs: budget });
      const relaxedRate = usefulGflop / (tRelaxed / 1000);
      report(
        op,
        'wasm relaxed',
        tRelaxed,
        `${relaxedRate.toFixed(1)} GFLOP/s, ${((100 * relaxedRate) / peaks.relaxed).toFixed(0)}% of the relaxed_madd peak; ` +
          `${(tSimd / tRelaxed).toFixed(2)}× SIMD's speed; max |diff| vs SIMD ${diff.toExponential(1)}`,
      );
    }
    const tScalar = median(call(scalar), { budgetMs: budget, minRuns: 3 });
    report(op, 'wasm scalar', tScalar, `SIMD is ${(tScalar / tSimd).toFixed(2)}× faster (target ≥ 3×)`);
    const tPlain = median(() => plain.causalAttention(q, k, v, H, L, d), { budgetMs: budget, minRuns: 3 });
    report(op, 'plain JS', tPlain, `SIMD is ${(tPlain / tSimd).toFixed(2)}× faster`);
    const tTf = median(tf.run, { budgetMs: budget, minRuns: 3 });
    report(
      op,
      'tfjs-wasm',
      tTf,
      `SIMD is ${(tTf / tSimd).toFixed(2)}× faster (target ≥ 3×); tfjs ${((usefulGflop * 2) / (tTf / 1000)).toFixed(1)} GFLOP/s dense`,
    );
    tf.dispose();
  }

  {
    const [H, L, D] = small ? [2, 128, 64] : [8, 4096, 64];
    const op = `rope (${H},${L},${D}) neox`;
    const x = randomArray(H * L * D, 4);
    const shape = [H, L, D];
    const call = (lab) => () => lab.rope({ data: x, shape }, { style: 'neox' }).data;
    const ref = call(simd)();
    const tf = tfjs.makeRope(x, H, L, D);
    console.log(
      `${op}: max |diff| vs SIMD: scalar ${maxAbsDiff(call(scalar)(), ref).toExponential(1)}, plain JS ${maxAbsDiff(plain.rope(x, H, L, D), ref).toExponential(1)}, tfjs ${maxAbsDiff(tf.run(), ref).toExponential(1)}`,
    );
    const tSimd = median(call(simd));
    report(op, 'wasm SIMD', tSimd, `${((H * L * D * 8) / (tSimd / 1000) / 1e9).toFixed(2)} GB/s (read + write)`);
    const tScalar = median(call(scalar));
    report(op, 'wasm scalar', tScalar, `SIMD is ${(tScalar / tSimd).toFixed(2)}× faster (target ≥ 3×)`);
    const tPlain = median(() => plain.rope(x, H, L, D));
    report(op, 'plain JS', tPlain, `SIMD is ${(tPlain / tSimd).toFixed(2)}× faster`);
    const tTf = median(tf.run);
    report(op, 'tfjs-wasm', tTf, `SIMD is ${(tTf / tSimd).toFixed(2)}× faster`);
    tf.dispose();
  }

  {
    const [L, D] = small ? [128, 64] : [4096, 1024];
    const op = `sinusoidal ${L}×${D}`;
    const call = (lab) => () => lab.sinusoidal({ length: L, dim: D }).data;
    const ref = call(simd)();
    const tf = tfjs.makeSinusoidal(L, D);
    console.log(
      `${op}: max |diff| vs SIMD: scalar ${maxAbsDiff(call(scalar)(), ref).toExponential(1)}, plain JS ${maxAbsDiff(plain.sinusoidal(L, D), ref).toExponential(1)}, tfjs (float32 angles) ${maxAbsDiff(tf.run(), ref).toExponential(1)}`,
    );
    const tSimd = median(call(simd));
    report(op, 'wasm SIMD', tSimd, `${((L * D) / (tSimd / 1000) / 1e6).toFixed(0)} M elements/s`);
    const tScalar = median(call(scalar));
    report(op, 'wasm scalar', tScalar, `SIMD is ${(tScalar / tSimd).toFixed(2)}× faster`);
    const tPlain = median(() => plain.sinusoidal(L, D));
    report(op, 'plain JS', tPlain, `SIMD is ${(tPlain / tSimd).toFixed(2)}× faster`);
    const tTf = median(tf.run);
    report(op, 'tfjs-wasm', tTf, `SIMD is ${(tTf / tSimd).toFixed(2)}× faster`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

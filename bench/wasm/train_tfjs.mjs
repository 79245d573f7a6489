// `npm run bench:train`: one training step of the Length generalisation lab's default model
// (copy, N = 8, 2 layers, width 64, 4 heads, batch 32, NoPE, embed scale 8), side by side in
// one Node process: PosLab's training module (SIMD, its relaxed twin where this Node has relaxed
// SIMD — machine.js switches it on —, and scalar wasm) and the same model written
// with TensorFlow.js ops on tfjs-backend-wasm (SIMD, one thread) trained through
// tf.variableGrads with Adam plus decoupled weight decay and global-norm clipping, as the
// trainer does. Both sides start from PosLab's initial weights and the tfjs loss is checked
// against PosLab's on the same batch before anything is timed. Also the native CLI, one thread.
// Interleaved rounds, medians; prints ms/step, tokens/s and GFLOP/s (the trainer's own count,
// the same for every side). `--small`: 1 round of 5 steps, to check that it runs.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';
import './tfjs-gradients.mjs';
import { createTrainLab } from '../../web/src/core/poslab.js';
import { readSafetensors } from '../../tests/helpers/read-safetensors.js';
import { parseNpy } from '../../tests/wasm/helpers/npy.js';
import { bestSimdVariant, printMachine } from './machine.js';
import { initTfjs } from './tfjs.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CONFIG = { task: 'copy', position: 'none', trainLen: 8, embedScale: 8, steps: 100000, seed: 0 };
const small = process.argv.includes('--small');
const ROUNDS = small ? 1 : Number(process.env.ROUNDS ?? 5);
const STEPS_PER_ROUND = small ? 5 : 10;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// ---- the model in tfjs ops (the specification)
function layerNorm(x, g, b) {
  const mean = tf.mean(x, -1, true);
  const centred = tf.sub(x, mean);
  const variance = tf.mean(tf.square(centred), -1, true);
  return tf.add(tf.mul(tf.mul(centred, tf.rsqrt(tf.add(variance, 1e-5))), g), b);
}

function geluTanh(x) {
  const inner = tf.mul(tf.add(x, tf.mul(tf.pow(x, 3), 0.044715)), Math.sqrt(2 / Math.PI));
  return tf.mul(tf.mul(x, 0.5), tf.add(tf.tanh(inner), 1));
}

function modelLoss(W, model, batch) {
  const { B, T, tokens, targets, mask } = batch;
  const E = model.n_embd;
  const H = model.n_head;
  const d = E / H;
  const V = model.vocab_size;
  const hidden = tf.mul(tf.sub(1, tf.linalg.bandPart(tf.ones([T, T]), -1, 0)), -1e9);
  // The lookup as a one-hot product: gather's gradient needs UnsortedSegmentSum, which the
  // wasm backend lacks (V = 14: the product is cheap).
  const rows = tf.cast(tf.oneHot(tf.reshape(tokens, [B * T]), V), 'float32');
  let x = tf.reshape(tf.mul(tf.matMul(rows, W['wte.weight']), model.embed_scale), [B, T, E]);
  for (let l = 0; l < model.n_layer; l++) {
    const p = (n) => W[`h.${l}.${n}`];
    const h = tf.reshape(layerNorm(x, p('ln_1.weight'), p('ln_1.bias')), [B * T, E]);
    const qkv = tf.add(tf.matMul(h, p('attn.c_attn.weight')), p('attn.c_attn.bias'));
    const [q, k, v] = tf
      .split(tf.reshape(qkv, [B, T, 3 * E]), 3, 2)
      .map((t) => tf.transpose(tf.reshape(t, [B, T, H, d]), [0, 2, 1, 3]));
    const att = tf.softmax(tf.add(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(d)), hidden));
    const out = tf.reshape(tf.transpose(tf.matMul(att, v), [0, 2, 1, 3]), [B * T, E]);
    x = tf.add(x, tf.reshape(tf.add(tf.matMul(out, p('attn.c_proj.weight')), p('attn.c_proj.bias')), [B, T, E]));
    const h2 = tf.reshape(layerNorm(x, p('ln_2.weight'), p('ln_2.bias')), [B * T, E]);
    const f = geluTanh(tf.add(tf.matMul(h2, p('mlp.c_fc.weight')), p('mlp.c_fc.bias')));
    x = tf.add(x, tf.reshape(tf.add(tf.matMul(f, p('mlp.c_proj.weight')), p('mlp.c_proj.bias')), [B, T, E]));
  }
  const hf = tf.reshape(layerNorm(x, W['ln_f.weight'], W['ln_f.bias']), [B * T, E]);
  const logp = tf.logSoftmax(tf.matMul(hf, W['wte.weight'], false, true)); // (B·T, V)
  const picked = tf.sum(tf.mul(logp, tf.cast(tf.oneHot(targets, V), 'float32')), 1);
  return tf.div(tf.neg(tf.sum(tf.mul(picked, mask))), tf.sum(mask));
}

function tfjsTrainer(weights, model, batch, lr) {
  const W = Object.fromEntries(
    Object.entries(weights).map(([n, t]) => [n, tf.variable(tf.tensor(t.data, t.shape), true, n)]),
  );
  const decayed = Object.keys(W).filter((n) => /attn\.c_(attn|proj)\.weight|mlp\.c_(fc|proj)\.weight/.test(n));
  const adam = tf.train.adam(lr, 0.9, 0.98, 1e-8);
  return {
    loss: () => tf.tidy(() => modelLoss(W, model, batch).dataSync()[0]),
    step() {
      tf.tidy(() => {
        const { value, grads } = tf.variableGrads(() => modelLoss(W, model, batch));
        const norm = tf.sqrt(tf.addN(Object.values(grads).map((g) => tf.sum(tf.square(g)))));
        const clip = tf.minimum(1, tf.div(1, norm));
        for (const n of decayed) W[n].assign(tf.mul(W[n], 1 - lr * 0.01));
        adam.applyGradients(Object.fromEntries(Object.entries(grads).map(([n, g]) => [n, tf.mul(g, clip)])));
        value.dataSync();
      });
    },
  };
}

async function main() {
  await printMachine();
  const backend = await initTfjs();
  const variants = bestSimdVariant() === 'relaxed' ? ['simd', 'relaxed', 'scalar'] : ['simd', 'scalar'];
  const runs = {};
  for (const variant of variants) {
    const dir = variant === 'relaxed' ? 'simd/relaxed' : variant;
    const wasmBinary = fs.readFileSync(path.join(root, 'build/wasm', dir, 'poslab-train.wasm'));
    runs[variant] = (await createTrainLab({ variant, wasmBinary })).createRun(CONFIG);
  }
  const dump = runs.simd.dump();
  const model = JSON.parse(new TextDecoder().decode(dump['config.json']));
  const npy = (name) => parseNpy(Buffer.from(dump[`${name}.npy`]));
  const tokens = npy('tokens');
  const [B, T] = tokens.shape;
  const batch = {
    B,
    T,
    tokens: tf.tensor2d(tokens.data, [B, T], 'int32'),
    targets: tf.tensor1d(npy('targets').data, 'int32'),
    mask: tf.tensor1d(npy('loss_mask').data),
  };
  const lr = 3e-3;
  const peer = tfjsTrainer(readSafetensors(dump['weights.safetensors']).tensors, model, batch, lr);
  const expected = JSON.parse(new TextDecoder().decode(dump['loss.json'])).loss;
  const got = peer.loss();
  console.log(`tfjs loss ${got.toFixed(6)} vs PosLab ${expected.toFixed(6)} on the same weights and batch`);
  if (!(Math.abs(got - expected) <= 1e-4 * Math.abs(expected)))
    throw new Error('tfjs and PosLab compute different models');

  // Warm-up, then interleaved rounds.
  for (let i = 0; i < 3; i++) peer.step();
  for (const variant of variants) runs[variant].step(3);
  const ms = { tfjs: [], ...Object.fromEntries(variants.map((v) => [v, []])) };
  const tokensPerStep = { tfjs: B * T };
  const flopsPerStep = {};
  for (let r = 0; r < ROUNDS; r++) {
    let t = performance.now();
    for (let i = 0; i < STEPS_PER_ROUND; i++) peer.step();
    ms.tfjs.push((performance.now() - t) / STEPS_PER_ROUND);
    for (const variant of variants) {
      const run = runs[variant];
      const [tok0, fl0] = [run.tokensSeen, run.flopsSpent];
      t = performance.now();
      run.step(STEPS_PER_ROUND);
      ms[variant].push((performance.now() - t) / STEPS_PER_ROUND);
      tokensPerStep[variant] = (run.tokensSeen - tok0) / STEPS_PER_ROUND;
      flopsPerStep[variant] = (run.flopsSpent - fl0) / STEPS_PER_ROUND;
    }
  }
  // tfjs trains on one batch of T tokens per row: its flops scale from PosLab's per token.
  const flopsPerToken = flopsPerStep.simd / tokensPerStep.simd;
  flopsPerStep.tfjs = flopsPerToken * tokensPerStep.tfjs;

  const rows = [];
  const add = (label, msStep, tokens, flops) =>
    rows.push({ label, msStep, tokensPerS: (tokens / msStep) * 1000, gflops: flops / msStep / 1e6 });
  add(`tfjs-backend-wasm (${backend}, SIMD, 1 thread)`, median(ms.tfjs), tokensPerStep.tfjs, flopsPerStep.tfjs);
  const labels = {
    simd: 'PosLab wasm SIMD',
    relaxed: 'PosLab wasm relaxed SIMD (relaxed_madd)',
    scalar: 'PosLab wasm scalar',
  };
  for (const v of variants) add(labels[v], median(ms[v]), tokensPerStep[v], flopsPerStep[v]);

  const cli = process.env.POSLAB_CLI ?? path.join(root, 'build/release/cpp/poslab');
  if (fs.existsSync(cli)) {
    const out = path.join(os.tmpdir(), `poslab-train-bench-${process.pid}.json`);
    const steps = small ? 20 : 300;
    execFileSync(cli, [
      'train',
      '--task',
      'copy',
      '--position',
      'none',
      '--train-len',
      '8',
      '--embed-scale',
      '8',
      '--steps',
      String(steps),
      '--threads',
      '1',
      '--eval-examples',
      '1',
      '--test-len',
      '1',
      '-q',
      '-o',
      out,
    ]);
    const r = JSON.parse(fs.readFileSync(out, 'utf8'));
    fs.rmSync(out);
    add(
      'PosLab native, 1 thread',
      (r.wall_time_s * 1000) / steps,
      (r.tokens_per_s * r.wall_time_s) / steps,
      r.flops / steps,
    );
  }

  console.log(`\nload now ${os.loadavg()[0].toFixed(1)}`);
  console.log(
    `one training step of the default model (B = ${B}; tfjs on one batch of T = ${T}), median of ${ROUNDS} rounds × ${STEPS_PER_ROUND} steps:`,
  );
  console.log('side                                         ms/step   tokens/s   GFLOP/s');
  for (const r of rows) {
    console.log(
      `${r.label.padEnd(44)} ${r.msStep.toFixed(2).padStart(7)} ${r.tokensPerS.toFixed(0).padStart(10)} ${r.gflops.toFixed(2).padStart(9)}`,
    );
  }
  console.log();
  for (const [i, v] of variants.entries()) {
    if (v === 'scalar') continue;
    const ratio = rows[i + 1].tokensPerS / rows[0].tokensPerS;
    console.log(`PosLab ${v} / tfjs, tokens per second: ${ratio.toFixed(2)}× (targets: ≥ 5×; issue 53: ≥ 12×)`);
  }
  for (const run of Object.values(runs)) run.dispose();
}

await main();

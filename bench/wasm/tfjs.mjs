// The same ops in TensorFlow.js on its WebAssembly backend (SIMD on, one thread): the peer
// PosLab's wasm build is measured against.
import { createRequire } from 'node:module';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { setThreadsCount, setWasmPaths } from '@tensorflow/tfjs-backend-wasm';

export async function initTfjs() {
  const require = createRequire(import.meta.url);
  const dist = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
  setWasmPaths(dist + path.sep);
  setThreadsCount(1);
  await tf.setBackend('wasm');
  await tf.ready();
  return tf.getBackend();
}

// Causal attention on (H, L, d) float arrays: QKᵀ·scale + mask → softmax → ·V, read back.
export function makeCausalAttention(q, k, v, heads, length, d) {
  const Q = tf.tensor3d(q, [heads, length, d]);
  const K = tf.tensor3d(k, [heads, length, d]);
  const V = tf.tensor3d(v, [heads, length, d]);
  const mask = tf.tidy(() =>
    tf.mul(tf.sub(tf.scalar(1), tf.linalg.bandPart(tf.ones([length, length]), -1, 0)), tf.scalar(-1e9)),
  );
  const scale = tf.scalar(1 / Math.sqrt(d));
  const run = () =>
    tf.tidy(() => {
      const scores = tf.add(tf.mul(tf.matMul(Q, K, false, true), scale), mask);
      return tf.matMul(tf.softmax(scores), V).dataSync();
    });
  const dispose = () => tf.dispose([Q, K, V, mask, scale]);
  return { run, dispose };
}

// RoPE (neox pairing) on x (H, L, D): x·cos + rotate_half(x)·sin, tables built per call.
export function makeRope(x, heads, length, dim, base = 10000) {
  const X = tf.tensor3d(x, [heads, length, dim]);
  const half = dim / 2;
  const run = () =>
    tf.tidy(() => {
      const inv = tf.pow(tf.scalar(base), tf.mul(tf.range(0, half), tf.scalar(-2 / dim)));
      const angles = tf.outerProduct(tf.range(0, length), inv);
      const emb = tf.concat([angles, angles], 1);
      const [x1, x2] = tf.split(X, 2, 2);
      const rotated = tf.concat([tf.neg(x2), x1], 2);
      return tf.add(tf.mul(X, tf.cos(emb)), tf.mul(rotated, tf.sin(emb))).dataSync();
    });
  return { run, dispose: () => X.dispose() };
}

// (L, D) interleaved sinusoidal table.
export function makeSinusoidal(length, dim, base = 10000) {
  const half = dim / 2;
  const run = () =>
    tf.tidy(() => {
      const inv = tf.pow(tf.scalar(base), tf.mul(tf.range(0, half), tf.scalar(-2 / dim)));
      const angles = tf.outerProduct(tf.range(0, length), inv);
      return tf.reshape(tf.stack([tf.sin(angles), tf.cos(angles)], 2), [length, dim]).dataSync();
    });
  return { run, dispose: () => {} };
}

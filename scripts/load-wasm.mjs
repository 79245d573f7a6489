// The built wasm modules' JS API in Node, for the generators (scripts/generate.mjs) and the
// tests that run page code on the core: Emscripten's loader cannot fetch a file path under
// Node, so the .wasm bytes are passed in.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGpt2Lab, createPosLab, createTrainLab } from '../web/src/core/poslab.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function wasmBytes(variant, module) {
  const file = path.join(root, `build/wasm/${variant}/${module}.wasm`);
  if (!fs.existsSync(file))
    throw new Error(
      `build/wasm/${variant}/${module}.wasm is missing: build the wasm modules first (npm run build:wasm)`,
    );
  return fs.readFileSync(file);
}

/** The core module (`poslab`): every view's ops. @param {'simd'|'scalar'} [variant] */
export const loadLab = (variant = 'simd') => createPosLab({ variant, wasmBinary: wasmBytes(variant, 'poslab') });

/** The lab's trainer (`poslab-train`). @param {'simd'|'scalar'} [variant] */
export const loadTrainLab = (variant = 'simd') =>
  createTrainLab({ variant, wasmBinary: wasmBytes(variant, 'poslab-train') });

/** The language-model module (`poslab-lm`): the models and the RoPE inspector. @param {'simd'|'scalar'} [variant] */
export const loadLmLab = (variant = 'simd') => createGpt2Lab({ variant, wasmBinary: wasmBytes(variant, 'poslab-lm') });

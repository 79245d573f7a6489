// The built wasm core's JS API for tests that run page code on it, loaded the way tests/wasm
// loads it (Node needs the .wasm bytes passed in).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPosLab } from '../../../web/src/core/poslab.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** @param {'simd'|'scalar'} [variant] */
export async function loadLab(variant = 'simd') {
  const wasm = path.join(root, `build/wasm/${variant}/poslab.wasm`);
  if (!fs.existsSync(wasm))
    throw new Error(`build/wasm/${variant}/poslab.wasm is missing: build the wasm modules first (npm run build:wasm)`);
  return createPosLab({ variant, wasmBinary: fs.readFileSync(wasm) });
}

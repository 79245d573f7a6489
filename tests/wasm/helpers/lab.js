// Loads a built module through the JS wrapper, as an app would, but with the .wasm bytes
// passed in: Emscripten 3.1.6's loader cannot fetch a file path under Node.
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot, wasmPath, wrapperPath } from './paths.js';

export async function loadLab(variant) {
  const file = wasmPath(variant);
  if (!fs.existsSync(file)) {
    throw new Error(`${path.relative(repoRoot, file)} is missing: build the wasm modules first (npm run build:wasm).`);
  }
  const { createPosLab } = await import(wrapperPath);
  return createPosLab({ variant, wasmBinary: fs.readFileSync(file) });
}

export const loadWrapper = () => import(wrapperPath);

// Where the suite finds the repository, the native CLI and the built wasm modules. Every
// path is relative to the repository root so the suite runs from any checkout.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

// The reference binary; POSLAB_CLI overrides it (absolute or relative to the repo root).
export const cliPath = path.resolve(repoRoot, process.env.POSLAB_CLI || 'build/release/cpp/poslab');

// 'relaxed': the SIMD build's relaxed twin (build/wasm/simd/relaxed: the GEMM and attention
// products on f32x4.relaxed_madd), which Node 20 runs only with relaxed SIMD switched on
// (setup/relaxed-simd.js, named by vitest.config.js).
export const VARIANTS = ['simd', 'relaxed', 'scalar'];

const VARIANT_DIRS = { simd: 'simd', relaxed: 'simd/relaxed', scalar: 'scalar' };

/** build/wasm/<variant's folder>/<module>.wasm */
export const modulePath = (variant, module) =>
  path.join(repoRoot, 'build/wasm', VARIANT_DIRS[variant], `${module}.wasm`);

export const wasmPath = (variant) => modulePath(variant, 'poslab');

export const wrapperPath = path.join(repoRoot, 'web/src/core/poslab.js');

/** A fresh temporary folder for a test file, removed after its tests: name → its path there. */
export function scratchFiles(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  return (name) => path.join(dir, name);
}

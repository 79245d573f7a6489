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

export const VARIANTS = ['simd', 'scalar'];

export const wasmPath = (variant) => path.join(repoRoot, 'build/wasm', variant, 'poslab.wasm');

export const wrapperPath = path.join(repoRoot, 'web/src/core/poslab.js');

/** A fresh temporary folder for a test file, removed after its tests: name → its path there. */
export function scratchFiles(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  return (name) => path.join(dir, name);
}

// Where the suite finds the repository, the native CLI and the built wasm modules. Every
// path is relative to the repository root so the suite runs from any checkout.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

// The reference binary; POSLAB_CLI overrides it (absolute or relative to the repo root).
export const cliPath = path.resolve(repoRoot, process.env.POSLAB_CLI || 'build/release/cpp/poslab');

export const VARIANTS = ['simd', 'scalar'];

export const wasmPath = (variant) => path.join(repoRoot, 'build/wasm', variant, 'poslab.wasm');

export const wrapperPath = path.join(repoRoot, 'web/src/core/poslab.js');

// The benchmarks' own wasm module (build/wasm/VARIANT/poslab-bench: simdPeak, gemmBench;
// cpp/wasm/bench_bindings.cpp), which no page loads: in Node from the build folder, in a
// Chromium page served from the repository root by URL.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The raw module of one variant ('simd', its twin 'relaxed', whose simdPeak also measures f32x4.relaxed_madd, or 'scalar'), in Node. */
export async function loadBenchModule(variant = 'simd') {
  const dir = path.join(root, 'build/wasm', variant === 'relaxed' ? 'simd/relaxed' : variant);
  const { default: create } = await import(path.join(dir, 'poslab-bench.mjs'));
  return create({ wasmBinary: readFileSync(path.join(dir, 'poslab-bench.wasm')) });
}

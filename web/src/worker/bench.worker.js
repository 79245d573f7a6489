// The Benchmarks view's "Run on this machine": one run per worker. Loads PosLab's SIMD and
// scalar wasm builds, runs the wasm benchmark's cases (bench/wasm-bench.js: each variant
// checked against SIMD, then timed) and posts progress, then the results file or the error.
// The page terminates the worker to cancel a run, and after one: it is never reused.
import createSimd from '@poslab-wasm/poslab.mjs';
import simdWasmUrl from '@poslab-wasm/poslab.wasm?url';
import createScalar from '@poslab-wasm-scalar/poslab.mjs';
import scalarWasmUrl from '@poslab-wasm-scalar/poslab.wasm?url';
import { browserDevice } from '../bench/local-run.js';
import { runWasmBench } from '../bench/wasm-bench.js';
import { bindPosLab } from '../core/api.js';

// The ?url imports name the .wasm each build loads, so the build emits both files and each
// module fetches its own (not the other build's file of the same name).
const load = async (create, url) => bindPosLab(await create({ locateFile: () => url }));

self.onmessage = async ({ data: { size } }) => {
  const progress = (done, total, label) => self.postMessage({ type: 'progress', done, total, label });
  try {
    progress(0, 0, 'loading the SIMD and scalar wasm builds');
    const [simd, scalar] = await Promise.all([load(createSimd, simdWasmUrl), load(createScalar, scalarWasmUrl)]);
    const device = browserDevice(self.navigator, { simd: simd.simdTarget(), scalar: scalar.simdTarget() });
    const file = runWasmBench({ simd, scalar, size, device, onProgress: progress });
    self.postMessage({ type: 'done', file });
  } catch (e) {
    self.postMessage({ type: 'error', message: e?.message ?? String(e) });
  }
};

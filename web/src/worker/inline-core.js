// The main thread's copy of the core for worker/inline.js: the same wasm build and jobs the
// worker runs, its heatmaps coloured to rgba (no ImageBitmap: that is asynchronous, and the
// point of running here is to draw within the input's task).
import createModule from '@poslab-wasm/poslab.mjs';
import { bindPosLab } from '../core/api.js';
import { CORE_WASM_URL as wasmUrl } from './core-wasm.js';
import { JOBS } from './jobs/index.js';
import { paintPixels } from './paint.js';

export async function loadInlineCore() {
  // Streaming instantiation compiles off the main thread (locateFile: the build's hashed URL).
  const lab = bindPosLab(await createModule({ locateFile: () => new URL(wasmUrl, import.meta.url).href }));
  return { lab, run };
}

function run(lab, job, params) {
  const t0 = performance.now();
  const result = JOBS[job](lab, params);
  const computeMs = performance.now() - t0;
  paintPixels(result);
  result.timing = { computeMs, paintMs: performance.now() - t0 - computeMs, inline: true };
  return result;
}

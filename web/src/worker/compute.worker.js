// The compute worker: loads the wasm core once, then runs one job per message and posts the
// result (buffers transferred, not copied) or the error message. The UI thread never waits
// on the core.
import createModule from '@poslab-wasm/poslab.mjs';
import wasmUrl from '@poslab-wasm/poslab.wasm?url';
import { bindPosLab } from '../core/api.js';
import { JOBS } from './jobs/index.js';
import { paint } from './paint.js';

const ready = (async () => {
  const response = await fetch(wasmUrl);
  if (!response.ok) throw new Error(`could not load the WebAssembly core (${response.status})`);
  const wasmBinary = new Uint8Array(await response.arrayBuffer());
  return bindPosLab(await createModule({ wasmBinary }));
})();

ready.then(
  (lab) => self.postMessage({ type: 'ready', simd: lab.simdTarget() }),
  (e) => self.postMessage({ type: 'fatal', message: e?.message ?? String(e) }),
);

self.onmessage = async ({ data: { id, job, params } }) => {
  try {
    const lab = await ready;
    const t0 = performance.now();
    if (!Object.hasOwn(JOBS, job)) throw new Error(`unknown job ${job}`);
    const result = JOBS[job](lab, params);
    const computeMs = performance.now() - t0;
    const transfer = await paint(result);
    result.timing = { computeMs, paintMs: performance.now() - t0 - computeMs, bitmapMs: result.bitmapMs ?? 0 };
    self.postMessage({ type: 'result', id, result }, transfer);
  } catch (e) {
    self.postMessage({ type: 'error', id, message: e?.message ?? String(e) });
  }
};

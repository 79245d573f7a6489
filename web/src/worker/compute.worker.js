// The compute worker: loads the wasm core once, then runs one job per message and posts the
// result (buffers transferred, not copied) or the error's message and field (PosLabError.field
// or a job's fieldError: an Error's own properties do not survive postMessage). The UI thread
// never waits on a job here (only jobs predicted to take a few ms run there: inline.js). A job
// may be async and may report progress ({ type: 'progress', id, data }); jobs can keep state
// here between messages (the Models view's model stays loaded). The Models view's jobs run on
// the language-model module (poslab-lm: GPT-2, GPT-NeoX and the Llama family), fetched the first time one is
// asked for. Each module is its SIMD build or, where the engine has relaxed SIMD, that build's
// relaxed twin (core-wasm.js, lm-module.js).
import createModule from '@poslab-wasm/poslab.mjs';
import { bindPosLab } from '../core/api.js';
import { CORE_WASM_URL as wasmUrl } from './core-wasm.js';
import { JOBS, LM_JOBS, loadLmJobs } from './jobs/index.js';
import { describeLoadFailure, recordViolations } from './load-failure.js';
import { paint } from './paint.js';

// On another site's page this worker runs under that page's CSP (see embed/compute.js), which
// may refuse the wasm's fetch or its compilation: the error then names the directive.
const violations = recordViolations(self);

async function wasmBytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** Runs `load` (a wasm module's fetch or compile); its failure says what to change, and where. */
async function explained(what, url, load) {
  try {
    return await load();
  } catch (error) {
    const foreign = new URL(url, self.location.href).origin !== self.location.origin;
    const violation = await violations.latest();
    throw new Error(describeLoadFailure({ what, url, error, foreign, violation }), { cause: error });
  }
}

// The core module. Loaded at start and announced ('ready' or 'fatal'), except in the Models
// view's own worker (named 'lm'), which never runs a core job and says 'ready' at once.
// The page starts one worker per view; the main thread may terminate one to cancel its job.
let coreReady = null;
const core = () =>
  (coreReady ??= explained('the WebAssembly core', wasmUrl, async () =>
    bindPosLab(await createModule({ wasmBinary: await wasmBytes(wasmUrl) })),
  ));

if (self.name !== 'lm') {
  core().then(
    (lab) => self.postMessage({ type: 'ready', simd: lab.simdTarget() }),
    (e) => self.postMessage({ type: 'fatal', message: e?.message ?? String(e) }),
  );
} else {
  self.postMessage({ type: 'ready' }); // up; its module loads with the first language-model job
}

// The language-model module, its API (GPT-2's and GPT-NeoX's) and its jobs: { lab, jobs };
// lab.runtime says how many threads it runs and why (lm-module.js).
let lmReady = null;
function lm() {
  lmReady ??= (async () => {
    const what = 'the language-model WebAssembly module';
    // Its loader is a chunk of its own, so the embed's worker (core jobs only) stays small.
    const { LM_WASM_URL, loadLmModule } = await import('./lm-module.js');
    const [loaded, { bindLm }, jobs] = await Promise.all([
      explained(what, LM_WASM_URL, () => loadLmModule(wasmBytes)),
      import('../core/lm.js'),
      loadLmJobs(),
    ]);
    const lab = bindLm(loaded.module);
    lab.runtime = { threads: loaded.threads, note: loaded.note, build: loaded.build };
    return { lab, jobs };
  })();
  lmReady.catch(() => (lmReady = null)); // a later job may try again
  return lmReady;
}

self.onmessage = async ({ data: { id, job, params } }) => {
  const receivedAt = performance.now(); // the worker's own time, for the e2e timing's split
  try {
    const isLm = LM_JOBS.includes(job);
    if (!isLm && !Object.hasOwn(JOBS, job)) throw new Error(`unknown job ${job}`);
    const { lab, jobs } = isLm ? await lm() : { lab: await core(), jobs: JOBS };
    const t0 = performance.now();
    const progress = (data) => self.postMessage({ type: 'progress', id, data });
    const result = await jobs[job](lab, params, { progress });
    const computeMs = performance.now() - t0;
    const transfer = await paint(result);
    const paintMs = performance.now() - t0 - computeMs;
    const workerMs = performance.now() - receivedAt;
    result.timing = { computeMs, paintMs, bitmapMs: result.bitmapMs ?? 0, workerMs };
    self.postMessage({ type: 'result', id, result }, transfer);
  } catch (e) {
    self.postMessage({ type: 'error', id, message: e?.message ?? String(e), field: e?.field });
  }
};

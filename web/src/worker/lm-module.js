// Which build of the language-model module a worker runs. A cross-origin isolated page (COOP +
// COEP headers: SharedArrayBuffer allowed) gets the threaded build (build/wasm/threads: pthreads,
// one Web Worker per extra thread, started with the module), using every core up to the
// build's cap; any other page, or a failed threaded load, gets the single-threaded SIMD build,
// and the note says why. The threaded files are copied, not bundled, to wasm-threads/ beside
// the page (vite.config.js): Emscripten's glue finds its worker script next to itself.
import singleWasmUrl from '@poslab-wasm/poslab-lm.wasm?url';
import { instantiateThreaded } from '../core/threaded-module.js';
import { threadPlan } from './thread-plan.js';

/** The single-threaded build's .wasm, whose URL a load failure names. */
export const LM_WASM_URL = singleWasmUrl;

/** The folder of the threaded build, relative to a bundled chunk in assets/ (not a literal: Vite would resolve it). */
const THREADED_DIR = ['..', 'wasm-threads', ''].join('/');

/**
 * Instantiates the module for this worker: { module, threads, note }.
 * @param {(url: string) => Promise<Uint8Array>} fetchBytes
 */
export async function loadLmModule(fetchBytes) {
  const plan = threadPlan(self);
  if (plan.threads > 1) {
    try {
      return { module: await loadThreaded(fetchBytes, plan.threads), ...plan };
    } catch (error) {
      const note = `one thread: the threaded build did not load (${error?.message ?? error})`;
      return { module: await loadSingle(fetchBytes), threads: 1, note };
    }
  }
  return { module: await loadSingle(fetchBytes), ...plan };
}

async function loadSingle(fetchBytes) {
  const [{ default: create }, wasmBinary] = await Promise.all([
    import('@poslab-wasm/poslab-lm.mjs'),
    fetchBytes(singleWasmUrl),
  ]);
  return create({ wasmBinary });
}

async function loadThreaded(fetchBytes, threads) {
  // The dev server serves the build at /wasm-threads/ (vite.config.js); a build copies it there.
  const base = import.meta.env.DEV
    ? new URL('/wasm-threads/', self.location.origin)
    : new URL(THREADED_DIR, import.meta.url);
  const wasmBinary = await fetchBytes(new URL('poslab-lm.wasm', base).href);
  return instantiateThreaded(new URL('poslab-lm.mjs', base).href, wasmBinary, threads);
}

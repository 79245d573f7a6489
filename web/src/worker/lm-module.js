// Which build of the language-model module a worker runs. A cross-origin isolated page (COOP +
// COEP headers: SharedArrayBuffer allowed) gets the threaded build (build/wasm/threads: pthreads,
// one Web Worker per extra thread, started with the module), using every core up to the
// build's cap; any other page, or a failed threaded load, gets the single-threaded SIMD build,
// and the note says why. The threaded files are copied, not bundled, to wasm-threads/ beside
// the page (vite.config.js): Emscripten's glue finds its worker script next to itself; the
// relaxed twin's three files are in wasm-threads/relaxed/.
import simdWasmUrl from '@poslab-wasm/poslab-lm.wasm?url';
import relaxedWasmUrl from '@poslab-wasm-relaxed/poslab-lm.wasm?url';
import { simdBuild } from '../core/simd-build.js';
import { instantiateThreaded } from '../core/threaded-module.js';
import { threadPlan } from './thread-plan.js';

/** 'relaxed' or 'simd': where the engine has relaxed SIMD, either build's relaxed twin (the GEMM and attention products on f32x4.relaxed_madd) runs, each with its own glue. */
export const LM_BUILD = simdBuild();

/** The single-threaded build's .wasm, whose URL a load failure names. */
export const LM_WASM_URL = LM_BUILD === 'relaxed' ? relaxedWasmUrl : simdWasmUrl;

/** The folder of the threaded build, relative to a bundled chunk in assets/ (not a literal: Vite would resolve it). */
const THREADED_DIR = ['..', 'wasm-threads', ''].join('/');

/**
 * Instantiates the module for this worker: { module, threads, note, build }.
 * @param {(url: string) => Promise<Uint8Array>} fetchBytes
 */
export async function loadLmModule(fetchBytes) {
  const plan = threadPlan(self);
  if (plan.threads > 1) {
    try {
      return { module: await loadThreaded(fetchBytes, plan.threads), ...plan, build: LM_BUILD };
    } catch (error) {
      const note = `one thread: the threaded build did not load (${error?.message ?? error})`;
      return { module: await loadSingle(fetchBytes), threads: 1, note, build: LM_BUILD };
    }
  }
  return { module: await loadSingle(fetchBytes), ...plan, build: LM_BUILD };
}

async function loadSingle(fetchBytes) {
  const [{ default: create }, wasmBinary] = await Promise.all([
    LM_BUILD === 'relaxed' ? import('@poslab-wasm-relaxed/poslab-lm.mjs') : import('@poslab-wasm/poslab-lm.mjs'),
    fetchBytes(LM_WASM_URL),
  ]);
  return create({ wasmBinary });
}

async function loadThreaded(fetchBytes, threads) {
  // The dev server serves the build at /wasm-threads/ (vite.config.js); a build copies it there.
  const base = import.meta.env.DEV
    ? new URL('/wasm-threads/', self.location.origin)
    : new URL(THREADED_DIR, import.meta.url);
  const dir = new URL(LM_BUILD === 'relaxed' ? 'relaxed/' : './', base);
  const wasmBinary = await fetchBytes(new URL('poslab-lm.wasm', dir).href);
  return instantiateThreaded(new URL('poslab-lm.mjs', dir).href, wasmBinary, threads);
}

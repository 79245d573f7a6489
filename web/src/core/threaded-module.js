// Instantiates the threaded build of the language-model module (build/wasm/threads: pthreads on
// a shared heap), which runs only in a cross-origin isolated browser page or worker. Its
// Emscripten glue starts `threads - 1` Web Workers with the module (each imports the glue again
// from `script`, and finds its worker script beside it), so the kernels never wait for one.
import { PosLabError } from './errors.js';

/**
 * @param {string} script absolute URL of the threaded poslab-lm.mjs
 * @param {Uint8Array} wasmBinary its poslab-lm.wasm
 * @param {number} threads 2 or more
 * @returns {Promise<object>} the raw module, set to run `threads` threads
 */
export async function instantiateThreaded(script, wasmBinary, threads) {
  if (!globalThis.crossOriginIsolated) {
    throw new PosLabError('the threaded build needs a cross-origin isolated page (COOP and COEP headers)', {
      field: 'threads',
    });
  }
  const { default: create } = await import(/* @vite-ignore */ script);
  const module = await create({ wasmBinary, mainScriptUrlOrBlob: script, poslabWorkers: threads - 1 });
  module.setThreads(threads);
  return module;
}

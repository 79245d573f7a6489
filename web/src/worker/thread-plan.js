// How many threads the language-model module may run in a scope (a page or a worker), and the
// words the page shows for it: every core up to the threaded build's cap on a cross-origin
// isolated page (SharedArrayBuffer allowed), else one; and the headers that isolate a page.

/**
 * The response headers that make a page cross-origin isolated (COOP + COEP), plus CORP so that
 * isolated pages elsewhere may still load PosLab's files: what vite dev/preview, the e2e sites
 * and the Chromium benchmarks send.
 */
export const ISOLATION_HEADERS = Object.freeze({
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'cross-origin',
});

/** POSLAB_WASM_MAX_THREADS of cpp/wasm/settings.cmake: the threaded build's cap. */
export const MAX_THREADS = 8;

/**
 * How many threads this scope can run, and the words the page shows for it.
 * @param {{ crossOriginIsolated?: boolean, navigator?: { hardwareConcurrency?: number } }} scope
 */
export function threadPlan(scope) {
  if (!scope.crossOriginIsolated) {
    return { threads: 1, note: 'one thread: this page is not cross-origin isolated (no COOP/COEP headers)' };
  }
  const threads = Math.max(1, Math.min(scope.navigator?.hardwareConcurrency ?? 1, MAX_THREADS));
  if (threads === 1) return { threads, note: 'one thread: this machine reports one core' };
  return { threads, note: `${threads} threads (cross-origin isolated page)` };
}

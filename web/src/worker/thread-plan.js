// How many threads the language-model module may run in a scope (a page or a worker), and the
// words the page shows for it: every core up to the threaded build's cap on a cross-origin
// isolated page (SharedArrayBuffer allowed), else one.

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

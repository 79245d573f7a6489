// Why a worker could not load PosLab's code or wasm, said so that a host page's author can act
// on it: the Content-Security-Policy directive that refused it and the source to add, or the
// CORS header the PosLab host must send. Both functions are self-contained (no imports, no
// outer names) because embed/compute.js also writes their source into the Blob worker it
// starts on other sites, which cannot import them: loading PosLab is what may have failed there.

/**
 * Keeps the latest CSP refusal in a worker scope. A refusal's event arrives a task or so after
 * the failed fetch or compile rejects, so `latest` waits briefly for one.
 * @param {EventTarget} scope the worker's global scope
 */
export function recordViolations(scope) {
  let last = null;
  let waiting = [];
  scope.addEventListener('securitypolicyviolation', (e) => {
    last = { directive: e.effectiveDirective, blocked: e.blockedURI };
    for (const wake of waiting) wake();
    waiting = [];
  });
  return {
    /** @returns {Promise<{ directive: string, blocked: string } | null>} */
    async latest(ms = 250) {
      if (!last) await new Promise((wake) => (waiting.push(wake), setTimeout(wake, ms)));
      return last;
    },
  };
}

/**
 * @param {{ what: string, url: string, error: unknown, foreign: boolean,
 *   violation?: { directive: string, blocked: string } | null }} failure
 *   what: the thing that failed to load ("the WebAssembly core"); url: where from; foreign: the
 *   url is of another origin than the page (then CORS may be the cause)
 * @returns {string}
 */
export function describeLoadFailure({ what, url, error, foreign, violation = null }) {
  if (violation) {
    // blockedURI is a URL, or a keyword: 'blob', 'data', 'inline', 'eval', 'wasm-eval'.
    const { directive, blocked } = violation;
    const keywords = { blob: 'blob:', data: 'data:', 'wasm-eval': "'wasm-unsafe-eval'", eval: "'unsafe-eval'" };
    let source = Object.hasOwn(keywords, blocked) ? keywords[blocked] : `'${blocked}'`;
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(blocked)) source = new URL(blocked).origin;
    return `this page's Content-Security-Policy refused ${what} (${blocked}): its ${directive} must allow ${source}`;
  }
  const reason = error?.message ?? String(error);
  return (
    `could not load ${what} from ${url} (${reason})` +
    (foreign ? `: the PosLab host must send Access-Control-Allow-Origin with its .js and .wasm files` : '')
  );
}

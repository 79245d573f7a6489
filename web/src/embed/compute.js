// One compute scheduler per page for every embedded figure on it, started on first use (the
// wasm loads only when a figure is about to be seen). Each figure gets its own channel
// namespace, and so its own worker: two figures must neither supersede nor wait for each other.
//
// A page of another origin (a blog that includes https://poslab.example/poslab-figure.js)
// cannot start a worker from PosLab's URL: browsers only run same-origin worker scripts. There
// the worker is a same-origin Blob module whose one line imports PosLab's worker by absolute
// URL; everything the worker loads after that (its chunks, the wasm) is addressed from its own
// module URL, so it comes from PosLab's host, which must send CORS headers (README).
import workerUrl from '../worker/compute.worker.js?worker&url';
import { createComputeClient } from '../worker/client.js';

let shared = null;
let figures = 0;

/** Where the figure's code came from, when that is not this page's origin (else null). */
export function foreignOrigin(url, pageOrigin) {
  const { origin } = new URL(url);
  return origin === pageOrigin ? null : origin;
}

function startWorker(name) {
  const url = new URL(workerUrl, import.meta.url);
  const foreign = foreignOrigin(url, window.location.origin);
  if (!foreign) return new Worker(url, { type: 'module', name });
  const blob = URL.createObjectURL(new Blob([`import ${JSON.stringify(url.href)};\n`], { type: 'text/javascript' }));
  try {
    const worker = new Worker(blob, { type: 'module', name });
    worker.addEventListener('message', () => URL.revokeObjectURL(blob), { once: true });
    return worker;
  } catch (e) {
    throw new Error(
      `PosLab could not start its worker on this page: the page's Content-Security-Policy must allow worker-src blob: (${e.message})`,
    );
  }
}

export function figureCompute() {
  const id = ++figures;
  return {
    request(channel, job, params) {
      shared ??= createComputeClient(startWorker, {
        startFailure:
          `PosLab's worker did not start: the PosLab host must send Access-Control-Allow-Origin for its files, ` +
          `and this page's Content-Security-Policy must allow the PosLab origin in script-src and connect-src, ` +
          `worker-src blob: and 'wasm-unsafe-eval'`,
      });
      return shared.request(`${id}/${channel}`, job, params);
    },
  };
}

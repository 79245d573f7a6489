// One compute scheduler per page for every embedded figure on it, started on first use (the
// wasm loads only when a figure is about to be seen). Each figure gets its own channel
// namespace, and so its own worker: two figures must neither supersede nor wait for each other.
//
// A page of another origin (a blog that includes https://poslab.example/poslab-figure.js)
// cannot start a worker from PosLab's URL: browsers only run same-origin worker scripts. There
// the worker is a same-origin Blob module that imports PosLab's worker by absolute URL;
// everything the worker loads after that (its chunks, the wasm) is addressed from its own
// module URL, so it comes from PosLab's host, which must send CORS headers (docs/playground.md).
import workerUrl from '../worker/compute.worker.js?worker&url';
import { createComputeClient } from '../worker/client.js';
import { describeLoadFailure } from '../worker/load-failure.js';
import { blobWorkerSource } from './blob-worker.js';

let shared = null;
let figures = 0;
let blobUrl = null;

/** Where the figure's code came from, when that is not this page's origin (else null). */
export function foreignOrigin(url, pageOrigin) {
  const { origin } = new URL(url);
  return origin === pageOrigin ? null : origin;
}

// A Blob worker that fails with no message of its own never ran: the page's CSP refused it
// (everything it loads itself reports its own failure, see blob-worker.js).
const BLOB_REFUSED = describeLoadFailure({
  what: "PosLab's worker",
  url: 'blob:',
  error: null,
  foreign: false,
  violation: { directive: 'worker-src', blocked: 'blob' },
});

const isForeign = () => foreignOrigin(new URL(workerUrl, import.meta.url), window.location.origin) !== null;

function startWorker(name) {
  const url = new URL(workerUrl, import.meta.url);
  if (!isForeign()) return new Worker(url, { type: 'module', name });
  blobUrl ??= URL.createObjectURL(new Blob([blobWorkerSource(url.href)], { type: 'text/javascript' }));
  try {
    return new Worker(blobUrl, { type: 'module', name });
  } catch (cause) {
    // Chromium reports a refused worker as an error event (startFailure below); others throw.
    throw new Error(BLOB_REFUSED, { cause });
  }
}

export function figureCompute() {
  const id = ++figures;
  return {
    request(channel, job, params) {
      shared ??= createComputeClient(startWorker, {
        startFailure: isForeign() ? BLOB_REFUSED : undefined,
      });
      return shared.request(`${id}/${channel}`, job, params);
    },
  };
}

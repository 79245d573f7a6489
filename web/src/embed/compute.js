// One compute scheduler per page for every embedded figure on it, started on first use (the
// wasm loads only when a figure is about to be seen). Each figure gets its own channel
// namespace, and so its own worker: two figures must neither supersede nor wait for each other.
import { createComputeClient } from '../worker/client.js';

let shared = null;
let figures = 0;

export function figureCompute() {
  const id = ++figures;
  return {
    request(channel, job, params) {
      shared ??= createComputeClient(
        (name) => new Worker(new URL('../worker/compute.worker.js', import.meta.url), { type: 'module', name }),
      );
      return shared.request(`${id}/${channel}`, job, params);
    },
  };
}

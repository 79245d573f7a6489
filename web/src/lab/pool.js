// Runs training jobs on at most `size` workers at once, each job in a fresh worker (its own
// wasm instance), the rest queued in order. stop() ends the running workers and drops the
// queue; finished jobs are kept by their callers.

/** How many workers a page may run: the cores but one, at least one. */
export const poolSize = (cores = globalThis.navigator?.hardwareConcurrency ?? 2) => Math.max(1, (cores || 2) - 1);

/**
 * @param {{ size: number, makeWorker: () => Worker }} o
 */
export function createPool({ size, makeWorker }) {
  const queue = [];
  const running = new Set();
  let stopped = false;

  function next() {
    while (!stopped && running.size < size && queue.length) {
      const job = queue.shift();
      const worker = makeWorker();
      const entry = { worker, job };
      running.add(entry);
      const finish = (fn, value) => {
        running.delete(entry);
        worker.terminate();
        fn(value);
        next();
      };
      worker.onmessage = ({ data }) => {
        if (data.type === 'progress') job.onProgress?.(data);
        else if (data.type === 'done') finish(job.resolve, data);
        else if (data.type === 'error')
          finish(job.reject, Object.assign(new Error(data.message), { field: data.field }));
      };
      worker.onerror = (e) => finish(job.reject, new Error(e.message || 'the training worker failed'));
      job.onStart?.();
      worker.postMessage(job.message);
    }
  }

  return {
    /** Queues `message` for a worker; resolves with its 'done' message. */
    run(message, { onProgress, onStart } = {}) {
      return new Promise((resolve, reject) => {
        if (stopped) return reject(new Error('stopped'));
        queue.push({ message, onProgress, onStart, resolve, reject });
        next();
      });
    },
    /** Ends every running worker and the queue: their promises reject with 'stopped'. */
    stop() {
      stopped = true;
      for (const { worker, job } of running) {
        worker.terminate();
        job.reject(new Error('stopped'));
      }
      running.clear();
      for (const job of queue.splice(0)) job.reject(new Error('stopped'));
    },
    get running() {
      return running.size;
    },
    get queued() {
      return queue.length;
    },
  };
}

// Main-thread side of the compute worker. Each channel (one per view) has at most one job
// in flight and one waiting: while a slow job runs, newer requests replace the waiting one,
// so dragging a slider never queues up stale work. A job may report progress on the way
// (request's onProgress).

/**
 * @param {() => Worker} makeWorker
 * @param {{ onReady?: (info: any) => void, onFatal?: (message: string) => void }} [hooks]
 */
export function createComputeClient(makeWorker, hooks = {}) {
  const worker = makeWorker();
  const pending = new Map(); // id → { resolve, reject, onProgress }
  const channels = new Map(); // name → { busy, waiting: { job, params, onProgress, resolve, reject } | null }
  let nextId = 1;
  let fatal = null;

  worker.addEventListener('message', ({ data }) => {
    if (data.type === 'ready') return hooks.onReady?.(data);
    if (data.type === 'fatal') {
      fatal = data.message;
      hooks.onFatal?.(data.message);
      for (const p of pending.values()) p.reject(new Error(fatal));
      pending.clear();
      return;
    }
    const p = pending.get(data.id);
    if (!p) return;
    if (data.type === 'progress') return p.onProgress?.(data.data);
    pending.delete(data.id);
    if (data.type === 'result') p.resolve(data.result);
    else p.reject(new Error(data.message));
  });
  worker.addEventListener('error', (e) => {
    fatal = e.message || 'the compute worker failed to start';
    hooks.onFatal?.(fatal);
  });

  const post = (job, params, onProgress) =>
    new Promise((resolve, reject) => {
      if (fatal) return reject(new Error(fatal));
      const id = nextId++;
      pending.set(id, { resolve, reject, onProgress });
      worker.postMessage({ id, job, params });
    });

  /**
   * Runs `job` on `channel`. Resolves with the result, or with null when a newer request on
   * the same channel superseded this one before it was sent.
   * @param {{ onProgress?: (data: any) => void }} [opts] progress reports of this request
   */
  function request(channel, job, params, { onProgress } = {}) {
    let ch = channels.get(channel);
    if (!ch) channels.set(channel, (ch = { busy: false, waiting: null }));
    return new Promise((resolve, reject) => {
      if (ch.busy) {
        ch.waiting?.resolve(null);
        ch.waiting = { job, params, onProgress, resolve, reject };
        return;
      }
      run(ch, { job, params, onProgress, resolve, reject });
    });
  }

  function run(ch, task) {
    ch.busy = true;
    post(task.job, task.params, task.onProgress)
      .then(task.resolve, task.reject)
      .finally(() => {
        ch.busy = false;
        const next = ch.waiting;
        ch.waiting = null;
        if (next) run(ch, next);
      });
  }

  return { request };
}

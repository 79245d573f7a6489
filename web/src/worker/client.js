// Main-thread side of the compute workers: one scheduler for every view. Each channel (one
// per view) runs on a worker of its own, started on its first request, so a slow figure
// never holds another view's. A channel has at most one job running and one waiting: a newer
// request drops the waiting one, and cancels the running one by terminating the channel's
// worker (a fresh one starts) once that job has had `graceMs` to finish, so a slider drag
// over quick jobs still draws while a 30 s job is cut short. Cancelled and dropped requests
// resolve to null, never reject. Channels that name a shared worker (GPT-2: its model lives
// in the worker between jobs) all run on it and are never cancelled, only queued.

/**
 * @param {(name: string) => Worker} makeWorker a new worker for a channel (or a shared name)
 * @param {{ onReady?: (info: any) => void, onFatal?: (message: string) => void,
 *   graceMs?: number, sharedWorker?: (channel: string) => string | null, startFailure?: string }} [options]
 *   startFailure: what to say when a worker fails without a message of its own (a blocked or
 *   unreachable script reports none)
 */
const epochNow = () => performance.timeOrigin + performance.now();

export function createComputeClient(makeWorker, options = {}) {
  const {
    onReady,
    onFatal,
    graceMs = 1000,
    sharedWorker = () => null,
    startFailure = 'the compute worker failed to start',
  } = options;
  const workers = new Map(); // name → Worker, alive
  const channels = new Map(); // channel → { worker name, shared, running, waiting, timer }
  const running = new Map(); // job id → { task, ch }
  let nextId = 1;
  let fatal = null;

  function fail(message) {
    fatal = message;
    onFatal?.(message);
    const tasks = [...running.values()].map((r) => r.task);
    for (const ch of channels.values()) if (ch.waiting) tasks.push(ch.waiting);
    running.clear();
    for (const ch of channels.values()) {
      clearTimeout(ch.timer);
      Object.assign(ch, { running: null, waiting: null });
    }
    for (const task of tasks) task.reject(new Error(message));
  }

  function workerFor(name) {
    let worker = workers.get(name);
    if (worker) return worker;
    worker = makeWorker(name);
    workers.set(name, worker);
    worker.addEventListener('message', ({ data }) => {
      if (workers.get(name) !== worker) return; // terminated: its last words are ignored
      if (data.type === 'ready') return onReady?.(data);
      if (data.type === 'fatal') return fail(data.message);
      const r = running.get(data.id);
      if (!r) return;
      if (data.type === 'progress') return r.task.onProgress?.(data.data);
      running.delete(data.id);
      if (data.type === 'result') {
        // When the job was posted and its result arrived: the e2e timing's trips between threads.
        if (data.result?.timing)
          Object.assign(data.result.timing, { postedAt: r.task.postedAt, arrivedAt: epochNow() });
        r.task.resolve(data.result);
      } else r.task.reject(Object.assign(new Error(data.message), { field: data.field })); // field: which setting
      next(r.ch);
    });
    worker.addEventListener('error', (e) => {
      if (workers.get(name) === worker) fail(e.message || startFailure);
    });
    return worker;
  }

  function start(ch, task) {
    const id = nextId++;
    Object.assign(task, { id, startedAt: Date.now(), postedAt: epochNow() });
    ch.running = task;
    running.set(id, { task, ch });
    workerFor(ch.worker).postMessage({ id, job: task.job, params: task.params });
  }

  function next(ch) {
    clearTimeout(ch.timer);
    ch.running = null;
    const task = ch.waiting;
    ch.waiting = null;
    if (task) start(ch, task);
  }

  // The running job gives way: its worker goes (taking the job with it), the waiting one starts.
  function cancelRunning(ch) {
    running.delete(ch.running.id);
    ch.running.resolve(null);
    workers.get(ch.worker)?.terminate();
    workers.delete(ch.worker);
    next(ch);
  }

  function preemptLater(ch) {
    clearTimeout(ch.timer);
    const left = graceMs - (Date.now() - ch.running.startedAt);
    if (left <= 0) return cancelRunning(ch);
    ch.timer = setTimeout(() => ch.waiting && ch.running && cancelRunning(ch), left);
  }

  const sameJob = (a, b) => a.job === b.job && JSON.stringify(a.params) === JSON.stringify(b.params);

  /**
   * Runs `job` on `channel`. Resolves with the result, or with null when a newer request on
   * the same channel superseded this one (dropped while waiting, or cancelled while running).
   * @param {{ onProgress?: (data: any) => void }} [opts] progress reports of this request
   */
  function request(channel, job, params, { onProgress } = {}) {
    return new Promise((resolve, reject) => {
      if (fatal) return reject(new Error(fatal));
      let ch = channels.get(channel);
      if (!ch) {
        const shared = sharedWorker(channel);
        ch = { worker: shared ?? channel, shared: shared !== null, running: null, waiting: null, timer: 0 };
        channels.set(channel, ch);
      }
      const task = { job, params, onProgress, resolve, reject };
      ch.waiting?.resolve(null);
      ch.waiting = null;
      if (!ch.running) return start(ch, task);
      if (!ch.shared && sameJob(ch.running, task)) {
        // The same request again (a tab shown again): this one takes over the running job.
        const superseded = ch.running.resolve;
        Object.assign(ch.running, { resolve, reject, onProgress });
        clearTimeout(ch.timer);
        return superseded(null);
      }
      ch.waiting = task;
      if (!ch.shared) preemptLater(ch);
    });
  }

  return { request };
}

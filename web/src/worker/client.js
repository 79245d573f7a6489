// Main-thread side of the compute workers: one scheduler for every view. Each channel (one
// per view) runs on a worker of its own, started on its first request, so a slow figure
// never holds another view's. A channel has at most one job running and one waiting: a newer
// request drops the waiting one, and cancels the running one by terminating the channel's
// worker (a fresh one starts) once that job has had `graceMs` to finish, so a slider drag
// over quick jobs still draws while a 30 s job is cut short. Cancelled and dropped requests
// resolve to null, never reject; cancel(channel) ends a channel's jobs at once (a view's
// Cancel). Channels that name a shared worker (GPT-2: its model lives in the worker between
// jobs) all run on it and are never cancelled, only queued.
//
// With an `inline` runner (worker/inline.js), a request whose predicted time is under
// `inlineBudgetMs` runs on the main thread instead, in the caller's task, superseding the
// channel's waiting and running jobs as a newer request does: the prediction is the job's
// size (job-work.js) times the last measured time per unit of size of that job on that
// channel, so the first such request, and any job without a size, goes to the worker.

import { JOB_WORK } from './job-work.js';

/** A job predicted to take less than this runs inline (a third of a frame). */
export const INLINE_BUDGET_MS = 6;

/**
 * @param {(name: string) => Worker} makeWorker a new worker for a channel (or a shared name)
 * @param {{ onReady?: (info: any) => void, onFatal?: (message: string) => void,
 *   graceMs?: number, sharedWorker?: (channel: string) => string | null, startFailure?: string,
 *   inline?: ReturnType<typeof import('./inline.js').createInlineRunner>, inlineBudgetMs?: number,
 *   workOf?: (job: string, params: any) => number | undefined }} [options]
 *   startFailure: what to say when a worker fails without a message of its own (a blocked or
 *   unreachable script reports none); workOf: a job's size (default: JOB_WORK)
 */
export function createComputeClient(makeWorker, options = {}) {
  const {
    onReady,
    onFatal,
    graceMs = 1000,
    sharedWorker = () => null,
    startFailure = 'the compute worker failed to start',
    inline = null,
    inlineBudgetMs = INLINE_BUDGET_MS,
    workOf = (job, params) => JOB_WORK[job]?.(params),
  } = options;
  // This function is the policy (where a request runs, what it supersedes); createChannels is
  // the mechanism it drives (workers, running jobs, their grace and failure).
  const timer = createJobTimer(workOf);
  const channels = createChannels(makeWorker, {
    sharedWorker,
    graceMs,
    startFailure,
    onReady,
    onFatal,
    measured: timer.measured,
  });

  const runsInline = (channel, job, params) => {
    if (!inline || sharedWorker(channel) !== null) return false;
    const ms = timer.predict(channel, job, params);
    if (ms === undefined || ms > inlineBudgetMs) return false;
    if (inline.ready) return true;
    inline.warm(); // small enough: load the core here for the requests that follow
    return false;
  };

  // A job on the main thread supersedes the channel's jobs: the waiting one is dropped, the
  // running one resolves to null at once (its result, when it comes, is ignored) and its
  // worker is cut short after its grace, as a newer request would.
  function runInline(ch, task) {
    dropWaiting(ch);
    const old = ch.running;
    if (old) {
      const superseded = old.resolve;
      Object.assign(old, { resolve: () => {}, reject: () => {}, onProgress: undefined });
      superseded(null);
      channels.preemptLater(ch); // never a shared channel: those never run inline
    }
    let result;
    try {
      result = inline.run(task.job, task.params);
    } catch (e) {
      return task.reject(Object.assign(new Error(e?.message ?? String(e)), { field: e?.field }));
    }
    timer.measured(ch.name, task, result.timing.computeMs + result.timing.paintMs);
    task.resolve(result);
  }

  /**
   * Runs `job` on `channel`. Resolves with the result, or with null when a newer request on
   * the same channel superseded this one (dropped while waiting, or cancelled while running).
   * @param {{ onProgress?: (data: any) => void, inline?: boolean }} [opts] onProgress: progress
   *   reports of this request; inline: false keeps a small job off the main thread too
   *   (background work that no input waits for)
   */
  function request(channel, job, params, { onProgress, inline: mayInline = true } = {}) {
    return new Promise((resolve, reject) => {
      if (channels.fatal) return reject(new Error(channels.fatal));
      const ch = channels.open(channel);
      const task = { job, params, onProgress, resolve, reject };
      if (mayInline && runsInline(channel, job, params)) return runInline(ch, task);
      dropWaiting(ch);
      if (!ch.running) return channels.start(ch, task);
      if (!ch.shared && sameJob(ch.running, task)) {
        // The same request again (a tab shown again): this one takes over the running job.
        const superseded = ch.running.resolve;
        Object.assign(ch.running, { resolve, reject, onProgress });
        clearTimeout(ch.timer);
        return superseded(null);
      }
      ch.waiting = task;
      if (!ch.shared) channels.preemptLater(ch);
    });
  }

  /**
   * Cancels `channel`'s jobs at once (Cancel pressed): the waiting one is dropped and the
   * running one's worker ends, both resolving to null. A shared worker's job is never cut short.
   */
  function cancel(channel) {
    const ch = channels.get(channel);
    if (!ch) return;
    dropWaiting(ch);
    if (ch.running && !ch.shared) channels.cancelRunning(ch);
  }

  return { request, cancel };
}

/**
 * The channels and their workers: a job starts on its channel's worker, its messages settle it
 * and start the channel's waiting job, and a running job is cut short by ending its worker. A
 * worker's fatal error or failure to start fails every job of every channel, and every request
 * after it.
 */
function createChannels(makeWorker, { sharedWorker, graceMs, startFailure, onReady, onFatal, measured }) {
  const workers = new Map(); // name → Worker, alive
  const channels = new Map(); // channel → { name, worker name, shared, running, waiting, timer }
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

  // A job's message from its worker: progress, or its result or error, which ends it.
  function settle(data) {
    const r = running.get(data.id);
    if (!r) return;
    if (data.type === 'progress') return r.task.onProgress?.(data.data);
    running.delete(data.id);
    if (data.type === 'result') {
      const timing = data.result?.timing;
      if (timing) {
        // Posted → result taken, for the e2e timing's split (the worker's own time is in it).
        timing.roundTripMs = performance.now() - r.task.postedAt;
        measured(r.ch.name, r.task, timing.computeMs + timing.paintMs);
      }
      r.task.resolve(data.result);
    } else r.task.reject(Object.assign(new Error(data.message), { field: data.field })); // field: which setting
    next(r.ch);
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
      settle(data);
    });
    worker.addEventListener('error', (e) => {
      if (workers.get(name) === worker) fail(e.message || startFailure);
    });
    return worker;
  }

  function start(ch, task) {
    const id = nextId++;
    Object.assign(task, { id, startedAt: Date.now(), postedAt: performance.now() });
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

  // The running job is cut short once it has had its grace (unless it finishes first).
  function preemptLater(ch) {
    clearTimeout(ch.timer);
    const task = ch.running;
    const left = graceMs - (Date.now() - task.startedAt);
    if (left <= 0) return cancelRunning(ch);
    ch.timer = setTimeout(() => ch.running === task && cancelRunning(ch), left);
  }

  // A channel, made on its first request: on its own worker, or on the shared one it names.
  function open(name) {
    let ch = channels.get(name);
    if (!ch) {
      const shared = sharedWorker(name);
      ch = { name, worker: shared ?? name, shared: shared !== null, running: null, waiting: null, timer: 0 };
      channels.set(name, ch);
    }
    return ch;
  }

  return {
    open,
    get: (name) => channels.get(name),
    start,
    cancelRunning,
    preemptLater,
    /** The message of the failure that ended every channel, or null. */
    get fatal() {
      return fatal;
    },
  };
}

// Each channel's last measured time per unit of a job's size, which predicts the next such job.
function createJobTimer(workOf) {
  const msPerWork = new Map(); // "channel job" → the last such job's time per unit of its size
  return {
    /** Records that `task` took `ms` on `channel`. */
    measured(channel, task, ms) {
      const work = workOf(task.job, task.params);
      if (work > 0 && Number.isFinite(ms)) msPerWork.set(`${channel} ${task.job}`, ms / work);
    },
    /** How long `job` should take on `channel`: undefined for a job without a size or a rate. */
    predict(channel, job, params) {
      const work = workOf(job, params);
      const rate = msPerWork.get(`${channel} ${job}`);
      return work > 0 && rate !== undefined ? rate * work : undefined;
    },
  };
}

// A newer request drops the waiting one, which resolves to null.
function dropWaiting(ch) {
  ch.waiting?.resolve(null);
  ch.waiting = null;
}

const sameJob = (a, b) => a.job === b.job && JSON.stringify(a.params) === JSON.stringify(b.params);

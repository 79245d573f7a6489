// Small jobs on the main thread. After a key press or a click, Chromium holds a page's other
// tasks (a worker's message among them) until the next frame is drawn
// (DeferRendererTasksAfterInput), so a worker's result lands a frame late whenever that frame
// comes before the result, about one step in three at L = D = 512 on two cores. A job that
// takes a few milliseconds runs here instead, in the input's own task, and its pixels are in
// the first frame after the input. The core loads here only once a control has asked for
// such a job (worker/client.js decides which jobs are small: job-work.js and the measured rate).

/**
 * @param {() => Promise<{ lab: any, run: (lab: any, job: string, params: any) => any }>} [load]
 *   the core and the runner (the default loads them from inline-core.js, a chunk of its own)
 */
export function createInlineRunner(load = () => import('./inline-core.js').then((m) => m.loadInlineCore())) {
  let core = null;
  let loading = null;
  return {
    get ready() {
      return core !== null;
    },
    /** Starts loading the core here, once; a failure leaves every job to the worker. */
    warm() {
      loading ??= load().then(
        (c) => (core = c),
        () => {}, // the worker still runs everything; its own load reports real failures
      );
      return loading;
    },
    /** Runs `job` and colours its heatmaps, synchronously; throws the job's errors. */
    run(job, params) {
      return core.run(core.lab, job, params);
    },
  };
}

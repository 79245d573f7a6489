// Training a setting's runs for the Length generalisation view: the executor its update cycle
// runs Train on (views/kit.js), which puts each run on the worker pool (pool.js), reports every
// run's start, losses and end as progress, keeps finished runs in this browser (cache.js) and on
// Stop resolves with what finished; and a plan's kept runs, restored without training.
import { getRun, putRun } from './cache.js';
import { createPool, poolSize } from './pool.js';

/** The test lengths whose attention maps a run keeps: just past N, 2N and 4N. */
export const attentionLengths = (N) => [...new Set([N + 1, 2 * N, 4 * N])];

/**
 * The runs of `plan` kept in this browser, by id ({ result, attention, checkpoint }, with
 * workerSeconds 0: not trained now). A run kept before results carried the core's metrics is
 * trained again rather than shown without them. A run with `cacheKey` is kept under it instead
 * of its config (the text experiment's: the config without its text's bytes).
 * @param {{ id: string, config: Record<string, any>, cacheKey?: Record<string, any> }[]} plan
 */
export async function restoreRuns(plan) {
  const kept = await Promise.all(plan.map((r) => getRun(r.cacheKey ?? r.config)));
  return new Map(plan.flatMap((r, i) => (kept[i]?.result?.metrics ? [[r.id, { ...kept[i], workerSeconds: 0 }]] : [])));
}

/**
 * An executor (views/kit.js) whose job is `{ runs, N }`: trains each run in a worker of its own
 * (a run's `text`, the text task's bytes, goes beside its config; such runs keep no attention maps),
 * `size` at a time. Progress: { phase: 'start' | 'losses' | 'finished' | 'failed', id, losses?,
 * run?, message?, field?, finished, total, running, queued, seconds }. Resolves with { finished,
 * total, seconds, stopped }, `partial` (Train has more to do) when a run was stopped or failed.
 * @param {{ makeWorker?: () => Worker, size?: number }} [o] a worker of train.worker.js, and
 *   how many at once (the cores but one)
 * @returns {import('../views/kit.js').Executor}
 */
export function createTrainingExecutor({
  makeWorker = () => new Worker(new URL('../worker/train.worker.js', import.meta.url), { type: 'module' }),
  size = poolSize(),
} = {}) {
  let pool = null;
  return {
    async run(_job, { runs, N }, { onProgress }) {
      const mine = createPool({ size, makeWorker });
      pool = mine;
      const started = performance.now();
      let finished = 0;
      const counts = () => ({
        finished,
        total: runs.length,
        running: mine.running,
        queued: mine.queued,
        seconds: (performance.now() - started) / 1000,
      });
      const train = (r) =>
        mine
          .run(
            r.text ? { config: r.config, text: r.text } : { config: r.config, attentionLengths: attentionLengths(N) },
            {
              onStart: () => onProgress({ phase: 'start', id: r.id, ...counts() }),
              onProgress: (m) => onProgress({ phase: 'losses', id: r.id, losses: m.losses, ...counts() }),
            },
          )
          .then(
            async (m) => {
              const run = {
                result: m.result,
                attention: m.attention,
                checkpoint: m.checkpoint,
                workerSeconds: m.workerSeconds,
              };
              finished++;
              await putRun(r.cacheKey ?? r.config, run);
              onProgress({ phase: 'finished', id: r.id, run, ...counts() });
            },
            (e) => {
              if (e.message === 'stopped') return;
              onProgress({ phase: 'failed', id: r.id, message: e.message, field: e.field, ...counts() });
            },
          );
      await Promise.all(runs.map(train));
      if (pool === mine) pool = null;
      const stopped = finished < runs.length;
      return { finished, total: runs.length, seconds: (performance.now() - started) / 1000, stopped, partial: stopped };
    },
    cancel() {
      pool?.stop();
    },
  };
}

/** A view's runs of its setting: the finished ones and every run's loss curve so far, by id. */
export const createRunState = () => ({ done: new Map(), curves: new Map(), failures: [] });

/** Empties `state`, then keeps `runs` (id → restored run) as finished. */
export function restoreInto(state, runs = new Map()) {
  state.done.clear();
  state.curves.clear();
  for (const [id, run] of runs) {
    state.done.set(id, run);
    state.curves.set(id, run.result.loss_curve);
  }
}

/**
 * One progress message of the training executor into `state`: the losses so far, a finished
 * run, or a failure said as '<label>: <message>'. Returns the message's phase.
 */
export function applyProgress(state, m, label) {
  if (m.phase === 'losses') {
    const c = state.curves.get(m.id) ?? [];
    c.push(...m.losses);
    state.curves.set(m.id, c);
  } else if (m.phase === 'finished') {
    state.done.set(m.id, m.run);
    state.curves.set(m.id, m.run.result.loss_curve);
  } else if (m.phase === 'failed') {
    state.failures.push(`${label}: ${m.message}`);
  }
  return m.phase;
}

/** The progress line of a training in flight. */
export const trainingLine = (c) =>
  `Training: ${c.finished} of ${c.total} finished, ${c.running} running, ${c.queued} queued (${c.seconds.toFixed(0)} s).`;

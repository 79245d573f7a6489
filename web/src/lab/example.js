// The view's example before a visitor has runs of their own: the Quick preset trained by the
// native CLI (example/README.md says how it was made). Loaded on first use, as its own chunk;
// its runs carry no attention maps and no checkpoint (the CLI writes neither into result.json).
import { QUICK_SETTINGS, runPlan } from './presets.js';

const FILES = {
  learned: () => import('./example/learned.json'),
  rope: () => import('./example/rope.json'),
  alibi: () => import('./example/alibi.json'),
  none: () => import('./example/none.json'),
};

let loading = null;

/**
 * The example: the Quick preset's settings, its plan and each run by id ({ result, attention:
 * [], checkpoint: null, seconds: the CLI's wall time }).
 * @returns {Promise<{ settings: typeof QUICK_SETTINGS, plan: ReturnType<typeof runPlan>, runs: Map<string, any> }>}
 */
export function loadExample() {
  loading ??= (async () => {
    const plan = runPlan(QUICK_SETTINGS);
    const results = await Promise.all(plan.map((r) => FILES[r.id]().then((m) => m.default)));
    const runs = new Map(
      plan.map((r, i) => [
        r.id,
        { result: results[i], attention: [], checkpoint: null, nativeSeconds: results[i].wall_time_s },
      ]),
    );
    return { settings: QUICK_SETTINGS, plan, runs };
  })();
  return loading;
}

/** The command line that trained an example run of config `c` (a runPlan config; example/README.md). */
export const exampleCommand = (c) =>
  `poslab train --task ${c.task} --position ${c.position} --train-len ${c.trainLen} --layers ${c.layers} ` +
  `--width ${c.width} --heads ${c.heads} --steps ${c.steps} --embed-scale ${c.embedScale} --seed ${c.seed}`;

// The view's example before a visitor has runs of their own: the Quick preset trained by the
// native CLI, every seed of a method in one result.json (`--seeds`: its `runs`;
// example/README.md says how it was made). Loaded on first use, as its own chunk; its runs carry
// no attention maps and no checkpoint (the CLI writes neither into result.json).
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
    const methods = [...new Set(plan.map((r) => r.method))];
    const files = new Map(await Promise.all(methods.map((m) => FILES[m]().then((module) => [m, module.default]))));
    const runs = new Map(
      plan.map((r) => {
        const result = files.get(r.method).runs[r.seed - QUICK_SETTINGS.seed];
        return [r.id, { result, attention: [], checkpoint: null, nativeSeconds: result.wall_time_s }];
      }),
    );
    return { settings: QUICK_SETTINGS, plan, runs };
  })();
  return loading;
}

/**
 * The command line that trained the example's run of config `c` (a runPlan config;
 * example/README.md), or with `seeds` > 1 the method's runs from seed c.seed on.
 */
export const exampleCommand = (c, seeds = 1) =>
  `poslab train --task ${c.task} --position ${c.position} --train-len ${c.trainLen} --layers ${c.layers} ` +
  `--width ${c.width} --heads ${c.heads} --steps ${c.steps} --embed-scale ${c.embedScale} --seed ${c.seed}` +
  (seeds > 1 ? ` --seeds ${seeds}` : '') +
  attentionFlags(c);

/** The CLI flags of a run's attention options (lab/presets.js attentionOptions). */
export const attentionFlags = (c) =>
  (c.sinks ? ' --sinks' : '') +
  (c.nopeEvery ? ` --nope-every ${c.nopeEvery}` : '') +
  (c.attnFloorScale ? ` --attn-temperature ${c.attnFloorScale},${c.attnScale}` : '');

/**
 * The command line that trains the settings p's first method natively, as the view does
 * (runPlan: its N, model size, steps, embedding scale and seeds), or '' when no method is picked.
 */
export function settingsCommand(p) {
  const first = runPlan(p)[0];
  return first ? exampleCommand(first.config, p.seeds) : '';
}

// The Length generalisation view's restore: the runs of a setting kept in this browser's
// IndexedDB (lab/runs.js restoreRuns), and the bundled example, loaded once, that the figures
// show until one's own runs exist.
import { loadExample } from '../../lab/example.js';
import { runPlan } from '../../lab/presets.js';
import { restoreRuns } from '../../lab/runs.js';

/**
 * The settings' plan and the runs of it already cached; `example` is the example loaded so far
 * (null until then): the result carries it, loaded if it was not.
 */
export async function restorePlan(settings, example) {
  const plan = runPlan(settings);
  const [runs, loaded] = await Promise.all([restoreRuns(plan), example ?? loadExample().catch(() => null)]);
  return { plan, runs, settings, example: loaded, partial: runs.size < plan.length };
}

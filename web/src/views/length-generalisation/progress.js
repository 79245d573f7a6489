// The Length generalisation view's progress line beyond a run's own messages (lab-layout.js's
// trainingReports): a preset's move of the settings, said once, and what a restore found.
import { poolSize } from '../../lab/pool.js';

/** What the progress line says after a restore: the runs cached and what Train would add. */
export function restoredText(plan, done) {
  const missing = plan.length - done.size;
  if (!missing) return `All ${plan.length} runs restored from this browser's cache.`;
  const steps = plan
    .filter((r) => !done.has(r.id))
    .map((r) => r.config.steps)
    .reduce((a, b) => a + b, 0);
  return (
    `${done.size} of ${plan.length} runs cached; press Train for the other ${missing} ` +
    `(${steps} steps in all, ${poolSize()} at a time).`
  );
}

/** The line's own state: `preset(name)` is said before the next restore's text, once. */
export function createProgress(line) {
  let presetSaid = '';
  return {
    preset(name) {
      presetSaid = `${name} preset set (see the settings). `;
    },
    restored(plan, done) {
      line.textContent = presetSaid + restoredText(plan, done);
      presetSaid = '';
    },
  };
}

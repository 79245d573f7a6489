// web/src/state/train-defaults.js is the core's table of the lab's defaults as the built training
// module gives it (`npm run generate` writes it), and the page's presets use it: a
// setting's runs train for the task's steps at each method's embedding scale unless the
// settings give one for all.
import { describe, expect, it } from 'vitest';
import { loadTrainLab } from './helpers/lab.js';
import { runPlan } from '../../web/src/lab/presets.js';
import { EMBED_SCALE_BY_METHOD, STEPS_BY_TASK } from '../../web/src/state/train-defaults.js';

describe('the lab defaults table', () => {
  it('TrainDefaults.TheGeneratedModuleIsTheCoresTable', async () => {
    const { defaults, names } = await loadTrainLab();
    expect(STEPS_BY_TASK).toEqual(defaults.stepsByTask);
    expect(EMBED_SCALE_BY_METHOD).toEqual(defaults.embedScaleByMethod);
    expect(Object.keys(STEPS_BY_TASK)).toEqual(names.tasks);
    expect(Object.keys(EMBED_SCALE_BY_METHOD)).toEqual(names.positions);
  });

  it('TrainDefaults.RunsTakeTheTasksStepsAndEachMethodsScale', () => {
    const setting = { task: 'reverse', N: 4, size: 'small', methods: ['sinusoidal', 'rope'], steps: 0, seed: 0 };
    const [sinusoidal, rope] = runPlan({ ...setting, embedScale: 0 });
    expect(sinusoidal.config).toMatchObject({
      steps: STEPS_BY_TASK.reverse,
      embedScale: EMBED_SCALE_BY_METHOD.sinusoidal,
    });
    expect(rope.config.embedScale).toBe(EMBED_SCALE_BY_METHOD.rope);
    expect(EMBED_SCALE_BY_METHOD.sinusoidal).not.toBe(EMBED_SCALE_BY_METHOD.rope);
    // One scale for every method when the settings give one.
    expect(runPlan({ ...setting, embedScale: 6 }).map((r) => r.config.embedScale)).toEqual([6, 6]);
  });
});

// The Length generalisation view's example (web/src/lab/example/, made by scripts/lab-example.sh)
// is what it says: the Quick preset's runs as the native CLI wrote them — each file's config is
// the view's runPlan of QUICK_SETTINGS, option by option, trained to the end — and every method
// in it trained (the preset's promise), so the example ranks them.
import { describe, expect, it } from 'vitest';
import { exampleCommand, loadExample } from '../../web/src/lab/example.js';
import { QUICK_SETTINGS, runPlan } from '../../web/src/lab/presets.js';
import { summarise } from '../../web/src/lab/ranking.js';

describe('lab example', () => {
  it('LabExample.IsTheQuickPresetTrainedByTheCli', async () => {
    const { plan, runs, settings } = await loadExample();
    expect(settings).toBe(QUICK_SETTINGS);
    expect(plan).toEqual(runPlan(QUICK_SETTINGS));
    for (const r of plan) {
      const { result } = runs.get(r.id);
      const c = r.config;
      expect(result.config, r.id).toMatchObject({
        task: c.task,
        position: c.position,
        randomized_positions: 0,
        train_len: c.trainLen,
        test_len: c.testLen,
        layers: c.layers,
        width: c.width,
        heads: c.heads,
        steps: c.steps,
        seed: c.seed,
        embed_scale: c.embedScale,
      });
      expect(result.steps_done).toBe(c.steps);
      expect(result.loss_curve).toHaveLength(c.steps);
      expect(Object.keys(result.accuracy_by_length)).toHaveLength(c.testLen);
      expect(summarise(result, QUICK_SETTINGS.N).trained, r.id).toBe(true);
      expect(runs.get(r.id).nativeSeconds).toBe(result.wall_time_s);
      expect(exampleCommand(c)).toBe(
        `poslab train --task copy --position ${c.position} --train-len 5 --layers 2 --width 64 --heads 4 ` +
          '--steps 800 --embed-scale 4 --seed 0',
      );
    }
  });
});

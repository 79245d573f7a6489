// The Length generalisation view's example (web/src/lab/example/, made by scripts/lab-example.sh)
// is what it says: the Quick preset's runs as the native CLI wrote them (`--seeds`: one file per
// method, its seeds under `runs`) — each run's config is the view's runPlan of QUICK_SETTINGS,
// option by option, trained to the end, and its metrics and the file's summary the core's —
// and every method in it trained (the preset's promise), so the example ranks them.
import { describe, expect, it } from 'vitest';
import { exampleCommand, loadExample } from '../../web/src/lab/example.js';
import { QUICK_SETTINGS, runPlan } from '../../web/src/lab/presets.js';
import { byMethod } from '../../web/src/lab/ranking.js';

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
      expect(Object.keys(result.metrics)).toHaveLength(4);
      expect(runs.get(r.id).nativeSeconds).toBe(result.wall_time_s);
      expect(exampleCommand(c)).toBe(
        `poslab train --task copy --position ${c.position} --train-len 5 --layers 2 --width 64 --heads 4 ` +
          `--steps 1000 --embed-scale 4 --seed ${r.seed}`,
      );
    }
    expect(plan.map((r) => r.seed)).toEqual([0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2]);
    // Every method trained over its seeds (mean in-distribution exact match ≥ 0.9), and the
    // view's summary of the runs is the CLI's.
    const rows = plan.map((r) => ({ ...r, run: runs.get(r.id) }));
    const files = await Promise.all(
      ['learned', 'rope', 'alibi', 'none'].map((m) => import(`../../web/src/lab/example/${m}.json`)),
    );
    byMethod(rows).forEach((g, i) => {
      expect(g.trained, g.id).toBe(true);
      for (const [key, s] of Object.entries(g.metrics)) {
        const cli = files[i].default.summary[key];
        expect(s.values, `${g.id} ${key}`).toEqual(cli.values);
        expect(s.mean).toBeCloseTo(cli.mean, 14);
        expect(s.sd).toBeCloseTo(cli.sd, 14);
      }
    });
    expect(exampleCommand(plan[0].config, 3)).toMatch(/--seed 0 --seeds 3$/);
  });
});

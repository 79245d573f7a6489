// The Length generalisation view's pure parts: what a setting trains (presets), how a finished
// run is read (did-not-train first, then the ranking past N), and the worker pool's
// scheduling (at most `size` at once, the rest queued in order, Stop drops them).
import { describe, expect, it } from 'vitest';
import { createPool, poolSize } from '../../web/src/lab/pool.js';
import {
  BUDGETS,
  EVERY_METHOD,
  FULL,
  FULL_SETTINGS,
  QUICK_SETTINGS,
  randomMax,
  runPlan,
  sequenceLength,
} from '../../web/src/lab/presets.js';
import { rank, summarise, tokenAccuracyBeyond } from '../../web/src/lab/ranking.js';
import { createTrainingExecutor } from '../../web/src/lab/runs.js';
import { defaults, SCHEMA } from '../../web/src/state/registry.js';
import { parseHash, serialiseHash } from '../../web/src/state/url.js';

const setting = (over = {}) => ({
  task: 'copy',
  N: 8,
  size: 'default',
  methods: EVERY_METHOD,
  steps: 0,
  seed: 3,
  embedScale: 4,
  ...over,
});

describe('lab presets', () => {
  it('Lab.EveryTrainerMethodOnTheTasksBudget', () => {
    const plan = runPlan(setting());
    expect(plan.map((r) => r.config.position)).toEqual([
      'learned',
      'sinusoidal',
      'rope',
      'xpos',
      'alibi',
      't5',
      'fire',
      'none',
    ]);
    for (const r of plan) {
      expect(r.config).toMatchObject({
        task: 'copy',
        trainLen: 8,
        testLen: 32,
        layers: 2,
        width: 64,
        heads: 4,
        seed: 3,
        embedScale: 4,
      });
      expect(r.config.steps).toBe(BUDGETS.copy);
      expect(r.config.randomizedPositions).toBeUndefined();
    }
  });

  it('Lab.FullPresetAddsRandomisedRopeWithItsOwnBudgetAndRoom', () => {
    const plan = runPlan(setting({ methods: FULL, task: 'addition', N: 5 }));
    const random = plan.find((r) => r.id === 'rope-random');
    expect(random.config.steps).toBe(3 * BUDGETS.addition);
    expect(random.config.randomizedPositions).toBeGreaterThanOrEqual(2 * sequenceLength('addition', 20));
    expect(randomMax('copy', 32)).toBe(256); // 2 × 67 → the next power of two from 128
    expect(runPlan(setting({ steps: 50 }))[0].config.steps).toBe(50);
    expect(runPlan(setting({ size: 'small' }))[0].config).toMatchObject({ layers: 1, width: 32, heads: 2 });
  });

  it('Lab.PresetsAreValidSettingsAndTheQuickOneMovesTheDefaults', () => {
    for (const preset of [QUICK_SETTINGS, FULL_SETTINGS]) {
      for (const [key, value] of Object.entries(preset)) {
        const text = Array.isArray(value) ? value.join(',') : String(value);
        expect(SCHEMA[`lg.${key}`].parse(text), key).toMatchObject({ ok: true, value });
      }
    }
    // Pressing Quick visibly changes the settings that open by default.
    const moved = Object.keys(QUICK_SETTINGS).filter(
      (k) => JSON.stringify(defaults()[`lg.${k}`]) !== JSON.stringify(QUICK_SETTINGS[k]),
    );
    expect(moved).toEqual(expect.arrayContaining(['N', 'methods', 'steps']));
    // Quick: four methods, 800 steps each, at most a quarter of the default's steps.
    const quick = runPlan(QUICK_SETTINGS);
    const steps = (plan) => plan.reduce((sum, r) => sum + r.config.steps, 0);
    expect(quick.map((r) => r.config.steps)).toEqual([800, 800, 800, 800]);
    expect(steps(quick)).toBeLessThanOrEqual(steps(runPlan({ ...setting(), seed: 0 })) / 4);
  });

  it('Lab.MethodsTravelInTheLink', () => {
    const state = { ...defaults(), view: 'length-generalisation', 'lg.methods': ['rope', 'rope-random'] };
    expect(parseHash(`#${serialiseHash(state)}`).state['lg.methods']).toEqual(['rope', 'rope-random']);
    expect(SCHEMA['lg.methods'].parse('rope,spiral').ok).toBe(false);
    expect(SCHEMA['lg.methods'].parse('rope,rope').ok).toBe(false);
    expect(SCHEMA['lg.methods'].parse('').ok).toBe(false);
  });
});

// A result over lengths 1..4 trained on 1..2: exact match by length, then each length's token
// accuracy by answer position.
const result = (exact, ...tokens) => ({
  accuracy_by_length: Object.fromEntries(exact.map((a, i) => [String(i + 1), a])),
  token_accuracy_by_position: Object.fromEntries(tokens.map((t, i) => [String(i + 1), t])),
});

describe('lab ranking', () => {
  it('Lab.UntrainedMethodsAreNeverRankedOnGeneralisation', () => {
    const good = summarise(result([1, 1, 0, 0], [1, 1], [1, 1, 1], [1, 0.5, 0, 0], [1, 0.5, 0.5, 0, 0]), 2);
    expect(good).toMatchObject({ inDistribution: 1, trained: true, exactBeyond: 0 });
    expect(good.tokenBeyond).toBeCloseTo((0.375 + 0.4) / 2, 12);
    const poor = summarise(result([0.2, 0.1, 0, 0], [1, 1], [1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1, 1]), 2);
    expect(poor.trained).toBe(false);
    const better = { ...good, tokenBeyond: 0.9 };
    const order = rank([
      { id: 'a', summary: poor },
      { id: 'b', summary: good },
      { id: 'c', summary: better },
    ]);
    expect(order.map((r) => r.id)).toEqual(['c', 'b', 'a']); // the untrained one last, whatever its tokens
  });

  it('Lab.TokenAccuracyPastNAveragesTheLengthsThatHaveEachPosition', () => {
    const r = result([1, 1, 0, 0], [1, 1], [1, 1, 1], [1, 0.5, 0, 0], [0, 0.5, 0.5, 1, 0]);
    expect(tokenAccuracyBeyond(r, 2)).toEqual([0.5, 0.5, 0.25, 0.5, 0]); // position 4: length 4 only
  });
});

describe('lab worker pool', () => {
  // A fake worker: answers 'done' when told to by the test.
  function fakeWorkers() {
    const made = [];
    const makeWorker = () => {
      const w = {
        terminated: false,
        posted: null,
        terminate: () => (w.terminated = true),
        postMessage: (m) => (w.posted = m),
      };
      made.push(w);
      return w;
    };
    return { made, makeWorker };
  }

  it('Lab.PoolRunsAtMostSizeAndQueuesTheRestInOrder', async () => {
    const { made, makeWorker } = fakeWorkers();
    const pool = createPool({ size: 2, makeWorker });
    const results = [1, 2, 3].map((n) => pool.run({ n }));
    expect(made.length).toBe(2);
    expect(pool.queued).toBe(1);
    made[1].onmessage({ data: { type: 'progress', step: 1 } });
    made[1].onmessage({ data: { type: 'done', n: 2 } });
    expect(await results[1]).toEqual({ type: 'done', n: 2 });
    expect(made[1].terminated).toBe(true);
    expect(made.length).toBe(3);
    expect(made[2].posted).toEqual({ n: 3 });
    made[0].onmessage({ data: { type: 'error', message: 'bad', field: 'heads' } });
    await expect(results[0]).rejects.toMatchObject({ message: 'bad', field: 'heads' });
    pool.stop();
    await expect(results[2]).rejects.toThrow('stopped');
    expect(made[2].terminated).toBe(true);
    await expect(pool.run({ n: 4 })).rejects.toThrow('stopped');
  });

  it('Lab.TrainingExecutorReportsEachRunAndStopKeepsWhatFinished', async () => {
    const { made, makeWorker } = fakeWorkers();
    const exec = createTrainingExecutor({ makeWorker, size: 1 });
    const plan = runPlan(setting({ methods: ['rope', 'alibi'], N: 4, steps: 10 }));
    const events = [];
    const running = exec.run('train', { runs: plan, N: 4 }, { onProgress: (m) => events.push(m) });
    expect(made).toHaveLength(1); // one at a time
    expect(made[0].posted).toEqual({ config: plan[0].config, attentionLengths: [5, 8, 16] });
    made[0].onmessage({ data: { type: 'progress', losses: [[0, 2.5]] } });
    const result = { loss_curve: [[0, 2.5]], accuracy_by_length: [] };
    made[0].onmessage({ data: { type: 'done', result, attention: [], checkpoint: null, workerSeconds: 1 } });
    await new Promise((r) => setTimeout(r, 0));
    expect(made).toHaveLength(2); // the next run started
    exec.cancel(); // Stop
    const end = await running;
    expect(end).toMatchObject({ finished: 1, total: 2, stopped: true, partial: true });
    expect(events.map((m) => [m.phase, m.id])).toEqual([
      ['start', 'rope'],
      ['losses', 'rope'],
      ['start', 'alibi'],
      ['finished', 'rope'],
    ]);
    expect(events[1].losses).toEqual([[0, 2.5]]);
    expect(events[3]).toMatchObject({ finished: 1, total: 2, running: 1, queued: 0 });
    expect(events[3].run.result).toBe(result);
    expect(made[1].terminated).toBe(true);
  });

  it('Lab.TrainingExecutorReportsAFailedRunAndTrainsTheOthers', async () => {
    const { made, makeWorker } = fakeWorkers();
    const exec = createTrainingExecutor({ makeWorker, size: 2 });
    const plan = runPlan(setting({ methods: ['rope', 'alibi'], N: 4, steps: 10 }));
    const events = [];
    const running = exec.run('train', { runs: plan, N: 4 }, { onProgress: (m) => events.push(m) });
    made[0].onmessage({ data: { type: 'error', message: 'steps must be positive', field: 'steps' } });
    made[1].onmessage({ data: { type: 'done', result: {}, attention: [], checkpoint: null, workerSeconds: 1 } });
    expect(await running).toMatchObject({ finished: 1, total: 2, stopped: true, partial: true });
    expect(events.find((m) => m.phase === 'failed')).toMatchObject({
      id: 'rope',
      message: 'steps must be positive',
      field: 'steps',
    });
  });

  it('Lab.PoolSizeIsTheCoresButOne', () => {
    expect(poolSize(8)).toBe(7);
    expect(poolSize(2)).toBe(1);
    expect(poolSize(1)).toBe(1);
  });
});

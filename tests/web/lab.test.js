// The Length generalisation view's pure parts: what a setting trains (presets), how a finished
// run is read (did-not-train first, then the ranking past N), and the worker pool's
// scheduling (at most `size` at once, the rest queued in order, Stop drops them).
import { describe, expect, it } from 'vitest';
import { createPool, poolSize } from '../../web/src/lab/pool.js';
import {
  BUDGETS,
  coupledMax,
  EVERY_METHOD,
  SEEDS,
  FULL_SETTINGS,
  QUICK_SETTINGS,
  randomMax,
  runPlan,
  sequenceLength,
  SIZES,
} from '../../web/src/lab/presets.js';
import { exampleCommand } from '../../web/src/lab/example.js';
import {
  byMethod,
  controlPairs,
  meanLossCurve,
  orderText,
  rank,
  ranksAbove,
  summary,
  TRAINED,
  tokenAccuracyBeyond,
} from '../../web/src/lab/ranking.js';
import { createTrainingExecutor } from '../../web/src/lab/runs.js';
import { COUPLED_METHODS, TRAINER_METHODS, takesRandomized } from '../../web/src/state/methods.js';
import { LAB_LAYERS, refusal } from '../../web/src/state/combinations.js';
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
    expect(plan.map((r) => r.config.position)).toEqual(TRAINER_METHODS); // the core's table order
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

  it('Lab.FullPresetPairsEveryRandomisedMethodWithItsPlainControl', () => {
    const plan = runPlan({ ...FULL_SETTINGS, task: 'addition', N: 5, seed: 0 });
    const methods = [...new Set(plan.map((r) => r.method))];
    const plain = TRAINER_METHODS;
    // NoPE, CoPE and FoX read no positions, Abacus computes its own: plain only.
    const randomised = plain.filter((m) => !['none', 'cope', 'fox', 'abacus'].includes(m));
    expect(randomised).toEqual(plain.filter(takesRandomized));
    expect(methods).toEqual([...plain, ...randomised.map((m) => `${m}-random`)]);
    expect(plan).toHaveLength((plain.length + randomised.length) * 3);
    for (const r of plan) {
      // Randomised or not, the task's budget and the 4-layer model: the plain run is the control.
      expect(r.config).toMatchObject({ steps: BUDGETS.addition, layers: 4, width: 64, heads: 4 });
      expect(r.config.position).toBe(r.method.replace(/-random$/, ''));
      if (r.method.endsWith('-random')) {
        expect(r.config.randomizedPositions).toBeGreaterThanOrEqual(2 * sequenceLength('addition', 20));
      } else expect(r.config.randomizedPositions).toBeUndefined();
    }
    expect(randomMax('copy', 32)).toBe(256); // 2 × 67 → the next power of two from 128
    expect(runPlan(setting({ steps: 50 }))[0].config.steps).toBe(50);
    expect(runPlan(setting({ size: 'small' }))[0].config).toMatchObject({ layers: 1, width: 32, heads: 2 });
  });

  // Position coupling (Cho et al. 2024) on addition: the methods the core's table lets read
  // positions in any order, plain only, each with MAX room for its longest test sequence; on
  // another task the box changes nothing.
  it('Lab.CoupledAdditionTrainsTheMethodsThatTakeCoupling', () => {
    const full = { ...FULL_SETTINGS, task: 'addition', N: 5, seed: 0, seeds: 1 };
    const plan = runPlan({ ...full, coupled: true });
    expect(plan.map((r) => r.method)).toEqual(['learned', 'sinusoidal', 'rope', 'p-rope', 'alibi', 't5', 'kerple']);
    expect(plan.map((r) => r.method)).toEqual(COUPLED_METHODS);
    for (const r of plan) {
      expect(r.config.coupledPositions).toBe(32); // BOS, the start and the sum's 21 digits: 23 → 32
      expect(r.config.randomizedPositions).toBeUndefined();
    }
    expect(coupledMax(32)).toBe(64);
    expect(coupledMax(29)).toBe(32);
    expect(coupledMax(30)).toBe(64); // 30 + 3 > 32
    expect(runPlan({ ...full, coupled: false }).every((r) => r.config.coupledPositions === undefined)).toBe(true);
    expect(runPlan({ ...full, task: 'copy', coupled: true })).toHaveLength(
      TRAINER_METHODS.length + TRAINER_METHODS.filter(takesRandomized).length,
    );
    expect(SCHEMA['lg.coupled'].parse('true')).toMatchObject({ ok: true, value: true });
  });

  // Zero-padded operands (Lee et al. 2023) on addition, every method, on by default; on another
  // task, or unticked, no run's configuration says padOperands (its cache key is as before).
  it('Lab.PaddedAdditionPadsEveryRunAndOnlyAddition', () => {
    const full = { ...FULL_SETTINGS, task: 'addition', N: 5, seed: 0, seeds: 1 };
    expect(SCHEMA['lg.pad'].def).toBe(true);
    const padded = runPlan({ ...full, pad: true });
    expect(padded).toHaveLength(runPlan({ ...full, pad: false }).length);
    expect(padded.every((r) => r.config.padOperands === true)).toBe(true);
    expect(runPlan({ ...full, pad: false }).every((r) => !('padOperands' in r.config))).toBe(true);
    expect(runPlan({ ...full, task: 'copy', pad: true }).every((r) => !('padOperands' in r.config))).toBe(true);
  });

  // Issue 50: sinks on every run, NoPE layers (and Llama 4's temperature on them) on the
  // rotations only; none of them changes a run's configuration when it is off (the cache keys
  // runs by it), and the command line says each.
  it('Lab.AttentionOptionsReachTheRunsThatTakeThem', () => {
    const base = { ...FULL_SETTINGS, task: 'copy', N: 5, seed: 0, seeds: 1, size: 'default' };
    const off = runPlan(base);
    expect(runPlan({ ...base, sinks: false, nopeEvery: 0, attnFloor: 0, attnScale: 0.1 })).toEqual(off);
    const on = runPlan({ ...base, sinks: true, nopeEvery: 2, attnFloor: 8, attnScale: 0.1 });
    for (const r of on) {
      expect(r.config.sinks, r.id).toBe(true);
      const rotates = ['rope', 'p-rope', 'xpos'].includes(r.config.position);
      expect(r.config.nopeEvery, r.id).toBe(rotates ? 2 : undefined);
      expect(r.config.attnFloorScale, r.id).toBe(rotates ? 8 : undefined);
      expect(r.config.attnScale, r.id).toBe(rotates ? 0.1 : undefined);
    }
    const rope = on.find((r) => r.id === 'rope').config;
    expect(exampleCommand(rope)).toMatch(/ --sinks --nope-every 2 --attn-temperature 8,0\.1$/);
    const nope = runPlan({ ...base, nopeEvery: 1 }).find((r) => r.id === 'rope').config;
    expect(nope).toMatchObject({ nopeEvery: 1 });
    expect(nope.attnFloorScale).toBeUndefined();
    // The settings the core would refuse, said before Train: more NoPE layers than the model
    // has, and a temperature without NoPE layers.
    for (const [size, { layers }] of Object.entries(SIZES)) expect(LAB_LAYERS[size]).toBe(layers);
    const p = { ...base, methods: ['rope'], coupled: false, sinks: false, attnScale: 0.1 };
    expect(refusal('lg', { ...p, nopeEvery: 2, attnFloor: 0 })).toBeNull();
    expect(refusal('lg', { ...p, size: 'small', nopeEvery: 2, attnFloor: 0 })?.key).toBe('lg.nopeEvery');
    expect(refusal('lg', { ...p, nopeEvery: 0, attnFloor: 8 })?.key).toBe('lg.attnFloor');
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
    // Quick: four methods × three seeds, 1000 steps each, at most a quarter of the default's steps.
    const quick = runPlan(QUICK_SETTINGS);
    const steps = (plan) => plan.reduce((sum, r) => sum + r.config.steps, 0);
    expect(quick.map((r) => r.config.steps)).toEqual(Array(12).fill(1000));
    expect(steps(quick)).toBeLessThanOrEqual(steps(runPlan({ ...setting(), seed: 0, seeds: 3 })) / 4);
    expect(defaults()['lg.seeds']).toBe(SEEDS);
  });

  it('Lab.EachMethodTrainsOncePerSeed', () => {
    const plan = runPlan(setting({ methods: ['rope', 'alibi'], seed: 7, seeds: 3 }));
    expect(plan.map((r) => [r.id, r.method, r.seed, r.config.seed])).toEqual([
      ['rope', 'rope', 7, 7],
      ['rope#1', 'rope', 8, 8],
      ['rope#2', 'rope', 9, 9],
      ['alibi', 'alibi', 7, 7],
      ['alibi#1', 'alibi', 8, 8],
      ['alibi#2', 'alibi', 9, 9],
    ]);
    // Without `seeds`: one run per method, its id the method's.
    expect(runPlan(setting({ methods: ['rope'] })).map((r) => r.id)).toEqual(['rope']);
    expect(SCHEMA['lg.seeds'].parse('0').ok).toBe(false);
    expect(SCHEMA['lg.seeds'].parse('11').ok).toBe(false);
  });

  it('Lab.MethodsTravelInTheLink', () => {
    const state = { ...defaults(), view: 'length-generalisation', 'lg.methods': ['rope', 'rope-random'] };
    expect(parseHash(`#${serialiseHash(state)}`).state['lg.methods']).toEqual(['rope', 'rope-random']);
    expect(SCHEMA['lg.methods'].parse('rope,spiral').ok).toBe(false);
    expect(SCHEMA['lg.methods'].parse('rope,rope').ok).toBe(false);
    expect(SCHEMA['lg.methods'].parse('').ok).toBe(false);
  });
});

// A finished run of `method` whose result carries the core's metrics (in distribution, then
// the primary metric).
const row = (method, inside, primary, extra = {}) => ({
  id: method,
  method,
  label: method,
  run: { result: { metrics: { exact_match_in_distribution: inside, exact_match_n_to_2n: primary, ...extra } } },
});

// A method's runs, one per primary value, all with in-distribution exact match `inside`.
const seeds = (method, inside, ...primaries) => primaries.map((p) => row(method, inside, p));

describe('lab ranking', () => {
  it('Lab.SummaryIsMeanSampleSdAndEverySeed', () => {
    const s = summary([0.2, 0.4, 0.9]);
    expect(s.mean).toBeCloseTo(0.5, 15);
    expect(s.sd).toBeCloseTo(Math.sqrt((0.09 + 0.01 + 0.16) / 2), 15);
    expect(s.values).toEqual([0.2, 0.4, 0.9]);
    expect(summary([0.7])).toEqual({ mean: 0.7, sd: 0, values: [0.7] });
    expect(summary([0.7, null])).toMatchObject({ mean: null, sd: null }); // a length not tested
    // The core's rule: apart only when |Δmean| > sd₁ + sd₂.
    expect(ranksAbove(summary([0.3, 0.4]), summary([0.2, 0.25]))).toBe(true);
    expect(ranksAbove(summary([0.3, 0.4]), summary([0.1, 0.5]))).toBe(false);
    expect(ranksAbove(summary([0.1, 0.5]), summary([0.3, 0.4]))).toBe(false);
  });

  it('Lab.UntrainedMethodsAreNeverRankedOnGeneralisation', () => {
    const groups = byMethod([
      row('a', 0.5, 0.9), // did not train: never ranked, whatever its primary metric
      row('b', 1, 0.2),
      row('b', 0.95, 0.22),
      ...seeds('c', 0.99, 0.6, 0.62),
    ]);
    expect(groups.map((g) => [g.id, g.runs.length, g.trained])).toEqual([
      ['a', 1, false],
      ['b', 2, true],
      ['c', 2, true],
    ]);
    expect(groups[1].metrics.exact_match_n_to_2n.mean).toBeCloseTo(0.21, 15);
    expect(TRAINED).toBe(0.9);
    const order = rank(groups);
    expect(order.map((g) => [g.id, g.rank, g.tie])).toEqual([
      ['c', 1, false],
      ['b', 2, false],
      ['a', null, false],
    ]);
    expect(orderText(order)).toBe('c > b');
  });

  it('Lab.CloseMethodsTie', () => {
    // b and c: means 0.30 and 0.25, sds 0.14 and 0.07: closer than 0.21, a tie.
    const order = rank(byMethod([...seeds('a', 1, 0.9, 0.9), ...seeds('b', 1, 0.2, 0.4), ...seeds('c', 1, 0.2, 0.3)]));
    expect(order.map((g) => [g.id, g.rank, g.tie])).toEqual([
      ['a', 1, false],
      ['b', 2, true],
      ['c', 2, true],
    ]);
    expect(orderText(order)).toBe('a > b = c');
    // The page shows the methods' labels, not their ids (issue 48: "alibi > none > learned = rope").
    const named = [
      { id: 'alibi', label: 'ALiBi', rank: 1 },
      { id: 'none', label: 'NoPE', rank: 2 },
      { id: 'rope', label: 'RoPE', rank: 2 },
    ];
    expect(orderText(named)).toBe('ALiBi > NoPE = RoPE');
  });

  it('Lab.TokenAccuracyPastNAveragesTheLengthsAndRunsThatHaveEachPosition', () => {
    const result = (...tokens) => ({
      token_accuracy_by_position: Object.fromEntries(tokens.map((t, i) => [String(i + 1), t])),
    });
    const r = result([1, 1], [1, 1, 1], [1, 0.5, 0, 0], [0, 0.5, 0.5, 1, 0]);
    expect(tokenAccuracyBeyond(r, 2)).toEqual([0.5, 0.5, 0.25, 0.5, 0]); // position 4: length 4 only
    const other = result([1, 1], [1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1, 1]);
    expect(tokenAccuracyBeyond([r, other], 2)).toEqual([0.75, 0.75, 0.625, 0.75, 0.5]);
  });

  it('Lab.RandomisedPositionsAreJudgedAgainstTheirPlainControl', () => {
    const groups = byMethod([
      ...seeds('rope', 1, 0, 0),
      ...seeds('rope-random', 1, 0.3, 0.1),
      ...seeds('alibi', 1, 0.25, 0.3),
      ...seeds('alibi-random', 1, 0.2, 0.3),
      row('t5', 1, 0),
      row('t5-random', 0.4, 0), // did not train
    ]);
    expect(controlPairs(groups).map((p) => [p.id, p.verdict])).toEqual([
      ['rope-random', 'better'], // 0.2 ± 0.14 against 0 ± 0
      ['alibi-random', 'a tie'],
      ['t5-random', 'did not train'],
    ]);
    expect(controlPairs(groups)[0].plain.mean).toBe(0);
  });

  it('Lab.MeanLossCurveAveragesTheRunsThatReachedEachStep', () => {
    expect(
      meanLossCurve([
        [
          [1, 3],
          [2, 2],
        ],
        [[1, 1]],
      ]),
    ).toEqual([
      [1, 2],
      [2, 2],
    ]);
  });
});

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

/** RoPE and ALiBi on copy at N = 4 through a training executor of `size` fake workers. */
function trainRopeAndAlibi(size) {
  const { made, makeWorker } = fakeWorkers();
  const exec = createTrainingExecutor({ makeWorker, size });
  const plan = runPlan(setting({ methods: ['rope', 'alibi'], N: 4, steps: 10 }));
  const events = [];
  const running = exec.run('train', { runs: plan, N: 4 }, { onProgress: (m) => events.push(m) });
  return { made, exec, plan, events, running };
}

describe('lab worker pool', () => {
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
    const { made, exec, plan, events, running } = trainRopeAndAlibi(1);
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
    const { made, exec, plan, events, running } = trainRopeAndAlibi(2);
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

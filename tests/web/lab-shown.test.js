// What the Length generalisation view's figures show (lab/shown.js): the settings' own runs,
// else the previous run's for the methods still selected (marked), else the labelled example —
// never a method no longer selected, never an empty figure while an example exists. Also the
// loss curves' smoothing (lab/smoothing.js) and the methods' fixed colours (lab/method-styles.js).
import { describe, expect, it } from 'vitest';
import { methodStyle } from '../../web/src/lab/method-styles.js';
import { EVERY_METHOD, QUICK_SETTINGS, runPlan } from '../../web/src/lab/presets.js';
import { shownCurves, shownRuns, sourceNote } from '../../web/src/lab/shown.js';
import { ema, smoothLoss } from '../../web/src/lab/smoothing.js';
import { OKABE_ITO, TOL_MUTED_EXTRA } from '../../web/src/plots/palette.js';

const settings = (over = {}) => ({ ...QUICK_SETTINGS, seed: 5, ...over });
const run = (tag) => ({ result: { tag, loss_curve: [[0, 2]] } });
const example = () => {
  const plan = runPlan(QUICK_SETTINGS);
  return { plan, settings: QUICK_SETTINGS, runs: new Map(plan.map((r) => [r.id, run(`example ${r.id}`)])) };
};
const ids = (shown) => shown.rows.map((r) => r.id);
// The methods of rows, once each, in order (a method has a row per seed).
const methods = (rows) => [...new Set(rows.map((r) => r.method ?? r.id))];

describe('lab: what the figures show', () => {
  it('LabShown.BeforeAnyRunTheExampleLabelledAsSuch', () => {
    const plan = runPlan(settings({ methods: ['fire'] }));
    const shown = shownRuns({ plan, done: new Map(), N: 5, example: example() });
    expect(shown.source).toBe('example');
    expect(methods(shown.rows)).toEqual(['learned', 'rope', 'alibi', 'none']);
    expect(ids(shown).slice(0, 3)).toEqual(['learned', 'learned#1', 'learned#2']); // a row per seed
    expect(shown.rows.map((r) => r.seed).slice(0, 4)).toEqual([0, 1, 2, 0]);
    expect(shown.N).toBe(QUICK_SETTINGS.N);
    expect(sourceNote('example')).toMatch(/^Example, not your settings/);
    // Nothing at all (the example not loaded): no rows, so no figure is drawn.
    expect(shownRuns({ plan, done: new Map(), N: 5 })).toEqual({ source: 'none', N: 5, rows: [] });
  });

  it('LabShown.TheSettingsOwnRunsOnlyThoseOfThePlan', () => {
    const plan = runPlan(settings({ methods: ['rope', 'alibi'] }));
    const done = new Map([
      ['alibi', run('alibi')],
      ['none', run('a method no longer selected')],
    ]);
    const shown = shownRuns({ plan, done, N: 5, example: example() });
    expect(shown.source).toBe('current');
    expect(ids(shown)).toEqual(['alibi']);
    expect(shown.rows[0].run.result.tag).toBe('alibi');
    expect(sourceNote('current')).toBe('');
  });

  it('LabShown.AfterTheMethodsChangeStaleRowsAreDroppedOrMarked', () => {
    // A run of RoPE and ALiBi at N = 5 …
    const before = runPlan(settings({ methods: ['rope', 'alibi'] }));
    const previous = shownRuns({
      plan: before,
      done: new Map([
        ['rope', run('rope')],
        ['alibi', run('alibi')],
      ]),
      N: 5,
    });
    // … then RoPE unticked and N moved (nothing of the new settings trained or cached): ALiBi's
    // old run stays, marked as the previous run's with its own N; RoPE's row is gone.
    const after = runPlan(settings({ methods: ['alibi', 'none'], N: 6 }));
    const shown = shownRuns({ plan: after, done: new Map(), N: 6, previous, example: example() });
    expect(shown.source).toBe('previous');
    expect(ids(shown)).toEqual(['alibi']);
    expect(shown.N).toBe(5);
    expect(sourceNote('previous')).toMatch(/^From the previous run/);
    // No previous method still selected: the example, never the dropped RoPE.
    const other = runPlan(settings({ methods: ['t5'] }));
    expect(shownRuns({ plan: other, done: new Map(), N: 5, previous, example: example() }).source).toBe('example');
  });

  it('LabShown.LossCurvesOfTheOwnRunsOnceAnyHasOne', () => {
    const plan = runPlan(settings({ methods: ['rope', 'alibi'] }));
    const fallback = shownRuns({ plan, done: new Map(), N: 5, example: example() });
    expect(shownCurves(plan, new Map(), fallback)).toMatchObject({ own: false });
    expect(methods(shownCurves(plan, new Map(), fallback).runs)).toEqual(['learned', 'rope', 'alibi', 'none']);
    const live = shownCurves(
      plan,
      new Map([
        ['alibi', [[0, 2.5]]],
        ['alibi#2', [[0, 2.7]]],
      ]),
      fallback,
    );
    expect(live.own).toBe(true);
    expect(live.runs).toEqual([
      { id: 'alibi', method: 'alibi', label: 'ALiBi', curve: [[0, 2.5]] },
      { id: 'alibi#2', method: 'alibi', label: 'ALiBi', curve: [[0, 2.7]] },
    ]);
  });
});

describe('lab: loss smoothing and colours', () => {
  it('LabShown.EmaIsDebiasedAndFollowsALevel', () => {
    for (const v of ema([3, 3, 3], 10)) expect(v).toBeCloseTo(3, 12); // no pull towards 0 at the start
    const keep = Math.exp(-1 / 2);
    expect(ema([1, 0], 2)[1]).toBeCloseTo(keep / (1 + keep), 12);
    const steps = Array.from({ length: 400 }, (_, i) => (i < 200 ? 4 : 1));
    expect(ema(steps, 10)[399]).toBeCloseTo(1, 6);
  });

  it('LabShown.SmoothLossThinsToAFewHundredPointsKeepingTheLast', () => {
    const curve = Array.from({ length: 2000 }, (_, i) => [i + 1, i % 2 ? 1 : 3]);
    const { x, y } = smoothLoss(curve);
    expect(x.length).toBeLessThanOrEqual(251);
    expect(x[0]).toBe(1);
    expect(x[x.length - 1]).toBe(2000);
    expect(Math.abs(y[y.length - 1] - 2)).toBeLessThan(0.05); // the alternating noise averaged out
    // A long run stopped early: the average has followed a drop 100 steps later.
    const stopped = Array.from({ length: 600 }, (_, i) => [i + 1, i < 300 ? 4 : 1]);
    const s = smoothLoss(stopped);
    expect(s.y[s.x.indexOf(400)]).toBeLessThan(1.01);
  });

  it('LabShown.EveryMethodHasItsOwnPaletteColour', () => {
    const colours = EVERY_METHOD.map((id) => methodStyle(id).color);
    expect(new Set(colours).size).toBe(colours.length);
    for (const c of colours) expect([...OKABE_ITO, ...TOL_MUTED_EXTRA]).toContain(c);
    expect(methodStyle('rope-random')).toEqual({ color: methodStyle('rope').color, dashed: true });
    expect(methodStyle('rope').dashed).toBe(false);
  });
});

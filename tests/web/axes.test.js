// The hand-drawn plots' arithmetic: tick choice, scales, thinning and a line plot's domains.
import { describe, expect, it } from 'vitest';
import { integerTicks, logTicks, makeScale, niceTicks, thin } from '../../web/src/plots/axes.js';
import { axisDomain, strokeWidth } from '../../web/src/plots/lineplot.js';

describe('plot axes', () => {
  it('Axes.IntegerTicksStepOneTwoFive', () => {
    expect(integerTicks(5, 8)).toEqual([0, 1, 2, 3, 4]);
    expect(integerTicks(512, 8)).toEqual([0, 100, 200, 300, 400, 500]);
    expect(integerTicks(100, 8)).toEqual([0, 20, 40, 60, 80]);
    expect(integerTicks(1, 8)).toEqual([0]);
  });

  it('Axes.NiceTicksAreRoundAndInside', () => {
    expect(niceTicks(0, 1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(-1, 1, 4)).toEqual([-1, -0.5, 0, 0.5, 1]);
    expect(niceTicks(3, 3)).toEqual([3]);
    const t = niceTicks(0.013, 0.087);
    expect(t.every((v) => v >= 0.013 && v <= 0.087)).toBe(true);
    expect(t.length).toBeGreaterThanOrEqual(3);
  });

  it('Axes.LogTicksArePowersOfTen', () => {
    expect(logTicks(1, 1e6)).toEqual([1, 10, 100, 1000, 1e4, 1e5, 1e6]);
    expect(logTicks(1, 100)).toEqual([1, 2, 5, 10, 20, 50, 100]);
    expect(logTicks(1e-9, 1e3).length).toBeLessThanOrEqual(7);
  });

  it('Axes.ScalesRoundTrip', () => {
    const lin = makeScale(-2, 6, 10, 410);
    expect(lin.px(-2)).toBe(10);
    expect(lin.px(6)).toBe(410);
    expect(lin.value(lin.px(1.5))).toBeCloseTo(1.5, 12);
    const log = makeScale(1, 1000, 300, 0, true);
    expect(log.px(10)).toBeCloseTo(200, 9);
    expect(log.value(200)).toBeCloseTo(10, 9);
  });

  it('Axes.ThinKeepsEveryKthLabel', () => {
    const ticks = Array.from({ length: 20 }, (_, i) => i);
    expect(thin(ticks, 400, 10)).toEqual(ticks);
    expect(thin(ticks, 100, 16)).toEqual([0, 4, 8, 12, 16]);
  });

  it('LinePlot.DomainsRoundYAndKeepXExact', () => {
    expect(axisDomain([0.13, 0.87])).toEqual({ min: 0, max: 1, ticks: [0, 0.2, 0.4, 0.6, 0.8, 1] });
    expect(axisDomain([3, 17], { exact: true }).min).toBe(3);
    expect(axisDomain([0.2, 0.7], { min: 0, max: 1 })).toMatchObject({ min: 0, max: 1 });
    // A single value (one size in a benchmark group) still gets a span to draw its point in.
    const one = axisDomain([4096, 4096], { log: true, exact: true });
    expect(one.min).toBeLessThan(4096);
    expect(one.max).toBeGreaterThan(4096);
    expect(axisDomain([3, 400], { log: true })).toMatchObject({ min: 1, max: 1000 });
    expect(axisDomain(null).ticks.length).toBeGreaterThan(1);
  });

  it('LinePlot.BandFillingLineIsOneDevicePixelWide', () => {
    // A 300 x 200 px plot of values in [-1, 1] over D = 512 dimensions.
    const x = makeScale(0, 511, 0, 300);
    const y = makeScale(-1, 1, 200, 0);
    const series = (f, n = 512) => ({ x: Array.from({ length: n }, (_, i) => i), y: Array.from({ length: n }, f) });
    const ok = () => true;
    // Position 10's interleaved sinusoidal vector doubles back at every dimension: a band.
    const vector = series((_, i) => (i % 2 ? Math.cos : Math.sin)(10 / 10000 ** ((2 * Math.floor(i / 2)) / 512)));
    expect(strokeWidth(vector, x, y, ok, 2)).toBe(0.5);
    expect(strokeWidth(vector, x, y, ok, 1)).toBe(1);
    // Four smooth periods are a line, drawn at its usual width.
    const wave = series((_, i) => Math.sin((8 * Math.PI * i) / 512));
    expect(strokeWidth(wave, x, y, ok, 2)).toBe(1);
    expect(strokeWidth(series(Math.sin, 50), makeScale(0, 49, 0, 300), y, ok, 2)).toBe(1.5);
  });
});

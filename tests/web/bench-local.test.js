// The Benchmarks view's "Run on this machine", its plain part, on a real run of the wasm
// benchmark (tiny sizes) over both built wasm modules: the file it downloads is one the view
// reads back (parseResults), the table's rows and cells, the chart's bars, the device line,
// and a failed row, which has no time and must still round-trip.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLab } from './helpers/lab.js';
import { benchIndexFiles } from '../../web/src/bench/index-file.js';
import {
  RUN_COLUMNS,
  browserDevice,
  browserName,
  resultsFileName,
  resultsJson,
  runBars,
  runCells,
  runRows,
} from '../../web/src/bench/local-run.js';
import { benchSeries, deviceLine, parseResults } from '../../web/src/bench/results.js';
import { VARIANTS, benchCases, runWasmBench, timeRuns } from '../../web/src/bench/wasm-bench.js';

const CHROME_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.6778.85 Safari/537.36';

let file;
const progress = [];
beforeAll(async () => {
  const [simd, scalar] = await Promise.all([loadLab('simd'), loadLab('scalar')]);
  const device = browserDevice(
    { userAgent: CHROME_UA, hardwareConcurrency: 8 },
    { simd: simd.simdTarget(), scalar: scalar.simdTarget() },
  );
  file = runWasmBench({ simd, scalar, size: 'tiny', device, onProgress: (...a) => progress.push(a) });
});

describe('a run in the schema the view reads', () => {
  it('LocalRun.DownloadedJsonParsesBack', () => {
    const back = parseResults(resultsJson(file), resultsFileName(file));
    expect(back.schema).toBe('poslab-bench/1');
    expect(back.results).toEqual(JSON.parse(JSON.stringify(file.results)));
    expect(back.device.hardware_concurrency).toBe(8);
    // the view's plots take it as they take the GPU files: one group per kernel, three variants
    const groups = benchSeries([back]);
    expect(groups.map((g) => g.kernel).sort()).toEqual(['attention', 'rope', 'sinusoidal']);
    for (const g of groups) expect(g.series.map((s) => s.variant)).toEqual(VARIANTS);
  });
  it('LocalRun.EveryVariantCheckedAndTimed', () => {
    expect(file.results.length).toBe(benchCases('tiny').length * VARIANTS.length);
    for (const r of file.results) {
      expect(r.validated, `${r.kernel} ${r.variant}`).toBe(true);
      expect(r.median_ms).toBeGreaterThan(0);
      expect(r.calls_per_repeat).toBeGreaterThanOrEqual(1);
    }
    expect(file.preset).toBe('tiny');
  });
  it('LocalRun.ProgressCountsEveryRow', () => {
    const total = file.results.length;
    expect(progress.map(([done]) => done)).toEqual([...Array(total + 1).keys()]);
    expect(progress.every(([, t]) => t === total)).toBe(true);
    expect(progress[0][2]).toBe('attention H2 L32 d16 wasm-simd');
  });
  it('LocalRun.FileNameIsOneTheIndexLists', () => {
    const name = resultsFileName(file);
    expect(name).toMatch(/^poslab-wasm-browser-\d{4}-\d\d-\d\dT\d{6}Z\.json$/);
    expect(benchIndexFiles([name])).toEqual([name]);
  });
});

describe('the table and the chart', () => {
  it('LocalRun.OneRowPerCaseWithThreeTimes', () => {
    const rows = runRows(file);
    expect(rows.map((r) => `${r.kernel} ${r.shape}`)).toEqual([
      'attention H2 L32 d16',
      'rope H2 L64 D32',
      'sinusoidal L64 D64',
    ]);
    for (const r of rows) {
      for (const v of VARIANTS) expect(r.ms[v]).toBeGreaterThan(0);
      expect(r.speedup['wasm-scalar']).toBeCloseTo(r.ms['wasm-scalar'] / r.ms['wasm-simd'], 12);
      expect(r.speedup['plain-js']).toBeCloseTo(r.ms['plain-js'] / r.ms['wasm-simd'], 12);
    }
  });
  it('LocalRun.CellsFollowTheColumns', () => {
    expect(RUN_COLUMNS).toEqual([
      'case',
      'size',
      'wasm SIMD ms',
      'wasm scalar ms',
      'plain JS ms',
      'SIMD vs wasm scalar',
      'SIMD vs plain JS',
    ]);
    const [attention] = runRows(file);
    const cells = runCells(attention);
    expect(cells.length).toBe(RUN_COLUMNS.length);
    expect(cells.slice(0, 2)).toEqual(['attention (mask causal)', 'H2 L32 d16']);
    expect(Number(cells[2])).toBeCloseTo(attention.ms['wasm-simd'], 2);
    expect(cells[5]).toMatch(/^\d[\d.]*×$/);
    // no exponents for long times: a second is 1030 ms, not 1.03e+3
    const slow = {
      ...attention,
      ms: { ...attention.ms, 'plain-js': 6043.7 },
      speedup: { 'wasm-scalar': 0.5, 'plain-js': 1234.5 },
    };
    expect(runCells(slow).slice(4)).toEqual(['6044', '0.500×', '1235×']);
  });
  it('LocalRun.BarsAreTimesOverSimd', () => {
    const rows = runRows(file);
    const bars = runBars(rows);
    expect(bars.labels.length).toBe(rows.length);
    expect(bars.series.map((s) => s.label)).toEqual(['wasm SIMD', 'wasm scalar', 'plain JS']);
    expect(bars.series[0].values).toEqual(rows.map(() => 1));
    expect(bars.series[2].values).toEqual(rows.map((r) => r.speedup['plain-js']));
  });
});

describe('a failed row', () => {
  const failed = () => ({
    ...JSON.parse(resultsJson(file)),
    results: file.results.map((r) => (r.variant === 'plain-js' && r.kernel === 'rope' ? failedRow(r) : r)),
  });
  const failedRow = (r) => ({ ...r, validated: false, max_abs_error: 1, median_ms: null });

  it('LocalRun.FailedRowHasNoTimeAndStillParses', () => {
    const back = parseResults(resultsJson(failed()));
    const rope = runRows(back).find((r) => r.kernel === 'rope');
    expect(rope.ms['plain-js']).toBeNull();
    expect(rope.speedup['plain-js']).toBeNull();
    expect(runCells(rope)[4]).toBe('failed');
    expect(runBars([rope]).series[2].values).toEqual([NaN]);
    // the view leaves it out of the plots and counts it
    expect(benchSeries([back]).find((g) => g.kernel === 'rope').failed).toBe(1);
  });
  it('LocalRun.UntimedRowMustBeAFailedOne', () => {
    const bad = JSON.parse(resultsJson(file));
    bad.results[1].median_ms = null;
    expect(() => parseResults(bad, 'run.json')).toThrow(/run.json: results\[1\]\.median_ms/);
  });
});

describe('the device', () => {
  it('LocalRun.DeviceNamesBrowserSystemAndCores', () => {
    const d = browserDevice({ userAgent: CHROME_UA, hardwareConcurrency: 16 }, { simd: 'WASM', scalar: 'EMU128' });
    expect(d.name).toBe('Headless Chrome 131 (X11; Linux x86_64), 16 logical cores');
    expect(d).toMatchObject({ user_agent: CHROME_UA, hardware_concurrency: 16, threads_used: 1 });
    expect(d.wasm_targets).toEqual({ 'wasm-simd': 'WASM', 'wasm-scalar': 'EMU128' });
    expect(deviceLine({ device: d, time_utc: '2026-11-24T10:00:00Z' })).toBe(`${d.name} · 2026-11-24T10:00:00Z`);
  });
  it('LocalRun.BrowserNames', () => {
    const ua = (tail) => `Mozilla/5.0 (Windows NT 10.0; Win64; x64) ${tail}`;
    expect(browserName(ua('Gecko/20100101 Firefox/133.0'))).toBe('Firefox 133');
    expect(browserName(ua('AppleWebKit/537.36 Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0'))).toBe('Edge 131');
    expect(browserName(ua('AppleWebKit/537.36 Chrome/131.0.0.0 Safari/537.36'))).toBe('Chrome 131');
    expect(browserName('Mozilla/5.0 (Macintosh) AppleWebKit/605.1.15 Version/18.1 Safari/605.1.15')).toBe('Safari 18');
    expect(browserName('')).toBe('browser');
    expect(browserDevice({}).name).toBe('browser');
  });
});

describe('timing', () => {
  it('Timing.RepeatsLastLongEnoughForACoarseClock', () => {
    // about a microsecond a call: far under a browser's 0.1 ms clock step
    let x = 0;
    const work = () => {
      for (let i = 0; i < 1000; i++) x += Math.sqrt(i);
    };
    const t = timeRuns(work, { minRuns: 3, budgetMs: 5, minRepeatMs: 2 });
    expect(t.calls).toBeGreaterThan(1);
    expect(t.min * t.calls).toBeGreaterThanOrEqual(2); // every repeat kept lasted 2 ms
    expect(timeRuns(work, { minRuns: 3, budgetMs: 0 }).calls).toBe(1);
  });
});

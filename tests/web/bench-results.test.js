// The Benchmarks view's reading of public/bench/: the index, the schema checks, % of peak,
// and each row's validation status (failed rows out, unchecked peers marked).
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { benchIndexFiles, benchIndexJson } from '../../web/src/bench/index-file.js';
import {
  STATUS,
  benchSeries,
  deviceLine,
  parseIndex,
  parseResults,
  percentOfPeak,
  validationStatus,
} from '../../web/src/bench/results.js';

const device = { name: 'GPU', driver: '1.2', peak_bandwidth_gbs: 1000, peak_tensor_tflops: 100 };
const row = (o) => ({ kernel: 'rope', variant: '1-scalar', dtype: 'fp32', shape: { L: 4, D: 8 }, median_ms: 1, ...o });

describe('bench index', () => {
  it('BenchIndex.ListsResultsFilesSortedWithoutItself', () => {
    expect(benchIndexFiles(['b.json', 'index.json', 'a.json', 'notes.txt', '.hidden'])).toEqual(['a.json', 'b.json']);
    expect(parseIndex(benchIndexJson(['torch-h100.json', 'poslab-h100.json']))).toEqual([
      'poslab-h100.json',
      'torch-h100.json',
    ]);
  });
  it('BenchIndex.RefusesPathsAndMissingList', () => {
    expect(() => parseIndex('{}')).toThrow(/files/);
    expect(() => parseIndex({ files: ['../secret.json'] })).toThrow(/bad file name/);
  });
  it('BenchIndex.MatchesCommittedFiles', () => {
    const names = fs.readdirSync('public/bench');
    expect(benchIndexFiles(names).length).toBeGreaterThanOrEqual(2);
  });
});

describe('results schema', () => {
  it('Results.CommittedFilesParse', () => {
    for (const f of benchIndexFiles(fs.readdirSync('public/bench'))) {
      const r = parseResults(fs.readFileSync(`public/bench/${f}`, 'utf8'), f);
      expect(r.results.length).toBeGreaterThan(0);
      expect(deviceLine(r)).toMatch(/H200.*driver 580/);
    }
  });
  it('Results.NamesTheBadField', () => {
    expect(() => parseResults({ results: [] }, 'x.json')).toThrow(/x.json: "device"/);
    expect(() => parseResults({ device, results: [{ kernel: 'a', variant: 'b' }] })).toThrow(/results\[0\]\.median_ms/);
  });
});

describe('percent of peak', () => {
  it('Peak.BandwidthFromBytes', () => {
    // 1e9 bytes in 1 s at a 1000 GB/s peak: 0.1 %
    const p = percentOfPeak(row({ bytes: 1e9, median_ms: 1000 }), device);
    expect(p.of).toBe('bandwidth');
    expect(p.pct).toBeCloseTo(0.1, 12);
  });
  it('Peak.TensorFromFlopsFirst', () => {
    const p = percentOfPeak(row({ flops: 50e12, bytes: 1, median_ms: 1000 }), device);
    expect(p).toEqual({ pct: 50, of: 'tensor' });
  });
  it('Peak.NullWithoutPeakOrWork', () => {
    expect(percentOfPeak(row({ bytes: 10 }), {})).toBeNull();
    expect(percentOfPeak(row({}), device)).toBeNull();
  });
  it('Peak.AgreesWithCommittedPctFields', () => {
    const f = parseResults(fs.readFileSync('public/bench/poslab-h200-2026-11-27.json', 'utf8'));
    for (const r of f.results) {
      const want = r.pct_peak_tensor ?? r.pct_peak_bandwidth;
      expect(percentOfPeak(r, f.device).pct).toBeCloseTo(want, 6);
    }
  });
});

describe('validation status', () => {
  it('Status.Classifies', () => {
    expect(validationStatus({ validated: true })).toBe('passed');
    expect(validationStatus({ validated: false })).toBe('failed');
    expect(validationStatus({ validated: null })).toBe('unchecked');
    expect(validationStatus({})).toBe('unchecked');
    expect(STATUS.unchecked).toBe('peer, not checked');
  });
  it('Series.FailedRowsLeftOutUncheckedMarked', () => {
    const files = [
      {
        file: 'poslab.json',
        device,
        results: [row({ validated: true }), row({ validated: false, shape: { L: 8, D: 8 } })],
      },
      { file: 'torch.json', source: 'pytorch', device, results: [row({ variant: 'torch-eager', validated: null })] },
    ];
    const [rope] = benchSeries(files);
    expect(rope.failed).toBe(1);
    expect(rope.series.map((s) => [s.label, s.status, s.peer])).toEqual([
      ['1-scalar fp32', 'passed', false],
      ['torch-eager fp32', 'unchecked', true],
    ]);
    expect(rope.series[0].points).toHaveLength(1);
  });
  it('Series.SplitByParams', () => {
    const rows = [
      row({ params: { style: 'neox', scaling: 'none' } }),
      row({ params: { style: 'gptj', scaling: 'none' } }),
      row({ variant: 'torch-eager', params: { scaling: 'none', style: 'neox' } }),
    ];
    const groups = benchSeries([{ file: 'a.json', device, results: rows }]);
    expect(groups.map((g) => g.title)).toEqual(['RoPE (scaling none, style neox)', 'RoPE (scaling none, style gptj)']); // the table's label, not the id
    expect(groups[0].series).toHaveLength(2);
  });
  it('Series.PositionInKernelAndAsBiasPlotTogetherNamingSdpasBackend', () => {
    const attention = (variant, params) =>
      row({
        kernel: 'attention',
        variant,
        dtype: 'fp16',
        params: { mask: 'causal+alibi', causal: true, position: 'alibi', ...params },
      });
    const rows = [
      attention('2-flash', { in_kernel: true }),
      attention('1-naive', { in_kernel: false }),
      attention('torch-sdpa+bias', { in_kernel: false, backend: 'efficient' }),
      attention('torch-flex', { in_kernel: true }),
    ];
    const groups = benchSeries([{ file: 'a.json', device, results: rows }]);
    expect(groups.map((g) => g.title)).toEqual(['attention (mask causal+ALiBi, position ALiBi)']);
    expect(groups[0].series.map((s) => s.label)).toEqual([
      '2-flash fp16',
      '1-naive fp16',
      'torch-sdpa+bias [efficient] fp16',
      'torch-flex fp16',
    ]);
  });
});

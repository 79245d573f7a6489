// Text of the Models view: the next-token table rows, probabilities, sizes.
import { describe, expect, it } from 'vitest';
import { formatBytes, formatCount, formatProbability, shortCount, topRows } from '../../web/src/lm/format.js';

describe('Models view text', () => {
  it('Format.TopTenRowsCarryRankIdTextAndPercent', () => {
    const pieces = { 262: ' the', 13: '.', 198: '\n' };
    const rows = topRows(Int32Array.from([262, 13, 198]), Float32Array.from([0.5, 0.25, 0.000012]), (id) => pieces[id]);
    expect(rows).toEqual([
      { rank: 1, id: 262, text: '␣the', probability: 0.5, percent: '50.0 %' },
      { rank: 2, id: 13, text: '.', probability: 0.25, percent: '25.0 %' },
      { rank: 3, id: 198, text: '↵', probability: Math.fround(0.000012), percent: '1.20e-3 %' },
    ]);
  });

  it('Format.ProbabilitiesKeepSignificantDigits', () => {
    expect(formatProbability(1)).toBe('100.0 %');
    expect(formatProbability(0.0532)).toBe('5.32 %');
    expect(formatProbability(0.0001234)).toBe('0.0123 %');
    expect(formatProbability(0)).toBe('0.00e+0 %');
  });

  it('Format.BytesAndCounts', () => {
    expect(formatBytes(497759232)).toBe('497.8 MB');
    expect(formatBytes(1.42e9)).toBe('1.4 GB');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatCount(124439808)).toBe('124,439,808');
    expect(shortCount(124439808)).toBe('124M');
    expect(shortCount(16300000)).toBe('16.3M');
  });
});

// Copy and labels a newcomer reads (issue 48, item 8): the lab's native command follows the
// settings, the quick benchmark's ratios come with what they measure, the lens's map labels say
// where each byte sits, and its loss curves can be smoothed.
import { describe, expect, it } from 'vitest';
import { ratioCaveat } from '../../web/src/bench/local-run.js';
import { settingsCommand } from '../../web/src/lab/example.js';
import { QUICK_SETTINGS } from '../../web/src/lab/presets.js';
import { positionedTokens } from '../../web/src/lm/format.js';
import { movingAverage } from '../../web/src/plots/smooth.js';

describe('newcomer copy', () => {
  it('Copy.TheLabsNativeCommandFollowsThePresetsN', () => {
    expect(QUICK_SETTINGS.N).toBe(5);
    expect(settingsCommand(QUICK_SETTINGS)).toMatch(/ --train-len 5 /);
    expect(settingsCommand({ ...QUICK_SETTINGS, N: 12 })).toMatch(/ --train-len 12 /);
    expect(settingsCommand({ ...QUICK_SETTINGS, seeds: 3 })).toMatch(/ --seeds 3$/);
    expect(settingsCommand({ ...QUICK_SETTINGS, methods: [] })).toBe('');
  });

  it('Copy.ARatioUnderOneIsExplained', () => {
    const row = (kernel, shape, js) => ({ kernel, shape, speedup: { 'wasm-scalar': 1.5, 'plain-js': js } });
    expect(ratioCaveat([row('rope', '1 × 8 × 8', 2)])).toMatch(/copying them into the module’s memory/);
    expect(ratioCaveat([row('rope', '1 × 8 × 8', 2)])).not.toMatch(/Under 1×/);
    expect(ratioCaveat([row('rope', '1 × 8 × 8', 2), row('sinusoidal', '16 × 8', 0.0873)])).toMatch(
      /Under 1× here, SIMD was the slower: sinusoidal 16 × 8\.$/,
    );
    expect(ratioCaveat([row('attention', '1 × 4 × 4', null)])).not.toMatch(/Under 1×/); // untimed is no loss
  });

  it('Copy.MapLabelsSayWhereEachByteSits', () => {
    expect(positionedTokens(['T', 'h', '␣'])).toEqual(['0 T', '1 h', '2 ␣']);
  });

  it('Copy.LossSmoothingKeepsTheRawLineAtOne', () => {
    const spiky = Float32Array.from([0, 4, 0, 4, 0, 4]);
    expect(Array.from(movingAverage(spiky, 1))).toEqual(Array.from(spiky));
    const smooth = movingAverage(spiky, 2);
    expect(Math.max(...smooth) - Math.min(...smooth)).toBeLessThan(4);
  });
});

// Colour-map lookup tables and the matrix → pixels loop.
import { interpolateBlues, interpolateRdBu, interpolateViridis } from 'd3-scale-chromatic';
import { OKABE_ITO, seriesColor } from '../../web/src/plots/palette.js';
import { describe, expect, it } from 'vitest';
import { SPECIAL, colorize, colorizeBinned, lut, lutIndex, valueRange } from '../../web/src/plots/colormap.js';
import { CMAPS } from '../../web/src/state/colormaps.js';
import { parseColor } from '../../scripts/generators/colormap-luts.mjs';

const px = (rgba, i) => Array.from(rgba.slice(i * 4, i * 4 + 4));

describe('colour maps', () => {
  it.each([
    ['viridis', interpolateViridis],
    ['Blues', interpolateBlues],
    ['RdBu', interpolateRdBu],
  ])('Colormap.LutMatchesD3 (%s)', (name, f) => {
    const table = lut(name);
    expect(table).toHaveLength(1024);
    // Every entry: colormap-luts.js is generated from d3 and must not go stale.
    for (let i = 0; i < 256; i++) {
      expect(Array.from(table.slice(i * 4, i * 4 + 3)), `${name}[${i}]`).toEqual(parseColor(f(i / 255)));
      expect(table[i * 4 + 3]).toBe(255);
    }
  });

  it('Colormap.EveryMapTheSettingsOfferHasATable', () => {
    for (const name of CMAPS) expect(lut(name), name).toHaveLength(1024);
  });

  it('Colormap.KnownEndpoints', () => {
    expect(Array.from(lut('viridis').slice(0, 3))).toEqual([0x44, 0x01, 0x54]);
    expect(Array.from(lut('viridis').slice(1020, 1023))).toEqual([0xfd, 0xe7, 0x25]);
  });

  it('Colormap.ParsesHexAndRgb', () => {
    expect(parseColor('#0a0B0c')).toEqual([10, 11, 12]);
    expect(parseColor('rgb(1, 2, 3)')).toEqual([1, 2, 3]);
    expect(() => parseColor('red')).toThrow();
  });

  it('Colormap.IndexClampsAndRounds', () => {
    expect(lutIndex(-5, 0, 1)).toBe(0);
    expect(lutIndex(5, 0, 1)).toBe(255);
    expect(lutIndex(0.5, 0, 1)).toBe(128);
    expect(lutIndex(3, 3, 3)).toBe(128); // flat range: the middle
  });

  it('Colormap.RangeIgnoresNonFiniteAndCentresDiverging', () => {
    const data = new Float32Array([NaN, -Infinity, -2, 1, Infinity, 0.5]);
    expect(valueRange(data)).toEqual([-2, 1]);
    expect(valueRange(data, true)).toEqual([-2, 2]);
    expect(valueRange(new Float32Array([NaN, -Infinity]))).toEqual([0, 0]);
    expect(valueRange(new Int32Array([3, 7, 5]))).toEqual([3, 7]);
  });

  it('Colormap.ColorizeMapsEndsAndSpecials', () => {
    const data = new Float32Array([0, 1, 0.5, NaN, -Infinity, Infinity, -3, 9]);
    const { rgba, specials } = colorize(data, 'viridis', [0, 1]);
    const table = lut('viridis');
    expect(px(rgba, 0)).toEqual(Array.from(table.slice(0, 4)));
    expect(px(rgba, 1)).toEqual(Array.from(table.slice(1020, 1024)));
    expect(px(rgba, 2)).toEqual(Array.from(table.slice(lutIndex(0.5, 0, 1) * 4, lutIndex(0.5, 0, 1) * 4 + 4)));
    expect(px(rgba, 3)).toEqual(SPECIAL.nan);
    expect(px(rgba, 4)).toEqual(SPECIAL.negInf);
    expect(px(rgba, 5)).toEqual(SPECIAL.posInf);
    expect(px(rgba, 6)).toEqual(Array.from(table.slice(0, 4))); // clamped low
    expect(px(rgba, 7)).toEqual(Array.from(table.slice(1020, 1024))); // clamped high
    expect(specials).toEqual({ nan: 1, negInf: 1, posInf: 1 });
  });

  it('Colormap.ColorizeAgreesWithLutIndexEverywhere', () => {
    const data = Float32Array.from({ length: 1000 }, (_, i) => Math.sin(i * 0.37) * 3 - 0.5);
    const range = valueRange(data);
    const { rgba } = colorize(data, 'RdBu', range);
    const table = lut('RdBu');
    for (let i = 0; i < data.length; i++) {
      const k = lutIndex(data[i], ...range);
      expect(px(rgba, i), `cell ${i}`).toEqual(Array.from(table.slice(k * 4, k * 4 + 4)));
    }
  });

  it('Colormap.SpecialColoursAreOutsideEveryMap', () => {
    for (const name of ['viridis', 'Blues', 'RdBu']) {
      const table = lut(name);
      for (const c of Object.values(SPECIAL)) {
        for (let i = 0; i < 256; i++) {
          const d =
            Math.abs(table[i * 4] - c[0]) + Math.abs(table[i * 4 + 1] - c[1]) + Math.abs(table[i * 4 + 2] - c[2]);
          expect(d, `${name}[${i}] vs ${c}`).toBeGreaterThan(30);
        }
      }
    }
  });

  it('Colormap.ColorizeReusesAGivenBuffer', () => {
    const into = new Uint8ClampedArray(8);
    const { rgba } = colorize(new Float32Array([0, 1]), 'Blues', [0, 1], into);
    expect(rgba).toBe(into);
    expect(colorize(new Float32Array([0]), 'Blues', [0, 1], into).rgba).not.toBe(into); // wrong size
  });

  it('Colormap.BinnedColoursTheMeanOfEachBlock', () => {
    // 7 × 10 cells into 3 × 4 pixels (uneven blocks), with every kind of special value and one
    // block of nothing but −∞.
    const rows = 7;
    const cols = 10;
    const data = Float32Array.from({ length: rows * cols }, (_, i) => Math.sin(i * 0.7) * 2);
    data[3] = NaN;
    data[15] = Infinity;
    for (const i of [47, 48, 49, 57, 58, 59, 67, 68, 69]) data[i] = -Infinity; // rows 4-6, cols 7-9
    const binned = colorizeBinned(data, rows, cols, 'RdBu', 3, 4, { diverging: true });
    expect(binned.specials).toEqual(colorize(data, 'RdBu', [-2, 2]).specials);
    expect(binned.range).toEqual(valueRange(data, true));
    const table = lut('RdBu');
    for (let R = 0; R < 3; R++)
      for (let C = 0; C < 4; C++) {
        const cells = [];
        for (let r = 0; r < rows; r++)
          for (let c = 0; c < cols; c++)
            if (Math.floor((r * 3) / rows) === R && Math.floor((c * 4) / cols) === C) cells.push(data[r * cols + c]);
        const finite = cells.filter(Number.isFinite);
        const mean = finite.reduce((a, b) => a + b, 0) / finite.length;
        const i = lutIndex(mean, ...binned.range);
        const expected = finite.length ? Array.from(table.slice(i * 4, i * 4 + 4)) : SPECIAL.negInf;
        expect(px(binned.rgba, R * 4 + C), `pixel ${R},${C}`).toEqual(expected);
      }
  });

  it('Colormap.BinnedOneToOneIsColorize', () => {
    const data = Float32Array.from({ length: 12 }, (_, i) => i - 3);
    data[5] = NaN;
    data[7] = -Infinity;
    expect(Array.from(colorizeBinned(data, 3, 4, 'viridis', 3, 4, { range: [-3, 8] }).rgba)).toEqual(
      Array.from(colorize(data, 'viridis', [-3, 8]).rgba),
    );
  });

  it('Palette.IsOkabeItosColourBlindSafeSetWithoutBlack', () => {
    // Okabe & Ito, "Color Universal Design" (2008), as RGB 0–255: orange 230,159,0; sky blue
    // 86,180,233; bluish green 0,158,115; yellow 240,228,66; blue 0,114,178; vermillion
    // 213,94,0; reddish purple 204,121,167.
    const published = [
      [230, 159, 0],
      [86, 180, 233],
      [0, 158, 115],
      [240, 228, 66],
      [0, 114, 178],
      [213, 94, 0],
      [204, 121, 167],
    ].map((rgb) => `#${rgb.map((v) => v.toString(16).padStart(2, '0')).join('')}`);
    expect(OKABE_ITO.slice(0, 7).sort()).toEqual(published.sort());
    expect(OKABE_ITO[7]).toBe('#999999');
    expect(seriesColor(0)).toBe('#0072b2');
    expect(seriesColor(OKABE_ITO.length)).toBe(seriesColor(0));
  });
});

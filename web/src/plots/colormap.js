// Colour maps as 256-entry RGBA lookup tables (d3-scale-chromatic's maps, sampled into
// colormap-luts.js by scripts/colormap-luts.mjs), and the loop that turns a matrix into
// pixels with them. Non-finite values get colours of their own, outside every map, so a
// masked (−∞) or broken (NaN) cell can never pass for data.
import { LUTS } from './colormap-luts.js';

export const SPECIAL = {
  nan: [255, 0, 255, 255], // magenta: a bug or an undefined value
  negInf: [0, 0, 0, 255], // black: masked out (−∞ before softmax)
  posInf: [255, 140, 0, 255], // orange
};

/** Diverging maps centre on zero; the others span [min, max]. */
export const DIVERGING = new Set(['RdBu']);

/** '#rrggbb' or 'rgb(r, g, b)' → [r, g, b]. */
export function parseColor(css) {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(css);
  if (hex) return [1, 2, 3].map((i) => parseInt(hex[i], 16));
  const rgb = /^rgb\(\s*(\d+),\s*(\d+),\s*(\d+)\s*\)$/.exec(css);
  if (rgb) return [1, 2, 3].map((i) => Number(rgb[i]));
  throw new Error(`unexpected colour ${css}`);
}

const cache = new Map();

/** RGBA lookup table: Uint8ClampedArray(256·4), entry i = map(i / 255). */
export function lut(name) {
  if (cache.has(name)) return cache.get(name);
  if (!Object.hasOwn(LUTS, name)) throw new Error(`unknown colour map ${name}`);
  const rgb = Uint8Array.from(atob(LUTS[name]), (ch) => ch.charCodeAt(0));
  const table = new Uint8ClampedArray(256 * 4);
  for (let i = 0; i < 256; i++) table.set([rgb[i * 3], rgb[i * 3 + 1], rgb[i * 3 + 2], 255], i * 4);
  cache.set(name, table);
  return table;
}

/** [lo, hi] of the finite values ([0, 0] when there are none); symmetric about 0 if diverging. */
export function valueRange(data, diverging = false) {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (v - v !== 0) continue; // NaN and ±∞: they have colours of their own
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (lo === Infinity || hi === -Infinity) return [0, 0];
  if (diverging) {
    const m = Math.max(Math.abs(lo), Math.abs(hi));
    return [-m, m];
  }
  return [lo, hi];
}

/** LUT index of v for range [lo, hi]: 0..255, clamped. A flat range maps to the middle. */
export function lutIndex(v, lo, hi) {
  if (!(hi > lo)) return 128;
  const t = (v - lo) / (hi - lo);
  return t <= 0 ? 0 : t >= 1 ? 255 : Math.round(t * 255);
}

const packed = new Map();

// The LUT as one 32-bit word per entry (RGBA bytes in memory order), for one store per pixel.
function lut32(name) {
  if (!packed.has(name)) packed.set(name, new Uint32Array(lut(name).slice().buffer));
  return packed.get(name);
}

const word = (rgba) => new Uint32Array(Uint8ClampedArray.from(rgba).buffer)[0];

/**
 * Pixels for a row-major matrix: one RGBA pixel per cell.
 * @param {ArrayLike<number>} data rows·cols values
 * @param {string} cmap
 * @param {[number, number]} range
 * @param {Uint8ClampedArray} [into] reused output of the right size (fresh large buffers
 *   cost more in page faults than the colouring itself)
 * @returns {{ rgba: Uint8ClampedArray, specials: { nan: number, negInf: number, posInf: number } }}
 */
export function colorize(data, cmap, [lo, hi], into) {
  const table = lut32(cmap);
  const n = data.length;
  const rgba = into?.length === n * 4 ? into : new Uint8ClampedArray(n * 4);
  const out = new Uint32Array(rgba.buffer);
  const specials = { nan: 0, negInf: 0, posInf: 0 };
  const flat = !(hi > lo);
  const scale = flat ? 0 : 255 / (hi - lo);
  const offset = flat ? 128 : -lo * scale + 0.5; // index = floor(v·scale + offset), rounded
  const [first, last, nan, negInf, posInf] = [
    table[0],
    table[255],
    word(SPECIAL.nan),
    word(SPECIAL.negInf),
    word(SPECIAL.posInf),
  ];
  for (let i = 0; i < n; i++) {
    const t = data[i] * scale + offset;
    // The common case in one comparison pair; NaN, ±∞ and out-of-range values fall through.
    if (t >= 0 && t < 256) {
      out[i] = table[t | 0];
      continue;
    }
    const v = data[i];
    if (v !== v) {
      out[i] = nan;
      specials.nan++;
    } else if (v === -Infinity) {
      out[i] = negInf;
      specials.negInf++;
    } else if (v === Infinity) {
      out[i] = posInf;
      specials.posInf++;
    } else out[i] = t < 0 ? first : last;
  }
  return { rgba, specials };
}

/**
 * Pixels for a matrix larger than the screen: `outRows` × `outCols` pixels, each the mean
 * colour of the cells it covers (what a box filter over colorize()'s image gives, without
 * making that image: at 8192 × 1024 this is one pass instead of a colouring, a copy and a
 * resample).
 * @param {ArrayLike<number>} data rows·cols values
 * @returns {{ rgba: Uint8ClampedArray, specials: { nan: number, negInf: number, posInf: number } }}
 */
export function colorizeBinned(data, rows, cols, cmap, range, outRows, outCols) {
  const rgba = new Uint8ClampedArray(outRows * outCols * 4);
  const colOf = new Int32Array(cols);
  const perCol = new Uint32Array(outCols); // cells of a row that land in each output column
  for (let c = 0; c < cols; c++) perCol[(colOf[c] = Math.floor((c * outCols) / cols))]++;
  // Each input row is coloured with colorize()'s loop, then its bytes summed per output pixel.
  const line = new Uint8ClampedArray(cols * 4);
  const words = new Uint32Array(line.buffer);
  const sums = new Uint32Array(outCols * 3);
  const specials = { nan: 0, negInf: 0, posInf: 0 };
  let orow = 0;
  let rowsIn = 0;
  const flush = () => {
    const base = orow * outCols * 4;
    for (let k = 0; k < outCols; k++) {
      const n = perCol[k] * rowsIn;
      for (let ch = 0; ch < 3; ch++) rgba[base + k * 4 + ch] = n ? Math.round(sums[k * 3 + ch] / n) : 0;
      rgba[base + k * 4 + 3] = 255;
    }
    sums.fill(0);
    rowsIn = 0;
  };
  for (let r = 0; r < rows; r++) {
    const target = Math.floor((r * outRows) / rows);
    if (target !== orow) {
      flush();
      orow = target;
    }
    const row = colorize(data.subarray(r * cols, (r + 1) * cols), cmap, range, line).specials;
    specials.nan += row.nan;
    specials.negInf += row.negInf;
    specials.posInf += row.posInf;
    for (let c = 0; c < cols; c++) {
      const w = words[c];
      const k = colOf[c] * 3;
      sums[k] += w & 255; // RGBA bytes in memory order: red is the low byte (little-endian)
      sums[k + 1] += (w >>> 8) & 255;
      sums[k + 2] += (w >>> 16) & 255;
    }
    rowsIn++;
  }
  flush();
  return { rgba, specials };
}

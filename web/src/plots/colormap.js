// Colour maps as 256-entry RGBA lookup tables (d3-scale-chromatic's maps, sampled into
// colormap-luts.js by `npm run generate`), and the loop that turns a matrix into
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
 * A matrix larger than the screen as `outRows` × `outCols` pixels in one pass over the data:
 * each pixel shows the mean of the finite cells it covers (how a data shader aggregates; at
 * 8192 × 1024 this replaces a range pass, a colouring pass, an image copy and a resample). A
 * pixel whose cells are all non-finite takes the colour of the first kind it met. The range is
 * the finite values' [min, max] (symmetric when `diverging`) unless `range` is given.
 * @param {Float32Array | Float64Array} data rows·cols values, row-major
 * @param {{ range?: [number, number], diverging?: boolean }} [o]
 * @returns {{ rgba: Uint8ClampedArray, range: [number, number],
 *   specials: { nan: number, negInf: number, posInf: number } }}
 */
export function colorizeBinned(data, rows, cols, cmap, outRows, outCols, o = {}) {
  const sums = new Float64Array(outRows * outCols);
  // Cells per pixel come from the block sizes; only non-finite cells are counted one by one
  // (the common all-finite loop stays a compare, two selects and an add).
  const skipped = new Uint32Array(outRows * outCols);
  const special = new Uint8Array(outRows * outCols); // 1 NaN, 2 −∞, 3 +∞: the first met
  const specials = { nan: 0, negInf: 0, posInf: 0 };
  const colOf = new Int32Array(cols);
  const perCol = new Uint32Array(outCols);
  for (let c = 0; c < cols; c++) perCol[(colOf[c] = Math.floor((c * outCols) / cols))]++;
  const perRow = new Uint32Array(outRows);
  let lo = Infinity;
  let hi = -Infinity;
  for (let r = 0; r < rows; r++) {
    const R = Math.floor((r * outRows) / rows);
    perRow[R]++;
    const base = R * outCols;
    const row = r * cols;
    for (let c = 0; c < cols; c++) {
      const v = data[row + c];
      const k = base + colOf[c];
      if (v - v === 0) {
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        sums[k] += v;
        continue;
      }
      skipped[k]++;
      const kind = v !== v ? 1 : v < 0 ? 2 : 3;
      if (kind === 1) specials.nan++;
      else if (kind === 2) specials.negInf++;
      else specials.posInf++;
      if (!special[k]) special[k] = kind;
    }
  }
  let range = o.range;
  if (!range) {
    if (lo > hi) range = [0, 0];
    else if (o.diverging) {
      const m = Math.max(Math.abs(lo), Math.abs(hi));
      range = [-m, m];
    } else range = [lo, hi];
  }
  const table = lut32(cmap);
  const colours = [0, word(SPECIAL.nan), word(SPECIAL.negInf), word(SPECIAL.posInf)];
  const rgba = new Uint8ClampedArray(outRows * outCols * 4);
  const out = new Uint32Array(rgba.buffer);
  for (let R = 0; R < outRows; R++)
    for (let C = 0; C < outCols; C++) {
      const k = R * outCols + C;
      const n = perRow[R] * perCol[C] - skipped[k];
      out[k] = n ? table[lutIndex(sums[k] / n, range[0], range[1])] : colours[special[k]] || table[0];
    }
  return { rgba, range, specials };
}

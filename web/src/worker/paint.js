// Turns each heatmap of a job's result into pixels here in the worker, so the main thread
// only blits a finished bitmap and stays free while large matrices are coloured.
import { DIVERGING, colorize, colorizeBinned, valueRange } from '../plots/colormap.js';

// One pixel buffer kept between jobs: createImageBitmap copies it, so the next job paints
// into the same memory (fresh multi-megabyte buffers cost more in page faults than the
// colouring itself). Jobs smaller than it use a view of its start.
let scratch = new ArrayBuffer(0);
const scratchFor = (n) => {
  if (n < 1 << 20) return undefined; // small ones are cheap to allocate
  if (scratch.byteLength < n) scratch = new ArrayBuffer(n);
  return new Uint8ClampedArray(scratch, 0, n);
};
const canBitmap = typeof createImageBitmap === 'function' && typeof ImageData === 'function';

// No plot shows more than this many cells per axis (a figure is under 1000 CSS px on any
// screen): larger matrices are binned straight into a picture this size, each pixel the mean
// of its cells, so neither the worker nor the main thread ever handles the full-size image
// (hover and exports still read the full-resolution data).
export const DISPLAY_MAX = 1024;

const displaySize = (n) => Math.min(n, DISPLAY_MAX);

/**
 * Adds range, rgba (or bitmap where the worker can make one) and special-value counts to
 * every entry of result.heatmaps. Returns the buffers/bitmaps to transfer.
 */
export async function paint(result) {
  const transfer = new Set(); // a buffer listed twice would make postMessage throw
  for (const hm of Object.values(result.heatmaps ?? {})) {
    const w = displaySize(hm.cols);
    const h = displaySize(hm.rows);
    let painted;
    if (w < hm.cols || h < hm.rows) {
      painted = colorizeBinned(hm.data, hm.rows, hm.cols, hm.cmap, h, w, {
        range: hm.range,
        diverging: DIVERGING.has(hm.cmap),
      });
      hm.range = painted.range;
    } else {
      hm.range ??= valueRange(hm.data, DIVERGING.has(hm.cmap));
      painted = colorize(hm.data, hm.cmap, hm.range, canBitmap ? scratchFor(w * h * 4) : undefined);
    }
    const { rgba, specials } = painted;
    hm.specials = specials;
    if (canBitmap) {
      const t = performance.now();
      hm.bitmap = await createImageBitmap(new ImageData(rgba, w, h));
      result.bitmapMs = (result.bitmapMs ?? 0) + performance.now() - t;
      transfer.add(hm.bitmap);
    } else {
      hm.rgba = rgba;
      hm.rgbaSize = [h, w];
      transfer.add(rgba.buffer);
    }
    transfer.add(hm.data.buffer);
  }
  return [...transfer];
}

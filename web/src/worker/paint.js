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
 * Colours every heatmap of `result` now: adds range, rgba (rgbaSize: its [rows, cols]) and
 * special-value counts to each entry of result.heatmaps. The main thread's small jobs
 * (worker/inline.js) draw these pixels as they are.
 * @param {{ reuse?: boolean }} [o] reuse: paint large pictures into the buffer kept between
 *   jobs (only where the pixels are copied before the next job: see paint)
 */
export function paintPixels(result, { reuse = false } = {}) {
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
      painted = colorize(hm.data, hm.cmap, hm.range, reuse ? scratchFor(w * h * 4) : undefined);
    }
    hm.rgba = painted.rgba;
    hm.rgbaSize = [h, w];
    hm.specials = painted.specials;
  }
}

/**
 * paintPixels, then each picture made an ImageBitmap where the worker can make one (the
 * main thread then only blits it), else left as rgba. Returns the buffers/bitmaps to transfer.
 */
export async function paint(result) {
  paintPixels(result, { reuse: canBitmap });
  const transfer = new Set(); // a buffer listed twice would make postMessage throw
  for (const hm of Object.values(result.heatmaps ?? {})) {
    if (canBitmap) {
      const t = performance.now();
      const [h, w] = hm.rgbaSize;
      hm.bitmap = await createImageBitmap(new ImageData(hm.rgba, w, h));
      result.bitmapMs = (result.bitmapMs ?? 0) + performance.now() - t;
      delete hm.rgba; // the shared scratch buffer: not sent
      delete hm.rgbaSize;
      transfer.add(hm.bitmap);
    } else {
      transfer.add(hm.rgba.buffer);
    }
    transfer.add(hm.data.buffer);
  }
  return [...transfer];
}

// Turns each heatmap of a job's result into pixels here in the worker, so the main thread
// only blits a finished bitmap and stays free while large matrices are coloured.
import { DIVERGING, colorize, valueRange } from '../plots/colormap.js';

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

// No screen shows more than this many cells per axis: larger images are resampled here, off
// the main thread, so its redraw only scales a screen-sized picture (hover and exports still
// read the full-resolution data).
export const DISPLAY_MAX = 2048;

async function displayBitmap(image) {
  const full = await createImageBitmap(image);
  const w = Math.min(image.width, DISPLAY_MAX);
  const h = Math.min(image.height, DISPLAY_MAX);
  if ((w === image.width && h === image.height) || typeof OffscreenCanvas !== 'function') return full;
  const canvas = new OffscreenCanvas(w, h);
  const ctx = canvas.getContext('2d');
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(full, 0, 0, w, h);
  full.close();
  return canvas.transferToImageBitmap();
}

/**
 * Adds range, rgba (or bitmap where the worker can make one) and special-value counts to
 * every entry of result.heatmaps. Returns the buffers/bitmaps to transfer.
 */
export async function paint(result) {
  const transfer = new Set(); // a buffer listed twice would make postMessage throw
  for (const hm of Object.values(result.heatmaps ?? {})) {
    hm.range ??= valueRange(hm.data, DIVERGING.has(hm.cmap));
    const n = hm.rows * hm.cols * 4;
    const { rgba, specials } = colorize(hm.data, hm.cmap, hm.range, canBitmap ? scratchFor(n) : undefined);
    hm.specials = specials;
    if (canBitmap) {
      const t = performance.now();
      hm.bitmap = await displayBitmap(new ImageData(rgba, hm.cols, hm.rows));
      result.bitmapMs = (result.bitmapMs ?? 0) + performance.now() - t;
      transfer.add(hm.bitmap);
    } else {
      hm.rgba = rgba;
      transfer.add(rgba.buffer);
    }
    transfer.add(hm.data.buffer);
  }
  return [...transfer];
}

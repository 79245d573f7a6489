// A small figure without axes: a heatmap the worker already painted, scaled to the box, or
// one series as a line (positions below `shade` on a shaded band). Drawn on a surface, so it
// follows the box's size, the device's pixel ratio and the theme like the full-size plots.
import { seriesColor } from './palette.js';
import { createSurface } from './surface.js';

const PAD = 4; // CSS px between a line and the box's edge

/**
 * Where each value of a series lands in a width × height box: x spread evenly over the
 * positions, y over the finite values' range (a flat series on the middle line); null where
 * a value is not finite, so the line breaks there.
 * @param {ArrayLike<number>} values
 * @returns {([number, number] | null)[]}
 */
export function linePoints(values, width, height, pad = PAD) {
  const n = values.length;
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (Number.isFinite(v)) {
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  }
  const xOf = (i) => (n > 1 ? pad + (i / (n - 1)) * (width - 2 * pad) : width / 2);
  const yOf = (v) => (hi > lo ? pad + ((hi - v) / (hi - lo)) * (height - 2 * pad) : height / 2);
  return Array.from(values, (v, i) => (Number.isFinite(v) ? [xOf(i), yOf(v)] : null));
}

/** The picture of a painted heatmap: its bitmap, or its RGBA where the worker could not make one. */
function heatmapImage(hm) {
  if (hm.bitmap) return hm.bitmap;
  const [h, w] = hm.rgbaSize ?? [hm.rows, hm.cols];
  const image = document.createElement('canvas');
  image.width = w;
  image.height = h;
  image.getContext('2d').putImageData(new ImageData(hm.rgba, w, h), 0, 0);
  return image;
}

function drawLine(ctx, { width, height }, colours, values, shade) {
  const n = values.length;
  if (shade > 0 && n > 1) {
    ctx.fillStyle = colours.grid;
    ctx.fillRect(0, 0, PAD + (Math.min(shade, n - 1) / (n - 1)) * (width - 2 * PAD), height);
  }
  ctx.strokeStyle = seriesColor(0);
  ctx.lineWidth = 1.5;
  ctx.lineJoin = 'round';
  ctx.beginPath();
  let open = false;
  for (const p of linePoints(values, width, height)) {
    if (!p) open = false;
    else if (open) ctx.lineTo(p[0], p[1]);
    else {
      ctx.moveTo(p[0], p[1]);
      open = true;
    }
  }
  ctx.stroke();
}

/**
 * @param {HTMLElement} box the element whose size the canvas takes (sized before anything draws)
 * @param {HTMLCanvasElement} canvas
 */
export function createThumbnail(box, canvas) {
  let shown = null; // { image } or { values, shade }
  const surface = createSurface(box, canvas, {
    base(ctx, size, colours) {
      if (shown?.image) {
        const { image } = shown;
        ctx.imageSmoothingEnabled = image.width > size.width || image.height > size.height;
        ctx.imageSmoothingQuality = 'high';
        ctx.drawImage(image, 0, 0, size.width, size.height);
      } else if (shown?.values) drawLine(ctx, size, colours, shown.values, shown.shade);
    },
    top() {},
  });
  return {
    /** A heatmap of a job's result, painted by the worker (worker/paint.js). */
    showHeatmap(hm) {
      shown = { image: heatmapImage(hm) };
      surface.invalidate();
    },
    /** One series; positions below `shade` are marked (a trained range). */
    showLine(values, shade = 0) {
      shown = { values, shade };
      surface.invalidate();
    },
  };
}

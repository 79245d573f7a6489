// A matrix as a picture: one pixel per cell (an ImageBitmap painted in the worker, or rgba
// from a small job run on the main thread; binned to 1024 pixels when an axis is longer) in
// a plot area with integer axes and a colour bar, drawn by hand on one canvas (no Chart.js:
// an update costs one image draw, and the axes and colour bar are redrawn only when the
// matrix's shape, labels or range change).
// Hover or arrow keys pick a cell; click / Enter reports it (custom masks).
import { encodeNpy } from '../export/npy.js';
import { matrixCsv } from '../export/csv.js';
import { FONT, SMALL_FONT, drawAxes, integerTicks, plotArea, thin } from './axes.js';
import { SPECIAL, colorizeBinned, lut } from './colormap.js';
import { createFigure } from './figure.js';
import { formatExact, formatShort } from './format.js';
import { createSurface } from './surface.js';

const BAR = { gap: 10, width: 12, room: 72 }; // colour bar geometry (px), right of the plot
const COMPACT_BAR = { gap: 6, width: 8, room: 44 }; // small multiples: ticks and titles off
const LABEL_HEIGHT = 14;
// Matrices up to this many cells are averaged down to the plot's pixels here when they have
// more cells than it has pixels; larger ones arrive already binned to 1024 by the worker.
const BIN_HERE_MAX = 1 << 20;

/**
 * @param {HTMLElement} parent
 * @param {{ title: string, xTitle: string, yTitle: string, height?: number, compact?: boolean,
 *   onCellClick?: (row: number, col: number) => void }} opts
 */
export function createHeatmap(parent, opts) {
  // What drawing and picking share: the matrix and its picture, the picked cell and the plot
  // area of the last base layer (CSS px), which the top layer and the pointer both map into.
  // view.m: { data, rows, cols, bitmap|rgba, range, cmap, specials, xLabels?, yLabels? }
  const view = { m: null, image: null, hover: null, area: null, titles: { x: opts.xTitle, y: opts.yTitle } };
  let pixels = null; // the canvas rgba pictures are put into, kept between updates
  let baseKey = '';
  const bar = opts.compact ? COMPACT_BAR : BAR;

  const figure = createFigure(parent, {
    title: opts.title,
    height: opts.height ?? 340,
    exports: {
      csv: () =>
        matrixCsv(view.m.data, view.m.rows, view.m.cols, { rowLabels: view.m.yLabels, colLabels: view.m.xLabels }),
      npy: () => encodeNpy(view.m.data, [view.m.rows, view.m.cols]),
    },
  });
  const canvas = figure.canvas;
  canvas.tabIndex = 0;

  const pictureFor = createPictureBinner();
  const surface = createSurface(figure.box, canvas, {
    base(ctx, size, colours) {
      if (view.m) view.area = drawFrame(ctx, size, colours, view, bar, opts.compact);
    },
    top(ctx) {
      const { ratio } = surface.size;
      drawPicture(ctx, view, pictureFor(view, ratio), ratio);
    },
  });

  const setHover = (cell) => {
    if (cell?.row === view.hover?.row && cell?.col === view.hover?.col) return;
    view.hover = cell;
    figure.setReadout(cell ? describeCell(view, cell) : '');
    surface.repaint();
  };
  listenForCells(canvas, view, setHover, opts.onCellClick);

  return {
    figure,
    /** Resolves once the last update is on the canvas. */
    drawn: () => surface.drawn(),
    destroy() {
      view.m?.bitmap?.close?.();
      surface.destroy();
      figure.el.remove();
    },
    /** The current matrix ({ data, rows, cols, ... }) or null. */
    get matrix() {
      return view.m;
    },
    /**
     * @param {{ data: ArrayLike<number>, rows: number, cols: number, range: [number, number],
     *   cmap: string, bitmap?: ImageBitmap, rgba?: Uint8ClampedArray, specials?: object,
     *   xLabels?: string[], yLabels?: string[], rowMarks?: { row: number, label: string }[] }} next
     *   painted by worker/paint.js
     * @param {{ xTitle?: string, yTitle?: string }} [axes]
     */
    update(next, axes = {}) {
      const { m: last, titles } = view;
      if (last?.bitmap && last.bitmap !== next.bitmap) last.bitmap.close?.();
      const labelsChanged = next.xLabels !== last?.xLabels || next.yLabels !== last?.yLabels;
      const m = next;
      view.m = m;
      view.image = next.bitmap ?? (pixels = toCanvas(next, pixels));
      if (axes.xTitle) titles.x = axes.xTitle;
      if (axes.yTitle) titles.y = axes.yTitle;
      if (view.hover && (view.hover.row >= m.rows || view.hover.col >= m.cols)) view.hover = null;
      // Axes and colour bar depend on these only; the picture alone is one image draw.
      const swatches = ['negInf', 'nan', 'posInf'].map((k) => Boolean(m.specials?.[k]));
      const key = JSON.stringify([m.rows, m.cols, m.range, m.cmap, swatches, titles]);
      if (key !== baseKey || labelsChanged) {
        baseKey = key;
        surface.invalidate();
      } else surface.repaint();
      if (view.hover) figure.setReadout(describeCell(view, view.hover));
    },
  };
}

const tickLabel = (names, v) => (names ? (names[v] ?? '') : String(v));

// The base layer: axes with integer ticks (or the rows' and columns' names) and the colour
// bar. Returns the plot area it laid out.
function drawFrame(ctx, { width, height }, colours, { m, titles }, bar, compact) {
  const ticksOf = (n, names) => integerTicks(n, names ? n : 8);
  let xs = ticksOf(m.cols, m.xLabels);
  let ys = ticksOf(m.rows, m.yLabels);
  ctx.font = FONT;
  const widest = Math.max(0, ...xs.map((v) => ctx.measureText(tickLabel(m.xLabels, v)).width));
  // Token labels turn vertical when they would not fit side by side; numbers thin out instead.
  const rotateX = Boolean(m.xLabels) && widest + 6 > (width - 80) / Math.max(1, xs.length);
  const a = plotArea(ctx, width, height, {
    xLabels: xs.map((v) => tickLabel(m.xLabels, v)),
    yLabels: ys.map((v) => tickLabel(m.yLabels, v)),
    xTitle: titles.x,
    yTitle: titles.y,
    right: bar.room,
    compact,
    rotateX,
  });
  if (!compact) {
    const w = a.right - a.left;
    const h = a.bottom - a.top;
    xs = thin(xs, w, rotateX ? LABEL_HEIGHT : widest);
    ys = thin(ys, h, LABEL_HEIGHT);
    const at = (v, n, from, span) => from + ((v + 0.5) * span) / n;
    drawAxes(ctx, a, {
      x: { ticks: xs.map((v) => ({ at: at(v, m.cols, a.left, w), label: tickLabel(m.xLabels, v) })), title: titles.x },
      y: { ticks: ys.map((v) => ({ at: at(v, m.rows, a.top, h), label: tickLabel(m.yLabels, v) })), title: titles.y },
      color: colours.fg,
    });
  }
  drawColorBar(ctx, a, m, bar, colours.fg);
  return a;
}

// The picture to draw in the plot area: one with more cells than the area has device pixels
// is binned to them from the values (each pixel the mean of its cells), so fine stripes (512
// columns on a phone) keep their mean colour instead of aliasing into the few cells a
// resampler happens to hit. Cached per matrix and size.
function createPictureBinner() {
  let binned = null; // { m, w, h, canvas }
  return ({ m, image, area: a }, ratio) => {
    if (!m || !a || !image) return null;
    const w = Math.max(1, Math.round((a.right - a.left) * ratio));
    const h = Math.max(1, Math.round((a.bottom - a.top) * ratio));
    if ((image.width <= w && image.height <= h) || m.rows * m.cols > BIN_HERE_MAX) return image;
    if (binned?.m !== m || binned.w !== w || binned.h !== h) {
      const rows = Math.min(h, m.rows);
      const cols = Math.min(w, m.cols);
      const { rgba } = colorizeBinned(m.data, m.rows, m.cols, m.cmap, rows, cols, { range: m.range });
      binned = { m, w, h, canvas: toCanvas({ rgba, rows, cols }, binned?.canvas) };
    }
    return binned.canvas;
  };
}

// The top layer: the picture, the row marks and the picked cell's outline.
function drawPicture(ctx, { m, area: a, hover }, image, ratio) {
  if (!image) return;
  const shrink = Math.max(image.width / ((a.right - a.left) * ratio), image.height / ((a.bottom - a.top) * ratio));
  // Crisp cells when enlarging; when shrinking, bilinear up to 2 cells a pixel and the
  // costlier filter only past that (the worker already bins anything over 1024 cells).
  ctx.imageSmoothingEnabled = shrink > 1;
  ctx.imageSmoothingQuality = shrink > 2 ? 'high' : 'low';
  ctx.drawImage(image, a.left, a.top, a.right - a.left, a.bottom - a.top);
  if (m.rowMarks) drawRowMarks(ctx, a, m.rows, m.rowMarks);
  if (!hover) return;
  const cw = (a.right - a.left) / m.cols;
  const ch = (a.bottom - a.top) / m.rows;
  ctx.save();
  ctx.lineWidth = 2;
  ctx.strokeStyle = '#ff2d55';
  ctx.strokeRect(a.left + hover.col * cw, a.top + hover.row * ch, Math.max(2, cw), Math.max(2, ch));
  ctx.restore();
}

// The cell under a point of the canvas (CSS px), or null off the plot area.
function cellAt({ m, area: a }, px, py) {
  if (!m || !a || px < a.left || px >= a.right || py < a.top || py >= a.bottom) return null;
  const col = Math.floor(((px - a.left) / (a.right - a.left)) * m.cols);
  const row = Math.floor(((py - a.top) / (a.bottom - a.top)) * m.rows);
  return row >= 0 && row < m.rows && col >= 0 && col < m.cols ? { row, col } : null;
}

// The readout of a cell: its row and column (with their names) and its exact value.
function describeCell({ m, titles }, { row, col }) {
  const v = m.data[row * m.cols + col];
  const yName = m.yLabels ? `${row} “${m.yLabels[row]}”` : row;
  const xName = m.xLabels ? `${col} “${m.xLabels[col]}”` : col;
  return `${titles.y} ${yName}, ${titles.x} ${xName}: ${formatExact(v)}`;
}

// Hover picks a cell and a click reports it; from the keyboard, arrows move the picked cell
// (Shift: 10 cells) and Enter/Space clicks it.
function listenForCells(canvas, view, setHover, onCellClick) {
  canvas.addEventListener('mousemove', (e) => setHover(cellAt(view, e.offsetX, e.offsetY)));
  canvas.addEventListener('mouseleave', () => setHover(null));
  canvas.addEventListener('click', (e) => {
    const cell = cellAt(view, e.offsetX, e.offsetY);
    if (cell && onCellClick) onCellClick(cell.row, cell.col);
  });
  canvas.addEventListener('keydown', (e) => {
    const { m } = view;
    if (!m) return;
    const step = e.shiftKey ? 10 : 1;
    const cur = view.hover ?? { row: 0, col: 0 };
    const moves = { ArrowLeft: [0, -step], ArrowRight: [0, step], ArrowUp: [-step, 0], ArrowDown: [step, 0] };
    if (moves[e.key]) {
      const [dr, dc] = moves[e.key];
      setHover({ row: clamp(cur.row + dr, m.rows), col: clamp(cur.col + dc, m.cols) });
      e.preventDefault();
    } else if ((e.key === 'Enter' || e.key === ' ') && onCellClick) {
      onCellClick(cur.row, cur.col);
      e.preventDefault();
    }
  });
}

const clamp = (v, n) => Math.max(0, Math.min(n - 1, v));

// rgba as an image to draw: a small job run on the main thread, or a worker that could not
// make a bitmap. `c`, the last picture's canvas, is reused.
function toCanvas({ rgba, rows, cols, rgbaSize: [h, w] = [rows, cols] }, c) {
  c ??= document.createElement('canvas');
  if (c.width !== w) c.width = w;
  if (c.height !== h) c.height = h;
  c.getContext('2d').putImageData(new ImageData(rgba, w, h), 0, 0);
  return c;
}

// Dashed horizontal lines between rows (e.g. the end of the training length).
function drawRowMarks(ctx, a, rows, marks) {
  ctx.save();
  ctx.setLineDash([6, 4]);
  ctx.lineWidth = 2;
  ctx.font = SMALL_FONT;
  for (const { row, label } of marks) {
    const y = a.top + ((row + 0.5) * (a.bottom - a.top)) / rows;
    if (y < a.top || y > a.bottom) continue;
    ctx.strokeStyle = '#ff2d55';
    ctx.beginPath();
    ctx.moveTo(a.left, y);
    ctx.lineTo(a.right, y);
    ctx.stroke();
    labelInBox(ctx, label, a.left + 4, y - 4);
  }
  ctx.restore();
}

// A label drawn over the picture sits in a dark box with white text, legible on any colour map.
function labelInBox(ctx, text, x, y) {
  const w = ctx.measureText(text).width;
  ctx.fillStyle = 'rgba(0, 0, 0, 0.72)';
  ctx.fillRect(x - 3, y - 11, w + 6, 15);
  ctx.fillStyle = '#fff';
  ctx.fillText(text, x, y);
}

function drawColorBar(ctx, a, m, bar, text) {
  const table = lut(m.cmap);
  const x = a.right + bar.gap;
  const h = a.bottom - a.top;
  ctx.save();
  for (let i = 0; i < 256; i++) {
    const y0 = a.bottom - ((i + 1) * h) / 256;
    ctx.fillStyle = `rgb(${table[i * 4]},${table[i * 4 + 1]},${table[i * 4 + 2]})`;
    ctx.fillRect(x, y0, bar.width, h / 256 + 0.5);
  }
  ctx.fillStyle = text;
  ctx.font = SMALL_FONT;
  ctx.textBaseline = 'middle';
  const [lo, hi] = m.range;
  // A midpoint within float32 rounding of zero (a range of [−1, 1 + 1 ulp]) is labelled 0.
  const mid = (lo + hi) / 2;
  const ticks = hi > lo ? [lo, Math.abs(mid) < (hi - lo) * 1e-6 ? 0 : mid, hi] : [lo];
  for (const t of ticks) {
    const y = hi > lo ? a.bottom - ((t - lo) / (hi - lo)) * h : (a.top + a.bottom) / 2;
    ctx.fillText(formatShort(t), x + bar.width + 4, y);
  }
  // Swatches for the non-finite values present, between the top and middle labels.
  let sy = a.top + h / 4 - 7;
  for (const [key, name] of [
    ['negInf', '−∞'],
    ['nan', 'NaN'],
    ['posInf', '+∞'],
  ]) {
    if (!m.specials?.[key]) continue;
    const c = SPECIAL[key];
    ctx.fillStyle = `rgb(${c[0]},${c[1]},${c[2]})`;
    ctx.fillRect(x + bar.width + 4, sy, 10, 10);
    ctx.strokeStyle = text;
    ctx.strokeRect(x + bar.width + 4, sy, 10, 10);
    ctx.fillStyle = text;
    ctx.fillText(name, x + bar.width + 17, sy + 5);
    sy += 14;
  }
  ctx.restore();
}

// A matrix as a picture: one pixel per cell (an ImageBitmap painted in the worker, which
// resamples it there when an axis exceeds 2048 cells) drawn inside a Chart.js plot area, so
// axes, the colour bar and the hover readout share one set of scales. Hover or arrow keys
// pick a cell; click / Enter reports it (custom masks).
import { encodeNpy } from '../export/npy.js';
import { matrixCsv } from '../export/csv.js';
import { charts, makeChart } from './chart-setup.js';
import { SPECIAL, lut } from './colormap.js';
import { createFigure } from './figure.js';
import { formatExact, formatShort } from './format.js';

const BAR = { gap: 10, width: 12, room: 72 }; // colour bar geometry (px), right of the plot
const COMPACT_BAR = { gap: 6, width: 8, room: 44 }; // small multiples: ticks and titles off

/**
 * @param {HTMLElement} parent
 * @param {{ title: string, xTitle: string, yTitle: string, height?: number, compact?: boolean,
 *   onCellClick?: (row: number, col: number) => void }} opts
 */
export function createHeatmap(parent, opts) {
  let m = null; // { data, rows, cols, bitmap|rgba, range, cmap, specials, xLabels?, yLabels? }
  let image = null;
  let cache = null; // the image scaled to the plot area, redrawn only when either changes
  let hover = null;
  const titles = { x: opts.xTitle, y: opts.yTitle };
  const bar = opts.compact ? COMPACT_BAR : BAR;

  const figure = createFigure(parent, {
    title: opts.title,
    height: opts.height ?? 340,
    exports: {
      csv: () => matrixCsv(m.data, m.rows, m.cols, { rowLabels: m.yLabels, colLabels: m.xLabels }),
      npy: () => encodeNpy(m.data, [m.rows, m.cols]),
    },
  });
  const canvas = figure.canvas;
  canvas.tabIndex = 0;

  const label = (axis) => (v) => {
    if (!Number.isInteger(v)) return '';
    const names = axis === 'x' ? m?.xLabels : m?.yLabels;
    return names ? (names[v] ?? '') : String(v);
  };
  const scale = (axis) => ({
    type: 'linear',
    reverse: axis === 'y',
    min: -0.5,
    max: 0.5,
    grid: { display: false },
    title: { display: !opts.compact, text: titles[axis] },
    // Ticks on cell centres (integers) only; Chart.js would start them at the −0.5 edge.
    afterBuildTicks: (s) => {
      const n = axis === 'x' ? m?.cols : m?.rows;
      const names = axis === 'x' ? m?.xLabels : m?.yLabels;
      s.ticks = n ? integerTicks(n, names ? n : 8).map((value) => ({ value })) : [];
    },
    ticks: { display: !opts.compact, callback: label(axis), autoSkipPadding: 6, maxRotation: axis === 'x' ? 60 : 0 },
  });

  const cellAt = (chart, px, py) => {
    const { chartArea: a, scales } = chart;
    if (!m || px < a.left || px > a.right || py < a.top || py > a.bottom) return null;
    const col = Math.round(scales.x.getValueForPixel(px));
    const row = Math.round(scales.y.getValueForPixel(py));
    return row >= 0 && row < m.rows && col >= 0 && col < m.cols ? { row, col } : null;
  };

  const describe = ({ row, col }) => {
    const v = m.data[row * m.cols + col];
    const yName = m.yLabels ? `${row} “${m.yLabels[row]}”` : row;
    const xName = m.xLabels ? `${col} “${m.xLabels[col]}”` : col;
    return `${titles.y} ${yName}, ${titles.x} ${xName}: ${formatExact(v)}`;
  };

  const setHover = (cell) => {
    hover = cell;
    figure.setReadout(cell ? describe(cell) : '');
  };

  const plugin = {
    id: 'heatmap',
    beforeDatasetsDraw(chart) {
      if (!image) return;
      const { ctx, chartArea: a, scales } = chart;
      const left = scales.x.getPixelForValue(-0.5);
      const top = scales.y.getPixelForValue(-0.5);
      const w = Math.round(scales.x.getPixelForValue(m.cols - 0.5) - left);
      const h = Math.round(scales.y.getPixelForValue(m.rows - 0.5) - top);
      if (w < 1 || h < 1) return;
      if (!cache || cache.image !== image || cache.w !== w || cache.h !== h) {
        const c = cache?.canvas ?? document.createElement('canvas');
        c.width = w;
        c.height = h;
        const cx = c.getContext('2d');
        // Crisp cells when enlarging; smoothing only when many cells share a pixel.
        cx.imageSmoothingEnabled = image.width > w || image.height > h;
        cx.imageSmoothingQuality = 'high';
        cx.drawImage(image, 0, 0, w, h);
        cache = { canvas: c, image, w, h };
      }
      ctx.save();
      ctx.beginPath();
      ctx.rect(a.left, a.top, a.right - a.left, a.bottom - a.top);
      ctx.clip();
      ctx.drawImage(cache.canvas, left, top);
      ctx.restore();
    },
    afterDatasetsDraw(chart) {
      if (m?.rowMarks) drawRowMarks(chart, m.rowMarks);
      if (!hover || !m) return;
      const { ctx, scales } = chart;
      const x0 = scales.x.getPixelForValue(hover.col - 0.5);
      const x1 = scales.x.getPixelForValue(hover.col + 0.5);
      const y0 = scales.y.getPixelForValue(hover.row - 0.5);
      const y1 = scales.y.getPixelForValue(hover.row + 0.5);
      ctx.save();
      ctx.lineWidth = 2;
      ctx.strokeStyle = '#ff2d55';
      ctx.strokeRect(x0, y0, Math.max(2, x1 - x0), Math.max(2, y1 - y0));
      ctx.restore();
    },
    afterDraw(chart) {
      if (m) drawColorBar(chart, m, bar);
    },
    afterEvent(chart, args) {
      const e = args.event;
      if (e.type === 'mouseout') {
        setHover(null);
        args.changed = true;
        return;
      }
      const cell = cellAt(chart, e.x, e.y);
      if (e.type === 'click' && cell && opts.onCellClick) opts.onCellClick(cell.row, cell.col);
      if ((cell?.row !== hover?.row || cell?.col !== hover?.col) && e.type === 'mousemove') {
        setHover(cell);
        args.changed = true;
      }
    },
  };

  const chart = makeChart(canvas, {
    type: 'scatter',
    data: { datasets: [{ data: [] }] },
    options: {
      events: ['mousemove', 'mouseout', 'click'],
      layout: { padding: { right: bar.room } },
      scales: { x: scale('x'), y: scale('y') },
      plugins: { legend: { display: false }, tooltip: { enabled: false } },
    },
    plugins: [plugin],
  });

  // Keyboard: arrows move the picked cell (Shift: 10 cells), Enter/Space clicks it.
  canvas.addEventListener('keydown', (e) => {
    if (!m) return;
    const step = e.shiftKey ? 10 : 1;
    const cur = hover ?? { row: 0, col: 0 };
    const moves = { ArrowLeft: [0, -step], ArrowRight: [0, step], ArrowUp: [-step, 0], ArrowDown: [step, 0] };
    if (moves[e.key]) {
      const [dr, dc] = moves[e.key];
      setHover({ row: clamp(cur.row + dr, m.rows), col: clamp(cur.col + dc, m.cols) });
      chart.draw();
      e.preventDefault();
    } else if ((e.key === 'Enter' || e.key === ' ') && opts.onCellClick) {
      opts.onCellClick(cur.row, cur.col);
      e.preventDefault();
    }
  });

  return {
    figure,
    chart,
    destroy() {
      m?.bitmap?.close?.();
      charts.delete(chart);
      chart.destroy();
      figure.el.remove();
    },
    /** The current matrix ({ data, rows, cols, ... }) or null. */
    get matrix() {
      return m;
    },
    /**
     * @param {{ data: ArrayLike<number>, rows: number, cols: number, range: [number, number],
     *   cmap: string, bitmap?: ImageBitmap, rgba?: Uint8ClampedArray, specials?: object,
     *   xLabels?: string[], yLabels?: string[], rowMarks?: { row: number, label: string }[] }} next
     *   painted by worker/paint.js
     * @param {{ xTitle?: string, yTitle?: string }} [axes]
     */
    update(next, axes = {}) {
      if (m?.bitmap && m.bitmap !== next.bitmap) m.bitmap.close?.();
      m = next;
      image = next.bitmap ?? toCanvas(next);
      if (axes.xTitle) titles.x = axes.xTitle;
      if (axes.yTitle) titles.y = axes.yTitle;
      if (hover && (hover.row >= m.rows || hover.col >= m.cols)) hover = null;
      const { x, y } = chart.options.scales;
      x.max = m.cols - 0.5;
      y.max = m.rows - 0.5;
      x.title.text = titles.x;
      y.title.text = titles.y;
      chart.update('none');
      if (hover) figure.setReadout(describe(hover));
    },
  };
}

const clamp = (v, n) => Math.max(0, Math.min(n - 1, v));

/** 0, step, 2·step, … < n with a 1-2-5 step giving at most about `count` ticks. */
export function integerTicks(n, count) {
  let step = 1;
  for (let k = 1; n / step > count; k++) step = [1, 2, 5][k % 3] * 10 ** Math.floor(k / 3);
  const out = [];
  for (let v = 0; v < n; v += step) out.push(v);
  return out;
}

// Main-thread fallback when the worker could not make a bitmap (no OffscreenCanvas support).
function toCanvas({ rgba, rows, cols }) {
  const c = document.createElement('canvas');
  c.width = cols;
  c.height = rows;
  c.getContext('2d').putImageData(new ImageData(rgba, cols, rows), 0, 0);
  return c;
}

// Dashed horizontal lines between rows (e.g. the end of the training length).
function drawRowMarks(chart, marks) {
  const { ctx, chartArea: a, scales } = chart;
  ctx.save();
  ctx.setLineDash([6, 4]);
  ctx.lineWidth = 2;
  ctx.font = '11px system-ui, sans-serif';
  for (const { row, label } of marks) {
    const y = scales.y.getPixelForValue(row);
    if (y < a.top || y > a.bottom) continue;
    ctx.strokeStyle = '#ff2d55';
    ctx.beginPath();
    ctx.moveTo(a.left, y);
    ctx.lineTo(a.right, y);
    ctx.stroke();
    ctx.fillStyle = '#ff2d55';
    ctx.fillText(label, a.left + 4, y - 4);
  }
  ctx.restore();
}

function drawColorBar(chart, m, bar) {
  const { ctx, chartArea: a } = chart;
  const table = lut(m.cmap);
  const x = a.right + bar.gap;
  const h = a.bottom - a.top;
  ctx.save();
  for (let i = 0; i < 256; i++) {
    const y0 = a.bottom - ((i + 1) * h) / 256;
    ctx.fillStyle = `rgb(${table[i * 4]},${table[i * 4 + 1]},${table[i * 4 + 2]})`;
    ctx.fillRect(x, y0, bar.width, h / 256 + 0.5);
  }
  const text = chart.options.color ?? '#666';
  ctx.fillStyle = text;
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  const [lo, hi] = m.range;
  const ticks = hi > lo ? [lo, (lo + hi) / 2, hi] : [lo];
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

// Line plot of one or more series (x, y arrays) with exact-value hover, optional log axes,
// reference lines (training length, wavelength thresholds, ...) and shaded x ranges, drawn by
// hand on one canvas: no Chart.js, so a redraw of a few thousand points costs about a
// millisecond and an embed carries no charting library. Series longer than the plot is wide
// are drawn as each pixel column's min and max, which keeps every peak.
import { seriesCsv } from '../export/csv.js';
import { FONT, SMALL_FONT, drawAxes, logTicks, makeScale, niceTicks, plotArea, thin } from './axes.js';
import { createFigure } from './figure.js';
import { formatExact, formatShort } from './format.js';
import { createLinePicker } from './line-picker.js';
import { seriesColor } from './palette.js';
import { createSurface } from './surface.js';

/**
 * @typedef {{ label: string, x: ArrayLike<number>, y: ArrayLike<number>, dashed?: boolean, color?: string }} Series
 * @typedef {{ axis: 'x'|'y', value: number, label: string }} RefLine
 * @typedef {{ xTitle?: string, yTitle?: string, logX?: boolean, logY?: boolean, refLines?: RefLine[],
 *   bands?: { from: number, to: number }[], yMin?: number, yMax?: number, legend?: boolean }} LineOptions
 */

const LEGEND_ROW = 16;

/** The finite (and, on a log axis, positive) extent of some values: [lo, hi] or null. */
function extent(arrays, log) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const a of arrays)
    for (let i = 0; i < a.length; i++) {
      const v = a[i];
      if (!Number.isFinite(v) || (log && v <= 0)) continue;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  return lo <= hi ? [lo, hi] : null;
}

/**
 * An axis' domain and ticks: x spans the data exactly; y rounds out to its outer ticks.
 * @returns {{ min: number, max: number, ticks: number[] }}
 */
export function axisDomain(span, { log = false, exact = false, min, max } = {}) {
  let [lo, hi] = span ?? (log ? [1, 10] : [0, 1]);
  if (min !== undefined) lo = min;
  if (max !== undefined) hi = max;
  if (!(hi > lo)) {
    const pad = log ? lo * 0.5 : Math.abs(lo) * 0.1 || 1;
    [lo, hi] = [lo - pad, hi + pad];
  }
  if (log) {
    if (!exact) [lo, hi] = [10 ** Math.floor(Math.log10(lo)), 10 ** Math.ceil(Math.log10(hi))];
    return { min: lo, max: hi, ticks: logTicks(lo, hi) };
  }
  let ticks = niceTicks(lo, hi);
  if (!exact && ticks.length > 1) {
    const step = ticks[1] - ticks[0];
    if (min === undefined) lo = Math.min(lo, Math.floor(lo / step - 1e-9) * step);
    if (max === undefined) hi = Math.max(hi, Math.ceil(hi / step - 1e-9) * step);
    ticks = niceTicks(lo, hi);
  }
  return { min: lo, max: hi, ticks };
}

/** Index of the x nearest to `v` in ascending `xs`. */
function nearestIndex(xs, v) {
  let lo = 0;
  let hi = xs.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] < v) lo = mid;
    else hi = mid;
  }
  return Math.abs(xs[hi] - v) < Math.abs(xs[lo] - v) ? hi : lo;
}

/**
 * @param {HTMLElement} parent
 * @param {{ title: string, xTitle: string, yTitle: string, height?: number, allAlike?: boolean }} opts
 *   allAlike: a comparison, whose many lines start drawn alike (the line picker's "all lines")
 */
export function createLinePlot(parent, opts) {
  // What drawing and hover share: the series and options of the last update, the axis titles,
  // the scales of the last base layer ({ area, x, y }) and the point under the pointer ({ s, i }).
  /** @type {{ series: Series[], o: LineOptions, xTitle: string, yTitle: string, geometry: any, hover: any }} */
  const plot = { series: [], o: {}, xTitle: opts.xTitle, yTitle: opts.yTitle, geometry: null, hover: null };

  const figure = createFigure(parent, {
    title: opts.title,
    height: opts.height ?? 260,
    exports: { csv: () => seriesCsv(plot.xTitle, plot.series) },
  });
  const canvas = figure.canvas;
  const picker = createLinePicker(figure.el, figure.box, () => surface.repaint(), { allAlike: opts.allAlike });
  const surface = createSurface(figure.box, canvas, {
    base(ctx, size, colours) {
      plot.geometry = drawFrame(ctx, size, colours, plot);
    },
    top(ctx) {
      drawLines(ctx, plot, picker);
    },
  });

  const setHover = (p) => {
    plot.hover = p;
    const s = p && plot.series[p.s];
    figure.setReadout(s ? `${s.label} — ${plot.xTitle} ${formatExact(s.x[p.i])}: ${formatExact(s.y[p.i])}` : '');
    surface.repaint();
  };
  canvas.addEventListener('mousemove', (e) => {
    const p = pointAt(plot, e.offsetX, e.offsetY);
    if (p?.s !== plot.hover?.s || p?.i !== plot.hover?.i) setHover(p);
  });
  canvas.addEventListener('mouseleave', () => {
    if (plot.hover) setHover(null);
  });

  return {
    figure,
    /** Resolves once the last update is on the canvas. */
    drawn: () => surface.drawn(),
    /** The series drawn now. */
    get series() {
      return plot.series;
    },
    /**
     * @param {Series[]} next
     * @param {LineOptions} [options]
     */
    update(next, options = {}) {
      plot.series = next;
      plot.o = options;
      picker.update(next.map((s) => s.label));
      if (options.xTitle) plot.xTitle = options.xTitle;
      if (options.yTitle) plot.yTitle = options.yTitle;
      plot.hover = null;
      figure.setReadout('');
      surface.invalidate();
    },
  };
}

const colourOf = (s, i) => s.color ?? seriesColor(i);

// The legend's rows of line samples and labels, centred over the plot; returns its height
// (0 when there is none: one series, or legend: false when the page draws its own).
function drawLegend(ctx, width, colours, series, o) {
  if (series.length < 2 || o.legend === false) return 0;
  ctx.font = SMALL_FONT;
  ctx.textBaseline = 'middle';
  let x = 0;
  let row = 0;
  const items = series.map((s, i) => ({ s, i, w: 18 + ctx.measureText(s.label).width + 12 }));
  const rows = [[]];
  for (const item of items) {
    if (x + item.w > width - 8 && rows[row].length) {
      rows.push([]);
      row++;
      x = 0;
    }
    rows[row].push(item);
    x += item.w;
  }
  rows.forEach((r, k) => {
    const total = r.reduce((sum, it) => sum + it.w, 0);
    let cx = Math.max(4, (width - total) / 2);
    const cy = 8 + k * LEGEND_ROW;
    for (const { s, i, w } of r) {
      ctx.strokeStyle = colourOf(s, i);
      ctx.lineWidth = 2;
      ctx.setLineDash(s.dashed ? [4, 3] : []);
      ctx.beginPath();
      ctx.moveTo(cx, cy);
      ctx.lineTo(cx + 14, cy);
      ctx.stroke();
      ctx.fillStyle = colours.fg;
      ctx.fillText(s.label, cx + 18, cy);
      cx += w;
    }
  });
  ctx.setLineDash([]);
  return rows.length * LEGEND_ROW + 4;
}

// The base layer: legend, shaded bands, axes and reference lines. Returns the scales it laid
// out ({ area, x, y }), which the lines and the hover use.
function drawFrame(ctx, { width, height }, colours, { series, o, xTitle, yTitle }) {
  const legend = drawLegend(ctx, width, colours, series, o);
  // x spans the data's first to last x exactly; y rounds out to ticks unless yMin/yMax pin it.
  const xSpan = extent(
    series.flatMap((s) => (s.x.length ? [[s.x[0], s.x[s.x.length - 1]]] : [])),
    o.logX,
  );
  const ySpan = extent(
    series.map((s) => s.y),
    o.logY,
  );
  const xd = axisDomain(xSpan, { log: o.logX, exact: true });
  const yd = axisDomain(ySpan, { log: o.logY, min: o.yMin, max: o.yMax });
  const xLabels = xd.ticks.map(formatShort);
  const yLabels = yd.ticks.map(formatShort);
  const area = plotArea(ctx, width, height, { xLabels, yLabels, xTitle, yTitle, top: legend + 6, rotateX: false });
  const x = makeScale(xd.min, xd.max, area.left, area.right, o.logX);
  const y = makeScale(yd.min, yd.max, area.bottom, area.top, o.logY);
  ctx.font = FONT;
  const widest = Math.max(0, ...xLabels.map((s) => ctx.measureText(s).width));
  const xTicks = thin(
    xd.ticks.map((v, k) => ({ at: x.px(v), label: xLabels[k] })),
    area.right - area.left,
    widest,
  );
  const yTicks = thin(
    yd.ticks.map((v, k) => ({ at: y.px(v), label: yLabels[k] })),
    area.bottom - area.top,
    14,
  );
  ctx.fillStyle = 'rgba(128, 128, 128, 0.15)';
  for (const band of o.bands ?? []) {
    const x0 = Math.max(area.left, x.px(band.from));
    const x1 = Math.min(area.right, x.px(band.to));
    if (x1 > x0) ctx.fillRect(x0, area.top, x1 - x0, area.bottom - area.top);
  }
  drawAxes(ctx, area, {
    x: { ticks: xTicks, title: xTitle },
    y: { ticks: yTicks, title: yTitle },
    color: colours.fg,
    grid: colours.grid,
  });
  const geometry = { area, x, y };
  drawRefLines(ctx, geometry, o.refLines ?? [], colours.fg);
  return geometry;
}

// The top layer: every series clipped to the plot area, then the hovered point.
function drawLines(ctx, { series, o, geometry, hover }, picker) {
  if (!geometry) return;
  const { area, x, y } = geometry;
  ctx.save();
  ctx.beginPath();
  ctx.rect(area.left, area.top - 1, area.right - area.left, area.bottom - area.top + 2);
  ctx.clip();
  // Dashed overlays (the other side of an equation) go on top.
  // A line brought forward by the picker goes on top of the faded rest.
  const rank = (s) => Number(!!s.dashed) + 2 * Number(picker.forward === s.label);
  const order = series.map((s, i) => i).sort((a, b) => rank(series[a]) - rank(series[b]));
  for (const i of order) {
    ctx.globalAlpha = picker.faded(series[i].label) ? 0.18 : 1;
    drawSeries(ctx, series[i], colourOf(series[i], i), x, y, o);
  }
  ctx.globalAlpha = 1;
  if (hover) {
    const s = series[hover.s];
    ctx.fillStyle = colourOf(s, hover.s);
    ctx.beginPath();
    ctx.arc(x.px(s.x[hover.i]), y.px(s.y[hover.i]), 4, 0, 2 * Math.PI);
    ctx.fill();
  }
  ctx.restore();
}

// The point under the pointer: the nearest along x in each series, then the closest of those
// on screen ({ s, i, d }), or null off the plot area.
function pointAt({ series, geometry }, px, py) {
  if (!geometry || !series.length) return null;
  const { area, x, y } = geometry;
  if (px < area.left - 4 || px > area.right + 4 || py < area.top - 4 || py > area.bottom + 4) return null;
  const v = x.value(px);
  let best = null;
  series.forEach((s, k) => {
    if (!s.x.length) return;
    const i = nearestIndex(s.x, v);
    if (!Number.isFinite(s.y[i])) return;
    const d = Math.abs(x.px(s.x[i]) - px) * 4 + Math.abs(y.px(s.y[i]) - py);
    if (!best || d < best.d) best = { s: k, i, d };
  });
  return best;
}

function drawSeries(ctx, s, colour, x, y, o) {
  const n = s.x.length;
  if (!n) return;
  ctx.strokeStyle = ctx.fillStyle = colour;
  const ok = (i) => Number.isFinite(s.y[i]) && (!o.logY || s.y[i] > 0) && (!o.logX || s.x[i] > 0);
  const width = x.px(x.max) - x.px(x.min);
  ctx.lineWidth = strokeWidth(s, x, y, ok, ctx.getTransform().a);
  ctx.setLineDash(s.dashed ? [6, 4] : []);
  ctx.beginPath();
  if (n > 2 * width) {
    // Many points per pixel column: one vertical stroke per column from its min to its max.
    let col = null;
    let lo = 0;
    let hi = 0;
    let open = false;
    const flush = () => {
      if (col === null) return;
      if (open) ctx.lineTo(col, y.px(lo));
      else ctx.moveTo(col, y.px(lo));
      ctx.lineTo(col, y.px(hi));
      open = true;
    };
    for (let i = 0; i < n; i++) {
      if (!ok(i)) {
        flush();
        col = null;
        open = false;
        continue;
      }
      const c = Math.round(x.px(s.x[i]));
      const v = s.y[i];
      if (c !== col) {
        flush();
        col = c;
        lo = hi = v;
      } else {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
    }
    flush();
  } else {
    let open = false;
    for (let i = 0; i < n; i++) {
      if (!ok(i)) {
        open = false;
        continue;
      }
      const px = x.px(s.x[i]);
      const py = y.px(s.y[i]);
      if (open) ctx.lineTo(px, py);
      else ctx.moveTo(px, py);
      open = true;
    }
  }
  ctx.stroke();
  ctx.setLineDash([]);
  // Points on short series, so a lone value (one size, one length) still shows.
  if (n <= 64)
    for (let i = 0; i < n; i++) {
      if (!ok(i)) continue;
      ctx.beginPath();
      ctx.arc(x.px(s.x[i]), y.px(s.y[i]), 2, 0, 2 * Math.PI);
      ctx.fill();
    }
}

/**
 * The line width (CSS px) of a series on scales x and y at `ratio` device pixels per CSS px.
 * A line that fills a band (crossing a row of pixels more than once every 4 px across on
 * average, such as a sinusoidal vector across D = 512) is one device pixel wide: a wider
 * stroke of it costs the rasteriser about 10x more (about 75 ms on a phone-sized canvas, in
 * the task after the draw), and the band looks the same.
 */
export function strokeWidth(s, x, y, ok, ratio) {
  const width = Math.abs(x.px(x.max) - x.px(x.min));
  const height = Math.abs(y.px(y.min) - y.px(y.max));
  if (verticalTravel(s, y, ok) / height > width / 4) return 1 / ratio;
  return s.x.length > 256 ? 1 : 1.5;
}

/** How far a series' line travels up and down, in pixels: the sum of its vertical steps. */
function verticalTravel(s, y, ok) {
  let travel = 0;
  let last = null;
  for (let i = 0; i < s.x.length; i++) {
    if (!ok(i)) {
      last = null;
      continue;
    }
    const py = y.px(s.y[i]);
    if (last !== null) travel += Math.abs(py - last);
    last = py;
  }
  return travel;
}

function drawRefLines(ctx, { area: a, x, y }, lines, colour) {
  if (!lines.length) return;
  ctx.save();
  ctx.setLineDash([5, 4]);
  ctx.lineWidth = 1;
  ctx.font = SMALL_FONT;
  ctx.strokeStyle = ctx.fillStyle = colour;
  ctx.textBaseline = 'alphabetic';
  ctx.textAlign = 'left';
  for (const line of lines) {
    const p = line.axis === 'x' ? x.px(line.value) : y.px(line.value);
    if (!Number.isFinite(p) || p < (line.axis === 'x' ? a.left : a.top) || p > (line.axis === 'x' ? a.right : a.bottom))
      continue;
    ctx.beginPath();
    if (line.axis === 'x') {
      ctx.moveTo(p, a.top);
      ctx.lineTo(p, a.bottom);
    } else {
      ctx.moveTo(a.left, p);
      ctx.lineTo(a.right, p);
    }
    ctx.stroke();
    if (line.axis === 'x') ctx.fillText(line.label, p + 4, a.top + 12);
    else ctx.fillText(line.label, a.left + 4, p - 4);
  }
  ctx.restore();
}

/** 0, 1, …, n−1 as x values. */
export const range = (n, from = 0) => Float64Array.from({ length: n }, (_, i) => i + from);

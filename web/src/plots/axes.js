// Axes for PosLab's own canvas plots (heatmaps and line plots draw without Chart.js, so a
// slider step repaints in well under a frame and an embed carries no charting library):
// tick choice, the plot area left after the labels, and the axis drawing itself.

export const FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
export const SMALL_FONT = '11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const TICK = 5; // tick mark length (px)
const GAP = 4; // between a tick label and its mark or title
const LINE = 14; // height of a line of 12 px text

/** 0, step, 2·step, … < n with a 1-2-5 step giving at most about `count` ticks. */
export function integerTicks(n, count) {
  let step = 1;
  for (let k = 1; n / step > count; k++) step = [1, 2, 5][k % 3] * 10 ** Math.floor(k / 3);
  const out = [];
  for (let v = 0; v < n; v += step) out.push(v);
  return out;
}

/** Round values (1-2-5 steps) covering [lo, hi] with about `count` ticks inside it. */
export function niceTicks(lo, hi, count = 6) {
  if (!(hi > lo)) return Number.isFinite(lo) ? [lo] : [];
  const raw = (hi - lo) / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((f) => f * mag).find((s) => s >= raw);
  const out = [];
  const first = Math.ceil(lo / step - 1e-9);
  for (let k = first; k * step <= hi + step * 1e-9; k++) out.push(Number((k * step).toPrecision(12)));
  return out;
}

/** Powers of ten in [lo, hi] (lo > 0), thinned to about `count`; 1-2-5 within a decade when few. */
export function logTicks(lo, hi, count = 8) {
  const a = Math.floor(Math.log10(lo));
  const b = Math.ceil(Math.log10(hi));
  const decades = [];
  for (let e = a; e <= b; e++) decades.push(e);
  const every = Math.max(1, Math.ceil(decades.length / count));
  const mantissas = (b - a) * 3 <= count ? [1, 2, 5] : [1];
  const out = [];
  for (const e of decades.filter((d) => d % every === 0))
    for (const m of mantissas) {
      const v = Number((m * 10 ** e).toPrecision(12));
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push(v);
    }
  return out;
}

/** Data ↔ pixels along one axis; `log` maps log10 of the value. */
export function makeScale(min, max, from, to, log = false) {
  const f = log ? Math.log10 : (v) => v;
  const a = f(min);
  const span = f(max) - a || 1;
  return {
    min,
    max,
    log,
    px: (v) => from + ((f(v) - a) / span) * (to - from),
    value: (p) => {
      const u = a + ((p - from) / (to - from)) * span;
      return log ? 10 ** u : u;
    },
  };
}

/**
 * The plot area inside a `width` × `height` canvas once the tick labels and titles have room.
 * @param {CanvasRenderingContext2D} ctx
 * @param {{ xLabels: string[], yLabels: string[], xTitle?: string, yTitle?: string,
 *   right?: number, top?: number, compact?: boolean, rotateX?: boolean }} o
 *   rotateX: x labels drawn vertically (decided here when left out)
 * @returns {{ left: number, top: number, right: number, bottom: number, rotateX: boolean }}
 */
export function plotArea(ctx, width, height, o) {
  if (o.compact) return { left: 2, top: 2, right: width - (o.right ?? 0) - 2, bottom: height - 2, rotateX: false };
  ctx.font = FONT;
  const yw = Math.max(0, ...o.yLabels.map((s) => ctx.measureText(s).width));
  const xw = Math.max(0, ...o.xLabels.map((s) => ctx.measureText(s).width));
  const left = Math.ceil((o.yTitle ? LINE + GAP : 0) + yw + GAP + TICK + 2);
  const right = width - (o.right ?? 0) - Math.ceil(Math.min(xw / 2, 24)) - 4;
  // Labels turn vertical when they would collide side by side.
  const slot = o.xLabels.length > 1 ? (right - left) / o.xLabels.length : Infinity;
  const rotateX = o.rotateX ?? xw + 6 > slot;
  const xh = rotateX ? Math.min(xw, height / 3) : LINE;
  const bottom = Math.floor(height - (TICK + GAP + xh + (o.xTitle ? GAP + LINE : 0) + 2));
  return { left, top: o.top ?? 8, right, bottom, rotateX };
}

/**
 * Draws both axes: tick marks and labels (labels past the area's ends are skipped), titles,
 * and optional grid lines across the area.
 * @param {CanvasRenderingContext2D} ctx
 * @param {{ left: number, top: number, right: number, bottom: number, rotateX: boolean }} area
 * @param {{ x: { ticks: { at: number, label: string }[], title?: string },
 *   y: { ticks: { at: number, label: string }[], title?: string }, color: string, grid?: string }} o
 *   tick positions `at` in canvas pixels
 */
export function drawAxes(ctx, area, o) {
  const { left, top, right, bottom } = area;
  ctx.save();
  ctx.font = FONT;
  ctx.fillStyle = ctx.strokeStyle = o.color;
  ctx.lineWidth = 1;
  if (o.grid) {
    ctx.strokeStyle = o.grid;
    ctx.beginPath();
    for (const t of o.x.ticks) line(ctx, Math.round(t.at) + 0.5, top, Math.round(t.at) + 0.5, bottom);
    for (const t of o.y.ticks) line(ctx, left, Math.round(t.at) + 0.5, right, Math.round(t.at) + 0.5);
    ctx.stroke();
    ctx.strokeStyle = o.color;
  }
  ctx.beginPath();
  line(ctx, left - 0.5, top, left - 0.5, bottom + 0.5);
  line(ctx, left - 0.5, bottom + 0.5, right, bottom + 0.5);
  for (const t of o.x.ticks) line(ctx, Math.round(t.at) + 0.5, bottom, Math.round(t.at) + 0.5, bottom + TICK);
  for (const t of o.y.ticks) line(ctx, left - TICK, Math.round(t.at) + 0.5, left, Math.round(t.at) + 0.5);
  ctx.stroke();

  ctx.textBaseline = 'middle';
  ctx.textAlign = 'right';
  for (const t of o.y.ticks) ctx.fillText(t.label, left - TICK - GAP, t.at);
  let below = bottom + TICK + GAP;
  if (area.rotateX) {
    ctx.textAlign = 'right';
    for (const t of o.x.ticks) {
      ctx.save();
      ctx.translate(t.at, below);
      ctx.rotate(-Math.PI / 2);
      ctx.fillText(t.label, 0, 0);
      ctx.restore();
    }
    below += Math.max(0, ...o.x.ticks.map((t) => ctx.measureText(t.label).width));
  } else {
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    for (const t of o.x.ticks) ctx.fillText(t.label, t.at, below);
    below += LINE;
  }
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  if (o.x.title) ctx.fillText(o.x.title, (left + right) / 2, below + GAP);
  if (o.y.title) {
    ctx.save();
    ctx.translate(2, (top + bottom) / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.fillText(o.y.title, 0, 0);
    ctx.restore();
  }
  ctx.restore();
}

function line(ctx, x0, y0, x1, y1) {
  ctx.moveTo(x0, y0);
  ctx.lineTo(x1, y1);
}

/**
 * Keeps every k-th label so neighbours do not overlap (`size`: a label's extent along the axis).
 * @template T
 * @param {T[]} ticks
 * @param {number} length the axis length in px
 * @param {number} size
 * @returns {T[]}
 */
export function thin(ticks, length, size) {
  const room = length / Math.max(1, ticks.length);
  const every = Math.max(1, Math.ceil((size + 4) / Math.max(1e-9, room)));
  return every === 1 ? ticks : ticks.filter((_, i) => i % every === 0);
}

// Line plot of one or more series (x, y arrays) with exact-value hover, optional log axes
// and reference lines (training length, wavelength thresholds, ...).
import { seriesCsv } from '../export/csv.js';
import { makeChart } from './chart-setup.js';
import { createFigure } from './figure.js';
import { formatExact, formatShort } from './format.js';
import { seriesColor } from './palette.js';

/**
 * @typedef {{ label: string, x: ArrayLike<number>, y: ArrayLike<number>, dashed?: boolean, color?: string }} Series
 * @typedef {{ axis: 'x'|'y', value: number, label: string }} RefLine
 */

// Shaded x ranges (the trained lengths), drawn under the data.
const bandPlugin = {
  id: 'bands',
  beforeDatasetsDraw(chart, _args, options) {
    const bands = options.bands ?? [];
    if (!bands.length) return;
    const { ctx, chartArea: a, scales } = chart;
    ctx.save();
    ctx.fillStyle = 'rgba(128, 128, 128, 0.15)';
    for (const band of bands) {
      const x0 = Math.max(a.left, scales.x.getPixelForValue(band.from));
      const x1 = Math.min(a.right, scales.x.getPixelForValue(band.to));
      if (x1 > x0) ctx.fillRect(x0, a.top, x1 - x0, a.bottom - a.top);
    }
    ctx.restore();
  },
};

const refLinePlugin = {
  id: 'refLines',
  afterDatasetsDraw(chart, _args, options) {
    const lines = options.lines ?? [];
    if (!lines.length) return;
    const { ctx, chartArea: a, scales } = chart;
    ctx.save();
    ctx.setLineDash([5, 4]);
    ctx.lineWidth = 1;
    ctx.font = '11px system-ui, sans-serif';
    for (const line of lines) {
      const s = line.axis === 'x' ? scales.x : scales.y;
      const p = s.getPixelForValue(line.value);
      if (
        !Number.isFinite(p) ||
        p < (line.axis === 'x' ? a.left : a.top) ||
        p > (line.axis === 'x' ? a.right : a.bottom)
      )
        continue;
      ctx.strokeStyle = ctx.fillStyle = chart.options.color ?? '#888';
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
  },
};

/**
 * @param {HTMLElement} parent
 * @param {{ title: string, xTitle: string, yTitle: string, height?: number }} opts
 */
export function createLinePlot(parent, opts) {
  let series = [];
  let xTitle = opts.xTitle;
  const figure = createFigure(parent, {
    title: opts.title,
    height: opts.height ?? 260,
    exports: { csv: () => seriesCsv(xTitle, series) },
  });

  const chart = makeChart(figure.canvas, {
    type: 'line',
    data: { datasets: [] },
    options: {
      parsing: false,
      normalized: true,
      interaction: { mode: 'nearest', intersect: false, axis: 'x' },
      scales: {
        x: { type: 'linear', title: { display: true, text: opts.xTitle }, ticks: { callback: formatShort } },
        y: { type: 'linear', title: { display: true, text: opts.yTitle }, ticks: { callback: formatShort } },
      },
      plugins: {
        legend: { display: true, labels: { boxWidth: 12, boxHeight: 2 } },
        decimation: { enabled: true, algorithm: 'lttb', samples: 1000, threshold: 2000 },
        tooltip: {
          callbacks: {
            label: (c) => `${c.dataset.label}: ${formatExact(c.raw.y)}`,
            title: (items) => `${xTitle} ${formatExact(items[0]?.raw.x)}`,
          },
        },
        refLines: { lines: [] },
        bands: { bands: [] },
      },
      onHover: (_e, elements) => {
        if (!elements.length) return figure.setReadout('');
        const { datasetIndex, index } = elements[0];
        const pt = chart.data.datasets[datasetIndex].data[index];
        figure.setReadout(
          `${chart.data.datasets[datasetIndex].label} — ${xTitle} ${formatExact(pt.x)}: ${formatExact(pt.y)}`,
        );
      },
    },
    plugins: [bandPlugin, refLinePlugin],
  });

  return {
    figure,
    chart,
    /**
     * @param {Series[]} next
     * @param {{ xTitle?: string, yTitle?: string, logX?: boolean, logY?: boolean, refLines?: RefLine[],
     *   bands?: { from: number, to: number }[], yMin?: number, yMax?: number }} [o]
     */
    update(next, o = {}) {
      series = next;
      if (o.xTitle) xTitle = o.xTitle;
      const { x, y } = chart.options.scales;
      x.title.text = xTitle;
      if (o.yTitle) y.title.text = o.yTitle;
      x.type = o.logX ? 'logarithmic' : 'linear';
      y.type = o.logY ? 'logarithmic' : 'linear';
      y.min = o.yMin;
      y.max = o.yMax;
      // The x axis spans the data exactly (Chart.js would round out to the next tick).
      const xs = next.flatMap((s) => (s.x.length ? [s.x[0], s.x[s.x.length - 1]] : []));
      x.min = xs.length ? Math.min(...xs) : undefined;
      x.max = xs.length ? Math.max(...xs) : undefined;
      chart.options.plugins.refLines.lines = o.refLines ?? [];
      chart.options.plugins.bands.bands = o.bands ?? [];
      chart.options.plugins.legend.display = next.length > 1;
      chart.data.datasets = next.map((s, i) => {
        const color = s.color ?? seriesColor(i);
        const data = new Array(s.x.length);
        for (let k = 0; k < s.x.length; k++) data[k] = { x: s.x[k], y: Number.isFinite(s.y[k]) ? s.y[k] : null };
        return {
          label: s.label,
          data,
          borderColor: color,
          backgroundColor: color,
          borderWidth: s.x.length > 256 ? 1 : 1.5,
          pointRadius: s.x.length <= 64 ? 2 : 0,
          borderDash: s.dashed ? [6, 4] : [],
          spanGaps: false,
          order: s.dashed ? 0 : 1, // dashed overlays (the other side of an equation) draw on top
          indexAxis: 'x',
        };
      });
      chart.update('none');
    },
  };
}

/** 0, 1, …, n−1 as x values. */
export const range = (n, from = 0) => Float64Array.from({ length: n }, (_, i) => i + from);

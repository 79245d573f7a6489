// Bar chart of one value per category (ALiBi slopes per head, attention entropy per head), or
// of several series side by side per category (the Benchmarks view's variants per case).
// Chart.js draws it, loaded on the first update: pages and embeds that never show bars (most
// of them) never fetch the charting library.
import { categoryCsv, matrixCsv } from '../export/csv.js';
import { createFigure } from './figure.js';
import { formatExact, formatShort } from './format.js';
import { seriesColor } from './palette.js';

/** @typedef {{ label: string, values: ArrayLike<number> }} BarSeries */

/**
 * @param {HTMLElement} parent
 * @param {{ title: string, yTitle: string, xTitle?: string, height?: number, plugins?: object[] }} opts
 *   plugins: Chart.js inline plugins of this chart (marks drawn over the bars)
 */
export function createBarPlot(parent, { title, yTitle, xTitle, height = 220, plugins = [] }) {
  /** @type {{ labels: string[], series: BarSeries[], yTitle: string }} */
  let current = { labels: [], series: [], yTitle };
  let chart = null;
  let loading = null;
  const csv = () => {
    const { labels, series } = current;
    if (series.length === 1) return categoryCsv(current.yTitle, labels, series[0].values);
    const cells = labels.flatMap((_, i) => series.map((s) => s.values[i]));
    return matrixCsv(cells, labels.length, series.length, { rowLabels: labels, colLabels: series.map((s) => s.label) });
  };
  const figure = createFigure(parent, { title, height, exports: { csv } });

  const create = ({ makeChart }) =>
    makeChart(figure.canvas, {
      type: 'bar',
      data: { labels: [], datasets: [] },
      plugins,
      options: {
        scales: {
          x: { title: { display: !!xTitle, text: xTitle } },
          y: { title: { display: true, text: yTitle }, ticks: { callback: formatShort } },
        },
        plugins: {
          legend: { display: false },
          tooltip: { callbacks: { label: (c) => formatExact(c.raw) } },
        },
        onHover: (_e, elements) => {
          if (!elements.length) return figure.setReadout('');
          const { index: i, datasetIndex: k } = elements[0];
          const s = current.series[k];
          const which = current.series.length > 1 ? ` · ${s.label}` : '';
          figure.setReadout(`${current.labels[i]}${which}: ${formatExact(s.values[i])}`);
        },
      },
    });

  function draw() {
    chart.data.labels = current.labels;
    chart.data.datasets = current.series.map((s, k) => ({
      label: s.label,
      data: Array.from(s.values, (v) => (Number.isFinite(v) ? v : null)),
      backgroundColor: seriesColor(k),
    }));
    chart.options.plugins.legend.display = current.series.length > 1;
    chart.options.scales.y.title.text = current.yTitle;
    chart.update('none');
  }

  return {
    figure,
    /** Resolves once the values of the last update are on the canvas. */
    drawn: () => loading ?? Promise.resolve(),
    /** One value per label (`values`), or several series per label (`series`). */
    update({ labels, values, series, yTitle: yt }) {
      const y = yt ?? current.yTitle;
      current = {
        labels,
        series: series ?? [{ label: y, values: Array.from(values) }],
        yTitle: y,
      };
      if (chart) return draw();
      loading ??= import('./chart-setup.js').then((module) => {
        chart = create(module);
        draw();
      });
    },
  };
}

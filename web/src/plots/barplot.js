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
 * @param {{ title: string, yTitle: string, xTitle?: string, height?: number, plugins?: object[],
 *   horizontal?: boolean, describe?: (i: number) => string, onPick?: (i: number) => void,
 *   exports?: { csv?: () => string, json?: () => string } }} opts
 *   plugins: Chart.js inline plugins of this chart (marks drawn over the bars); horizontal: the
 *   bars run left to right, one row per label (yTitle then names the value axis, at the
 *   bottom); describe: the hovered bar's readout and tooltip (default: its label and value);
 *   onPick: a click on bar i; exports: a CSV of the figure's own in place of the values', and a JSON
 */
export function createBarPlot(parent, opts) {
  const { title, yTitle, xTitle, height = 220, plugins = [], horizontal = false, describe, onPick } = opts;
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
  const figure = createFigure(parent, { title, height, exports: { csv, ...opts.exports } });
  // The value axis: y, or x when the bars lie down.
  const [value, category] = horizontal ? ['x', 'y'] : ['y', 'x'];

  const create = ({ makeChart }) =>
    makeChart(figure.canvas, {
      type: 'bar',
      data: { labels: [], datasets: [] },
      plugins,
      options: {
        indexAxis: category,
        // Lying bars answer anywhere on their row, so a bar of nearly 0 can still be hovered and picked.
        ...(horizontal ? { interaction: { mode: 'index', axis: 'y', intersect: false } } : {}),
        scales: {
          [category]: { title: { display: !!xTitle, text: xTitle } },
          [value]: { title: { display: true, text: yTitle }, ticks: { callback: formatShort } },
        },
        plugins: {
          legend: { display: false },
          tooltip: {
            callbacks: { label: (c) => (describe ? describe(c.dataIndex) : formatExact(c.raw)) },
          },
        },
        onHover: (_e, elements) => {
          if (!elements.length) return figure.setReadout('');
          const { index: i, datasetIndex: k } = elements[0];
          if (describe) return figure.setReadout(describe(i));
          const s = current.series[k];
          const which = current.series.length > 1 ? ` · ${s.label}` : '';
          figure.setReadout(`${current.labels[i]}${which}: ${formatExact(s.values[i])}`);
        },
        onClick: (_e, elements) => elements.length && onPick?.(elements[0].index),
      },
    });

  function draw() {
    chart.data.labels = current.labels;
    chart.data.datasets = current.series.map((s, k) => ({
      label: s.label,
      data: Array.from(s.values, (v) => (Number.isFinite(v) ? v : null)),
      backgroundColor: s.colors ?? seriesColor(k),
    }));
    chart.options.plugins.legend.display = current.series.length > 1;
    chart.options.scales[value].title.text = current.yTitle;
    chart.update('none');
  }

  return {
    figure,
    /** Resolves once the values of the last update are on the canvas. */
    drawn: () => loading ?? Promise.resolve(),
    /**
     * One value per label (`values`, each bar coloured by `colors` when given), or several
     * series per label (`series`).
     */
    update({ labels, values, colors, series, yTitle: yt }) {
      const y = yt ?? current.yTitle;
      current = {
        labels,
        series: series ?? [{ label: y, values: Array.from(values), colors }],
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

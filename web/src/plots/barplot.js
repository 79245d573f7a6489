// Bar chart of one value per category (ALiBi slopes per head, attention entropy per head).
// Chart.js draws it, loaded on the first update: pages and embeds that never show bars (most
// of them) never fetch the charting library.
import { categoryCsv } from '../export/csv.js';
import { createFigure } from './figure.js';
import { formatExact, formatShort } from './format.js';
import { seriesColor } from './palette.js';

export function createBarPlot(parent, { title, yTitle, height = 220 }) {
  let current = { labels: [], values: [], yTitle };
  let chart = null;
  let loading = null;
  const figure = createFigure(parent, {
    title,
    height,
    exports: { csv: () => categoryCsv(current.yTitle, current.labels, current.values) },
  });

  const create = ({ makeChart }) =>
    makeChart(figure.canvas, {
      type: 'bar',
      data: { labels: [], datasets: [{ data: [], backgroundColor: seriesColor(0) }] },
      options: {
        scales: { y: { title: { display: true, text: yTitle }, ticks: { callback: formatShort } } },
        plugins: {
          legend: { display: false },
          tooltip: { callbacks: { label: (c) => formatExact(c.raw) } },
        },
        onHover: (_e, elements) => {
          if (!elements.length) return figure.setReadout('');
          const i = elements[0].index;
          figure.setReadout(`${current.labels[i]}: ${formatExact(current.values[i])}`);
        },
      },
    });

  function draw() {
    chart.data.labels = current.labels;
    chart.data.datasets[0].data = current.values.map((v) => (Number.isFinite(v) ? v : null));
    chart.options.scales.y.title.text = current.yTitle;
    chart.update('none');
  }

  return {
    figure,
    /** Resolves once the values of the last update are on the canvas. */
    drawn: () => loading ?? Promise.resolve(),
    update({ labels, values, yTitle: yt }) {
      current = { labels, values: Array.from(values), yTitle: yt ?? current.yTitle };
      if (chart) return draw();
      loading ??= import('./chart-setup.js').then((module) => {
        chart = create(module);
        draw();
      });
    },
  };
}

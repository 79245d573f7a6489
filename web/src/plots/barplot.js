// Bar chart of one value per category (ALiBi slopes per head, attention entropy per head).
import { categoryCsv } from '../export/csv.js';
import { makeChart } from './chart-setup.js';
import { createFigure } from './figure.js';
import { formatExact, formatShort } from './format.js';
import { seriesColor } from './palette.js';

export function createBarPlot(parent, { title, yTitle, height = 220 }) {
  let current = { labels: [], values: [] };
  const figure = createFigure(parent, {
    title,
    height,
    exports: {
      csv: () => categoryCsv(chart.options.scales.y.title.text, current.labels, current.values),
    },
  });
  const chart = makeChart(figure.canvas, {
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
  return {
    figure,
    chart,
    update({ labels, values, yTitle: yt }) {
      current = { labels, values: Array.from(values) };
      chart.data.labels = labels;
      chart.data.datasets[0].data = current.values.map((v) => (Number.isFinite(v) ? v : null));
      if (yt) chart.options.scales.y.title.text = yt;
      chart.update('none');
    },
  };
}

// Chart.js with only the parts the playground draws (tree-shaken build), plus a plugin
// that paints the theme background so exported PNGs look like the page.
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Decimation,
  Legend,
  LineController,
  LineElement,
  LinearScale,
  LogarithmicScale,
  PointElement,
  ScatterController,
  Tooltip,
} from 'chart.js';
import { THEME_EVENT } from '../ui/theme.js';

const background = {
  id: 'poslabBackground',
  beforeDraw(chart) {
    const { ctx, width, height } = chart;
    ctx.save();
    ctx.globalCompositeOperation = 'destination-over';
    ctx.fillStyle = getComputedStyle(chart.canvas).getPropertyValue('--plot-bg').trim() || '#fff';
    ctx.fillRect(0, 0, width, height);
    ctx.restore();
  },
};

Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  Decimation,
  Legend,
  LineController,
  LineElement,
  LinearScale,
  LogarithmicScale,
  PointElement,
  ScatterController,
  Tooltip,
  background,
);
Chart.defaults.animation = false;
Chart.defaults.maintainAspectRatio = false;
Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

/** Every live chart, so a theme switch can restyle them all. */
export const charts = new Set();

export function makeChart(canvas, config) {
  const chart = new Chart(canvas, config);
  charts.add(chart);
  return chart;
}

/** Reads the theme's colours from CSS and redraws every chart with them. */
function applyChartTheme() {
  const css = getComputedStyle(document.documentElement);
  const v = (name) => css.getPropertyValue(name).trim();
  Chart.defaults.color = v('--fg-muted');
  Chart.defaults.borderColor = v('--grid');
  for (const chart of charts) chart.update('none');
}

export { Chart };

// The theme may have been applied before this module loaded; then follow every change.
applyChartTheme();
document.addEventListener(THEME_EVENT, applyChartTheme);

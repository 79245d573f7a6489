// CSV text of what a plot shows: a matrix one row per line, or line-plot series as columns
// sharing an x column. Values are the exact float32 decimals of the readouts.
import { formatExact } from '../plots/format.js';

const cell = (v) => (Number.isFinite(v) ? formatExact(v) : Number.isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf');

// Labels are user text (tokens); quote them so commas and quotes cannot break columns, and
// prefix a quote to text a spreadsheet would run as a formula.
export function quote(label) {
  let s = String(label);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) || s !== String(label) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** rows × cols matrix, optional header of column labels and a first column of row labels. */
export function matrixCsv(data, rows, cols, { rowLabels, colLabels } = {}) {
  const lines = [];
  if (colLabels) lines.push([rowLabels ? '' : null, ...colLabels.map(quote)].filter((x) => x !== null).join(','));
  for (let r = 0; r < rows; r++) {
    const values = new Array(cols);
    for (let c = 0; c < cols; c++) values[c] = cell(data[r * cols + c]);
    lines.push((rowLabels ? `${quote(rowLabels[r])},` : '') + values.join(','));
  }
  return `${lines.join('\n')}\n`;
}

/** Series [{label, x, y}] as columns: x, then one column per series (blank where absent). */
export function seriesCsv(xTitle, series) {
  const xs = [...new Set(series.flatMap((s) => Array.from(s.x)))].sort((a, b) => a - b);
  const maps = series.map((s) => {
    const m = new Map();
    for (let i = 0; i < s.x.length; i++) m.set(s.x[i], s.y[i]);
    return m;
  });
  const lines = [[quote(xTitle), ...series.map((s) => quote(s.label))].join(',')];
  for (const x of xs) lines.push([cell(x), ...maps.map((m) => (m.has(x) ? cell(m.get(x)) : ''))].join(','));
  return `${lines.join('\n')}\n`;
}

/** One labelled value per line (bar charts). */
export function categoryCsv(valueTitle, labels, values) {
  const lines = [`category,${quote(valueTitle)}`];
  labels.forEach((label, i) => lines.push(`${quote(label)},${cell(values[i])}`));
  return `${lines.join('\n')}\n`;
}

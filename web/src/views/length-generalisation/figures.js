// The Length generalisation view's figures: training loss, exact match by length, the methods ×
// lengths heatmap and per-token accuracy past N. Each draw takes what the figures show (the
// runs, lab/shown.js) and the trained length; each method's line is the mean over its seeds.
import { methodStyle } from '../../lab/method-styles.js';
import { exactMatchByLength, meanLossCurve, tokenAccuracyBeyond } from '../../lab/ranking.js';
import { sourceNote } from '../../lab/shown.js';
import { smoothLoss } from '../../lab/smoothing.js';
import { colorize } from '../../plots/colormap.js';
import { MAX_TANGLED } from '../../plots/line-picker.js';
import { range } from '../../plots/lineplot.js';
import { trainingLoss } from '../loss-axes.js';

// Every step's loss, one faint grey line behind the smoothed ones: how noisy training was. Drawn
// only while it keeps the plot under the line picker's count (more lines get a picker that fades
// all but one, which would hide the comparison the plot is for).
const RAW_LOSS = { label: 'every step (raw)', color: 'rgba(128, 128, 128, 0.35)' };

/** The view's four figures, declared on its shell. */
export function createFigures(shell) {
  return {
    loss: shell.lines('loss', { ...trainingLoss('nats'), height: 260 }),
    accuracy: shell.lines('accuracy', {
      title: 'Exact match by length',
      xTitle: 'length',
      yTitle: 'exact match',
      height: 300,
    }),
    heatmap: shell.heatmap('heatmap', {
      title: 'Exact match: methods × lengths',
      xTitle: 'length',
      yTitle: 'method',
      height: 260,
    }),
    tokens: shell.lines('tokens', {
      title: 'Per-token accuracy by answer position, lengths past N',
      xTitle: 'answer position',
      yTitle: 'accuracy',
      height: 280,
    }),
  };
}

/** A heatmap of values in [0, 1] (accuracies, attention weights), coloured here: small. */
export const painted = (data, rows, cols, labels) => ({
  data,
  rows,
  cols,
  range: [0, 1],
  cmap: 'viridis',
  ...colorize(data, 'viridis', [0, 1]),
  ...labels,
});

/**
 * The loss figure from the curves shown (lab/shown.js shownCurves: `own` when they are the
 * settings' own runs) and whose runs the other figures show (`source`).
 */
export function drawLoss(loss, { own, runs }, source) {
  // One line per method: the mean over its seeds at each step they have reached.
  const methods = new Map();
  for (const r of runs) {
    if (!methods.has(r.method)) methods.set(r.method, { label: r.label, curves: [] });
    methods.get(r.method).curves.push(r.curve);
  }
  const series = [...methods].map(([id, m]) => ({
    label: m.label,
    ...methodStyle(id),
    ...smoothLoss(meanLossCurve(m.curves)),
  }));
  const withRaw = methods.size && methods.size < MAX_TANGLED;
  if (withRaw) {
    const raw = runs.flatMap((r) => [...r.curve, [NaN, NaN]]); // NaN: a break between runs
    series.push({ ...RAW_LOSS, x: raw.map((s) => s[0]), y: raw.map((s) => s[1]) });
  }
  const smoothing =
    'Each method’s mean over its seeds, smoothed: an exponential moving average over a fiftieth of the steps each run has made' +
    (withRaw ? '; grey: every seed’s every step.' : ' (every step’s loss is in the Results JSON).');
  loss.figure.el.hidden = !runs.length;
  loss.figure.el.classList.toggle('lg-previous', !own && source === 'previous');
  loss.figure.setNote(own ? smoothing : `${sourceNote(source)} ${smoothing}`);
  loss.update(series, { logY: true });
}

const results = (g) => g.runs.map((r) => r.run.result);

/** Exact match by length 1..4N, the trained lengths shaded. */
export function drawAccuracy(plot, groups, N) {
  const M = 4 * N;
  const shade = [{ axis: 'x', value: N + 0.5, label: `trained 1..${N}` }];
  plot.update(
    groups.map((g) => ({ label: g.label, ...methodStyle(g.id), x: range(M, 1), y: exactMatchByLength(results(g), M) })),
    { refLines: shade, bands: [{ from: 0.5, to: N + 0.5 }], yMin: 0, yMax: 1 },
  );
}

/** Per-token accuracy by answer position on the lengths past N. */
export function drawTokens(plot, groups, N) {
  plot.update(
    groups.map((g) => {
      const y = tokenAccuracyBeyond(results(g), N);
      return { label: g.label, ...methodStyle(g.id), x: range(y.length), y: Float64Array.from(y) };
    }),
    { yMin: 0, yMax: 1 },
  );
}

/** Exact match, methods × lengths 1..4N (kept as it was when there is no method). */
export function drawHeatmap(plot, groups, N) {
  if (!groups.length) return;
  const M = 4 * N;
  const data = new Float32Array(groups.length * M);
  groups.forEach((g, i) => data.set(exactMatchByLength(results(g), M), i * M));
  plot.update(
    painted(data, groups.length, M, {
      yLabels: groups.map((g) => g.label),
      xLabels: Array.from({ length: M }, (_, i) => String(i + 1)),
    }),
  );
}

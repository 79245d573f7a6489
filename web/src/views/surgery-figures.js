// The Surgery view's figures: the change in loss per intervention (bars coloured by kind, each
// with its 95 % interval; for a heads sweep the lens's role in its label), the loss by position
// unmodified and with the bar shown (the trained context marked), and one head's attention map
// unmodified and after. Layout and colours are set on the elements, so the figures read the same
// in an embed's shadow root, which carries the page's main stylesheet only.
import { positionedTokens } from '../lm/format.js';
import { range } from '../plots/lineplot.js';
import { movingAverage } from '../plots/smooth.js';
import { el } from '../ui/dom.js';
import { LOSS_BY_POSITION } from './loss-axes.js';
import {
  barLabel,
  barsOf,
  barText,
  deltasCsv,
  deltasNote,
  firstChangedLayer,
  legendOf,
  reportJson,
  shownText,
} from './surgery-report.js';

const ROW = 24; // px per bar (two-line labels: ROW_2)
const ROW_2 = 34;
const AXES = 70; // px of the value axis and its title
const MAX_HEIGHT = 1400;
const MAP = { xTitle: 'key', yTitle: 'query', height: 420 };

/** The figures, declared on the view's shell; `onPick(i)`: a click on bar i. */
export function createSurgeryFigures(shell, { onPick }) {
  let report = null; // the report drawn
  let marks = null; // { low, high, shown }: what the plugin draws over the bars
  const deltas = shell.bars('deltas', {
    title: 'Change in loss per intervention',
    yTitle: 'change in next-token loss (nats)',
    horizontal: true,
    height: 320,
    plugins: [intervalMarks(() => marks)],
    describe: (i) => (report ? barText(report.interventions[i]) : ''),
    onPick,
    exports: { csv: () => (report ? deltasCsv(report) : ''), json: () => (report ? reportJson(report) : '') },
  });
  const legend = el('ul', 'surgery-legend');
  Object.assign(legend.style, {
    listStyle: 'none',
    margin: '6px 0 0',
    padding: '0',
    display: 'flex',
    flexWrap: 'wrap',
  });
  legend.style.gap = '4px 16px';
  deltas.figure.box.after(legend);

  const positions = shell.lines('positions', { ...LOSS_BY_POSITION, height: 320 });

  const maps = el('div', 'surgery-maps');
  Object.assign(maps.style, { display: 'flex', flexWrap: 'wrap', gap: '0 16px' });
  shell.plots.append(maps);
  const before = shell.heatmap('before', { title: 'Attention map, unmodified', ...MAP }, maps);
  const after = shell.heatmap('after', { title: 'Attention map, after the intervention', ...MAP }, maps);
  for (const m of [before, after]) Object.assign(m.figure.el.style, { flex: '1 1 340px', minWidth: '0' });

  return {
    deltas,
    positions,
    maps: { before, after },
    setReport(r, m) {
      report = r;
      marks = m;
      drawLegend(legend, r);
    },
  };
}

function drawLegend(legend, report) {
  legend.replaceChildren(
    ...legendOf(report).map(({ colour, label }) => {
      const item = el('li');
      const swatch = el('span');
      Object.assign(swatch.style, {
        display: 'inline-block',
        width: '12px',
        height: '12px',
        marginRight: '6px',
        verticalAlign: '-1px',
        background: colour,
      });
      item.append(swatch, label);
      return item;
    }),
  );
}

/** The bars of r.report, the one shown marked; `p`: the settings. */
export function drawDeltas(f, r, p) {
  const bars = barsOf(r.report);
  f.setReport(r.report, { low: bars.low, high: bars.high, shown: r.shown });
  const { deltas } = f;
  const row = bars.labels.some(Array.isArray) ? ROW_2 : ROW;
  deltas.figure.box.style.height = `${Math.min(MAX_HEIGHT, AXES + row * Math.max(4, bars.labels.length))}px`;
  deltas.update({ labels: bars.labels, values: bars.values, colors: bars.colors });
  const n = bars.labels.length;
  deltas.figure.setTitle(`Change in loss per intervention: ${r.report.sweep} sweep, ${n} bar${n === 1 ? '' : 's'}`);
  const notes = [deltasNote(r.report), shownText(r.report, p.show, r.shown), ...(r.report.notes ?? [])];
  deltas.figure.setNote(notes.filter(Boolean).join(' '));
}

/** The loss by position, unmodified and with the bar shown (moving average of `smooth`). */
export function drawPositions(positions, r, smooth) {
  const { report } = r;
  const x = report.interventions[r.shown];
  const base = report.baseline.loss_by_position;
  const series = [{ label: 'unmodified', x: range(base.length, 1), y: movingAverage(Float64Array.from(base), smooth) }];
  if (x) {
    const y = Float64Array.from(x.loss_by_position);
    series.push({ label: barLabel(x), x: range(y.length, 1), y: movingAverage(y, smooth) });
  }
  const N = report.trained_context;
  positions.update(series, {
    refLines: N && base.length > N ? [{ axis: 'x', value: N, label: `trained context ${N}` }] : [],
  });
  const smoothed = smooth > 1 ? ` (moving average of ${smooth})` : '';
  positions.figure.setTitle(
    `Next-token loss by position${smoothed}: unmodified and ${x ? barLabel(x) : 'nothing else'}`,
  );
  positions.figure.setNote(
    x
      ? `Each position’s loss, averaged over the ${report.windows} windows. ${barText(x)}.`
      : 'No intervention to draw beside the unmodified model.',
  );
}

/** One head's attention maps on the first window: unmodified, and after the bar shown. */
export function drawMaps({ before, after }, r) {
  const { layer, head } = r.head;
  const x = r.report.interventions[r.shown];
  const shown = Boolean(r.heatmaps?.before);
  for (const m of [before, after]) m.figure.box.hidden = !shown;
  before.figure.setTitle(`Attention map, layer ${layer}, head ${head}: unmodified`);
  after.figure.setTitle(`Attention map, layer ${layer}, head ${head}: ${x ? barLabel(x) : 'no intervention'}`);
  if (!shown) {
    before.figure.setNote(r.missing || 'No intervention to compare with.');
    after.figure.setNote('');
    return;
  }
  // Labelled with their positions: a thinned axis of single bytes then reads (lm/format.js).
  const labelled = (m) => ({ ...m, xLabels: positionedTokens(m.xLabels), yLabels: positionedTokens(m.yLabels) });
  before.update(labelled(r.heatmaps.before));
  after.update(labelled(r.heatmaps.after));
  before.figure.setNote(
    `Row i: where query i puts its weight over the keys j ≤ i, on the first ${r.mapTokens} ${r.unit} of the text; both maps on one scale, 0 to 1.`,
  );
  const first = firstChangedLayer(x.params);
  after.figure.setNote(
    layer < first
      ? `Layer ${layer} comes before the first layer this intervention changes (layer ${first}): its map is the unmodified one. Pick a head of layer ${first} or later to see it change.`
      : 'The same head with the intervention in place: a NoPE layer or head loses its sense of distance, a removed head still attends but adds nothing.',
  );
}

/**
 * A Chart.js plugin over the horizontal bars: each bar's 95 % interval as a whisker, the value
 * axis widened to hold them, and the bar the lower figures show shaded. `marks()`: { low, high, shown }.
 */
function intervalMarks(marks) {
  return {
    id: 'surgeryIntervals',
    beforeUpdate(chart) {
      const m = marks();
      if (!m) return;
      // An interval that dips a hair below 0 (a bar of about 0) would put a whole tick step
      // of nothing on the left: the axis starts at 0 unless some interval reaches 2 % below.
      const [lo, hi] = [Math.min(0, ...m.low), Math.max(0, ...m.high)];
      chart.options.scales.x.suggestedMin = lo < -0.02 * hi ? lo : 0;
      chart.options.scales.x.suggestedMax = hi;
    },
    beforeDatasetsDraw(chart) {
      const m = marks();
      const y = chart.scales.y;
      if (!m || !y || m.shown < 0) return;
      const { ctx, chartArea: a } = chart;
      const step =
        chart.data.labels.length > 1 ? Math.abs(y.getPixelForValue(1) - y.getPixelForValue(0)) : a.bottom - a.top;
      ctx.save();
      ctx.fillStyle = 'rgba(128, 128, 128, 0.2)';
      ctx.fillRect(a.left, y.getPixelForValue(m.shown) - step / 2, a.right - a.left, step);
      ctx.restore();
    },
    afterDatasetsDraw(chart) {
      const m = marks();
      const { x, y } = chart.scales;
      if (!m || !x || !y) return;
      const { ctx } = chart;
      ctx.save();
      ctx.strokeStyle = getComputedStyle(chart.canvas).getPropertyValue('--fg').trim() || '#222';
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      m.low.forEach((lo, i) => {
        const at = y.getPixelForValue(i);
        const [x0, x1] = [x.getPixelForValue(lo), x.getPixelForValue(m.high[i])];
        ctx.moveTo(x0, at);
        ctx.lineTo(x1, at);
        for (const end of [x0, x1]) {
          ctx.moveTo(end, at - 4);
          ctx.lineTo(end, at + 4);
        }
      });
      ctx.stroke();
      ctx.restore();
    },
  };
}

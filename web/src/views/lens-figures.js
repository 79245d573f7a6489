// The Position lens view's figures: attention by distance with the head's scores beside it,
// the score energy per rotation pair (the pairs a scaling changes shaded, the trained context
// marked), the head's attention map, and the losses with the positions moved. Each draw takes
// the lens's result and the chosen layer and head.
import { roleOf } from '../content/lens-roles.js';
import { positionedTokens } from '../lm/format.js';
import { formatShort } from '../plots/format.js';
import { range } from '../plots/lineplot.js';
import { el } from '../ui/dom.js';
import { movingAverage } from '../plots/smooth.js';
import { headAt, noSpectrumText, scoreRows, shiftVerdict, spectrumPlan } from './lens-report.js';
import { LOSS_BY_POSITION } from './loss-axes.js';

/** Attention weights by distance of one head: x = i − j from 0. */
const profileSeries = (head, label, dashed = false) =>
  head ? [{ label, x: range(head.distance_profile.length), y: head.distance_profile, dashed }] : [];

const PROFILE = { title: 'Attention by distance', xTitle: 'distance i − j', yTitle: 'mean weight', height: 300 };

/** The figures after the grid of roles, declared on the view's shell. */
export function createLensFigures(shell) {
  // 2. Attention by distance, the head's scores beside it.
  const profile = shell.lines('profile', PROFILE);
  const profileRow = el('div', 'lens-side');
  const scores = el('div', 'lens-scores');
  profile.figure.el.insertBefore(profileRow, profile.figure.box);
  profileRow.append(profile.figure.box, scores);

  // 3. Score energy per rotation pair, with the trained context marked.
  let marks = null; // { turning, context, changed }: what the plugin draws over the bars
  const spectrum = shell.bars('spectrum', {
    title: 'Score energy per rotation pair',
    xTitle: 'rotation pair · wavelength (positions)',
    yTitle: 'share of the score energy',
    height: 300,
    plugins: [pairMarks(() => marks)],
  });

  // 4. The head's attention map on the text.
  const map = shell.heatmap('map', { title: 'Attention map', xTitle: 'key', yTitle: 'query', height: 460 });

  // 5. Moving the positions: the shift check's badge, the shuffle passes' losses.
  const positions = shell.lines('positions', { ...LOSS_BY_POSITION, height: 300 });
  const shift = el('div', 'lens-shift');
  positions.figure.el.firstChild.after(shift); // under the title, above the line picker
  return {
    profile: { profile, scores },
    spectrum: { spectrum, setMarks: (m) => (marks = m) },
    map,
    positions: { positions, shift },
  };
}

export function drawProfile({ profile, scores }, r, layer, head) {
  const [first, second] = r.names;
  const a = headAt(r.report, layer, head);
  const b = headAt(r.second, layer, head);
  profile.figure.setTitle(`Attention by distance: layer ${layer}, head ${head}`);
  profile.figure.box.hidden = !a;
  if (a) profile.update([...profileSeries(a, first), ...profileSeries(b, second, true)]);
  profile.figure.setNote(
    a
      ? 'The head’s mean weight on the token i − j back, over the rows that reach that far: a sink or previous-token head is a spike, a local head a short fall, a broad one a long flat tail.'
      : r.missing,
  );
  scores.replaceChildren();
  if (!a) return;
  const table = el('table', 'lens-score-table');
  const headRow = el('tr');
  headRow.append(el('th', '', 'score'), el('th', '', first), ...(b ? [el('th', '', second)] : []));
  headRow.append(el('th', '', 'threshold'));
  table.append(headRow);
  const rowsA = scoreRows(a, r.report.thresholds);
  const rowsB = b ? scoreRows(b, r.second.thresholds) : [];
  rowsA.forEach((row, i) => {
    const tr = el('tr');
    const cell = (x) => el('td', x.reached ? 'reached' : '', `${formatShort(x.value)}${x.reached ? ' ✓' : ''}`);
    tr.append(el('th', '', row.label), cell(row), ...(b ? [cell(rowsB[i])] : []));
    tr.append(el('td', '', `≥ ${formatShort(row.threshold)}`));
    table.append(tr);
  });
  const roleText = (h) => `${roleOf(h.role).label}${h.bands ? `, ${h.bands}` : ''}`;
  const role = el('p', 'lens-role', `role: ${roleText(a)}${b ? ` (${second}: ${roleText(b)})` : ''}`);
  scores.append(table, role);
  if (a.turning_share !== undefined) {
    scores.append(el('p', 'lens-role', `turning share ${formatShort(a.turning_share)}`));
  }
}

export function drawSpectrum({ spectrum, setMarks }, r, layer, head) {
  const plan = spectrumPlan(r.report, r.compare === 'scaled' ? r.second : null, layer);
  const a = headAt(r.report, layer, head);
  const b = headAt(r.second, layer, head);
  const shown = Boolean(plan && a?.pair_energy);
  spectrum.figure.box.hidden = !shown;
  spectrum.figure.setTitle(`Score energy per rotation pair: layer ${layer}, head ${head}`);
  if (!shown) {
    spectrum.figure.setNote(a ? noSpectrumText(r) : r.missing);
    return;
  }
  setMarks(plan);
  const [first, second] = r.names;
  const series = [{ label: first, values: Array.from(a.pair_energy) }];
  if (b?.pair_energy) series.push({ label: second, values: Array.from(b.pair_energy) });
  spectrum.update({ labels: plan.labels, series });
  const changed = plan.changed.length
    ? ` Shaded: the ${plan.changed.length} pairs the scaling changes (their inv_freq differs between the two reports).`
    : r.compare === 'scaled'
      ? ' The scaling changes no pair’s frequency.'
      : '';
  spectrum.figure.setNote(
    `Each pair’s share of the head’s |q·k| energy, weighted by its attention (the last bar: the dims RoPE does not rotate). ` +
      `Left of the dashed line: the ${plan.turning} pairs whose wavelength is at most the trained context N = ${plan.context}, ` +
      `which turn at least once within it.${changed}` +
      (plan.ownBase ? ' This layer turns at its own base (a sliding layer’s local base): these are its pairs.' : ''),
  );
}

export function drawMap(map, r, layer, head) {
  const m = r.heatmaps?.map;
  map.figure.box.hidden = !m;
  map.figure.setTitle(`Attention map: layer ${layer}, head ${head}, ${r.tokens.length} ${r.unit}`);
  map.figure.setNote(m ? 'Row i: where query i puts its weight over the keys j ≤ i (causal).' : r.missing);
  // Labelled with their positions: a thinned axis of single bytes then reads (lm/format.js).
  if (m)
    map.update({
      ...m,
      xLabels: m.xLabels && positionedTokens(m.xLabels),
      yLabels: m.yLabels && positionedTokens(m.yLabels),
    });
}

/** The loss curves with the positions moved, each a moving average of `smooth` positions (1: raw). */
export function drawPositions({ positions, shift }, r, smooth = 1) {
  const v = shiftVerdict(r.report.shift);
  const badge = el('span', `lens-badge ${v.kind}`, v.badge);
  shift.replaceChildren(badge, el('span', 'lens-shift-text', ` ${v.text}`));
  if (r.second && r.compare === 'scaled') {
    const w = shiftVerdict(r.second.shift);
    const line = el('p', 'lens-shift-text');
    line.append(el('span', `lens-badge ${w.kind}`, w.badge), ` ${r.names[1]}: ${w.text}`);
    shift.append(line);
  }
  const s = r.report.shuffle;
  positions.figure.box.hidden = !s;
  if (!s) {
    positions.figure.setTitle('Next-token loss by position');
    positions.figure.setNote(
      'No shuffle passes: this model’s position method reads a row’s positions as rising (it centres or normalises by them; the core’s table says it reads no other order), so shuffled positions mean nothing to it.',
    );
    return;
  }
  const lines = (shuffle, name, dashed) => {
    if (!shuffle) return [];
    const tag = r.second ? ` (${name})` : '';
    const { index, shuffled, constant } = shuffle.loss_by_position;
    const x = range(index.length);
    const y = (losses) => movingAverage(losses, smooth);
    return [
      { label: `in order${tag}`, x, y: y(index), dashed },
      { label: `shuffled${tag}`, x, y: y(shuffled), dashed },
      { label: `all 0${tag}`, x, y: y(constant), dashed },
    ];
  };
  const colours = (list) => list.map((line, i) => ({ ...line, color: ['#0072b2', '#e69f00', '#009e73'][i % 3] }));
  positions.update(colours([...lines(s, r.names[0], false), ...lines(r.second?.shuffle, r.names[1], true)]));
  const m = s.mean_loss;
  positions.figure.setTitle(
    `Next-token loss by position${smooth > 1 ? ` (moving average of ${smooth})` : ''}: mean ${formatShort(m.index)} in order, ${formatShort(m.shuffled)} shuffled, ${formatShort(m.constant)} all 0`,
  );
  const other = r.second?.shuffle?.mean_loss;
  positions.figure.setNote(
    'The same text with the positions in order, shuffled (a seeded permutation) and all 0: the further apart the curves, the more the model uses position.' +
      (other
        ? ` ${r.names[1]} (dashed): ${formatShort(other.index)} in order, ${formatShort(other.shuffled)} shuffled, ${formatShort(other.constant)} all 0.`
        : ''),
  );
}

/**
 * A Chart.js plugin over the spectrum's bars: the pairs a scaling changes shaded, and a dashed
 * line after the pairs that turn within the trained context N. `plan()`: spectrumPlan's marks.
 */
function pairMarks(plan) {
  return {
    id: 'lensPairMarks',
    beforeDatasetsDraw(chart) {
      const m = plan();
      const x = chart.scales.x;
      if (!m || !x) return;
      const { ctx, chartArea: a } = chart;
      const half = (x.getPixelForValue(1) - x.getPixelForValue(0)) / 2 || 10;
      ctx.save();
      ctx.fillStyle = 'rgba(213, 94, 0, 0.18)';
      for (const i of m.changed) ctx.fillRect(x.getPixelForValue(i) - half, a.top, 2 * half, a.bottom - a.top);
      ctx.restore();
    },
    afterDatasetsDraw(chart) {
      const m = plan();
      const x = chart.scales.x;
      if (!m || !x) return;
      const { ctx, chartArea: a } = chart;
      const at = x.getPixelForValue(m.turning) - (x.getPixelForValue(1) - x.getPixelForValue(0)) / 2;
      const colour = getComputedStyle(chart.canvas).getPropertyValue('--fg-muted').trim() || '#666';
      ctx.save();
      ctx.strokeStyle = ctx.fillStyle = colour;
      ctx.setLineDash([5, 4]);
      ctx.beginPath();
      ctx.moveTo(at, a.top);
      ctx.lineTo(at, a.bottom);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.font = '11px system-ui, sans-serif';
      ctx.textAlign = at > (a.left + a.right) / 2 ? 'right' : 'left';
      ctx.fillText(`wavelength = N = ${m.context}`, at + (ctx.textAlign === 'right' ? -4 : 4), a.top + 12);
      ctx.restore();
    },
  };
}

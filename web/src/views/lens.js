// The Position lens view: how a model's heads use position (docs/lens.md). For one model and a
// text, the lens's report drawn as five figures: every head's role on a layer × head grid (and,
// for RoPE models, whether it is positional or semantic), the picked head's attention by
// distance with its four scores, its score energy per rotation pair, its attention map on the
// text, and what moving the positions does (the shift check, the shuffle passes). Compare mode
// runs the lens again on random weights of the same shapes (the control) or on the same model
// with a RoPE scaling. Computed in the view's worker (jobs/lens.js) at once for the built-in
// models, on Run for a local checkpoint; the text and the checkpoint stay on the page.
import '../styles/lens.css';
import { roleOf } from '../content/lens-roles.js';
import { range } from '../plots/lineplot.js';
import { formatShort } from '../plots/format.js';
import { parseHead } from '../state/lens-head.js';
import { SCALINGS } from '../state/registry.js';
import { createIntro, defineView, el, pasteOrOpen, whenSettingIn } from './kit.js';
import { modelRunControls, pickedCheckpoint } from './model-run-controls.js';
import { createLensGrid } from './lens-grid.js';
import { headAt, noSpectrumText, scoreRows, shiftVerdict, spectrumPlan } from './lens-report.js';
import { LOSS_BY_POSITION } from './loss-axes.js';

const scaled = whenSettingIn('ln.compare')('scaled');

const SPECS = [
  {
    key: 'ln.model',
    label: 'model',
    kind: 'select',
    options: [
      ['lab-rope', 'trained here: byte-level RoPE model (2 layers × 4 heads, context 64)'],
      ['tiny', 'random weights, tiny GPT-NeoX (2 × 2 heads)'],
      ['tiny-llama', 'random weights, tiny Llama (2 × 4 heads)'],
      ['file', 'local checkpoint…'],
    ],
  },
  {
    key: 'ln.compare',
    label: 'compare with',
    kind: 'select',
    options: [
      ['none', 'nothing'],
      ['random', 'random weights of the same shapes (the control)'],
      ['scaled', 'the same model with a RoPE scaling'],
    ],
  },
  {
    key: 'ln.scaling',
    label: 'RoPE scaling',
    kind: 'select',
    options: SCALINGS.slice(1).map((s) => [s, s]),
    show: scaled,
  },
  { key: 'ln.factor', label: 'scaling factor f', kind: 'number', step: 0.5, show: scaled },
];

const NOTE =
  'The lens runs the model on the text with every layer’s attention traced and scores each head: how much weight it puts on the first token (sink), ' +
  'on the token just before (previous token), within the last few tokens (local), and, on a random sequence repeated, on the token after the earlier copy (induction). ' +
  'A RoPE model’s scores are also split over its rotation pairs: heads that lean on the fast pairs read position, the others content. ' +
  'Random weights are the control: whatever a trained model shows beyond them, training put there. ' +
  'The same report, natively: `poslab lens --weights model.safetensors --config config.json --tokens-file ids.npy -o lens.json`.';

/** Attention weights by distance of one head: x = i − j from 0. */
const profileSeries = (head, label, dashed = false) =>
  head ? [{ label, x: range(head.distance_profile.length), y: head.distance_profile, dashed }] : [];

export default defineView('lens', {
  controls: SPECS,
  job: 'lens', // on the language-model module (LM_JOBS), so not the registry's
  build(shell, { store }) {
    createIntro(shell, { title: 'Position lens', note: NOTE });

    // Page-local inputs: the text and a checkpoint (never in the link).
    const local = el('div', 'local-input');
    const { area, file, elements } = pasteOrOpen({
      id: 'ln-text',
      label: 'text the model reads',
      placeholder:
        'Paste a text here (empty: the held-out tenth of the lab’s sample, which the lab’s model never trained on)',
      rows: 3,
      fileLabel: 'or a text file',
      accept: '.txt,text/plain',
    });
    const textError = el('span', 'control-error lens-text-error');
    textError.setAttribute('role', 'status');
    const { ckpt, ckptLabel, run, cancel, buttons, progress } = modelRunControls('lens');
    local.append(...elements, textError, ckptLabel, buttons, progress);
    shell.panel.append(local);

    // 1. The grid of roles.
    const grid = createLensGrid(shell.plots, {
      onPick: (layer, head) => store.set({ 'ln.head': `${layer}.${head}` }, { source: 'control' }),
    });

    // 2. Attention by distance, the head's scores beside it.
    const profile = shell.lines('profile', {
      title: 'Attention by distance',
      xTitle: 'distance i − j',
      yTitle: 'mean weight',
      height: 300,
    });
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

    // The words after the plots: on a phone the first plot starts in the first screen.
    const about = el('p', 'note lens-about');
    shell.plots.append(about);

    let files = null; // { weights, config, tokenizer? }
    let timer = 0;
    area.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => shell.refresh(), 300); // typing: one run per pause
    });
    file.addEventListener('change', async () => {
      const f = file.files?.[0];
      if (!f) return;
      area.value = await f.text();
      shell.refresh();
    });
    ckpt.addEventListener('change', () => {
      files = pickedCheckpoint(ckpt);
      progress.textContent = files ? 'Press Run.' : 'Pick a .safetensors checkpoint and its config.json.';
      shell.refresh();
    });

    function drawProfile(r, layer, head) {
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

    function drawSpectrum(r, layer, head) {
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
      marks = plan;
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
          (plan.ownBase
            ? ' This layer turns at its own base (a sliding layer’s local base): these are its pairs.'
            : ''),
      );
    }

    function drawMap(r, layer, head) {
      const m = r.heatmaps?.map;
      map.figure.box.hidden = !m;
      map.figure.setTitle(`Attention map: layer ${layer}, head ${head}, ${r.tokens.length} ${r.unit}`);
      map.figure.setNote(m ? 'Row i: where query i puts its weight over the keys j ≤ i (causal).' : r.missing);
      if (m) map.update(m);
    }

    function drawPositions(r) {
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
        return [
          { label: `in order${tag}`, x, y: index, dashed },
          { label: `shuffled${tag}`, x, y: shuffled, dashed },
          { label: `all 0${tag}`, x, y: constant, dashed },
        ];
      };
      const colours = (list) => list.map((line, i) => ({ ...line, color: ['#0072b2', '#e69f00', '#009e73'][i % 3] }));
      positions.update(colours([...lines(s, r.names[0], false), ...lines(r.second?.shuffle, r.names[1], true)]));
      const m = s.mean_loss;
      positions.figure.setTitle(
        `Next-token loss by position: mean ${formatShort(m.index)} in order, ${formatShort(m.shuffled)} shuffled, ${formatShort(m.constant)} all 0`,
      );
      const other = r.second?.shuffle?.mean_loss;
      positions.figure.setNote(
        'The same text with the positions in order, shuffled (a seeded permutation) and all 0: the further apart the curves, the more the model uses position.' +
          (other
            ? ` ${r.names[1]} (dashed): ${formatShort(other.index)} in order, ${formatShort(other.shuffled)} shuffled, ${formatShort(other.constant)} all 0.`
            : ''),
      );
    }

    function draw(r, p) {
      const { layer, head } = parseHead(p.head);
      const list = [{ report: r.report, name: r.names[0] }];
      if (r.second) list.push({ report: r.second, name: r.names[1] });
      const beside = { random: ', beside the control', scaled: ', beside the scaled model' }[r.compare] ?? '';
      grid.update(list, `Head roles: ${r.report.heads.length} heads${r.second ? beside : ''}`);
      grid.select(layer, head);
      drawProfile(r, layer, head);
      drawSpectrum(r, layer, head);
      drawMap(r, layer, head);
      drawPositions(r);
      const cut = r.textLength > r.tokens.length ? ` (its first ${r.tokens.length} of ${r.textLength})` : '';
      about.textContent =
        `${r.random ? 'RANDOM WEIGHTS (not a trained model): ' : ''}${r.model}; text: ${r.source}, ${r.tokens.length} ${r.unit}${cut}; ` +
        `tokenizer: ${r.tokenizer}.` +
        (r.second ? ` Compared with ${r.secondLabel}.` : '') +
        (r.ms ? ` Lens in ${(r.ms.lens / 1000).toFixed(2)} s on ${r.threads}.` : '');
    }

    const showTextError = (message) => {
      textError.textContent = message;
    };

    return {
      runButtons: { run, cancel },
      show(p) {
        ckptLabel.hidden = p.model !== 'file';
      },
      params: (p) => ({ ...p, text: area.value, ...(p.model === 'file' && files ? { files } : {}) }),
      key: (p) => ({ ...p, text: area.value, files: files && [files.weights.name, files.weights.size] }),
      demand(p) {
        if (p.model !== 'file') return null;
        return files ? 'press Run: the lens runs a checkpoint several times' : 'pick a checkpoint and its config.json';
      },
      fieldErrors: { text: showTextError, tokens: showTextError, period: showTextError, shift: showTextError },
      start() {
        textError.textContent = '';
        progress.textContent = 'Starting…';
      },
      progress(d) {
        const what = {
          model: 'Making the model…',
          load: `Loading the checkpoint: ${Math.round((d.fraction ?? 0) * 100)} %`,
          control: 'Making the random control…',
          lens: d.control ? 'Running the lens on the comparison…' : 'Running the lens…',
          map: 'Tracing the head’s map…',
        };
        progress.textContent = what[d.phase] ?? '';
      },
      end(outcome) {
        progress.textContent = { drawn: '', cancelled: 'Cancelled.', failed: '' }[outcome];
      },
      draw,
    };
  },
});

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

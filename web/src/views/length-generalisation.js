// The Length generalisation view: the same tiny decoder-only transformer trained per position
// method, once per seed, on lengths 1..N of a task, then tested on every length to 4N — seed
// 000's claim made testable, each metric as mean ± sd over the seeds (lab/ranking.js).
// Training runs on demand (Train), each run in its own worker
// (lab/runs.js on lab/pool.js), as many at once as the machine has cores but one; curves update
// live; Stop keeps what finished; a finished run is cached in IndexedDB under its whole
// configuration, so a reload shows it again. Until one's own runs exist the figures show the
// bundled example, labelled, and never runs of other settings unmarked (lab/shown.js).
import '../styles/lab.css';
import { download } from '../export/download.js';
import { exampleCommand, loadExample } from '../lab/example.js';
import { methodStyle } from '../lab/method-styles.js';
import { poolSize } from '../lab/pool.js';
import { FULL_SETTINGS, METHODS, methodById, QUICK_SETTINGS, runPlan } from '../lab/presets.js';
import {
  byMethod,
  controlPairs,
  exactMatchByLength,
  meanLossCurve,
  METRICS,
  orderText,
  PAPERS,
  PRIMARY,
  rank,
  tokenAccuracyBeyond,
} from '../lab/ranking.js';
import { createRunState, createTrainingExecutor, restoreInto, restoreRuns } from '../lab/runs.js';
import { COUPLED_METHODS } from '../state/methods.js';
import { EMBED_SCALE_BY_METHOD } from '../state/train-defaults.js';
import { shownCurves, shownRuns, sourceNote } from '../lab/shown.js';
import { smoothLoss } from '../lab/smoothing.js';
import { colorize, valueRange } from '../plots/colormap.js';
import { MAX_TANGLED } from '../plots/line-picker.js';
import { range } from '../plots/lineplot.js';
import { createIntro, defineView, el } from './kit.js';
import { downloadJson, labActions, labResults, methodCheckboxes, trainingReports } from './lab-layout.js';
import { trainingLoss } from './loss-axes.js';

// Every step's loss, one faint grey line behind the smoothed ones: how noisy training was. Drawn
// only while it keeps the plot under the line picker's count (more lines get a picker that fades
// all but one, which would hide the comparison the plot is for).
const RAW_LOSS = { label: 'every step (raw)', color: 'rgba(128, 128, 128, 0.35)' };

const SPECS = [
  {
    key: 'lg.task',
    label: 'task',
    kind: 'select',
    options: [
      ['copy', 'copy: x SEP x'],
      ['reverse', 'reverse: x SEP reverse(x)'],
      ['sort', 'sort digits'],
      ['addition', 'addition (least-significant digit first)'],
    ],
  },
  { key: 'lg.N', label: 'trained lengths 1..N', kind: 'number', step: 1 },
  {
    key: 'lg.size',
    label: 'model',
    kind: 'select',
    options: [
      ['default', '2 layers, width 64, 4 heads'],
      ['small', '1 layer, width 32, 2 heads'],
      ['deep', '4 layers, width 64, 4 heads'],
    ],
  },
  { key: 'lg.steps', label: 'steps (0: the task’s budget)', kind: 'number', step: 100 },
  { key: 'lg.embedScale', label: 'embedding scale s (0: each method’s)', kind: 'number', step: 1 },
  { key: 'lg.seed', label: 'first seed', kind: 'number', step: 1 },
  { key: 'lg.seeds', label: 'seeds per method', kind: 'number', step: 1 },
  {
    key: 'lg.coupled',
    label:
      'addition: couple positions (Cho et al. 2024; digits of one significance share one) — trains only ' +
      COUPLED_METHODS.map((id) => methodById(id)?.label ?? id).join(', '),
    kind: 'checkbox',
  },
];

const NOTE =
  'The same tiny transformer ' +
  '(pre-LayerNorm GPT-2 blocks, tied head) is trained per position method, once per seed, on sequences of length 1..N ' +
  'and tested on every length up to 4N. Each number is the mean ± sd over the seeds, with every seed a dot. ' +
  'In-distribution exact match comes first: a method under 0.9 did not train, and is never called “not generalising”. ' +
  'Methods are ranked on exact match of the whole answer on lengths N+1..2N, and two of them only when their means ' +
  'differ by more than their two sds together; otherwise they tie. ' +
  'Natively: `poslab train --task copy --position rope --train-len 8 --seeds 3 -o result.json`.';

export default defineView('length-generalisation', {
  controls: SPECS,
  executor: () => createTrainingExecutor(),
  build(shell, { store }) {
    createIntro(shell, {
      title: 'Length generalisation',
      note: NOTE,
      source:
        'seed 000 says sinusoidal encodings let a model handle lengths it never saw; this view trains and tests that claim.',
    });

    // Methods (checkboxes over lg.methods, each box beside its name) in the settings; presets,
    // Train / Stop and the progress line above the figures, so Train is on a phone's first screen.
    const firstRandomized = METHODS.findIndex((m) => m.randomized);
    const methodBoxes = methodCheckboxes(
      store,
      'lg.methods',
      METHODS.map((m, i) => ({
        id: m.id,
        text: m.short,
        name: m.label, // the randomised boxes repeat the plain names
        heading: i === firstRandomized ? 'on randomised positions (Ruoss et al. 2023)' : undefined,
      })),
    );
    shell.panel.append(methodBoxes.fieldset);
    // One embedding scale for every method (lg.embedScale > 0) favours some: said beside it.
    const knob = el('p', 'note lg-knob');
    const scales = Object.entries(EMBED_SCALE_BY_METHOD);
    const usual = scales.find(([, s]) => scales.filter(([, t]) => t === s).length * 2 > scales.length)?.[1];
    knob.textContent =
      'One embedding scale for every method favours some: over three seeds at 4 sinusoidal did not train, ' +
      'at 8 NoPE and T5 bias did not (docs/lab.md, Fair defaults). 0 gives each method its own (' +
      scales
        .filter(([, s]) => s !== usual)
        .map(([m, s]) => `${m} ${s}`)
        .join(', ') +
      `, the others ${usual}).`;
    shell.panel.append(knob);
    const { button, train, stop, progress, source } = labActions(shell, 'lg');
    const quick = button(
      'Quick preset',
      'lg-quick',
      'copy, N = 5, learned, RoPE, ALiBi and NoPE, 1000 steps each, 3 seeds: the example shown before you train',
    );
    const full = button(
      'Full preset',
      'lg-full',
      'every method, plain and on randomised positions (NoPE plain only), 4 layers, N = 8, the task’s budget, ' +
        '3 seeds: 45 runs, an hour or more',
    );

    const toSettings = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [`lg.${k}`, v]));
    let presetSaid = ''; // said once on the progress line after a preset moved the settings
    const usePreset = (name, settings) => {
      presetSaid = `${name} preset set (see the settings). `;
      store.set(toSettings(settings), { source: 'preset' });
    };
    quick.addEventListener('click', () => usePreset('Quick', QUICK_SETTINGS));
    full.addEventListener('click', () => usePreset('Full', FULL_SETTINGS));

    // Figures.
    const loss = shell.lines('loss', { ...trainingLoss('nats'), height: 260 });
    const accuracy = shell.lines('accuracy', {
      title: 'Exact match by length',
      xTitle: 'length',
      yTitle: 'exact match',
      height: 300,
    });
    const heatmap = shell.heatmap('heatmap', {
      title: 'Exact match: methods × lengths',
      xTitle: 'length',
      yTitle: 'method',
      height: 260,
    });
    const tokens = shell.lines('tokens', {
      title: 'Per-token accuracy by answer position, lengths past N',
      xTitle: 'answer position',
      yTitle: 'accuracy',
      height: 280,
    });
    const results = [loss, accuracy, heatmap, tokens];
    const { table, papers, exportButton } = labResults(shell, 'lg');

    // Attention maps of a test example past N, for a chosen method and layer.
    const attnControls = el('div', 'lg-attention-controls');
    const attnMethod = el('select');
    attnMethod.setAttribute('aria-label', 'attention: method');
    const attnLength = el('select');
    attnLength.setAttribute('aria-label', 'attention: example length');
    const attnLayer = el('select');
    attnLayer.setAttribute('aria-label', 'attention: layer');
    attnControls.append(
      'attention maps of ',
      attnMethod,
      ' on a test example of length ',
      attnLength,
      ' layer ',
      attnLayer,
    );
    const attnAbout = el('p', 'note lg-attention-about');
    const attnGrid = el('div', 'lg-maps lg-attention');
    // A FIRE model's bias on the same example: what its position MLP added to the scores.
    const fireAbout = el('p', 'note lg-fire-about');
    const fireGrid = el('div', 'lg-maps lg-fire');
    shell.plots.append(attnControls, attnAbout, attnGrid, fireAbout, fireGrid);
    let attnPlots = [];
    let firePlots = [];

    // The runs of the settings p: those finished (or restored) and the loss curves so far; what
    // the figures show (lab/shown.js: these, else the previous run's or the example).
    let plan = [];
    let p = null;
    // done: id → { result, attention, checkpoint, workerSeconds }; curves: id → [[step, loss], …];
    // failures: '<method>: <message>' of runs that failed since Train.
    const runState = createRunState();
    const { done, curves } = runState;
    const planKey = (runs) => JSON.stringify(runs.map((r) => r.config));
    let example = null; // lab/example.js, once loaded
    let previous = null; // the last Shown of the settings' own runs, kept when the settings move
    /** @type {import('../lab/shown.js').Shown} */
    let shown = { source: 'none', N: 0, rows: [] };

    function setPlan(next, settings, runs = new Map()) {
      plan = next;
      p = settings;
      restoreInto(runState, runs);
    }

    const fmt = (x) => (Number.isFinite(x) ? x.toFixed(2) : '—');
    // A heatmap of values in [0, 1] (accuracies, attention weights), coloured here: small.
    const painted = (data, rows, cols, labels) => ({
      data,
      rows,
      cols,
      range: [0, 1],
      cmap: 'viridis',
      ...colorize(data, 'viridis', [0, 1]),
      ...labels,
    });

    // Re-reads what to show: the settings' own runs, else the previous run's or the example.
    function choose() {
      shown = shownRuns({ plan, done, N: p?.N ?? 0, previous, example });
      if (shown.source === 'current') previous = shown;
      const note = sourceNote(shown.source);
      source.textContent = note;
      source.dataset.source = shown.source;
      source.title =
        shown.source === 'example'
          ? shown.rows
              .filter((r) => r.id === r.method) // a method's first seed: one command trains them all
              .map((r) => exampleCommand(r.config, example.settings.seeds))
              .join('\n')
          : '';
      for (const plot of [accuracy, heatmap, tokens]) {
        plot.figure.el.classList.toggle('lg-previous', shown.source === 'previous');
        plot.figure.setNote(note);
      }
    }

    function drawLoss() {
      const { own, runs } = shownCurves(plan, curves, shown);
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
      loss.figure.el.classList.toggle('lg-previous', !own && shown.source === 'previous');
      loss.figure.setNote(own ? smoothing : `${sourceNote(shown.source)} ${smoothing}`);
      loss.update(series, { logY: true });
    }

    // Each method's figures are the means over its seeds' runs.
    function drawResults() {
      const rows = shown.rows;
      const groups = byMethod(rows);
      const results = (g) => g.runs.map((r) => r.run.result);
      const N = shown.N;
      const M = 4 * N;
      // Nothing to show yet (the example still loading): no empty axes.
      for (const plot of [accuracy, heatmap, tokens]) plot.figure.el.hidden = !rows.length;
      const shade = [{ axis: 'x', value: N + 0.5, label: `trained 1..${N}` }];
      accuracy.update(
        groups.map((g) => ({
          label: g.label,
          ...methodStyle(g.id),
          x: range(M, 1),
          y: exactMatchByLength(results(g), M),
        })),
        { refLines: shade, bands: [{ from: 0.5, to: N + 0.5 }], yMin: 0, yMax: 1 },
      );
      tokens.update(
        groups.map((g) => {
          const y = tokenAccuracyBeyond(results(g), N);
          return { label: g.label, ...methodStyle(g.id), x: range(y.length), y: Float64Array.from(y) };
        }),
        { yMin: 0, yMax: 1 },
      );
      if (groups.length) {
        const data = new Float32Array(groups.length * M);
        groups.forEach((g, i) => data.set(exactMatchByLength(results(g), M), i * M));
        heatmap.update(
          painted(data, groups.length, M, {
            yLabels: groups.map((g) => g.label),
            xLabels: Array.from({ length: M }, (_, i) => String(i + 1)),
          }),
        );
      }
      drawTable(groups, N);
      drawAttentionChoices(rows);
    }

    function render() {
      choose();
      drawLoss();
      drawResults();
    }

    // A metric's cell: mean ± sd, then a strip with every seed's value as a dot on [0, 1].
    function metricCell(m, seeds) {
      const td = el('td', 'lg-metric');
      if (m.mean === null) {
        td.textContent = 'n/a';
        return td;
      }
      td.append(el('span', 'lg-mean', m.values.length > 1 ? `${fmt(m.mean)} ± ${fmt(m.sd)}` : fmt(m.mean)));
      const strip = el('span', 'lg-dots');
      strip.setAttribute('aria-hidden', 'true');
      for (const v of m.values) {
        const dot = el('span', 'lg-dot');
        dot.style.left = `${(100 * Math.min(1, Math.max(0, v))).toFixed(1)}%`;
        strip.append(dot);
      }
      td.append(strip);
      td.title = m.values.map((v, i) => `seed ${seeds[i]}: ${fmt(v)}`).join(', ');
      return td;
    }

    function drawTable(groups, N) {
      const ranked = rank(groups);
      table.replaceChildren();
      table.hidden = !ranked.length;
      table.classList.toggle('lg-previous', shown.source === 'previous');
      const head = el('tr');
      for (const h of ['rank', 'method', 'seeds', ...METRICS.map((m) => m.label(N)), 'steps', 'time (s)'])
        head.append(el('th', '', h));
      METRICS.forEach((m, i) => (head.children[3 + i].title = m.plain));
      head.lastChild.title = 'worker-seconds: the time the runs’ training workers spent on them, all seeds';
      table.append(head);
      for (const g of ranked) {
        const tr = el('tr', g.trained ? '' : 'lg-untrained');
        const seeds = g.runs.map((r) => r.seed ?? r.run.result.config.seed);
        const time = g.runs.reduce((sum, r) => sum + (r.run.workerSeconds || 0), 0);
        const native = g.runs.reduce((sum, r) => sum + (r.run.nativeSeconds || 0), 0);
        tr.append(
          el('td', '', g.rank === null ? '—' : `${g.rank}${g.tie ? '=' : ''}`),
          el('td', '', g.label),
          el('td', '', String(g.runs.length)),
        );
        METRICS.forEach((m, i) => {
          const td = i > 0 && !g.trained ? el('td', '', 'did not train') : metricCell(g.metrics[m.key], seeds);
          tr.append(td);
        });
        tr.append(
          el('td', '', String(g.runs[0].run.result.config.steps)),
          el('td', '', time ? time.toFixed(1) : native ? `${native.toFixed(1)} (native)` : 'cached'),
        );
        table.append(tr);
      }
      const measured = ranked.filter((g) => g.rank !== null && !g.id.includes('random'));
      papers.replaceChildren();
      papers.append(el('h3', '', 'What the papers report, and what we measured'));
      for (const paper of PAPERS) {
        const para = el('p', 'note');
        para.textContent = `${paper.cite} (${paper.setting}): ${paper.claim}.`;
        papers.append(para);
      }
      const ours = el('p', 'note lg-ours');
      const whose = { example: 'In the example', previous: 'In the previous run' }[shown.source] ?? 'Measured here';
      const kaz = PAPERS[0].order.filter((id) => measured.some((g) => g.id === id));
      const ourOrder = measured.filter((g) => kaz.includes(g.id));
      // Agreement: every pair Kazemnejad et al. order is ordered the same way here, not tied.
      const agree =
        kaz.length > 1 &&
        kaz.every(
          (id, i) => i === 0 || ourOrder.find((g) => g.id === kaz[i - 1]).rank < ourOrder.find((g) => g.id === id).rank,
        );
      const primary = METRICS.find((m) => m.key === PRIMARY);
      const seeds = groups[0]?.runs.length ?? 0;
      ours.textContent = measured.length
        ? `${whose} (by ${primary.label(N)}, mean over ${seeds} seed${seeds === 1 ? '' : 's'}, a model of ~0.1M parameters, ` +
          `${groups[0]?.runs[0].run.result.config.steps ?? '?'} steps; “=” a tie: means closer than their two sds): ` +
          `${orderText(ourOrder) || '—'}. ` +
          (kaz.length > 1
            ? agree
              ? 'The same order as Kazemnejad et al. for these methods.'
              : 'Not the order of Kazemnejad et al.: at this scale (a thousandfold fewer parameters, minutes of training, ' +
                'exact match near zero past N for most methods) rankings can differ or tie; the per-token accuracy shows where each breaks.'
            : '')
        : 'Train to measure.';
      papers.append(ours);
      // Randomised positions against their plain controls, same steps, on the primary metric.
      const pairs = controlPairs(groups);
      if (pairs.length) {
        const para = el('p', 'note lg-controls');
        para.textContent =
          `Randomised positions against the same method on plain positions, trained for the same steps (${primary.label(N)}): ` +
          pairs
            .map(
              ({ label, randomized: r, plain: c, verdict }) =>
                `${label} ${fmt(r.mean)} ± ${fmt(r.sd)} against ${fmt(c.mean)} ± ${fmt(c.sd)} (${verdict})`,
            )
            .join('; ') +
          '.';
        papers.append(para);
      }
    }

    // Runs with attention maps (the example's, written by the CLI, have none).
    function drawAttentionChoices(rows) {
      const keep = attnMethod.value;
      const withMaps = rows.filter((r) => r.run.attention?.length);
      attnMethod.replaceChildren(
        ...withMaps.map((r) => new Option(r.seed === undefined ? r.label : `${r.label}, seed ${r.seed}`, r.id)),
      );
      if (withMaps.some((r) => r.id === keep)) attnMethod.value = keep;
      attnControls.hidden = !withMaps.length;
      drawAttention();
    }

    const shownRun = (id) => shown.rows.find((r) => r.id === id)?.run;

    function drawAttention() {
      const d = shownRun(attnMethod.value);
      // Weights exist for runs trained in this browser (the example's CLI runs kept none).
      modelExport.disabled = !d?.checkpoint;
      if (!d || !d.attention?.length) {
        attnGrid.replaceChildren();
        attnPlots = [];
        attnAbout.textContent = '';
        drawFireBias(null, 0, []);
        return;
      }
      const lengths = d.attention.map((a) => String(a.length));
      if (
        attnLength.options.length !== lengths.length ||
        [...attnLength.options].some((o, i) => o.value !== lengths[i])
      ) {
        attnLength.replaceChildren(...lengths.map((L) => new Option(L, L)));
        attnLength.value = lengths[lengths.length - 1];
      }
      const a = d.attention.find((x) => String(x.length) === attnLength.value) ?? d.attention[0];
      const [nLayer, nHead, T] = a.shape;
      if (attnLayer.options.length !== nLayer) {
        attnLayer.replaceChildren(...Array.from({ length: nLayer }, (_, l) => new Option(String(l), String(l))));
      }
      const layer = Number(attnLayer.value) || 0;
      const names = tokenNames(d.result.config.model);
      const labels = Array.from(a.tokens, (t) => names(t));
      const right = [];
      for (let t = a.answerStart; t < T; t++) right.push(a.predictions[t - 1] === a.tokens[t]);
      attnAbout.textContent =
        `Length ${a.length} (trained up to ${shown.N}): ${right.filter(Boolean).length} of ${right.length} answer tokens right ` +
        `given the true prefix; the first wrong one at answer position ${right.indexOf(false) === -1 ? '—' : right.indexOf(false)}. ` +
        `Rows: queries, columns: keys.`;
      while (attnPlots.length < nHead) {
        const plot = shell.heatmap(
          'attention',
          { title: '', xTitle: 'key', yTitle: 'query', height: 300, compact: false },
          attnGrid,
        );
        attnPlots.push(plot);
      }
      while (attnPlots.length > nHead) attnPlots.pop().destroy();
      attnPlots.forEach((plot, h) => {
        const offset = (layer * nHead + h) * T * T;
        plot.figure.setTitle(`layer ${layer}, head ${h}`);
        plot.update(painted(a.maps.subarray(offset, offset + T * T), T, T, { xLabels: labels, yLabels: labels }));
      });
      drawFireBias(a, layer, labels);
    }

    // FIRE's bias bias(i, j) = f(ψ(i − j) / ψ(max(L, i + 1))) of the example's layer, a heatmap per
    // head on a scale symmetric about 0 (above the diagonal the mask hides the key: 0). Other
    // methods' examples carry no fireBias: the grid empties.
    function drawFireBias(a, layer, labels) {
      const [, nHead, T] = a?.shape ?? [];
      const heads = a?.fireBias ? nHead : 0;
      while (firePlots.length < heads) {
        firePlots.push(
          shell.heatmap(
            'attention',
            { title: '', xTitle: 'key', yTitle: 'query', height: 300, compact: false },
            fireGrid,
          ),
        );
      }
      while (firePlots.length > heads) firePlots.pop().destroy();
      fireAbout.textContent = heads
        ? `FIRE's learned bias added to these scores, layer ${layer}: its MLP of ψ(i − j) / ψ(max(L, i + 1)), ` +
          `ψ(x) = log(c·x + 1), with c and the threshold L trained. Blue raises a key's score, red lowers it.`
        : '';
      firePlots.forEach((plot, h) => {
        const offset = (layer * nHead + h) * T * T;
        const data = a.fireBias.subarray(offset, offset + T * T);
        const range = valueRange(data, true);
        plot.figure.setTitle(`FIRE bias, layer ${layer}, head ${h}`);
        plot.update({
          data,
          rows: T,
          cols: T,
          range,
          cmap: 'RdBu',
          ...colorize(data, 'RdBu', range),
          xLabels: labels,
          yLabels: labels,
        });
      });
    }
    for (const s of [attnMethod, attnLength, attnLayer]) s.addEventListener('change', drawAttention);

    // Exports.
    // The exports are of what the figures show (the example's too: its files are the CLI's).
    // Per method: every seed's result.json and each metric's summary over them.
    exportButton('Results JSON', () => {
      const out = Object.fromEntries(
        byMethod(shown.rows).map((g) => [g.id, { runs: g.runs.map((r) => r.run.result), summary: g.metrics }]),
      );
      downloadJson('length-generalisation.json', out);
    });
    exportButton('Accuracy CSV', () => {
      const lines = [['length', ...shown.rows.map((r) => r.id)].join(',')];
      for (let L = 1; L <= 4 * shown.N; L++)
        lines.push([L, ...shown.rows.map((r) => r.run.result.accuracy_by_length[L])].join(','));
      download('length-generalisation.csv', new Blob([lines.join('\n') + '\n'], { type: 'text/csv' }));
    });
    const modelExport = exportButton('Model .safetensors', () => {
      const d = shownRun(attnMethod.value);
      if (d?.checkpoint) download(`lab-${attnMethod.value}.safetensors`, new Blob([d.checkpoint]));
    });

    function tokenNames(model) {
      const v = model;
      return (t) =>
        t === v.bos_token_id
          ? 'BOS'
          : t === v.sep_token_id
            ? 'SEP'
            : t === v.eos_token_id
              ? 'EOS'
              : t === v.pad_token_id
                ? 'PAD'
                : t === 10
                  ? '+'
                  : String(t);
    }

    const reports = trainingReports(shell, { runState, line: progress, drawLoss, render });

    return {
      runButtons: { run: train, cancel: stop },
      show(settings) {
        methodBoxes.show(settings.methods);
        knob.hidden = !(settings.embedScale > 0);
      },
      key: (settings) => runPlan(settings).map((r) => r.config),
      // Training takes minutes: only on Train. A change of setting shows its runs kept here.
      demand: () => '',
      async cached(settings) {
        const next = runPlan(settings);
        const [runs, loaded] = await Promise.all([restoreRuns(next), example ?? loadExample().catch(() => null)]);
        example = loaded;
        return { plan: next, runs, settings, partial: runs.size < next.length };
      },
      start(settings) {
        const next = runPlan(settings);
        if (planKey(next) !== planKey(plan)) {
          setPlan(next, settings); // Train before its runs were restored
          render();
        }
        runState.failures = [];
      },
      params: () => ({ runs: plan.filter((r) => !done.has(r.id)), N: p.N }),
      progress: (m) => reports.progress(m, plan.find((x) => x.id === m.id)?.label ?? m.id),
      draw(result) {
        if (result.plan) {
          // Restored: this setting's runs kept in this browser.
          setPlan(result.plan, result.settings, result.runs);
          render();
          const missing = plan.length - done.size;
          const toTrain = plan.filter((r) => !done.has(r.id));
          progress.textContent =
            presetSaid +
            (missing
              ? `${done.size} of ${plan.length} runs cached; press Train for the other ${missing} ` +
                `(${toTrain.map((r) => r.config.steps).reduce((a, b) => a + b, 0)} steps in all, ${poolSize()} at a time).`
              : `All ${plan.length} runs restored from this browser's cache.`);
          presetSaid = '';
          return;
        }
        reports.ended(result);
      },
    };
  },
});

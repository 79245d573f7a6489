// The Length generalisation view: the same tiny decoder-only transformer trained per position
// method, once per seed, on lengths 1..N of a task, then tested on every length to 4N — seed
// 000's claim made testable, each metric as mean ± sd over the seeds (lab/ranking.js).
// Training runs on demand (Train), each run in its own worker
// (lab/runs.js on lab/pool.js), as many at once as the machine has cores but one; curves update
// live; Stop keeps what finished; a finished run is cached in IndexedDB under its whole
// configuration, so a reload shows it again. Until one's own runs exist the figures show the
// bundled example, labelled, and never runs of other settings unmarked (lab/shown.js).
import '../styles/lab.css';
import { exampleCommand, settingsCommand } from '../lab/example.js';
import { METHODS, methodById, runPlan } from '../lab/presets.js';
import { byMethod } from '../lab/ranking.js';
import { createRunState, createTrainingExecutor, restoreInto } from '../lab/runs.js';
import { COUPLED_METHODS } from '../state/methods.js';
import { EMBED_SCALE_BY_METHOD } from '../state/train-defaults.js';
import { shownCurves, shownRuns, sourceNote } from '../lab/shown.js';
import { nativeBox } from '../ui/native.js';
import { claimsPanel } from './claims-panel.js';
import { createIntro, defineView, el } from './kit.js';
import { labActions, labResults, methodCheckboxes, trainingReports } from './lab-layout.js';
import { createAttentionMaps } from './length-generalisation/attention.js';
import { downloadButtons } from './length-generalisation/downloads.js';
import { createFigures, drawAccuracy, drawHeatmap, drawLoss, drawTokens } from './length-generalisation/figures.js';
import { presetButtons } from './length-generalisation/presets.js';
import { createProgress } from './length-generalisation/progress.js';
import { restorePlan } from './length-generalisation/restore.js';
import { drawPapers, drawTable } from './length-generalisation/table.js';

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
    key: 'lg.sinks',
    label: 'attention sinks (gpt-oss): one learned logit per layer and head in every softmax, every method',
    kind: 'checkbox',
  },
  {
    key: 'lg.nopeEvery',
    label: 'NoPE layers every K (SmolLM3, Llama 4; the rotations only; 0: none)',
    kind: 'number',
    step: 1,
  },
  { key: 'lg.attnFloor', label: 'their attention temperature’s floor (Llama 4; 0: off)', kind: 'number', step: 1 },
  { key: 'lg.attnScale', label: 'its scale', kind: 'number', step: 0.05 },
  {
    key: 'lg.coupled',
    label:
      'addition: couple positions (Cho et al. 2024; digits of one significance share one) — trains only ' +
      COUPLED_METHODS.map((id) => methodById(id)?.label ?? id).join(', '),
    kind: 'checkbox',
  },
  {
    key: 'lg.pad',
    label: 'addition: zero-pad the operands to N digits (Lee et al. 2023; one layout for lengths 1..N)',
    kind: 'checkbox',
  },
];

const NOTE =
  'The same tiny transformer ' +
  '(pre-LayerNorm GPT-2 blocks, tied head) is trained per position method, once per seed, on sequences of length 1..N ' +
  'and tested on every length up to 4N. Each number is the mean ± sd over the seeds, with every seed a dot. ' +
  'In-distribution exact match comes first: a method under 0.9 did not train, and is never called “not generalising”. ' +
  'Methods are ranked on exact match of the whole answer on lengths N+1..2N, and two of them only when their means ' +
  'differ by more than their two sds together; otherwise they tie.';

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
    // The command line follows the settings (a preset's N, the model, the seeds).
    const native = nativeBox();
    shell.intro.append(native.el, claimsPanel('length-generalisation'));
    const { methodBoxes, knob } = methodSettings(shell, store);
    const { button, train, stop, progress, source } = labActions(shell, 'lg');
    const line = createProgress(progress);
    presetButtons(button, store, line.preset);
    const figures = createFigures(shell);
    const { table, papers, exportButton } = labResults(shell, 'lg');
    const maps = createAttentionMaps(shell, (run) => (modelExport.disabled = !run?.checkpoint));

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
    const modelExport = downloadButtons(exportButton, () => shown, maps.selected);

    function setPlan(next, settings, runs = new Map()) {
      plan = next;
      p = settings;
      restoreInto(runState, runs);
    }

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
      for (const plot of [figures.accuracy, figures.heatmap, figures.tokens]) {
        plot.figure.el.classList.toggle('lg-previous', shown.source === 'previous');
        plot.figure.setNote(note);
      }
    }

    const drawCurves = () => drawLoss(figures.loss, shownCurves(plan, curves, shown), shown.source);

    // Each method's figures are the means over its seeds' runs.
    function drawResults() {
      const { rows, N } = shown;
      const groups = byMethod(rows);
      // Nothing to show yet (the example still loading): no empty axes.
      for (const plot of [figures.accuracy, figures.heatmap, figures.tokens]) plot.figure.el.hidden = !rows.length;
      drawAccuracy(figures.accuracy, groups, N);
      drawTokens(figures.tokens, groups, N);
      drawHeatmap(figures.heatmap, groups, N);
      const ranked = drawTable(table, groups, N, shown.source);
      drawPapers(papers, ranked, groups, N, shown.source);
      maps.update(rows, N);
    }

    function render() {
      choose();
      drawCurves();
      drawResults();
    }

    const reports = trainingReports(shell, { runState, line: progress, drawLoss: drawCurves, render });

    return {
      runButtons: { run: train, cancel: stop },
      show(settings) {
        const command = settingsCommand(settings);
        native.set(command ? [`The first method of these settings: \`${command} -o result.json\``] : []);
        methodBoxes.show(settings.methods);
        knob.hidden = !(settings.embedScale > 0);
      },
      key: (settings) => runPlan(settings).map((r) => r.config),
      // Training takes minutes: only on Train. A change of setting shows its runs kept here.
      demand: () => '',
      async cached(settings) {
        const { example: loaded, ...restored } = await restorePlan(settings, example);
        example = loaded;
        return restored;
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
          line.restored(plan, done);
          return;
        }
        reports.ended(result);
      },
    };
  },
});

// Methods (checkboxes over lg.methods, each box beside its name) in the settings, and the note
// beside a single embedding scale.
function methodSettings(shell, store) {
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
    'at 8 NoPE and T5 bias did not. 0 gives each method its own (' +
    scales
      .filter(([, s]) => s !== usual)
      .map(([m, s]) => `${methodById(m)?.label ?? m} ${s}`)
      .join(', ') +
    `, the others ${usual}).`;
  shell.panel.append(knob);
  return { methodBoxes, knob };
}

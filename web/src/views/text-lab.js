// The Train short, test long view (Press et al. 2022, Figure 1): one byte-level language model
// per position method, trained in this browser on windows of N bytes of a text and scored on its
// held-out tenth at contexts N, 2N, … M, where every position counts; RoPE's model again under
// each inference-time scaling. Training runs on Train, each run in its own worker (lab/runs.js);
// until this setting's own runs exist the figures show the bundled native run, labelled. What
// the view says about the papers' claims is computed from the curves it draws (lab/text-claims.js).
import '../styles/lab.css';
import { poolSize } from '../lab/pool.js';
import { createRunState, createTrainingExecutor, restoreInto, restoreRuns } from '../lab/runs.js';
import { textCommand, textId, textPlan } from '../lab/text-plan.js';
import { TEXT_METHODS } from '../state/methods.js';
import { nativeBox } from '../ui/native.js';
import { claimsPanel } from './claims-panel.js';
import { createIntro, defineView, el } from './kit.js';
import { downloadJson, labActions, labResults, methodCheckboxes, trainingReports } from './lab-layout.js';
import {
  createTextFigures,
  drawCurves,
  drawLoss,
  drawPapers,
  drawTable,
  measured,
  methodName,
} from './text-lab-figures.js';

const SPECS = [
  { key: 'tl.N', label: 'trained context N (bytes)', kind: 'number', step: 16 },
  { key: 'tl.M', label: 'longest test context M', kind: 'number', step: 64 },
  { key: 'tl.steps', label: 'steps', kind: 'number', step: 100 },
  { key: 'tl.seed', label: 'seed', kind: 'number', step: 1 },
  { key: 'tl.sinks', label: 'attention sinks (gpt-oss), every method', kind: 'checkbox' },
  { key: 'tl.nopeEvery', label: 'NoPE layers every K (rotations; 0: none)', kind: 'number', step: 1 },
  { key: 'tl.attnFloor', label: 'their attention temperature’s floor (Llama 4; 0: off)', kind: 'number', step: 8 },
  { key: 'tl.attnScale', label: 'its scale', kind: 'number', step: 0.05 },
];

const NOTE =
  'Press et al. trained language models on short inputs and tested them on longer ones: only ALiBi kept its loss past the ' +
  'training length. Here the same tiny transformer (2 layers, width 64, pre-LayerNorm GPT-2 blocks) learns bytes ' +
  '(vocabulary 256, no tokenizer) on windows of N bytes from the first 90% of a text, once per position method, and is ' +
  'scored on the last 10% in windows of N, 2N, 4N … M bytes, every position counted, in nats per byte. Learned positions ' +
  'have no row past N (n/a). The RoPE model is scored again with each long-context scaling at factor context / N, ' +
  'without fine-tuning.';

export default defineView('text-lab', {
  controls: SPECS,
  executor: () => createTrainingExecutor(),
  build(shell, { store }) {
    createIntro(shell, { title: 'Train short, test long', note: NOTE });
    const native = nativeBox();
    shell.intro.append(native.el, claimsPanel('text-lab'));

    // Methods (checkboxes over tl.methods), the text (the sample, or the user's file), then
    // Train / Stop and the progress line above the figures.
    const methodBoxes = methodCheckboxes(
      store,
      'tl.methods',
      TEXT_METHODS.map((id) => ({ id, text: methodName(id) })),
    );
    const fileLabel = el('label', 'tl-file', 'text (empty: the sample, the FSF’s licences) ');
    const file = el('input');
    file.type = 'file';
    file.setAttribute('aria-label', 'a text file to train on');
    fileLabel.append(file);
    shell.panel.append(methodBoxes.fieldset, fileLabel);

    const { train, stop, progress, source } = labActions(shell, 'tl');

    const figures = createTextFigures(shell);
    const { table, tableBox, papers, exportButton } = labResults(shell, 'tl');

    // The text: the sample (loaded with the view's first run) or the user's file.
    let userText = null; // { bytes, id, name }
    let sample = null;
    const loadSample = async () => {
      if (!sample) {
        const { LICENCE_SAMPLE } = await import('../content/licences/index.js');
        const bytes = new TextEncoder().encode(LICENCE_SAMPLE);
        sample = { bytes, id: textId(bytes, true), name: 'the sample' };
      }
      return sample;
    };
    file.addEventListener('change', async () => {
      const f = file.files?.[0];
      if (!f) return;
      const bytes = new Uint8Array(await f.arrayBuffer());
      userText = { bytes, id: textId(bytes, false), name: f.name };
      shell.refresh(); // this text's kept runs, or the count of those to train
    });
    let example = null; // the bundled native run: { settings, command, commit, runs }
    const loadExample = async () => (example ??= (await import('../lab/example/text.json')).default);

    let plan = [];
    let p = null;
    const runState = createRunState(); // done: id → { result, workerSeconds }; curves; failures
    const { done, curves } = runState;
    // What the figures show: this setting's runs, else the example (said on the source line).
    let shown = { source: 'none', runs: [] };

    function choose() {
      const own = plan.filter((r) => done.has(r.id)).map((r) => ({ method: r.method, result: done.get(r.id).result }));
      if (own.length) shown = { source: 'current', runs: own };
      else if (example) {
        shown = {
          source: 'example',
          runs: example.settings.methods.map((m) => ({ method: m, result: example.runs[m], native: true })),
        };
      } else shown = { source: 'none', runs: [] };
      source.dataset.source = shown.source;
      source.textContent =
        shown.source === 'example'
          ? `Not your runs yet: the figures show the bundled native run on the sample (N = ${example.settings.N}, ` +
            `M = ${example.settings.M}, seed ${example.settings.seed}). Press Train for this setting’s.`
          : '';
      // The commands: this setting's first run, and the bundled run's while it is shown.
      native.set(
        [
          plan.length ? `This setting’s first run: \`${textCommand(plan[0].config)}\`` : '',
          shown.source === 'example' ? `The bundled run: \`${example.command}\` (commit ${example.commit})` : '',
        ].filter(Boolean),
      );
    }

    // The loss curves: this setting's runs as they train, else those shown.
    function drawTraining() {
      const own = plan.filter((r) => curves.get(r.id)?.length);
      const runs = own.length
        ? own.map((r) => ({ method: r.method, curve: curves.get(r.id) }))
        : shown.runs.map((r) => ({ method: r.method, curve: r.result.loss_curve }));
      drawLoss(figures.loss, runs, own.length > 0);
    }

    function render() {
      choose();
      const m = measured(shown.runs);
      for (const f of [figures.byContext, figures.scaling]) f.figure.el.hidden = !m;
      tableBox.hidden = papers.hidden = !m;
      drawTraining();
      if (!m) return;
      drawCurves(figures, m, shown.source);
      drawTable(table, m, shown.runs, done);
      drawPapers(papers, m);
    }

    exportButton('Results JSON', () => {
      downloadJson('train-short-test-long.json', Object.fromEntries(shown.runs.map((r) => [r.method, r.result])));
    });

    const settingsOf = (s) => ({
      methods: s.methods,
      N: s.N,
      M: Math.max(s.M, s.N),
      steps: s.steps,
      seed: s.seed,
      sinks: s.sinks,
      nopeEvery: s.nopeEvery,
      attnFloor: s.attnFloor,
      attnScale: s.attnScale,
    });
    const reports = trainingReports(shell, { runState, line: progress, drawLoss: drawTraining, render });

    return {
      runButtons: { run: train, cancel: stop },
      show: (s) => methodBoxes.show(s.methods),
      key: (s) => ({ ...settingsOf(s), text: userText?.id ?? 'sample' }),
      demand: () => '', // minutes of training: only on Train
      async cached(s) {
        const text = userText ?? (await loadSample());
        const next = textPlan(settingsOf(s), text);
        const [runs] = await Promise.all([restoreRuns(next), loadExample().catch(() => null)]);
        return { plan: next, runs, settings: s, text, partial: runs.size < next.length };
      },
      start() {
        runState.failures = [];
      },
      params: () => ({ runs: plan.filter((r) => !done.has(r.id)), N: p?.N ?? 0 }), // none before the plan is read
      progress: (m) => reports.progress(m, methodName(m.id)), // a run's id is its method
      draw(result) {
        if (result.plan) {
          plan = result.plan;
          p = settingsOf(result.settings);
          restoreInto(runState, result.runs);
          render();
          const missing = plan.length - done.size;
          progress.textContent = missing
            ? `${done.size} of ${plan.length} runs cached; press Train for the other ${missing} on ${result.text.name} ` +
              `(${plan.length ? plan[0].config.steps : 0} steps each, ${poolSize()} at a time).`
            : `All ${plan.length} runs restored from this browser's cache.`;
          return;
        }
        reports.ended(result);
      },
    };
  },
});

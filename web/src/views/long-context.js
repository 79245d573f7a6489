// The Long context view: per-position next-token loss of a RoPE model (GPT-NeoX / Pythia or
// the Llama family) on
// a long text out to times × its trained context, one curve per RoPE scaling — the classic
// position-interpolation plot. Computed in the view's worker on the language-model module
// (jobs/long-context.js) on demand (Run; the tiny model, the default, at once: the view never
// opens blank), with progress (method i of n,
// ETA) and Cancel; the text and a local checkpoint stay on the page (not in the link), the rest
// is the URL state.
import { range } from '../plots/lineplot.js';
import { coincidingLines } from '../plots/overlap.js';
import { STEPS_BY_TASK } from '../state/train-defaults.js';
import { movingAverage } from '../plots/smooth.js';
import { createIntro, defineView, el, pasteOrOpen } from './kit.js';
import { LOSS_BY_POSITION } from './loss-axes.js';
import { modelRunControls, pickedCheckpoint } from './model-run-controls.js';

const SPECS = [
  {
    key: 'lc.model',
    label: 'model',
    kind: 'select',
    options: [
      ['lab-rope', 'trained here: byte-level RoPE model (context 64)'],
      ['tiny', 'random weights, tiny GPT-NeoX (context 64)'],
      ['tiny-llama', 'random weights, tiny Llama (context 64)'],
      ['pythia-70m', 'random weights, Pythia-70m shapes'],
      ['file', 'local checkpoint…'],
    ],
  },
  { key: 'lc.times', label: 'length: × trained context', kind: 'slider' },
  { key: 'lc.factor', label: 'scaling factor f', kind: 'number', step: 0.5 },
  { key: 'lc.smooth', label: 'moving average (positions)', kind: 'number', step: 1 },
];

const NOTE =
  'Past the trained context N (the dashed line) an unscaled model usually degrades; linear (position interpolation), NTK, dynamic NTK, YaRN and llama3 stretch the rotation so longer ' +
  'texts stay in the range the model was trained on. Only the losses are computed: the logits are reduced row by row and no ' +
  'attention map is kept, so T = 8192 fits. The default model was trained by the lab on bytes of text with a context of 64 ' +
  '(as in Train short, test long) and ships with the page; it reads text it never trained on. Random weights give a flat curve ' +
  'near ln V: they show the cost, not a trained model’s behaviour — load a Pythia or Llama-family checkpoint (config.json, ' +
  'tokenizer.json) for a large model’s curves.';
const NATIVE = [
  'A model’s loss by position, with YaRN at factor 4: `poslab lm --tokens-file ids.npy --loss-by-position --rope-scaling yarn --rope-factor 4 -o loss.npy`',
];

const labelOf = (m, p) => (m === 'none' ? 'none (as trained)' : `${m} × ${p.factor}`);

/** The figure's note on curves drawn on top of each other (computed on the unsmoothed losses). */
function overlapNote(r, p) {
  const lines = r.methods.map((m) => ({ label: labelOf(m, p), y: r.losses[m] }));
  const { whole, prefix } = coincidingLines(lines);
  const said = [
    ...whole.map((g) => `${g.join(', ')} coincide: one curve hides the other${g.length > 2 ? 's' : ''}.`),
    ...prefix.map(({ labels, until }) => `${labels.join(' and ')} coincide up to position ${until}.`),
  ];
  return said.join(' ');
}

export default defineView('long-context', {
  controls: SPECS,
  job: 'longContext', // on the language-model module (LM_JOBS), so not the registry's
  build(shell) {
    createIntro(shell, { title: 'Long context', note: NOTE, native: NATIVE });

    // Page-local inputs: the user's text and a checkpoint (never in the link).
    const local = el('div', 'local-input');
    const {
      area: textArea,
      file: textFile,
      elements,
    } = pasteOrOpen({
      id: 'lc-text',
      label: 'text the model reads',
      placeholder:
        'Paste a long text here (empty: the sample, GPL-3 + GPL-2; for the lab’s model, text it never trained on)',
      rows: 4,
      fileLabel: 'or a text file',
      accept: '.txt,text/plain',
    });
    const { ckpt, ckptLabel, run, cancel, buttons, progress } = modelRunControls('lc');
    // The lab's model retrained here: a RoPE text run in a training worker on the user's text or
    // the lab's sample (its first 90%); its curves are then on the held-out tenth of that text.
    const retrainRow = el('div', 'button-row lc-retrain');
    const retrainSteps = el('input');
    retrainSteps.type = 'number';
    retrainSteps.min = '1';
    retrainSteps.max = '20000';
    retrainSteps.value = String(STEPS_BY_TASK.text); // as the shipped model was trained
    retrainSteps.setAttribute('aria-label', 'steps to retrain the model');
    const retrainButton = el('button', 'lc-retrain-button', 'Retrain here');
    retrainButton.type = 'button';
    retrainRow.append('or retrain it for ', retrainSteps, ' steps ', retrainButton);
    local.append(...elements, ckptLabel, retrainRow, buttons, progress);
    shell.panel.append(local);

    const about = el('p', 'note lc-about');
    shell.plots.append(about);
    // A comparison: every scaling's curve starts drawn alike (the picker can bring one forward).
    const curves = shell.lines('curves', { ...LOSS_BY_POSITION, height: 360, allAlike: true });

    let arrived = null; // the running job's curves so far, drawn as each arrives
    let files = null; // { weights, config, tokenizer? }
    let retrained = null; // { checkpoint, trainedOn: 'sample' | 'text', text, steps, id }

    retrainButton.addEventListener('click', async () => {
      const steps = Number(retrainSteps.value);
      if (!Number.isInteger(steps) || steps < 1 || steps > 20000) {
        progress.textContent = 'Retrain: the steps must be a whole number from 1 to 20000.';
        return;
      }
      const own = textArea.value;
      const text = own
        ? new TextEncoder().encode(own)
        : new TextEncoder().encode((await import('../content/licences/index.js')).LICENCE_SAMPLE);
      retrainButton.disabled = true;
      const worker = new Worker(new URL('../worker/train.worker.js', import.meta.url), { type: 'module' });
      const finish = () => {
        worker.terminate();
        retrainButton.disabled = false;
      };
      worker.onmessage = ({ data }) => {
        if (data.type === 'progress') progress.textContent = `Retraining: step ${data.stepsDone} of ${data.steps}…`;
        else if (data.type === 'done') {
          finish();
          const id = (retrained?.id ?? 0) + 1;
          retrained = { checkpoint: data.checkpoint, trainedOn: own ? 'text' : 'sample', text: own, steps, id };
          progress.textContent = `Retrained in ${data.workerSeconds.toFixed(0)} s.`;
          shell.refresh();
        } else if (data.type === 'error') {
          finish();
          progress.textContent = `Retrain: ${data.message}`;
        }
      };
      const config = { task: 'text', position: 'rope', trainLen: 64, testLen: 64, steps, seed: 0 };
      worker.postMessage({ config, text }, [text.buffer]);
    });

    textFile.addEventListener('change', async () => {
      const f = textFile.files?.[0];
      if (f) textArea.value = await f.text();
      shell.run();
    });
    ckpt.addEventListener('change', () => {
      files = pickedCheckpoint(ckpt);
      if (!files) progress.textContent = 'Pick a .safetensors checkpoint and its config.json (and tokenizer.json).';
    });

    let complete = null; // [result, settings] of the last complete draw
    const draw = (r, p) => {
      if (!r.partial) complete = [r, p];
      drawCurves({ curves, about }, r, p);
    };

    return {
      runButtons: { run, cancel },
      show(p) {
        ckptLabel.hidden = p.model !== 'file';
        retrainRow.hidden = p.model !== 'lab-rope';
      },
      params: (p) => ({
        model: p.model,
        times: p.times,
        factor: p.factor,
        text: textArea.value,
        ...(p.model === 'file' && files ? { files } : {}),
        ...(p.model === 'lab-rope' && retrained ? { retrained } : {}),
      }),
      // The smoothing is drawn, not computed: moving it redraws the last curves.
      key: (p) => ({
        ...p,
        smooth: 0,
        text: textArea.value,
        files: files && files.weights.name,
        retrained: retrained?.id,
      }),
      redraw: draw,
      // Pythia-sized runs take minutes (six passes at up to 8× 2048 tokens): only on Run.
      demand(p) {
        if (p.model === 'file' && !files) return 'pick a checkpoint and its config.json';
        if (!p.model.startsWith('tiny') && p.model !== 'lab-rope') {
          return 'press Run: six passes of a Pythia-sized model take minutes';
        }
        return null;
      },
      start() {
        progress.textContent = 'Starting…';
        arrived = { methods: [], losses: {}, partial: true };
      },
      progress(d, p) {
        if (d.phase === 'curve' && arrived) {
          arrived.methods.push(d.method);
          arrived.losses[d.method] = d.losses;
          Object.assign(arrived, { N: d.N, T: d.T });
          draw(arrived, p);
        }
        if (d.phase === 'model') progress.textContent = 'Making the model…';
        else if (d.phase === 'load') progress.textContent = `Loading the checkpoint: ${Math.round(d.fraction * 100)} %`;
        else if (d.phase === 'run') {
          progress.textContent = `Method ${d.index + 1} of ${d.count}: ${d.method}${d.eta ? ` — ${d.eta}` : ''}`;
        }
      },
      end(outcome) {
        // A run that stopped short leaves the last complete curves, not the ones it got to.
        if (outcome !== 'drawn' && arrived?.methods.length && complete) draw(...complete);
        arrived = null;
        progress.textContent = { drawn: 'Done.', cancelled: 'Cancelled.', failed: '' }[outcome];
      },
      draw,
    };
  },
});

// The loss curves by position, one per method (smoothed as the settings say), and what ran;
// a partial r (the curves arrived so far of a running job) leaves the note on what ran.
function drawCurves({ curves, about }, r, p) {
  const series = r.methods.map((m) => ({
    label: labelOf(m, p),
    x: range(r.losses[m].length, 1),
    y: movingAverage(r.losses[m], p.smooth),
  }));
  curves.update(series, {
    refLines: r.T > r.N ? [{ axis: 'x', value: r.N, label: `trained context ${r.N}` }] : [],
  });
  curves.figure.el.dataset.curves = String(series.length);
  if (r.partial) return;
  const secs = Object.values(r.ms ?? {}).reduce((a, b) => a + b, 0) / 1000;
  curves.figure.setNote(overlapNote(r, p));
  curves.figure.setTitle(
    `Next-token loss by position, T = ${r.T}${p.smooth > 1 ? ` (moving average of ${p.smooth})` : ''}`,
  );
  about.textContent =
    `${r.random ? 'RANDOM WEIGHTS (not a trained model): ' : ''}${r.model}; tokenizer: ${r.tokenizer}; text: ${r.source} ` +
    `(${r.textTokens} ${r.unit ?? 'tokens'}). ${r.note ? `${r.note}. ` : ''}` +
    (r.cached
      ? ''
      : `Computed in ${secs.toFixed(1)} s` +
        (r.heapBytes ? ` (wasm heap ${(r.heapBytes / 2 ** 20).toFixed(0)} MiB).` : '.'));
}

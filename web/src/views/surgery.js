// The Surgery view: position surgery inside a model's forward pass (docs/surgery.md) — rotation
// pairs zeroed, layers or heads made position-blind (NoPE), another rotation base, heads removed
// — swept one intervention at a time, with each one's change in next-token loss and its 95 %
// interval (bars coloured by kind; for a heads sweep, the lens's role of each head), the loss
// by position before and after the bar picked, and one head's attention map before and after.
// It opens on the lab's shipped model (a sweep in seconds on the training module); random tiny
// models and the model loaded in the Models view sweep on Run (a loaded model on that view's
// worker). Computed in the job jobs/surgery.js; the text stays on the page.
import { SCHEMA, viewNamed } from '../state/registry.js';
import { sweepOptions } from '../state/surgery-settings.js';
import { createIntro, defineView, el, whenSettingIn } from './kit.js';
import { textRunControls } from './model-run-controls.js';
import { createSurgeryFigures, drawDeltas, drawMaps, drawPositions } from './surgery-figures.js';

const sweepIs = whenSettingIn('sg.sweep');
const single = sweepIs('single');

const SPECS = [
  {
    key: 'sg.sweep',
    label: 'sweep',
    kind: 'select',
    options: [
      ['bands', 'bands: zero each group of rotation pairs, then keep only the fastest'],
      ['heads', 'heads: each head position-blind (NoPE), and each removed'],
      ['layers', 'layers: each layer position-blind (NoPE)'],
      ['base', 'base: other rotation bases'],
      ['single', 'one intervention of your own'],
    ],
  },
  {
    key: 'sg.model',
    label: 'model',
    kind: 'select',
    options: [
      ['lab-rope', 'trained here: byte-level RoPE model (2 layers × 4 heads, context 64)'],
      ['loaded', 'the model loaded in the Models view (on Run)'],
      ['tiny', 'random weights, tiny GPT-NeoX (2 × 2 heads; on Run)'],
      ['tiny-llama', 'random weights, tiny Llama (2 × 4 heads; on Run)'],
    ],
  },
  { key: 'sg.group', label: 'rotation pairs per group (0: 16 groups)', kind: 'number', show: sweepIs('bands') },
  {
    key: 'sg.bases',
    label: 'bases tried, comma-separated (empty: the model’s × 0.01, 0.1, 0.5, 2 and 10)',
    kind: 'text',
    show: sweepIs('base'),
  },
  { key: 'sg.zero', label: 'zero rotation pairs (from:to, to excluded; e.g. 0:2, 6:8)', kind: 'text', show: single },
  { key: 'sg.nopel', label: 'position-blind layers (e.g. 0, 3)', kind: 'list', show: single },
  { key: 'sg.nopeh', label: 'position-blind heads (layer.head, e.g. 0.1, 1.2)', kind: 'text', show: single },
  { key: 'sg.ablate', label: 'heads removed (layer.head)', kind: 'text', show: single },
  { key: 'sg.rbase', label: 'rotation base (0: the model’s own)', kind: 'number', show: single },
  { key: 'sg.lbase', label: 'local layers’ rotation base (0: the model’s own)', kind: 'number', show: single },
  { key: 'sg.window', label: 'window: tokens per pass', kind: 'number', step: 1 },
  { key: 'sg.len', label: 'text read: tokens at most', kind: 'number', step: 1 },
  { key: 'sg.seed', label: 'seed of the 95 % interval (bootstrap)', kind: 'number', step: 1 },
  { key: 'sg.show', label: 'bar drawn below: its place from the top (0: the largest change)', kind: 'number', step: 1 },
  { key: 'sg.head', label: 'attention map of head (layer.head)', kind: 'text' },
  { key: 'sg.smooth', label: 'loss by position: moving average (positions; 1: raw)', kind: 'number', step: 1 },
];

const NOTE =
  'Position surgery changes a model inside its forward pass and measures what that costs: the mean next-token loss with the change minus without, over windows of the text, ' +
  'with a 95 % interval from resampling the windows. Bands zero a group of RoPE’s rotation pairs (pair 0 turns fastest, the last slowest), or keep only the fastest share; ' +
  'a NoPE layer or head keeps its attention but loses every rotation, so it no longer knows how far apart two tokens are; a removed head’s output is zeroed; ' +
  'a new base makes every rotation faster or slower. Past the trained context (the dashed line) a model meets distances it never trained on.';
const SOURCE =
  'Barbero et al. 2025, “Round and Round We Go! What makes Rotary Positional Encodings useful?” (ICLR 2025): in Gemma the fastest rotation pairs build positional heads ' +
  '(previous-token, diagonal) and the slowest carry meaning, so removing the slowest (p-RoPE) can help — the bands sweep tests it on the model shown. ' +
  'SmolLM3 (Hugging Face, 2025) and Llama 4 (Meta, 2025) drop RoPE from every fourth layer (NoPE layers) — the layers sweep asks what each layer’s rotation is worth.';
const NATIVE = [
  'The same sweep natively (lab checkpoints read bytes): `poslab surgery --weights text-rope.safetensors --text-file held-out.txt --window 256 --sweep bands -o surgery.json`',
  'A hub model: `poslab surgery --weights model.safetensors --config config.json --tokens-file ids.npy --window 256 --sweep heads -o surgery.json`',
];

// A loaded model lives in the Models view's shared worker (main.js: its prefix's channels).
const LOADED_CHANNEL = `${viewNamed('lm').prefix}-surgery`;

/**
 * Where the sweeps run: the view's own worker (Cancel ends it), or, for the model loaded in the
 * Models view, that view's shared worker, which is never ended: Cancel there drops the result
 * at once and, on a cross-origin isolated page, raises a shared flag the sweep reads between
 * its passes (jobs/surgery.js `stop`), so the worker stops too; elsewhere it finishes the sweep.
 */
function surgeryExecutor({ compute, shell }) {
  let pending = null; // { channel, resolve, stop }
  return {
    run(job, params, { onProgress }) {
      const shared = params.model === 'loaded';
      const channel = shared ? LOADED_CHANNEL : shell.prefix;
      const stop = shared && globalThis.crossOriginIsolated ? new Int32Array(new SharedArrayBuffer(4)) : null;
      return new Promise((resolve, reject) => {
        const mine = { channel, resolve, stop };
        pending = mine;
        const done = () => pending === mine && (pending = null);
        compute.request(channel, job, stop ? { ...params, stop } : params, { onProgress }).then(
          (r) => (done(), resolve(r)),
          (e) => (done(), reject(e)),
        );
      });
    },
    cancel() {
      if (!pending) return;
      compute.cancel?.(pending.channel);
      if (pending.stop) Atomics.store(pending.stop, 0, 1);
      if (pending.channel === LOADED_CHANNEL) pending.resolve(null);
      pending = null;
    },
  };
}

// What a sweep reads (the bar shown, the head and the smoothing only choose what is drawn).
const sweepKey = (p, text) => JSON.stringify([p.model, p.len, sweepOptions(p), text]);

export default defineView('surgery', {
  controls: SPECS,
  job: 'surgery', // on the language-model module (LM_JOBS), so not the registry's
  executor: surgeryExecutor,
  build(shell, { store }) {
    createIntro(shell, { title: 'Surgery', note: NOTE, source: SOURCE, native: NATIVE });

    // Page-local input: the text (never in the link), Run, Cancel and the progress line.
    const { area, textError, showTextError, run, cancel, progress } = textRunControls(shell, {
      id: 'sg-text',
      prefix: 'sg',
    });

    const about = el('p', 'note sg-about');
    shell.plots.append(about);
    const figures = createSurgeryFigures(shell, {
      // A bar of a head or a layer brings the maps to that head, or to that layer's same head.
      onPick(i) {
        const q = last?.report.interventions[i]?.params ?? {};
        const [, h] = store.get()['sg.head'].split('.');
        const patch = { 'sg.show': i + 1 };
        if (Number.isInteger(q.layer)) patch['sg.head'] = `${q.layer}.${Number.isInteger(q.head) ? q.head : h}`;
        // What the link cannot hold (a bar past 4096, a layer past 99) is left as it was.
        const fits = Object.entries(patch).filter(([key, v]) => SCHEMA[key].check(v).ok);
        store.set(Object.fromEntries(fits), { source: 'control' });
      },
    });

    let last = null; // the last result drawn
    let swept = null; // sweepKey of the last sweep drawn: moving the bar or head needs no Run

    function draw(r, p) {
      last = r;
      swept = sweepKey(p, area.value);
      drawDeltas(figures, r, p);
      drawPositions(figures.positions, r, p.smooth);
      drawMaps(figures.maps, r);
      const rep = r.report;
      about.textContent =
        `${r.random ? 'RANDOM WEIGHTS (not a trained model): ' : ''}${r.model}; text: ${r.source}, ` +
        `${r.tokens} of its ${r.textLength} ${r.unit} read in ${rep.windows} window${rep.windows === 1 ? '' : 's'} of ${rep.window}; ` +
        `tokenizer: ${r.tokenizer}.` +
        (r.cached ? '' : ` Sweep in ${(r.ms.sweep / 1000).toFixed(1)} s on ${r.threads}.`);
    }

    return {
      runButtons: { run, cancel },
      params: (p) => ({ ...p, smooth: 0, text: area.value }),
      // The smoothing is drawn, not computed: moving it redraws the last result.
      key: (p) => ({ ...p, smooth: 0, text: area.value }),
      redraw: draw,
      // The lab's model sweeps in a second or two; the others' vocabulary head alone makes a
      // sweep take half a minute or more: on Run (then a bar or head picked redraws at once).
      demand(p) {
        if (p.model === 'lab-rope' || swept === sweepKey(p, area.value)) return null;
        return p.model === 'loaded'
          ? 'press Run: the sweep runs the loaded model once per intervention and window (minutes for a large model)'
          : 'press Run: a tiny model reads GPT-2’s 50 304-token vocabulary, so its sweep takes half a minute or more';
      },
      fieldErrors: { text: showTextError, tokens: showTextError },
      start() {
        textError.textContent = '';
        progress.textContent = 'Starting…';
      },
      progress(d) {
        if (d.phase === 'model') progress.textContent = 'Making the model…';
        else if (d.phase === 'map') progress.textContent = 'Tracing the head’s maps…';
        else if (d.phase === 'sweep') {
          const of = d.total ? `: ${d.done} of ${d.total} (the unmodified model, then each intervention)` : '…';
          progress.textContent = `Sweeping${of}${d.eta ? ` — ${d.eta}` : ''}`;
        }
      },
      end(outcome) {
        progress.textContent = { drawn: '', cancelled: 'Cancelled.', failed: '' }[outcome];
      },
      draw,
      timing: (r) => ({ T: r.tokens, sweepMs: r.ms?.sweep ?? 0 }),
    };
  },
});

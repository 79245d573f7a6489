// The Position lens view: how a model's heads use position (docs/lens.md). For one model and a
// text, the lens's report drawn as five figures: every head's role on a layer × head grid (and,
// for RoPE models, whether it is positional or semantic), the picked head's attention by
// distance with its four scores, its score energy per rotation pair, its attention map on the
// text, and what moving the positions does (the shift check, the shuffle passes). Compare mode
// runs the lens again on random weights of the same shapes (the control) or on the same model
// with a RoPE scaling. Computed in the view's worker (jobs/lens.js) at once for the built-in
// models, on Run for a local checkpoint; the text and the checkpoint stay on the page.
import '../styles/lens.css';
import { parseHead } from '../state/lens-head.js';
import { SCALINGS } from '../state/registry.js';
import { createIntro, defineView, el, whenSettingIn } from './kit.js';
import { pickedCheckpoint, textRunControls } from './model-run-controls.js';
import { createLensFigures, drawMap, drawPositions, drawProfile, drawSpectrum } from './lens-figures.js';
import { createLensGrid } from './lens-grid.js';

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
  { key: 'ln.smooth', label: 'loss by position: moving average (positions; 1: raw)', kind: 'number', step: 1 },
];

const NOTE =
  'The lens runs the model on the text with every layer’s attention traced and scores each head: how much weight it puts on the first token (sink), ' +
  'on the token just before (previous token), within the last few tokens (local), and, on a random sequence repeated, on the token after the earlier copy (induction). ' +
  'A RoPE model’s scores are also split over its rotation pairs: heads that lean on the fast pairs read position, the others content. ' +
  'Random weights are the control: whatever a trained model shows beyond them, training put there.';
const NATIVE = [
  'The same report for a checkpoint: `poslab lens --weights model.safetensors --config config.json --tokens-file ids.npy -o lens.json`',
];

export default defineView('lens', {
  controls: SPECS,
  job: 'lens', // on the language-model module (LM_JOBS), so not the registry's
  build(shell, { store }) {
    createIntro(shell, { title: 'Position lens', note: NOTE, native: NATIVE });

    // Page-local inputs: the text and a checkpoint (never in the link).
    const { area, textError, showTextError, ckpt, ckptLabel, run, cancel, progress } = textRunControls(shell, {
      id: 'ln-text',
      prefix: 'lens',
      checkpoint: true,
    });

    // 1. The grid of roles.
    const grid = createLensGrid(shell.plots, {
      onPick: (layer, head) => store.set({ 'ln.head': `${layer}.${head}` }, { source: 'control' }),
    });

    const figures = createLensFigures(shell);

    // The words after the plots: on a phone the first plot starts in the first screen.
    const about = el('p', 'note lens-about');
    shell.plots.append(about);

    let files = null; // { weights, config, tokenizer? }
    ckpt.addEventListener('change', () => {
      files = pickedCheckpoint(ckpt);
      progress.textContent = files ? 'Press Run.' : 'Pick a .safetensors checkpoint and its config.json.';
      shell.refresh();
    });

    function draw(r, p) {
      const { layer, head } = parseHead(p.head);
      const list = [{ report: r.report, name: r.names[0] }];
      if (r.second) list.push({ report: r.second, name: r.names[1] });
      const beside = { random: ', beside the control', scaled: ', beside the scaled model' }[r.compare] ?? '';
      grid.update(list, `Head roles: ${r.report.heads.length} heads${r.second ? beside : ''}`);
      grid.select(layer, head);
      drawProfile(figures.profile, r, layer, head);
      drawSpectrum(figures.spectrum, r, layer, head);
      drawMap(figures.map, r, layer, head);
      drawPositions(figures.positions, r, p.smooth);
      const cut = r.textLength > r.tokens.length ? ` (its first ${r.tokens.length} of ${r.textLength})` : '';
      about.textContent =
        `${r.random ? 'RANDOM WEIGHTS (not a trained model): ' : ''}${r.model}; text: ${r.source}, ${r.tokens.length} ${r.unit}${cut}; ` +
        `tokenizer: ${r.tokenizer}.` +
        (r.second ? ` Compared with ${r.secondLabel}.` : '') +
        (r.ms ? ` Lens in ${(r.ms.lens / 1000).toFixed(2)} s on ${r.threads}.` : '');
    }

    return {
      runButtons: { run, cancel },
      show(p) {
        ckptLabel.hidden = p.model !== 'file';
      },
      params: (p) => ({ ...p, text: area.value, ...(p.model === 'file' && files ? { files } : {}) }),
      // The smoothing is drawn, not computed: moving it redraws the last result.
      key: (p) => ({ ...p, smooth: 0, text: area.value, files: files && [files.weights.name, files.weights.size] }),
      redraw: draw,
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

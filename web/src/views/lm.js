// The Models view: typed text as tokens through a whole language model — GPT-2, GPT-NeoX
// (Pythia) or one of the Llama family — a GPT-2 random init, a known model fetched from the hub in
// one click and kept in Cache Storage, or checkpoint files picked from disk (lm-weights.js), with
// every layer × head's attention map, one layer's heads, the full map of one head with token
// labels, the next-token top 10, the model's structure with every tensor's shape, and the config
// table (lm-figures.js). The model stays in the worker between passes; a loaded file is never
// uploaded and never in the link.
import { architecture } from '../lm/architectures.js';
import { visibleToken } from '../lm/format.js';
import { RANDOM_SEED, RANDOM_SHAPES } from '../lm/shapes.js';
import { METHOD_INFO } from '../content/methods.js';
import { GPT2_POSITIONS } from '../state/methods.js';
import { createIntro, defineView } from './kit.js';
import { createLmFigures } from './lm-figures.js';
import { createModelSource } from './lm-weights.js';

// The positions swapped in for the model's own: the core's table's rows with the GPT-2 swap bit
// (GPT2_POSITIONS), in its order; content/methods.js's label unless this view words it otherwise.
const POSITION_LABELS = { learned: 'learned (as trained)', none: 'NoPE (none)' };
const POSITION_OPTIONS = GPT2_POSITIONS.map((m) => [m, POSITION_LABELS[m] ?? METHOD_INFO[m].label]);

const SPECS = [
  { key: 'lm.text', label: 'text (split into GPT-2 BPE tokens)', kind: 'text' },
  { key: 'lm.position', label: 'positions', kind: 'select', options: POSITION_OPTIONS },
  {
    key: 'lm.init',
    label: 'random-init shape (when no file is loaded)',
    kind: 'select',
    options: Object.entries(RANDOM_SHAPES).map(([k, v]) => [k, v.label]),
  },
  { key: 'lm.layer', label: 'layer shown', kind: 'number' },
  { key: 'lm.head', label: 'head shown', kind: 'number' },
];

const TEX = String.raw`x_0 = W_{te}[t] + W_{pe}[\text{pos}],\quad h_\ell = x_\ell + \operatorname{Attn}(\operatorname{LN}_1(x_\ell)),\quad x_{\ell+1} = h_\ell + \operatorname{MLP}(\operatorname{LN}_2(h_\ell)),\quad \text{logits} = \operatorname{LN}_f(x_N)\, W_{te}^{\top}`;

const NOTE =
  'The whole GPT-2 forward pass runs in the wasm core in a worker: pre-LN blocks, causal attention scaled by 1/√d, GELU, and logits tied to the token embedding. ' +
  'Load a trained model from the hub (downloaded once, then kept in this browser) or pick a model.safetensors from disk to see a trained model’s attention; without one, a seeded random init of the same structure runs.';

export default defineView('lm', {
  controls: SPECS,
  job: 'lm', // on the language-model module (LM_JOBS), so not the registry's
  build(shell, { store, compute }) {
    createIntro(shell, { title: null, tex: TEX, note: NOTE });
    const model = createModelSource(shell, compute);
    const pick = (layer, head) =>
      store.set(layer === undefined ? { 'lm.head': head } : { 'lm.layer': layer, 'lm.head': head }, {
        source: 'control',
      });
    const figures = createLmFigures(shell.plots, pick);
    let last = null; // the last drawn result

    // The chosen layer and head, within the model's (a link may name more than it has).
    function showSelection(p) {
      if (!last) return;
      const { layers: N, heads: H } = last;
      let { layer, head } = p;
      if (layer >= N) {
        shell.controls.setError('lm.layer', `this model has ${N} layers (0…${N - 1}); showing layer ${N - 1}`);
        layer = N - 1;
      }
      if (head >= H) {
        shell.controls.setError('lm.head', `this model has ${H} heads (0…${H - 1}); showing head ${H - 1}`);
        head = H - 1;
      }
      figures.select(last, layer, head);
    }

    // GPT-2's position-method swap does not apply to the other architectures: shown disabled,
    // with the reason.
    function showPositionSwap(arch) {
      const why = arch.positionSwap;
      const positionSelect = shell.panel.querySelector('#c-lm-position');
      if (!positionSelect) return;
      positionSelect.disabled = Boolean(why);
      positionSelect.title = why ?? '';
      positionSelect.closest('.control')?.classList.toggle('not-applicable', Boolean(why));
    }

    return {
      // What a forward pass depends on: the picked layer and head only choose what is shown.
      key: (p) => {
        const source = model.source();
        return { text: p.text, position: p.position, source: source.kind === 'file' ? source.key : p.init };
      },
      params: (p) => {
        const source = model.source();
        return {
          text: p.text,
          position: p.position,
          source: source.kind === 'file' ? source : { kind: 'random', shape: p.init },
        };
      },
      redraw: (r, p) => showSelection(p),
      start() {
        figures.busy.textContent = 'Computing…';
      },
      progress(x) {
        if (x.phase === 'create')
          figures.busy.textContent = `Creating the random-init ${x.label} (seed ${RANDOM_SEED})…`;
      },
      end() {
        figures.busy.textContent = '';
      },
      draw(r, p) {
        last = r;
        r.labels = r.pieces.map(visibleToken);
        figures.draw(r, model.loadedLabel());
        model.shown(r.model);
        showPositionSwap(architecture(r.model.architecture));
        showSelection(p);
      },
      timing: (r) => ({ ...r.steps, T: r.ids.length }),
      fieldErrors: { source: model.setFileError }, // the loaded model is no longer in the worker
    };
  },
});

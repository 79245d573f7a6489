// View 7 — Models: typed text as tokens through a whole language model, GPT-2 or GPT-NeoX
// (Pythia) (a GPT-2 random init, a known model fetched from the hub in one click and kept in
// Cache Storage (models/panel.js), or a model.safetensors picked from disk, with its config.json
// and, for GPT-NeoX, its tokenizer.json), each streamed into the worker, with every layer × head's
// attention map, one layer's heads, the full map of one head with token labels, the next-token
// top 10, GPT-2's structure with every tensor's shape, and the config table. The model stays
// in the worker between passes; a loaded file is never uploaded and never in the link.
import { architecture, parameterTotal } from '../lm/architectures.js';
import { formatBytes, formatCount, shortCount, visibleToken } from '../lm/format.js';
import { CHUNK_BYTES, checkpointOf, pickFiles } from '../lm/loading.js';
import { RANDOM_SEED, RANDOM_SHAPES, maxTokens } from '../lm/shapes.js';
import { colorize } from '../plots/colormap.js';
import { createHeatmap } from '../plots/heatmap.js';
import { METHOD_INFO } from '../content/methods.js';
import { GPT2_POSITIONS } from '../state/methods.js';
import { createHubPanel } from '../models/panel.js';
import { progressBar } from '../ui/dom.js';
import { markDrawn } from '../ui/timing.js';
import { createDiagram } from './lm-diagram.js';
import { createHeadGrid } from './lm-grid.js';
import { renderChips, renderConfigTables, renderTopTable } from './lm-tables.js';
import { createIntro, defineView, el, notUpdated, plainFigure } from './kit.js';

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

const RANDOM_LABEL = `random weights (seed ${RANDOM_SEED}), not trained: the attention patterns mean nothing`;

const MEMORY =
  'Memory: the WebAssembly core may grow to 2 GiB; one tensor holds at most 2^26 elements and a model at most 2^29 parameters. ' +
  'GPT-2 small takes 498 MB as F32 (the random init keeps F32) and 249 MB from an F16 checkpoint (F16 stays half in memory); ' +
  'GPT-2 medium takes 1.42 GB as F32 and fits only barely: an F16 checkpoint (710 MB) is recommended.';

/** Colours one map on this thread (a few T×T maps for the selected layer: cheap). */
function painted(m, labels) {
  const { rgba, specials } = colorize(m.data, m.cmap, m.range);
  return {
    data: m.data,
    rows: m.rows,
    cols: m.cols,
    range: m.range,
    cmap: m.cmap,
    rgba,
    specials,
    xLabels: labels,
    yLabels: labels,
  };
}

export default defineView('lm', {
  controls: SPECS,
  job: 'lm', // on the language-model module (LM_JOBS), so not the registry's
  build(shell, { store, compute }) {
    createIntro(shell, { title: null, tex: TEX, note: NOTE });

    // --- Weights: the hub's models, a file input, progress, memory (not part of the URL state) ---
    const hubBox = el('div', 'lm-hub');
    shell.panel.append(hubBox);
    const weights = el('div', 'control control-file lm-weights');
    const fileLabel = el(
      'label',
      '',
      'or a local checkpoint: model.safetensors, optionally with its config.json (GPT-NeoX, Llama, Mistral, Qwen, Gemma 3: with config.json and tokenizer.json)',
    );
    fileLabel.htmlFor = 'c-lm-file';
    const fileInput = el('input');
    fileInput.type = 'file';
    fileInput.id = 'c-lm-file';
    fileInput.multiple = true;
    fileInput.accept = '.safetensors,.json,application/json';
    fileInput.setAttribute('aria-describedby', 'c-lm-file-error');
    const inputs = el('div', 'inputs');
    inputs.append(fileInput);
    const { bar: progress, text: progressText } = progressBar('lm-progress', 'checkpoint read so far');
    const buttons = el('div', 'inputs');
    const cancel = el('button', 'export', 'cancel');
    cancel.type = 'button';
    cancel.hidden = true;
    const useRandom = el('button', 'export', 'use random weights');
    useRandom.type = 'button';
    useRandom.hidden = true;
    buttons.append(cancel, useRandom);
    const fileError = el('span', 'control-error');
    fileError.id = 'c-lm-file-error';
    fileError.setAttribute('role', 'status');
    const fileHint = el(
      'p',
      'lm-hint',
      `Read in the worker in ${CHUNK_BYTES >> 20} MB pieces, never uploaded anywhere. A loaded file is not part of the link: ` +
        'a shared link opens with random weights. Without config.json a GPT-2 shape is read from the tensor names and shapes (n_head = E/64); ' +
        'a GPT-NeoX (Pythia) or Llama-family (Llama, SmolLM2, Mistral, Qwen2/2.5, Qwen3, Gemma 3) checkpoint needs its config.json and tokenizer.json. ' +
        'A checkpoint in shards: pick its model.safetensors.index.json and every shard it names. ' +
        'Gemma 3 has no button above: its Hub repositories are gated behind a user token, which this page does not handle, so it runs from files you downloaded.',
    );
    const memory = el('p', 'lm-hint lm-memory', MEMORY);
    weights.append(fileLabel, inputs, progress, progressText, buttons, fileError, fileHint, memory);
    shell.panel.append(weights);
    const setFileError = (text) => {
      fileError.textContent = text;
      weights.classList.toggle('has-error', Boolean(text));
    };

    // --- Plots --------------------------------------------------------------------------------
    const modelBox = el('div', 'lm-model');
    const modelLabel = el('p', 'lm-model-label');
    const modelDetail = el('p', 'lm-model-detail');
    modelBox.append(modelLabel, modelDetail);
    const positionNote = el('p', 'lm-position-note');
    positionNote.setAttribute('role', 'note');
    const busy = el('p', 'lm-busy');
    busy.setAttribute('role', 'status');

    const { fig: tokensFig, title: tokensTitle } = plainFigure('lm-tokens');
    tokensTitle.textContent = 'Tokens';
    const chips = el('div', 'lm-chips');
    tokensFig.append(chips);

    const tables = el('div', 'grid-2 lm-tables');
    const topBox = el('div', 'fig lm-top');
    const configBox = el('div', 'fig lm-config-box');
    tables.append(topBox, configBox);

    shell.plots.append(modelBox, positionNote, busy, tokensFig);
    const grid = createHeadGrid(shell.plots, {
      onPick: (layer, head) => store.set({ 'lm.layer': layer, 'lm.head': head }, { source: 'control' }),
    });
    const full = createHeatmap(shell.plots, { title: 'Layer 0 · head 0', xTitle: 'key', yTitle: 'query', height: 460 });
    full.figure.el.classList.add('lm-full');
    const headsTitle = el('h3', '', 'One layer, every head');
    const headGrid = el('div', 'grid-4 lm-heads');
    shell.plots.append(headsTitle, headGrid, tables);
    const diagram = createDiagram(shell.plots);

    let heads = [];
    const ensureHeads = (H) => {
      if (heads.length === H) return;
      for (const h of heads) h.destroy();
      heads = Array.from({ length: H }, (_, h) => {
        const hm = createHeatmap(headGrid, {
          title: `Head ${h}`,
          xTitle: 'key',
          yTitle: 'query',
          height: 200,
          compact: true,
        });
        hm.figure.canvas.addEventListener('click', () => store.set({ 'lm.head': h }, { source: 'control' }));
        return hm;
      });
    };

    // --- State -------------------------------------------------------------------------------
    let source = { kind: 'random' }; // or { kind: 'file', key, name }
    let last = null; // the last drawn result
    let loading = false; // a checkpoint is being read (from disk or the hub): one at a time
    let loadedLabel = null; // how a model loaded from the hub is named (null: a local file)

    function showModel(info) {
      const params = parameterTotal(info.config);
      if (info.kind === 'random') {
        modelBox.classList.add('random');
        modelLabel.textContent = RANDOM_LABEL;
        modelDetail.textContent =
          `Shape: ${info.label} · ${formatCount(params)} parameters · ${info.dtype} · ${formatBytes(info.bytes)} in memory · ${info.threadNote}. ` +
          'Load a trained checkpoint to see real attention.';
      } else {
        modelBox.classList.remove('random');
        modelLabel.textContent =
          loadedLabel ??
          `Loaded: ${info.name}${info.configName ? ` with ${info.configName}` : ' (shape read from its header)'}`;
        modelDetail.textContent =
          `${architecture(info.architecture).name} · ${shortCount(params)} parameters (${formatCount(params)}) · ${info.dtype} · ${formatBytes(info.bytes)} in memory ` +
          `(file ${formatBytes(info.fileBytes)}) · ${info.threadNote}. The random-init shape setting is not used while a file is loaded.`;
      }
      useRandom.hidden = info.kind !== 'file';
    }

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
      const labels = last.labels;
      grid.select(layer, head);
      full.figure.setTitle(`Layer ${layer} · head ${head}: attention weights (query × key)`);
      full.update(painted(last.heatmaps[`L${layer}H${head}`], labels));
      headsTitle.textContent = `Layer ${layer}: all ${H} heads (click one to open it above)`;
      ensureHeads(H);
      heads.forEach((hm, h) => {
        hm.update(painted(last.heatmaps[`L${layer}H${h}`], labels));
        hm.figure.el.classList.toggle('selected', h === head);
      });
    }

    // GPT-2's position-method swap does not apply to GPT-NeoX: shown disabled, with the reason.
    function showPositionSwap(arch) {
      const why = arch.positionSwap;
      const positionSelect = shell.panel.querySelector('#c-lm-position');
      if (!positionSelect) return;
      positionSelect.disabled = Boolean(why);
      positionSelect.title = why ?? '';
      positionSelect.closest('.control')?.classList.toggle('not-applicable', Boolean(why));
    }

    function draw(r, p) {
      last = r;
      const T = r.ids.length;
      r.labels = r.pieces.map(visibleToken);
      showModel(r.model);
      const arch = architecture(r.model.architecture);
      const cap = maxTokens(r.model.config);
      const context = arch.context(r.model.config);
      tokensTitle.textContent =
        `Tokens: T = ${T} (at most ${cap}: ` +
        (cap === context
          ? `T is capped by ${arch.contextKey} = ${cap})`
          : `this view’s limit; the model’s ${arch.contextKey} is ${context})`);
      showPositionSwap(arch);
      renderChips(chips, r.ids, r.pieces);
      positionNote.textContent = r.positionNote;
      positionNote.classList.toggle('warn', r.position !== 'learned');
      grid.update(r.layers, r.heads, (l, h) => r.heatmaps[`L${l}H${h}`], arch.kvHeads(r.model.config));
      showSelection(p);
      renderTopTable(topBox, r.top, r.pieces[T - 1]);
      renderConfigTables(configBox, r.model.config, r.model.architecture);
      diagram.update(arch.structure(r.model.config, T, r.position), T);
    }

    // --- Loading a checkpoint ------------------------------------------------------------------
    fileInput.addEventListener('change', async () => {
      if (!fileInput.files?.length) return;
      if (loading) {
        setFileError('a checkpoint is still being read: cancel it first');
        fileInput.value = '';
        return;
      }
      setFileError('');
      let picked;
      try {
        picked = pickFiles(fileInput.files);
      } catch (e) {
        setFileError(e.message);
        return;
      }
      loading = true;
      hubPanel.refresh();
      progress.hidden = false;
      progress.value = 0;
      cancel.hidden = false;
      const checkpoint = checkpointOf(picked);
      progressText.textContent = `Reading ${checkpoint.name} (${formatBytes(checkpoint.bytes)})…`;
      const onLoadProgress = (x) => {
        if (x.phase !== 'load') return;
        progress.value = x.expected ? x.received / x.expected : 1;
        progressText.textContent = `${checkpoint.name}: ${formatBytes(x.received)} of ${formatBytes(x.expected)}`;
      };
      try {
        const r = await compute.request(`${shell.prefix}-load`, 'lmLoad', picked, { onProgress: onLoadProgress });
        source = { kind: 'file', key: r.model.key, name: r.model.name };
        loadedLabel = null;
        progressText.textContent = `${r.model.name}: loaded in ${(r.loadMs / 1000).toFixed(1)} s`;
        markDrawn('lm-load', { loadMs: r.loadMs, bytes: r.model.fileBytes });
        await shell.refresh();
      } catch (e) {
        setFileError(e.message);
        progressText.textContent = '';
        shell.status.textContent = notUpdated(shell, e.message, { verb: 'loaded', what: 'model' });
      } finally {
        loading = false;
        hubPanel.refresh();
        progress.hidden = true;
        cancel.hidden = true;
        fileInput.value = ''; // picking the same file again is a new change
      }
    });
    const cancelLoad = () => compute.request(`${shell.prefix}-cancel`, 'lmCancel', {});
    cancel.addEventListener('click', cancelLoad);
    useRandom.addEventListener('click', () => {
      source = { kind: 'random' };
      loadedLabel = null;
      setFileError('');
      progressText.textContent = '';
      shell.refresh();
    });

    // --- Loading a known model from the hub (downloaded once, then from Cache Storage) ---------
    const hubPanel = createHubPanel({
      parent: hubBox,
      compute,
      channel: `${shell.prefix}-load`,
      lock: { busy: () => loading, set: (b) => (loading = b) },
      cancelLoad,
      onLoaded: async (r, model, from) => {
        // Should the worker lose it, the same button brings it back from Cache Storage.
        const again = `click “Load ${model.label}” again (it loads from this browser's storage, without downloading)`;
        source = { kind: 'file', key: r.model.key, name: r.model.name, again };
        loadedLabel = `Loaded: ${model.label} (${model.repo}), ${from === 'cache' ? "from this browser's storage" : 'downloaded from the hub'}`;
        setFileError('');
        progressText.textContent = '';
        await shell.refresh();
      },
    });

    return {
      // What a forward pass depends on: the picked layer and head only choose what is shown.
      key: (p) => ({ text: p.text, position: p.position, source: source.kind === 'file' ? source.key : p.init }),
      params: (p) => ({
        text: p.text,
        position: p.position,
        source: source.kind === 'file' ? source : { kind: 'random', shape: p.init },
      }),
      redraw: (r, p) => showSelection(p),
      start() {
        busy.textContent = 'Computing…';
      },
      progress(x) {
        if (x.phase === 'create') busy.textContent = `Creating the random-init ${x.label} (seed ${RANDOM_SEED})…`;
      },
      end() {
        busy.textContent = '';
      },
      draw,
      timing: (r) => ({ ...r.steps, T: r.ids.length }),
      fieldErrors: { source: setFileError }, // the loaded model is no longer in the worker
    };
  },
});

// The Models view's weights: which model the forward pass runs. A seeded random init (the
// view's init setting), a known model from the hub (models/panel.js: downloaded once, then
// from Cache Storage) or checkpoint files picked from disk, read in the worker in pieces with
// progress and a cancel. Neither a file nor a hub model is part of the link.
import { formatBytes } from '../lm/format.js';
import { CHUNK_BYTES, checkpointOf, pickFiles } from '../lm/loading.js';
import { createHubPanel } from '../models/panel.js';
import { el, progressBar, reveal } from '../ui/dom.js';
import { markDrawn } from '../ui/timing.js';
import { notUpdated } from './kit.js';

const MEMORY =
  'Memory: the WebAssembly core may grow to 2 GiB; one tensor holds at most 2^26 elements and a model at most 2^29 parameters. ' +
  'GPT-2 small takes 498 MB as F32 (the random init keeps F32) and 249 MB from an F16 checkpoint (F16 stays half in memory); ' +
  'GPT-2 medium takes 1.42 GB as F32 and fits only barely: an F16 checkpoint (710 MB) is recommended.';

const HINT =
  `Read in the worker in ${CHUNK_BYTES >> 20} MB pieces, never uploaded anywhere. A loaded file is not part of the link: ` +
  'a shared link opens with random weights. Without config.json a GPT-2 shape is read from the tensor names and shapes (n_head = E/64); ' +
  'a GPT-NeoX (Pythia) or Llama-family (Llama, SmolLM2, Mistral, Qwen2/2.5, Qwen3, Gemma 3) checkpoint needs its config.json and tokenizer.json. ' +
  'A checkpoint in shards: pick its model.safetensors.index.json and every shard it names. ' +
  'Gemma 3 has no button above: its Hub repositories are gated behind a user token, which this page does not handle, so it runs from files you downloaded.';

const button = (text) => {
  const b = el('button', 'export', text);
  b.type = 'button';
  b.hidden = true;
  return b;
};

// The file input and what goes with it: progress, cancel, "use random weights", its error line.
function weightsPanel() {
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
  const cancel = button('cancel');
  const useRandom = button('use random weights');
  buttons.append(cancel, useRandom);
  const fileError = el('span', 'control-error');
  fileError.id = 'c-lm-file-error';
  fileError.setAttribute('role', 'status');
  const memory = el('p', 'lm-hint lm-memory', MEMORY);
  weights.append(fileLabel, inputs, progress, progressText, buttons, fileError, el('p', 'lm-hint', HINT), memory);
  return { weights, fileInput, progress, progressText, cancel, useRandom, fileError };
}

/**
 * The hub's buttons and the file input, in the view's settings. `source()` is what the forward
 * pass runs: { kind: 'random' } or { kind: 'file', key, name, again? }; `loadedLabel()` how a
 * hub model is named (null: a local file or none); `shown(info)` offers "use random weights"
 * while a loaded model is shown; `setFileError(text)` says what went wrong with a file.
 */
export function createModelSource(shell, compute) {
  const hubBox = el('div', 'lm-hub');
  const ui = weightsPanel();
  const { weights, fileInput, progress, progressText, cancel, useRandom, fileError } = ui;
  shell.panel.append(hubBox, weights);
  let source = { kind: 'random' };
  let loading = false; // a checkpoint is being read (from disk or the hub): one at a time
  let loadedLabel = null;
  const setFileError = (text) => {
    fileError.textContent = text;
    weights.classList.toggle('has-error', Boolean(text));
    if (text) reveal(fileError);
  };
  const loaded = (next, label) => {
    source = next;
    loadedLabel = label;
    setFileError('');
    progressText.textContent = '';
    return shell.refresh();
  };
  const cancelLoad = () => compute.request(`${shell.prefix}-cancel`, 'lmCancel', {});

  async function readFiles(picked) {
    loading = true;
    hubPanel.refresh();
    progress.hidden = false;
    progress.value = 0;
    cancel.hidden = false;
    const checkpoint = checkpointOf(picked);
    progressText.textContent = `Reading ${checkpoint.name} (${formatBytes(checkpoint.bytes)})…`;
    const onProgress = (x) => {
      if (x.phase !== 'load') return;
      progress.value = x.expected ? x.received / x.expected : 1;
      progressText.textContent = `${checkpoint.name}: ${formatBytes(x.received)} of ${formatBytes(x.expected)}`;
    };
    try {
      const r = await compute.request(`${shell.prefix}-load`, 'lmLoad', picked, { onProgress });
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
  }

  fileInput.addEventListener('change', () => {
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
    readFiles(picked);
  });
  cancel.addEventListener('click', cancelLoad);
  useRandom.addEventListener('click', () => loaded({ kind: 'random' }, null));

  const hubPanel = createHubPanel({
    parent: hubBox,
    compute,
    channel: `${shell.prefix}-load`,
    lock: { busy: () => loading, set: (b) => (loading = b) },
    cancelLoad,
    onLoaded: async (r, model, from) => {
      // Should the worker lose it, the same button brings it back from Cache Storage.
      const again = `click “Load ${model.label}” again (it loads from this browser's storage, without downloading)`;
      const where = from === 'cache' ? "from this browser's storage" : 'downloaded from the hub';
      await loaded(
        { kind: 'file', key: r.model.key, name: r.model.name, again },
        `Loaded: ${model.label} (${model.repo}), ${where}`,
      );
    },
  });

  return {
    source: () => source,
    loadedLabel: () => loadedLabel,
    shown: (info) => (useRandom.hidden = info.kind !== 'file'),
    setFileError,
  };
}

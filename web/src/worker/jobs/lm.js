// The Models view's jobs, for every architecture the language-model module runs (GPT-2,
// GPT-NeoX and the Llama family, lm/architectures.js). The model lives here in the worker between forward passes
// (one at a time: a random init or a loaded checkpoint, keyed by an id the page passes back),
// with its tokenizer (GPT-2's bundled ranks, or the model's tokenizer.json read once at load);
// a model that is replaced is freed with .delete(). These jobs run one after another, so a
// forward pass never sees a model half loaded or freed.
import { architecture, architectureOfConfigJson } from '../../lm/architectures.js';
import { loadCheckpoint, loadShardedCheckpoint, parseConfigJson } from '../../lm/loading.js';
import { RANDOM_SEED, RANDOM_SHAPES, maxTokens } from '../../lm/shapes.js';
import { loadTokenizer, loadTokenizerOf } from '../../lm/tokenizer.js';

// Above this, the model in memory is freed before a checkpoint is read (both would not fit
// under the 2 GiB the wasm memory may grow to).
const KEEP_OLD_BELOW = 1.2e9;

let current = null; // { key, model, info, tokenizer } (tokenizer: null for GPT-2's bundled one)
let loads = 0;
let cancelled = false;
let queue = Promise.resolve();

const serial = (fn) => {
  const run = queue.then(fn);
  queue = run.catch(() => {});
  return run;
};

function replace(next) {
  if (current && current.model !== next?.model) current.model.delete();
  current = next;
}

/** The model's description for the page (no wasm objects), with the threads it runs on. */
function describe(lab, model, source) {
  const { config } = model;
  const arch = model.architecture ?? 'gpt2';
  const threads = lab.runtime ?? { threads: 1, note: 'one thread' };
  return {
    ...source,
    architecture: arch,
    config,
    bytes: model.bytes,
    dtype: model.dtype,
    threads: threads.threads,
    threadNote: threads.note,
  };
}

const randomKey = (shape) => `random:${shape}:${RANDOM_SEED}`;

function randomModel(lab, shape, progress) {
  const key = randomKey(shape);
  if (current?.key === key) return { model: current.model, info: current.info, createMs: 0 };
  const spec = RANDOM_SHAPES[shape];
  if (!spec) {
    const message = `unknown random-init shape '${shape}' (expected ${Object.keys(RANDOM_SHAPES)})`;
    throw Object.assign(new RangeError(message), { field: 'shape' });
  }
  progress?.({ phase: 'create', label: spec.label });
  replace(null); // free the old one first: two GPT-2 smalls are 1 GB
  const t0 = performance.now();
  const model = lab.gpt2Random({
    ...(spec.preset ? { preset: spec.preset } : { config: spec.config }),
    seed: RANDOM_SEED,
  });
  const createMs = performance.now() - t0;
  const info = describe(lab, model, { kind: 'random', key, shape, label: spec.label, seed: RANDOM_SEED });
  current = { key, model, info, tokenizer: null };
  return { model, info, createMs };
}

/**
 * Tokens → forward pass with the trace → every head's map (painted by the worker) and the
 * top-10 next tokens, for whichever architecture is loaded. p: { text, position, source:
 * { kind: 'random', shape } | { kind: 'file', key, again? } } (again: how to get the model
 * back when it is no longer here; the page knows, e.g. a stored hub model's button). Errors
 * name their field: 'tokens' (the text), 'shape', 'source' (the model is gone), or the core's.
 */
export function lm(lab, p, ctx = {}) {
  return serial(async () => {
    const t0 = performance.now();
    const file = p.source?.kind === 'file';
    if (file && current?.key !== p.source.key) {
      const message = `the loaded model is no longer in memory: ${p.source.again ?? 'pick the file again'}`;
      throw Object.assign(new Error(message), { field: 'source' });
    }
    const tok = (file && current.tokenizer) || (await loadTokenizer());
    const ids = tok.encode(p.text);
    const tokenizeMs = performance.now() - t0;
    let model;
    let info;
    let createMs = 0;
    if (file) ({ model, info } = current);
    else ({ model, info, createMs } = randomModel(lab, p.source?.shape ?? 'mini', ctx.progress));
    const pieces = ids.map((id) => tok.piece(id));
    const arch = architecture(info.architecture);
    checkTokens(ids, pieces, model.config);

    const t1 = performance.now();
    // A RoPE model: positions are its rotation. The core returns the logits or the per-position
    // loss (or both); the (T − 1) losses are far smaller than (T, V) logits, and need T ≥ 2.
    const T0 = ids.length;
    const r = arch.rope
      ? model.forward(ids, { topK: 10, trace: true, logits: T0 < 2, lossByPosition: T0 >= 2 })
      : model.forward(ids, { position: p.position, topK: 10, trace: true });
    const forwardMs = performance.now() - t1;
    const T = ids.length;
    const N = arch.layers(model.config);
    const H = arch.heads(model.config);
    const heatmaps = {};
    for (let l = 0; l < N; l++) {
      const att = r.layers[l].attention.data;
      for (let h = 0; h < H; h++) {
        heatmaps[`L${l}H${h}`] = {
          data: att.slice(h * T * T, (h + 1) * T * T),
          rows: T,
          cols: T,
          cmap: 'viridis',
          range: [0, 1],
        };
      }
    }
    return {
      model: info,
      ids,
      pieces,
      top: {
        ids: Array.from(r.topIds),
        probs: Array.from(r.topProbs),
        pieces: Array.from(r.topIds, (id) => tok.piece(id)),
      },
      position: arch.rope ? 'rope' : r.position,
      positionNote: arch.rope ? arch.positionNote(model.config) : r.positionNote,
      layers: N,
      heads: H,
      heatmaps,
      steps: { tokenizeMs, createMs, forwardMs },
    };
  });
}

/** Refuses what the model cannot read, naming the token (before the core sees it); field 'tokens'. */
export function checkTokens(ids, pieces, config) {
  const refuse = (message) => Object.assign(new RangeError(message), { field: 'tokens' });
  if (ids.length === 0) throw refuse('type some text: there are no tokens to run');
  const cap = maxTokens(config);
  if (ids.length > cap) {
    const key = config.n_positions === undefined ? 'max_position_embeddings' : 'n_positions';
    const why =
      cap === config[key]
        ? `this model reads at most ${key} = ${config[key]} tokens (T is capped by ${key})`
        : `this view runs at most ${cap} tokens (it keeps every layer's T×T maps)`;
    throw refuse(`${ids.length} tokens: ${why}; shorten the text`);
  }
  const bad = ids.findIndex((id) => id >= config.vocab_size);
  if (bad >= 0) {
    throw refuse(
      `token ${bad} “${pieces[bad]}” has id ${ids[bad]}, outside this checkpoint's vocabulary of ${config.vocab_size} tokens`,
    );
  }
}

/**
 * Reads a checkpoint (File) with its optional config.json and tokenizer.json (Files) in chunks,
 * reporting progress; on success the new model replaces the current one. The architecture is
 * config.json's model_type, else what the checkpoint's tensor names say; GPT-NeoX needs both
 * files (its shape and vocabulary are not in the checkpoint), checked before any weight is read.
 * p: { model: File, config: File|null, tokenizer?: File|null }, or a sharded checkpoint:
 * { model: null, index: File (model.safetensors.index.json), shards: File[], config, tokenizer }.
 */
export function lmLoad(lab, p, ctx = {}) {
  return serial(async () => {
    cancelled = false;
    const t0 = performance.now();
    const sharded = !p.model && p.index;
    const name = sharded ? p.index.name : p.model.name;
    const config = p.config ? parseConfigJson(await p.config.text(), p.config.name) : undefined;
    const declared = config ? architectureOfConfigJson(config, p.config.name) : null;
    const tokenizerText = p.tokenizer ? await p.tokenizer.text() : null;
    let tokenizer = null;
    // A RoPE model's checkpoint does not say its shape or vocabulary.
    const ready = (arch) => {
      if (!architecture(arch).rope) return;
      const missing = [!config && 'config.json', !p.tokenizer && 'tokenizer.json'].filter(Boolean);
      if (missing.length) {
        throw new Error(
          `${name} is a ${architecture(arch).name} checkpoint: pick its ${missing.join(' and ')} with it (the checkpoint does not say its shape or vocabulary)`,
        );
      }
    };
    if (declared) ready(declared);
    if (declared && architecture(declared).rope)
      tokenizer = await tokenizerOf(declared, tokenizerText, p.tokenizer.name);
    // Every dtype is held as the file stores it: the files' size is the model's.
    const incoming = sharded ? p.shards.reduce((n, f) => n + f.size, 0) : p.model.size;
    if (current && current.info.bytes + incoming > KEEP_OLD_BELOW) replace(null);
    const options = {
      name,
      config,
      ...(declared ? { architecture: declared } : {}),
      onArchitecture: ready,
      onProgress: (x) => ctx.progress?.({ phase: 'load', ...x }),
      cancelled: () => cancelled,
    };
    const model = sharded
      ? await loadShardedCheckpoint(lab, { index: await p.index.text(), name, shards: p.shards }, options)
      : await loadCheckpoint(lab, p.model, options);
    try {
      if (architecture(model.architecture ?? 'gpt2').rope && !tokenizer) {
        tokenizer = await tokenizerOf(model.architecture, tokenizerText, p.tokenizer.name);
      }
    } catch (e) {
      model.delete();
      throw e;
    }
    const key = `file:${++loads}`;
    replace(null);
    const info = describe(lab, model, {
      kind: 'file',
      key,
      name,
      configName: p.config?.name ?? null,
      tokenizerName: tokenizer ? p.tokenizer.name : null,
      fileBytes: incoming,
    });
    current = { key, model, info, tokenizer };
    return { model: info, loadMs: performance.now() - t0 };
  });
}

/** The architecture's tokenizer, from tokenizer.json's text where it reads one (named on failure). */
async function tokenizerOf(arch, text, fileName) {
  try {
    return await loadTokenizerOf(architecture(arch).tokenizer, { 'tokenizer.json': text });
  } catch (e) {
    throw new Error(`${fileName}: ${e.message.replace(/^tokenizer\.json: /, '')}`);
  }
}

/** Stops a checkpoint read at its next chunk (not queued behind it). */
export function lmCancel() {
  cancelled = true;
  return {};
}

/**
 * Runs `fn(current)` between this view's jobs, with the model the Models view has loaded
 * ({ key, model, info, tokenizer }, or null before any): the Surgery view's sweeps of a loaded
 * model run here, on the shared worker, and must not see it replaced or freed mid-sweep.
 */
export function withLoadedModel(fn) {
  return serial(() => fn(current));
}

/** Frees the model (tests; the page keeps it for the session). */
export function lmFree() {
  return serial(() => {
    replace(null);
    return {};
  });
}

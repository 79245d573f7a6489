// The GPT-2 view's jobs. The model lives here in the worker between forward passes (one at a
// time: a random init or a loaded checkpoint, keyed by an id the page passes back); a model
// that is replaced is freed with .delete(). GPT-2 jobs run one after another, so a forward
// pass never sees a model half loaded or freed.
import { loadCheckpoint, parseConfigJson } from '../../gpt2/loading.js';
import { RANDOM_SEED, RANDOM_SHAPES, maxTokens } from '../../gpt2/shapes.js';
import { loadTokenizer } from '../../gpt2/tokenizer.js';

// Above this, the model in memory is freed before a checkpoint is read (both would not fit
// under the 2 GiB the wasm memory may grow to).
const KEEP_OLD_BELOW = 1.2e9;

let current = null; // { key, model, info }
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

/** The model's description for the page (no wasm objects). */
function describe(model, source) {
  const { config } = model;
  return { ...source, config, bytes: model.bytes, dtype: model.dtype };
}

const randomKey = (shape) => `random:${shape}:${RANDOM_SEED}`;

function randomModel(lab, shape, progress) {
  const key = randomKey(shape);
  if (current?.key === key) return { model: current.model, info: current.info, createMs: 0 };
  const spec = RANDOM_SHAPES[shape];
  if (!spec) throw new RangeError(`unknown random-init shape '${shape}' (expected ${Object.keys(RANDOM_SHAPES)})`);
  progress?.({ phase: 'create', label: spec.label });
  replace(null); // free the old one first: two GPT-2 smalls are 1 GB
  const t0 = performance.now();
  const model = lab.gpt2Random({
    ...(spec.preset ? { preset: spec.preset } : { config: spec.config }),
    seed: RANDOM_SEED,
  });
  const createMs = performance.now() - t0;
  const info = describe(model, { kind: 'random', key, shape, label: spec.label, seed: RANDOM_SEED });
  current = { key, model, info };
  return { model, info, createMs };
}

/**
 * Tokens → forward pass with the trace → every head's map (painted by the worker) and the
 * top-10 next tokens. p: { text, position, source: { kind: 'random', shape } | { kind: 'file', key } }.
 */
export function gpt2(lab, p, ctx = {}) {
  return serial(async () => {
    const t0 = performance.now();
    const tok = await loadTokenizer();
    const ids = tok.encode(p.text);
    const tokenizeMs = performance.now() - t0;
    let model;
    let info;
    let createMs = 0;
    if (p.source?.kind === 'file') {
      if (current?.key !== p.source.key)
        throw new Error('the loaded checkpoint is no longer in memory: pick the file again');
      ({ model, info } = current);
    } else {
      ({ model, info, createMs } = randomModel(lab, p.source?.shape ?? 'mini', ctx.progress));
    }
    const pieces = ids.map((id) => tok.piece(id));
    checkTokens(ids, pieces, model.config);

    const t1 = performance.now();
    const r = model.forward(ids, { position: p.position, topK: 10, trace: true });
    const forwardMs = performance.now() - t1;
    const T = ids.length;
    const { n_layer: N, n_head: H } = model.config;
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
      position: r.position,
      positionNote: r.positionNote,
      layers: N,
      heads: H,
      heatmaps,
      steps: { tokenizeMs, createMs, forwardMs },
    };
  });
}

/** Refuses what the model cannot read, naming the token (before the core sees it). */
export function checkTokens(ids, pieces, config) {
  if (ids.length === 0) throw new RangeError('type some text: there are no tokens to run');
  const cap = maxTokens(config);
  if (ids.length > cap) {
    const why =
      cap === config.n_positions
        ? `this model reads at most n_positions = ${config.n_positions} tokens (T is capped by n_positions)`
        : `this view runs at most ${cap} tokens (it keeps every layer's T×T maps)`;
    throw new RangeError(`${ids.length} tokens: ${why}; shorten the text`);
  }
  const bad = ids.findIndex((id) => id >= config.vocab_size);
  if (bad >= 0) {
    throw new RangeError(
      `token ${bad} “${pieces[bad]}” has id ${ids[bad]}, outside this checkpoint's vocabulary of ${config.vocab_size} tokens`,
    );
  }
}

/**
 * Reads a checkpoint (File) and its optional config.json (File) in chunks, reporting
 * progress; on success the new model replaces the current one. p: { model: File, config: File|null }.
 */
export function gpt2Load(lab, p, ctx = {}) {
  return serial(async () => {
    cancelled = false;
    const t0 = performance.now();
    const name = p.model.name;
    const config = p.config ? parseConfigJson(await p.config.text(), p.config.name) : undefined;
    if (current && current.info.bytes + p.model.size > KEEP_OLD_BELOW) replace(null);
    const model = await loadCheckpoint(lab, p.model, {
      name,
      config,
      onProgress: (x) => ctx.progress?.({ phase: 'load', ...x }),
      cancelled: () => cancelled,
    });
    const key = `file:${++loads}`;
    replace(null);
    const info = describe(model, {
      kind: 'file',
      key,
      name,
      configName: p.config?.name ?? null,
      fileBytes: p.model.size,
    });
    current = { key, model, info };
    return { model: info, loadMs: performance.now() - t0 };
  });
}

/** Stops a checkpoint read at its next chunk (not queued behind it). */
export function gpt2Cancel() {
  cancelled = true;
  return {};
}

/** Frees the model (tests; the page keeps it for the session). */
export function gpt2Free() {
  return serial(() => {
    replace(null);
    return {};
  });
}

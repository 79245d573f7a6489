// The Long context view's job, on the language-model module: per-position next-token loss of
// a RoPE model (GPT-NeoX / Pythia, or the Llama family: SmolLM2, Qwen, Mistral) on a text out
// to `times` × its trained context, once per RoPE scaling. Each pass asks only for the losses (T−1,): the core reduces the logits a
// vocabulary block at a time and keeps no attention map, so neither (T, V) nor (H, T, T)
// exists at T = 8192. The model and the last curves stay in the worker between requests (a
// change of smoothing redraws without recomputing); Cancel terminates the worker (client.js).
import { SAMPLE_SOURCE, SAMPLE_TEXT } from '../../content/long-context-sample.js';
import { loadTokenizer } from '../../lm/tokenizer.js';
import { LAB_MODEL, labRopeCurves } from './lab-rope.js';
import { fileModel, RANDOM_MODELS, randomModel } from './lm-models.js';
import { movingAverage } from '../../plots/smooth.js';
import { etaText, passPerScaling } from './passes.js';

export { etaText, movingAverage, RANDOM_MODELS };
const RANDOM_SEED = 0;

/** The scalings compared, in plot order ('none' is the model as trained). */
export const LONG_CONTEXT_METHODS = ['none', 'linear', 'ntk', 'dynamic', 'yarn', 'llama3'];

/**
 * How many tokens a run takes: times × N, or fewer when the text is shorter (then it says so).
 * @returns {{ T: number, note: string }}
 */
export function planLength(textTokens, N, times) {
  const want = times * N;
  if (textTokens < 2) throw Object.assign(new RangeError('the text needs at least 2 tokens'), { field: 'text' });
  if (textTokens >= want) return { T: want, note: '' };
  return {
    T: textTokens,
    note: `the text has ${textTokens} tokens, fewer than ${times} × ${N}: the curves stop there`,
  };
}

// What stays in the worker: the model (one at a time) and the last run's curves.
let current = null; // { key, model, tokenizer, tokenizerLabel, label }
let lastRun = null; // { key, result }

// This view compares RoPE scalings: a model that learns its positions has none to scale.
const refuseUnrotated = (arch) =>
  arch.rope
    ? null
    : `${arch.name} learns its positions: this view compares RoPE scalings (pick a GPT-NeoX or Llama-family checkpoint)`;

async function modelFor(lab, p, progress) {
  const key =
    p.model === 'file'
      ? `file:${p.files?.weights?.name}:${p.files?.weights?.size}:${p.files?.weights?.lastModified}`
      : `random:${p.model}`;
  if (current?.key === key) return current;
  current?.model.delete();
  current = null;
  progress?.({ phase: 'model' });
  let made;
  if (p.model === 'file') {
    if (!p.files?.weights || !p.files?.config) {
      throw Object.assign(new Error('pick a .safetensors checkpoint and its config.json'), { field: 'model' });
    }
    made = await fileModel(lab, p.files, progress, { refuse: refuseUnrotated });
  } else {
    made = { ...randomModel(lab, p.model, RANDOM_SEED), tokenizer: null };
  }
  const tokenizer = made.tokenizer ?? (await loadTokenizer());
  const tokenizerLabel = made.tokenizer
    ? 'the model’s tokenizer.json'
    : 'GPT-2’s tokenizer (Pythia’s tokenizer.json is not bundled; ids stay inside the vocabulary)';
  current = { key, model: made.model, tokenizer, tokenizerLabel, label: made.label };
  return current;
}

/**
 * p: { model: 'lab-rope' | 'pythia-70m' | 'tiny' | 'tiny-llama' | 'file', files?: { weights: File, config: File,
 * tokenizer?: File }, retrained?: the lab model retrained on the page (jobs/lab-rope.js), text?: string
 * (absent or '': the sample), times: 1–8, factor: f ≥ 1,
 * methods?: subset of LONG_CONTEXT_METHODS }. Result: { methods, losses: { [method]:
 * Float32Array (T−1,) }, T, N, ... }.
 */
export async function longContext(lab, p, ctx = {}) {
  const { progress } = ctx;
  const methods = p.methods ?? LONG_CONTEXT_METHODS;
  for (const m of methods) {
    if (!LONG_CONTEXT_METHODS.includes(m)) {
      throw Object.assign(new RangeError(`unknown scaling '${m}' (expected ${LONG_CONTEXT_METHODS.join(', ')})`), {
        field: 'methods',
      });
    }
  }
  const runKey = JSON.stringify({
    model: p.model,
    file: p.files?.weights ? [p.files.weights.name, p.files.weights.size, p.files.weights.lastModified] : null,
    text: p.text ?? '',
    retrained: p.retrained?.id ?? null,
    times: p.times,
    factor: p.factor,
    methods,
  });
  if (lastRun?.key === runKey) return copyResult(lastRun.result, true);
  if (p.model === LAB_MODEL) {
    const result = await labRopeCurves(p, methods, progress);
    lastRun = { key: runKey, result };
    return copyResult(result, false);
  }

  const { model, tokenizer, tokenizerLabel, label } = await modelFor(lab, p, progress);
  const N = model.config.max_position_embeddings;
  const text = p.text ? p.text : SAMPLE_TEXT;
  const ids = tokenizer.encode(text);
  const { T, note } = planLength(ids.length, N, p.times);
  const tokens = Int32Array.from(ids.slice(0, T));
  const { losses, ms } = passPerScaling(
    methods,
    progress,
    (scaling) =>
      model.forward(tokens, {
        logits: false,
        lossByPosition: true,
        topK: 1,
        rope: { scaling, factor: scaling === 'none' ? 1 : p.factor },
      }).losses.data,
    { N, T },
  );
  const result = {
    methods,
    losses,
    ms,
    T,
    N,
    note,
    model: label,
    random: p.model !== 'file',
    tokenizer: tokenizerLabel,
    textTokens: ids.length,
    source: p.text ? 'your text' : SAMPLE_SOURCE,
    heapBytes: lab.wasmHeapBytes(),
  };
  lastRun = { key: runKey, result };
  return copyResult(result, false);
}

// The worker transfers a result's buffers: hand out copies so the kept curves stay usable.
function copyResult(result, cached) {
  const losses = Object.fromEntries(Object.entries(result.losses).map(([k, v]) => [k, v.slice()]));
  return { ...result, losses, cached };
}

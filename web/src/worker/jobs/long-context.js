// The Long context view's job, on the language-model module: per-position next-token loss of
// a RoPE model (GPT-NeoX / Pythia, or the Llama family: SmolLM2, Qwen, Mistral) on a text out
// to `times` × its trained context, once per RoPE scaling. Each pass asks only for the losses (T−1,): the core reduces the logits a
// vocabulary block at a time and keeps no attention map, so neither (T, V) nor (H, T, T)
// exists at T = 8192. The model and the last curves stay in the worker between requests (a
// change of smoothing redraws without recomputing); Cancel terminates the worker (client.js).
import { SAMPLE_SOURCE, SAMPLE_TEXT } from '../../content/long-context-sample.js';
import { etaText, passPerScaling } from './passes.js';
import { LAB_MODEL, labRopeCurves } from './lab-rope.js';

export { etaText };
import { architecture } from '../../gpt2/architectures.js';
import { loadTokenizer, loadTokenizerJson } from '../../gpt2/tokenizer.js';

/** The scalings compared, in plot order ('none' is the model as trained). */
export const LONG_CONTEXT_METHODS = ['none', 'linear', 'ntk', 'dynamic', 'yarn', 'llama3'];

// Random-weight models: Pythia-70m's shapes (what the runtimes are measured on), and tiny
// ones of the same vocabulary and trained context 64 for quick looks and tests: GPT-NeoX, and
// a grouped-query Llama. `random` names the API's random-init function.
export const RANDOM_MODELS = {
  'pythia-70m': { random: 'gptNeoxRandom', preset: 'pythia-70m', label: 'random weights of Pythia-70m’s shapes' },
  tiny: {
    random: 'gptNeoxRandom',
    config: {
      model_type: 'gpt_neox',
      vocab_size: 50304,
      hidden_size: 64,
      num_hidden_layers: 2,
      num_attention_heads: 2,
      intermediate_size: 64,
      max_position_embeddings: 64,
    },
    label: 'random weights of a tiny GPT-NeoX (trained context 64)',
  },
  'tiny-llama': {
    random: 'llamaRandom',
    config: JSON.stringify({
      model_type: 'llama',
      vocab_size: 50304,
      hidden_size: 64,
      num_hidden_layers: 2,
      num_attention_heads: 4,
      num_key_value_heads: 2,
      intermediate_size: 128,
      max_position_embeddings: 64,
    }),
    label: 'random weights of a tiny Llama (grouped-query, trained context 64)',
  },
};
const RANDOM_SEED = 0;
const CHUNK = 8 << 20; // bytes read from a checkpoint File at a time

/** Moving average over a window of `w` positions (centred, shrinking at the ends); w ≤ 1: a copy. */
export function movingAverage(data, w) {
  const n = data.length;
  const out = new Float32Array(n);
  if (!(w > 1)) {
    out.set(data);
    return out;
  }
  const half = Math.floor(w / 2);
  const prefix = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i] + data[i];
  for (let i = 0; i < n; i++) {
    const a = Math.max(0, i - half);
    const b = Math.min(n, i - half + w);
    out[i] = (prefix[b] - prefix[a]) / (b - a);
  }
  return out;
}

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

async function readText(file) {
  return typeof file === 'string' ? file : file.text();
}

// A RoPE checkpoint File streamed into its architecture's loader (config.json's model_type;
// GPT-NeoX when it has none), with tokenizer.json when given.
async function fileModel(lab, files, progress) {
  const { weights, config, tokenizer } = files;
  const configText = await readText(config);
  let type;
  try {
    type = JSON.parse(configText)?.model_type ?? 'gpt_neox';
  } catch (e) {
    throw Object.assign(new Error(`${config.name ?? 'config.json'}: not valid JSON (${e.message})`), {
      field: 'model',
    });
  }
  let arch;
  try {
    arch = architecture(type);
  } catch (e) {
    throw Object.assign(new Error(e.message), { field: 'model' });
  }
  if (!arch.rope) {
    const why = `${arch.name} learns its positions: this view compares RoPE scalings (pick a GPT-NeoX or Llama-family checkpoint)`;
    throw Object.assign(new Error(why), { field: 'model' });
  }
  const head8 = new Uint8Array(await weights.slice(0, 8).arrayBuffer());
  const N = lab.safetensorsHeaderLength(head8, weights.size, weights.name);
  const header = new Uint8Array(await weights.slice(0, 8 + N).arrayBuffer());
  const loader = lab[arch.loader]({ header, fileSize: weights.size, name: weights.name, config: configText });
  try {
    for (let at = 8 + N; at < weights.size; at += CHUNK) {
      loader.append(new Uint8Array(await weights.slice(at, at + CHUNK).arrayBuffer()));
      progress?.({ phase: 'load', fraction: Math.min(1, (at + CHUNK) / weights.size) });
    }
    const model = loader.finish();
    const tok = tokenizer
      ? await loadTokenizerJson(await readText(tokenizer), tokenizer.name ?? 'tokenizer.json')
      : null;
    return { model, tokenizer: tok, label: `${weights.name} (${config.name ?? 'config.json'})` };
  } finally {
    loader.delete();
  }
}

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
    made = await fileModel(lab, p.files, progress);
  } else {
    const spec = RANDOM_MODELS[p.model];
    if (!spec) throw Object.assign(new RangeError(`unknown model '${p.model}'`), { field: 'model' });
    const { label, random, ...choice } = spec;
    made = { model: lab[random]({ ...choice, seed: RANDOM_SEED }), tokenizer: null, label };
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

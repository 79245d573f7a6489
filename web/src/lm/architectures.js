// What the Models view needs to know of each language-model architecture it runs, read from
// the config the core returns (Hugging Face keys): which tokenizer reads its text, its layers
// and heads, how many positions it reads, its config table and how positions enter. Pure
// functions (no DOM, no wasm), one table per architecture, so the view and the worker job
// never test for an architecture themselves.

import { hasLocalBase, nopeLayers } from './model-type.js';
import { ropeForwardSteps, ropeLegend } from './rope-steps.js';
import { forwardSteps, gpt2Legend } from './shapes.js';

/**
 * @typedef {'gpt2' | 'gpt_neox' | 'llama' | 'mistral' | 'qwen2' | 'qwen3' | 'gemma3_text' | 'smollm3'} Architecture
 *   config.json's model_type
 * @typedef {{ key: string, label: string, value: number | string | boolean }} ConfigRow
 */

// An architecture from config.json's keys for its five sizes (as the core's LmDimKeys), the
// rows of its config table only it has, what the position-method swap means for it, its
// loader in the language-model module, and, for a RoPE model (forward with losses by
// position, no position swap), how positions enter it. A RoPE model's checkpoint does not say
// its shape or vocabulary: it needs config.json and tokenizer.json beside it.
function describe({ name, tokenizer, keys, extraRows, positionSwap, loader, positionNote = null, structure }) {
  const { vocab, context, width, layers, heads } = keys;
  return {
    name,
    /** The structure diagram's steps and legend: (config, T, position) → { steps, values, legend }. */
    structure,
    tokenizer,
    keys,
    loader,
    /** The same loader for a sharded checkpoint (model.safetensors.index.json and its shards). */
    shardedLoader: loader.replace(/Loader$/, 'ShardedLoader'),
    rope: positionNote !== null,
    positionNote,
    layers: (c) => c[layers],
    heads: (c) => c[heads],
    /** Key/value heads: fewer than the heads under grouped-query attention. */
    kvHeads: (c) => c.num_key_value_heads ?? c[heads],
    contextKey: context,
    context: (c) => c[context],
    /** @returns {ConfigRow[]} */
    configRows: (c) => [
      { key: vocab, label: `${vocab} (V)`, value: c[vocab] },
      { key: context, label: `${context} (P)`, value: c[context] },
      { key: width, label: `${width} (E)`, value: c[width] },
      { key: layers, label: `${layers} (N)`, value: c[layers] },
      { key: heads, label: `${heads} (H)`, value: c[heads] },
      c.head_dim === undefined
        ? { key: 'head', label: 'head width d = E/H', value: c[width] / c[heads] }
        : row(c, 'head_dim', 'head_dim (d)'),
      ...extraRows(c),
    ],
    positionSwap,
  };
}

const row = (c, key, label = key) => ({ key, label, value: c[key] });

const ropeStructure = (family) => (c, T) => {
  const { steps, values } = ropeForwardSteps(c, T, family);
  return { steps, values, legend: ropeLegend(values), seed003: false };
};

const ropeSwap = (who) =>
  `${who} rotates q and k by their positions (RoPE) inside every attention layer, as it was trained; ` +
  'the position-method swap is GPT-2’s (it replaces GPT-2’s learned position embedding) and does not apply.';

const scalingText = (rope) => {
  if (!rope || rope.scaling === 'none') return 'none';
  if (rope.scaling === 'longrope') return `longrope, a factor per pair (N = ${rope.originalLength})`;
  return `${rope.scaling} × ${rope.factor} (N = ${rope.originalLength})`;
};

const gpt2 = describe({
  name: 'GPT-2',
  tokenizer: 'tiktoken-gpt2',
  keys: { vocab: 'vocab_size', context: 'n_positions', width: 'n_embd', layers: 'n_layer', heads: 'n_head' },
  extraRows: (c) => [row(c, 'layer_norm_epsilon')],
  positionSwap: null, // the view's position-method swap applies
  loader: 'gpt2Loader',
  structure: (c, T, position) => {
    const { steps, values } = forwardSteps(c, T, position);
    return { steps, values, legend: gpt2Legend(values), seed003: true };
  },
});

const gptNeox = describe({
  name: 'GPT-NeoX',
  tokenizer: 'tokenizer-json',
  keys: {
    vocab: 'vocab_size',
    context: 'max_position_embeddings',
    width: 'hidden_size',
    layers: 'num_hidden_layers',
    heads: 'num_attention_heads',
  },
  extraRows: (c) => [
    row(c, 'intermediate_size', 'intermediate_size (MLP width)'),
    row(c, 'rotary_pct'),
    { key: 'rotary_dim', label: 'rotated dims per head', value: rotaryDim(c) },
    row(c, 'rotary_emb_base'),
    row(c, 'use_parallel_residual'),
    row(c, 'layer_norm_eps'),
  ],
  positionSwap: ropeSwap('GPT-NeoX'),
  loader: 'gptNeoxLoader',
  positionNote: neoxPositionNote,
  structure: ropeStructure('gpt_neox'),
});

// llama, mistral, qwen2, qwen3, gemma3_text and smollm3: one description (the core's
// LlamaConfig), the member in model_type; a member whose sliding layers turn at their own base
// (the model-type table's local base: gemma3_text) has rows for them, Gemma's own scale is a
// row when the core reports it, and so are SmolLM3's NoPE layers (no_rope_layers).
const llama = describe({
  name: 'Llama',
  tokenizer: 'tokenizer-json',
  keys: gptNeox.keys,
  extraRows: (c) => [
    row(c, 'model_type'),
    row(c, 'num_key_value_heads', 'num_key_value_heads (K: each shared by H/K query heads)'),
    row(c, 'intermediate_size', 'intermediate_size (MLP width)'),
    row(c, 'rope_theta'),
    { key: 'rope_scaling', label: 'rope_scaling', value: scalingText(c.rope) },
    row(c, 'sliding_window', 'sliding_window (0: none)'),
    ...(hasLocalBase(c.model_type)
      ? [
          row(c, 'sliding_layers', 'sliding layers (the rest attend to every earlier token)'),
          row(c, 'rope_local_base_freq', 'rope_local_base_freq (the sliding layers’ base, unscaled)'),
        ]
      : []),
    ...(c.query_pre_attn_scalar === undefined
      ? []
      : [row(c, 'query_pre_attn_scalar', 'query_pre_attn_scalar (scores × its −½ power)')]),
    ...(c.no_rope_layers === undefined
      ? []
      : [
          {
            key: 'no_rope_layers',
            label: 'NoPE layers (no_rope_layers 0: q and k not rotated)',
            value: layerList(nopeLayers(c)),
          },
        ]),
    row(c, 'tie_word_embeddings'),
    row(c, 'rms_norm_eps'),
  ],
  positionSwap: ropeSwap('This model'),
  loader: 'llamaLoader',
  positionNote: llamaPositionNote,
  structure: ropeStructure('llama'),
});

const TABLE = Object.freeze({
  gpt2,
  gpt_neox: gptNeox,
  llama,
  mistral: llama,
  qwen2: llama,
  qwen3: llama,
  gemma3_text: llama,
  smollm3: llama,
});

/** The architectures this view runs, by model_type. */
export const ARCHITECTURES = Object.freeze(Object.keys(TABLE));

/** The description of `architecture`; throws naming what this view runs for any other. */
export function architecture(name) {
  const a = TABLE[name];
  if (!a) {
    throw new Error(
      `model_type ${JSON.stringify(name)}: this view runs ${ARCHITECTURES.slice(0, -1).join(', ')} and ${ARCHITECTURES.at(-1)} models, not this one`,
    );
  }
  return a;
}

/**
 * The architecture a config.json (parsed) declares: its model_type when it is one this view
 * runs, null when it has none (the checkpoint's tensor names decide), an error for any other.
 */
export function architectureOfConfigJson(config, name = 'config.json') {
  const type = config?.model_type;
  if (type === undefined || type === null) return null;
  if (!Object.hasOwn(TABLE, type)) {
    throw new Error(
      `${name}: model_type ${JSON.stringify(type)} is not a model this view runs (${ARCHITECTURES.join(', ')})`,
    );
  }
  return type;
}

/** The tokenizer kind of `name` (known-models.js's TokenizerKind). */
export const tokenizerKindOf = (name) => architecture(name).tokenizer;

/** Every parameter of the model: GPT-2's config gives them per component, GPT-NeoX's a total. */
export const parameterTotal = (config) =>
  typeof config.parameters === 'number' ? config.parameters : config.parameters.total;

/** GPT-NeoX's rotated dims per head: what the core reports, else int(d · rotary_pct). */
export function rotaryDim(c) {
  if (c.rope?.rotaryDim !== undefined) return c.rope.rotaryDim;
  return Math.floor((c.hidden_size / c.num_attention_heads) * c.rotary_pct);
}

/** Layer indices in words: 'none', '3', '3, 7 and 11'. */
function layerList(layers) {
  if (layers.length === 0) return 'none';
  if (layers.length === 1) return String(layers[0]);
  return `${layers.slice(0, -1).join(', ')} and ${layers.at(-1)}`;
}

/** How positions enter a Llama-family model, for the note above the maps. */
export function llamaPositionNote(c) {
  const shared =
    c.num_key_value_heads === c.num_attention_heads
      ? ''
      : ` (grouped-query: ${c.num_key_value_heads} key/value heads, each shared by ${c.num_attention_heads / c.num_key_value_heads} query heads, so heads of one group share their keys)`;
  const window = hasLocalBase(c.model_type)
    ? `; ${c.sliding_layers} of ${c.num_hidden_layers} layers attend in a window of ${c.sliding_window} and turn at base ${c.rope_local_base_freq}, unscaled (local), the others at the base above (global)`
    : c.sliding_window > 0
      ? `; a sliding window of ${c.sliding_window} on its windowed layers`
      : '';
  const nope = nopeLayers(c);
  const where =
    nope.length === 0
      ? 'each head'
      : `each head in ${c.num_hidden_layers - nope.length} of ${c.num_hidden_layers} layers`;
  const nopeText =
    nope.length === 0
      ? ''
      : `; layer${nope.length === 1 ? '' : 's'} ${layerList(nope)} ${nope.length === 1 ? 'is' : 'are'} NoPE (no_rope_layers): q and k are not rotated there, so those layers see only the causal order`;
  return (
    `Positions as trained: RoPE on all ${c.head_dim} dims of ${where} (base ${c.rope_theta}, scaling ${scalingText(c.rope)})${shared}${window}${nopeText}; ` +
    'no position embedding is added to the tokens. The positions setting applies to GPT-2 only.'
  );
}

/** How positions enter GPT-NeoX, for the note above the maps. */
export function neoxPositionNote(c) {
  const d = c.hidden_size / c.num_attention_heads;
  return (
    `Positions as trained: RoPE on the first ${rotaryDim(c)} of each head’s ${d} dims ` +
    `(rotary_pct ${c.rotary_pct}, base ${c.rotary_emb_base}); no position embedding is added to the tokens. ` +
    'The positions setting applies to GPT-2 only.'
  );
}

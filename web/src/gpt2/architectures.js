// What the Models view needs to know of each language-model architecture it runs, read from
// the config the core returns (Hugging Face keys): which tokenizer reads its text, its layers
// and heads, how many positions it reads, its config table and how positions enter. Pure
// functions (no DOM, no wasm), one table per architecture, so the view and the worker job
// never test for an architecture themselves.

/**
 * @typedef {'gpt2' | 'gpt_neox'} Architecture config.json's model_type
 * @typedef {{ key: string, label: string, value: number | string | boolean }} ConfigRow
 */

// An architecture from config.json's keys for its five sizes (as the core's LmDimKeys), the
// rows of its config table only it has, and what the position-method swap means for it.
function describe({ name, tokenizer, keys, extraRows, positionSwap }) {
  const { vocab, context, width, layers, heads } = keys;
  return {
    name,
    tokenizer,
    layers: (c) => c[layers],
    heads: (c) => c[heads],
    contextKey: context,
    context: (c) => c[context],
    /** @returns {ConfigRow[]} */
    configRows: (c) => [
      { key: vocab, label: `${vocab} (V)`, value: c[vocab] },
      { key: context, label: `${context} (P)`, value: c[context] },
      { key: width, label: `${width} (E)`, value: c[width] },
      { key: layers, label: `${layers} (N)`, value: c[layers] },
      { key: heads, label: `${heads} (H)`, value: c[heads] },
      { key: 'head', label: 'head width d = E/H', value: c[width] / c[heads] },
      ...extraRows(c),
    ],
    positionSwap,
  };
}

const row = (c, key, label = key) => ({ key, label, value: c[key] });

const gpt2 = describe({
  name: 'GPT-2',
  tokenizer: 'tiktoken-gpt2',
  keys: { vocab: 'vocab_size', context: 'n_positions', width: 'n_embd', layers: 'n_layer', heads: 'n_head' },
  extraRows: (c) => [row(c, 'layer_norm_epsilon')],
  positionSwap: null, // the view's position-method swap applies
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
  positionSwap:
    'GPT-NeoX rotates q and k by their positions (RoPE) inside every attention layer, as it was trained; ' +
    'the position-method swap is GPT-2’s (it replaces GPT-2’s learned position embedding) and does not apply.',
});

const TABLE = Object.freeze({ gpt2, gpt_neox: gptNeox });

/** The architectures this view runs, by model_type. */
export const ARCHITECTURES = Object.freeze(Object.keys(TABLE));

/** The description of `architecture`; throws naming what this view runs for any other. */
export function architecture(name) {
  const a = TABLE[name];
  if (!a) {
    throw new Error(
      `model_type ${JSON.stringify(name)}: this view runs ${ARCHITECTURES.join(' and ')} models, not this one`,
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

/** How positions enter GPT-NeoX, for the note above the maps. */
export function neoxPositionNote(c) {
  const d = c.hidden_size / c.num_attention_heads;
  return (
    `Positions as trained: RoPE on the first ${rotaryDim(c)} of each head’s ${d} dims ` +
    `(rotary_pct ${c.rotary_pct}, base ${c.rotary_emb_base}); no position embedding is added to the tokens. ` +
    'The positions setting applies to GPT-2 only.'
  );
}

// What the Models view needs to know of each language-model architecture it runs, read from
// the config the core returns (Hugging Face keys): which tokenizer reads its text, its layers
// and heads, how many positions it reads, its config table and how positions enter. Pure
// functions (no DOM, no wasm), one table per architecture, so the view and the worker job
// never test for an architecture themselves.

/**
 * @typedef {'gpt2' | 'gpt_neox'} Architecture config.json's model_type
 * @typedef {{ key: string, label: string, value: number | string | boolean }} ConfigRow
 */

const gpt2 = {
  name: 'GPT-2',
  tokenizer: 'tiktoken-gpt2',
  layers: (c) => c.n_layer,
  heads: (c) => c.n_head,
  contextKey: 'n_positions',
  context: (c) => c.n_positions,
  /** @returns {ConfigRow[]} */
  configRows: (c) => [
    { key: 'vocab_size', label: 'vocab_size (V)', value: c.vocab_size },
    { key: 'n_positions', label: 'n_positions (P)', value: c.n_positions },
    { key: 'n_embd', label: 'n_embd (E)', value: c.n_embd },
    { key: 'n_layer', label: 'n_layer (N)', value: c.n_layer },
    { key: 'n_head', label: 'n_head (H)', value: c.n_head },
    { key: 'head', label: 'head width d = E/H', value: c.n_embd / c.n_head },
    { key: 'layer_norm_epsilon', label: 'layer_norm_epsilon', value: c.layer_norm_epsilon },
  ],
  positionSwap: null, // the view's position-method swap applies
};

const gptNeox = {
  name: 'GPT-NeoX',
  tokenizer: 'tokenizer-json',
  layers: (c) => c.num_hidden_layers,
  heads: (c) => c.num_attention_heads,
  contextKey: 'max_position_embeddings',
  context: (c) => c.max_position_embeddings,
  configRows: (c) => {
    const d = c.hidden_size / c.num_attention_heads;
    return [
      { key: 'vocab_size', label: 'vocab_size (V)', value: c.vocab_size },
      { key: 'max_position_embeddings', label: 'max_position_embeddings (P)', value: c.max_position_embeddings },
      { key: 'hidden_size', label: 'hidden_size (E)', value: c.hidden_size },
      { key: 'num_hidden_layers', label: 'num_hidden_layers (N)', value: c.num_hidden_layers },
      { key: 'num_attention_heads', label: 'num_attention_heads (H)', value: c.num_attention_heads },
      { key: 'head', label: 'head width d = E/H', value: d },
      { key: 'intermediate_size', label: 'intermediate_size (MLP width)', value: c.intermediate_size },
      { key: 'rotary_pct', label: 'rotary_pct', value: c.rotary_pct },
      { key: 'rotary_dim', label: 'rotated dims per head', value: rotaryDim(c) },
      { key: 'rotary_emb_base', label: 'rotary_emb_base', value: c.rotary_emb_base },
      { key: 'use_parallel_residual', label: 'use_parallel_residual', value: c.use_parallel_residual },
      { key: 'layer_norm_eps', label: 'layer_norm_eps', value: c.layer_norm_eps },
    ];
  },
  positionSwap:
    'GPT-NeoX rotates q and k by their positions (RoPE) inside every attention layer, as it was trained; ' +
    'the position-method swap is GPT-2’s (it replaces GPT-2’s learned position embedding) and does not apply.',
};

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

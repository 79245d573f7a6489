// GPT-2's structure as data: the random-init shapes on offer, every step of the forward pass
// with the shape of its tensor for the current config and T, and the parameter table. Pure
// functions (no DOM), so the numbers the view prints are unit-tested.
//
// The correct GPT-2 (Radford et al. 2019, as released), with T tokens, E = n_embd,
// H = n_head, d = E/H, V = vocab_size, P = n_positions, N = n_layer:
//   x = wte[tok] + wpe[pos] (T,E); per block: pre-LN attention with a fused c_attn (E,3E),
//   causal scores scaled 1/√d, c_proj (E,E), residual; pre-LN MLP c_fc (E,4E) → GELU(tanh)
//   → c_proj (4E,E), residual; then ln_f and logits = x·wteᵀ (T,V), tied to wte.

/** Random-init shapes offered when no checkpoint is loaded (HF config.json keys). */
export const RANDOM_SHAPES = {
  mini: {
    label: 'mini (4 layers, 4 heads, width 256)',
    config: { vocab_size: 50257, n_positions: 1024, n_embd: 256, n_layer: 4, n_head: 4, layer_norm_epsilon: 1e-5 },
  },
  small: { label: 'GPT-2 small (124M)', preset: 'small' },
};

/** The seed of the random init (the label says it). */
export const RANDOM_SEED = 0;

/** This view keeps every layer's (H, T, T) maps; beyond this many tokens they get too big. */
export const VIEW_MAX_TOKENS = 256;

/**
 * Most tokens this model can read here: its context (GPT-2's n_positions, GPT-NeoX's
 * max_position_embeddings), and the view's own cap.
 */
export const maxTokens = (config) => Math.min(config.n_positions ?? config.max_position_embeddings, VIEW_MAX_TOKENS);

const dims = (config, T) => {
  const E = config.n_embd;
  const H = config.n_head;
  return { T, E, H, d: E / H, V: config.vocab_size, P: config.n_positions, N: config.n_layer, F: 4 * E };
};

/** "(T, E)" and "(10, 768)" for a shape given as symbol names. */
export function shapeText(symbols, values) {
  return { symbolic: `(${symbols.join(', ')})`, numeric: `(${symbols.map((s) => values[s]).join(', ')})` };
}

/**
 * Every step of the forward pass, in order: { id, label, detail, shape: [symbols],
 * weights?: [{ name, shape: [symbols] }], block: bool }. `position` changes how positions
 * enter (steps that do not apply are left out and the ones that replace them say so).
 * @param {{ n_embd: number, n_head: number, vocab_size: number, n_positions: number, n_layer: number }} config
 * @param {number} T tokens
 * @param {'learned'|'sinusoidal'|'rope'|'alibi'|'none'} [position]
 */
export function forwardSteps(config, T, position = 'learned') {
  const v = dims(config, T);
  const steps = [];
  const add = (id, label, shape, detail, extra = {}) =>
    steps.push({ id, label, shape, detail, block: false, ...extra });
  add('tokens', 'token ids', ['T'], 'the BPE tokens of the text');
  add('wte', 'token embedding wte[tok]', ['T', 'E'], 'one row of wte per token', { weights: [['wte', ['V', 'E']]] });
  if (position === 'learned') {
    add('wpe', 'position embedding wpe[pos]', ['T', 'E'], 'rows 0…T−1 of wpe (learned, as trained)', {
      weights: [['wpe', ['P', 'E']]],
    });
  } else if (position === 'sinusoidal') {
    add('pe', 'sinusoidal PE[pos] (replaces wpe)', ['T', 'E'], 'interleaved sin/cos, base 10000');
  }
  const sum =
    position === 'learned'
      ? 'x = wte[tok] + wpe[pos]'
      : position === 'sinusoidal'
        ? 'x = wte[tok] + PE[pos]'
        : 'x = wte[tok] (no position added)';
  add('x', sum, ['T', 'E'], 'the residual stream');

  const b = (id, label, shape, detail, extra = {}) => add(id, label, shape, detail, { block: true, ...extra });
  // The weights of a LayerNorm (gain and bias) and of a Conv1D x·W + b, as GPT-2 stores them.
  const LAYER_NORM = { weights: [['γ, β', ['E']]] };
  const linear = (inputs, outputs) => ({
    weights: [
      ['W', [inputs, outputs]],
      ['b', [outputs]],
    ],
  });
  b('ln_1', 'ln_1 (LayerNorm)', ['T', 'E'], 'pre-LN: normalises the block input', LAYER_NORM);
  b(
    'c_attn',
    'attn.c_attn: x·W + b',
    ['T', '3E'],
    'one fused projection to q, k, v of the whole width',
    linear('E', '3E'),
  );
  b('qkv', 'split into heads: q, k, v', ['H', 'T', 'd'], `each of q, k, v; d = E/H = ${v.d}`);
  if (position === 'rope') b('rope', 'RoPE: rotate q and k', ['H', 'T', 'd'], 'pairs (i, i + d/2) turn by pos·θᵢ');
  const bias = position === 'alibi' ? ' + ALiBi bias −m_h·(i−j)' : '';
  b('scores', `scores = q·kᵀ/√d${bias} + causal mask`, ['H', 'T', 'T'], `scale 1/√${v.d}; keys after the query → −∞`);
  b('softmax', 'softmax over keys', ['H', 'T', 'T'], 'the attention maps drawn on this page');
  b('av', 'weights · v', ['H', 'T', 'd'], 'each head mixes the values it attends to');
  b('merge', 'merge heads', ['T', 'E'], 'heads side by side again');
  b('attn_proj', 'attn.c_proj', ['T', 'E'], 'output projection', linear('E', 'E'));
  b('resid1', '+ residual', ['T', 'E'], 'h = x + attention');
  b('ln_2', 'ln_2 (LayerNorm)', ['T', 'E'], 'pre-LN before the MLP', LAYER_NORM);
  b('c_fc', 'mlp.c_fc', ['T', '4E'], 'widen four times', linear('E', '4E'));
  b('gelu', 'GELU (tanh approximation)', ['T', '4E'], '½u(1 + tanh(√(2/π)(u + 0.044715u³)))');
  b('mlp_proj', 'mlp.c_proj', ['T', 'E'], 'back to the width', linear('4E', 'E'));
  b('resid2', '+ residual', ['T', 'E'], 'x = h + MLP');

  add('ln_f', 'ln_f (final LayerNorm)', ['T', 'E'], 'after the last block', LAYER_NORM);
  add('logits', 'logits = x · wteᵀ', ['T', 'V'], 'tied to the token embedding: no separate output matrix', {
    weights: [['wte', ['V', 'E']]],
  });
  add('next', 'softmax of the last row', ['V'], 'next-token probabilities; the top 10 are listed');
  return { steps, values: { ...v, '3E': 3 * v.E, '4E': 4 * v.E } };
}

/** The legend of the symbols for GPT-2's diagram. */
export function gpt2Legend(values) {
  return (
    `T = ${values.T} tokens, E = n_embd = ${values.E}, H = n_head = ${values.H}, d = E/H = ${values.d}, ` +
    `V = vocab_size = ${values.V}, P = n_positions = ${values.P}, N = n_layer = ${values.N}. ` +
    'Weights are stored (in, out) as Hugging Face’s Conv1D: y = x·W + b.'
  );
}

/**
 * The parameter table: [{ name, shapes: [[symbols]...], parameters, perBlock }], from
 * lab.gpt2Config's `parameters` (the core's counts), with the shapes they come from.
 */
export function parameterRows(config) {
  const p = config.parameters;
  const pb = p.perBlock;
  return [
    { name: 'wte (token embedding, tied output)', shapes: [['V', 'E']], parameters: p.wte },
    { name: 'wpe (learned positions)', shapes: [['P', 'E']], parameters: p.wpe },
    { name: 'ln_1', shapes: [['E'], ['E']], parameters: pb.ln_1, perBlock: true },
    { name: 'attn.c_attn', shapes: [['E', '3E'], ['3E']], parameters: pb.attn_c_attn, perBlock: true },
    { name: 'attn.c_proj', shapes: [['E', 'E'], ['E']], parameters: pb.attn_c_proj, perBlock: true },
    { name: 'ln_2', shapes: [['E'], ['E']], parameters: pb.ln_2, perBlock: true },
    { name: 'mlp.c_fc', shapes: [['E', '4E'], ['4E']], parameters: pb.mlp_c_fc, perBlock: true },
    { name: 'mlp.c_proj', shapes: [['4E', 'E'], ['E']], parameters: pb.mlp_c_proj, perBlock: true },
    { name: 'one block', shapes: [], parameters: p.block, perBlock: true, subtotal: true },
    { name: `all ${config.n_layer} blocks`, shapes: [], parameters: p.blocks, subtotal: true },
    { name: 'ln_f', shapes: [['E'], ['E']], parameters: p.ln_f },
    { name: 'total', shapes: [], parameters: p.total, subtotal: true },
  ];
}

/** The parameter counts the shapes imply (a check on the core's numbers; tests use it). */
export function countFromShapes(config) {
  const v = dims(config, 1);
  const n = (...s) => s.reduce((a, b) => a * b, 1);
  const perBlock = {
    ln_1: 2 * v.E,
    attn_c_attn: n(v.E, 3 * v.E) + 3 * v.E,
    attn_c_proj: n(v.E, v.E) + v.E,
    ln_2: 2 * v.E,
    mlp_c_fc: n(v.E, v.F) + v.F,
    mlp_c_proj: n(v.F, v.E) + v.E,
  };
  const block = Object.values(perBlock).reduce((a, b) => a + b, 0);
  const wte = n(v.V, v.E);
  const wpe = n(v.P, v.E);
  const lnf = 2 * v.E;
  return { wte, wpe, block, blocks: v.N * block, ln_f: lnf, total: wte + wpe + v.N * block + lnf, perBlock };
}

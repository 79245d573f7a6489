// The RoPE models' structure as data, in the step format of shapes.js (GPT-2's): GPT-NeoX
// (Pythia) and the Llama family (llama, mistral, qwen2, qwen3, gemma3_text, smollm3), each step with the shape of its
// tensor for the config the core returns (Hugging Face keys) and T. Pure functions, unit-tested.
// What differs between them is what the core's forward passes differ by: the fused or separate
// projections, LayerNorm or RMSNorm, q/k norms (qwen3, gemma3_text), the biases (qwen2), the
// rotated fraction, grouped-query attention, a sliding window, parallel or sequential residuals,
// Gemma's extra norms and scales, GELU or SwiGLU or GeGLU, tied or untied output, SmolLM3's
// NoPE layers.
import { hasLocalBase, nopeLayers } from './model-type.js';

/** The symbols' values: T, E, H, K (key/value heads), d, R (rotated dims), I, V, N, P. */
function dims(c, T) {
  const E = c.hidden_size;
  const H = c.num_attention_heads;
  const K = c.num_key_value_heads ?? H;
  const d = c.head_dim ?? E / H;
  const R = c.rope?.rotaryDim ?? Math.floor(d * (c.rotary_pct ?? 1)); // the core's, else rotary_pct
  const I = c.intermediate_size;
  return { T, E, H, K, d, R, I, V: c.vocab_size, N: c.num_hidden_layers, P: c.max_position_embeddings };
}

/**
 * Every step of a RoPE model's forward pass: { id, label, detail, shape, weights?, block },
 * as forwardSteps gives GPT-2's, and the symbols' values.
 * @param {object} c the model's config as the core returns it (gptNeoxConfig / llamaConfig)
 * @param {number} T tokens
 * @param {'gpt_neox' | 'llama'} family GPT-NeoX, or the Llama family (c.model_type says which)
 */
export function ropeForwardSteps(c, T, family) {
  const v = dims(c, T);
  const neox = family === 'gpt_neox';
  const steps = [];
  const add = (id, label, shape, detail, extra = {}) =>
    steps.push({ id, label, shape, detail, block: false, ...extra });
  const b = (id, label, shape, detail, extra = {}) => add(id, label, shape, detail, { block: true, ...extra });
  const gemma = c.model_type === 'gemma3_text';
  const norm = neox ? 'LayerNorm' : gemma ? 'RMSNorm × (1 + γ)' : 'RMSNorm';
  const gain = neox ? { weights: [['γ, β', ['E']]] } : { weights: [['γ', ['E']]] };
  const proj = (inputs, outputs, bias) => ({
    weights: bias
      ? [
          ['W', [outputs, inputs]],
          ['b', [outputs]],
        ]
      : [['W', [outputs, inputs]]],
  });
  const biased = c.model_type === 'qwen2'; // q, k and v projections with biases

  add('tokens', 'token ids', ['T'], 'the tokens of tokenizer.json');
  add(
    'embed',
    neox ? 'embed_in[tok]' : gemma ? 'embed_tokens[tok] · √E' : 'embed_tokens[tok]',
    ['T', 'E'],
    'the residual stream; no position is added',
    { weights: [[neox ? 'embed_in' : 'embed_tokens', ['V', 'E']]] },
  );
  b('norm_1', `input_layernorm (${norm})`, ['T', 'E'], 'pre-norm: normalises the layer input', gain);
  if (neox) {
    b(
      'qkv',
      'attention.query_key_value',
      ['T', '3E'],
      'one fused projection, per head [q | k | v]',
      proj('E', '3E', true),
    );
    b('heads', 'split into heads: q, k, v', ['H', 'T', 'd'], `each of q, k, v; d = E/H = ${v.d}`);
  } else {
    b('q', 'q_proj', ['T', 'Hd'], `H = ${v.H} query heads of d = ${v.d}`, proj('E', 'Hd', biased));
    b('kv', 'k_proj, v_proj', ['T', 'Kd'], `K = ${v.K} key/value heads each`, proj('E', 'Kd', biased));
    b('heads', 'split into heads: q and k, v', ['H', 'T', 'd'], `k and v: (K, T, d) = (${v.K}, ${T}, ${v.d})`);
    if (c.model_type === 'qwen3' || gemma) {
      b('qk_norm', 'q_norm, k_norm (RMSNorm per head)', ['H', 'T', 'd'], 'over each head’s d values, before RoPE', {
        weights: [['γ', ['d']]],
      });
    }
  }
  const rotated = v.R === v.d ? 'all d dims' : `the first R = ${v.R} of d = ${v.d} dims (the rest pass)`;
  const nope = nopeLayers(c);
  const skipped = nope.length === 0 ? '' : `; not in the NoPE layers (${nope.join(', ')}: no_rope_layers 0)`;
  b('rope', 'RoPE: rotate q and k', ['H', 'T', 'd'], `pairs (i, i + R/2) turn by pos·θᵢ over ${rotated}${skipped}`);
  if (v.K < v.H) {
    b(
      'repeat_kv',
      'repeat_kv: k and v to every query head',
      ['H', 'T', 'd'],
      `grouped-query: each key/value head serves H/K = ${v.H / v.K} query heads`,
    );
  }
  if (hasLocalBase(c.model_type)) {
    b(
      'rope_local',
      'local layers: RoPE at rope_local_base_freq',
      ['H', 'T', 'd'],
      `the ${c.sliding_layers} sliding layers turn at base ${c.rope_local_base_freq}, unscaled; the others at ${c.rope_theta} with the scaling`,
    );
  }
  const window = c.sliding_window > 0 ? ` + sliding window of ${c.sliding_window}` : '';
  const scale = gemma ? `1/√query_pre_attn_scalar = 1/√${c.query_pre_attn_scalar}` : `1/√${v.d}`;
  b(
    'scores',
    `scores = q·kᵀ·${gemma ? 'scale' : '/√d'} + causal mask${window}`,
    ['H', 'T', 'T'],
    `scale ${scale}; keys after the query → −∞`,
  );
  b('softmax', 'softmax over keys', ['H', 'T', 'T'], 'the attention maps drawn on this page');
  b('av', 'weights · v', ['H', 'T', 'd'], 'each head mixes the values it attends to');
  b('merge', 'merge heads', ['T', 'Hd'], 'heads side by side again');
  b('attn_out', neox ? 'attention.dense' : 'o_proj', ['T', 'E'], 'output projection', proj('Hd', 'E', neox));
  const parallel = neox && c.use_parallel_residual;
  if (gemma) b('post_attn_norm', `post_attention_layernorm (${norm})`, ['T', 'E'], 'on the attention output', gain);
  if (!parallel) b('resid1', '+ residual', ['T', 'E'], 'h = x + attention');
  b(
    'norm_2',
    `${gemma ? 'pre_feedforward_layernorm' : 'post_attention_layernorm'} (${norm})`,
    ['T', 'E'],
    parallel ? 'on the layer input x (parallel residual)' : 'on h, before the MLP',
    gain,
  );
  if (neox) {
    b('up', 'mlp.dense_h_to_4h', ['T', 'I'], 'widen', proj('E', 'I', true));
    b('act', 'GELU (exact, erf)', ['T', 'I'], '½u(1 + erf(u/√2))');
    b('down', 'mlp.dense_4h_to_h', ['T', 'E'], 'back to the width', proj('I', 'E', true));
  } else {
    b('up', 'gate_proj, up_proj', ['T', 'I'], 'two projections to the MLP width', proj('E', 'I', false));
    if (gemma) b('act', 'GeGLU: GELU-tanh(gate) · up', ['T', 'I'], 'gelu_pytorch_tanh');
    else b('act', 'SwiGLU: SiLU(gate) · up', ['T', 'I'], 'SiLU(u) = u·σ(u)');
    b('down', 'down_proj', ['T', 'E'], 'back to the width', proj('I', 'E', false));
    if (gemma) b('post_ff_norm', `post_feedforward_layernorm (${norm})`, ['T', 'E'], 'on the MLP output', gain);
  }
  b('resid2', '+ residual', ['T', 'E'], parallel ? 'x = x + attention + MLP (parallel residual)' : 'x = h + MLP');
  add('norm_f', neox ? `final_layer_norm (${norm})` : `norm (final ${norm})`, ['T', 'E'], 'after the last layer', gain);
  const tied = !neox && c.tie_word_embeddings;
  add(
    'logits',
    tied ? 'logits = x · embed_tokensᵀ' : neox ? 'embed_out' : 'lm_head',
    ['T', 'V'],
    tied ? 'tied to the token embedding' : 'a separate output matrix',
    {
      weights: [[tied ? 'embed_tokens' : neox ? 'embed_out' : 'lm_head', ['V', 'E']]],
    },
  );
  add('next', 'softmax of the last row', ['V'], 'next-token probabilities; the top 10 are listed');
  return { steps, values: { ...v, '3E': 3 * v.E, Hd: v.H * v.d, Kd: v.K * v.d } };
}

/** The legend of the symbols for a RoPE model's diagram. */
export function ropeLegend(values) {
  const v = values;
  return (
    `T = ${v.T} tokens, E = hidden_size = ${v.E}, H = num_attention_heads = ${v.H}, K = key/value heads = ${v.K}, ` +
    `d = head width = ${v.d}, R = rotated dims = ${v.R}, I = intermediate_size = ${v.I}, V = vocab_size = ${v.V}, ` +
    `N = num_hidden_layers = ${v.N}. Weights are stored (out, in) as torch's Linear: y = x·Wᵀ + b.`
  );
}

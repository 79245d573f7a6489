// The tensors of GPT-2, GPT-NeoX and Llama checkpoints as Hugging Face saves them, in the released
// files' order, each with its role: one list for the test fixtures, the hub timing and the
// wasm benchmarks, which fill the roles with values of their own.
//   role: 'matrix' (weights, embeddings), 'mlpOut' (the MLP's output projection, a matrix the
//   fixtures keep smaller), 'gain' (LayerNorm weights, around 1), 'bias'

/** GPT-2 (transformers' GPT2Model keys): Conv1D weights are (in, out). */
export function gpt2Layout({ vocab_size: V, n_positions: P, n_embd: E, n_layer: N }) {
  const layout = [
    { name: 'wte.weight', shape: [V, E], role: 'matrix' },
    { name: 'wpe.weight', shape: [P, E], role: 'matrix' },
  ];
  for (let l = 0; l < N; l++) {
    const h = `h.${l}.`;
    layout.push(
      { name: `${h}ln_1.weight`, shape: [E], role: 'gain' },
      { name: `${h}ln_1.bias`, shape: [E], role: 'bias' },
      { name: `${h}attn.c_attn.weight`, shape: [E, 3 * E], role: 'matrix' },
      { name: `${h}attn.c_attn.bias`, shape: [3 * E], role: 'bias' },
      { name: `${h}attn.c_proj.weight`, shape: [E, E], role: 'matrix' },
      { name: `${h}attn.c_proj.bias`, shape: [E], role: 'bias' },
      { name: `${h}ln_2.weight`, shape: [E], role: 'gain' },
      { name: `${h}ln_2.bias`, shape: [E], role: 'bias' },
      { name: `${h}mlp.c_fc.weight`, shape: [E, 4 * E], role: 'matrix' },
      { name: `${h}mlp.c_fc.bias`, shape: [4 * E], role: 'bias' },
      { name: `${h}mlp.c_proj.weight`, shape: [4 * E, E], role: 'mlpOut' },
      { name: `${h}mlp.c_proj.bias`, shape: [E], role: 'bias' },
    );
  }
  layout.push({ name: 'ln_f.weight', shape: [E], role: 'gain' }, { name: 'ln_f.bias', shape: [E], role: 'bias' });
  return layout;
}

/**
 * GPT-NeoX (GPTNeoXForCausalLM keys): Linear weights are (out, in), query_key_value packs q,
 * k, v per head.
 */
export function neoxLayout({ vocab_size: V, hidden_size: E, num_hidden_layers: N, intermediate_size: I }) {
  const layout = [{ name: 'gpt_neox.embed_in.weight', shape: [V, E], role: 'matrix' }];
  for (let l = 0; l < N; l++) {
    const p = `gpt_neox.layers.${l}.`;
    layout.push(
      { name: `${p}input_layernorm.weight`, shape: [E], role: 'gain' },
      { name: `${p}input_layernorm.bias`, shape: [E], role: 'bias' },
      { name: `${p}post_attention_layernorm.weight`, shape: [E], role: 'gain' },
      { name: `${p}post_attention_layernorm.bias`, shape: [E], role: 'bias' },
      { name: `${p}attention.query_key_value.weight`, shape: [3 * E, E], role: 'matrix' },
      { name: `${p}attention.query_key_value.bias`, shape: [3 * E], role: 'bias' },
      { name: `${p}attention.dense.weight`, shape: [E, E], role: 'matrix' },
      { name: `${p}attention.dense.bias`, shape: [E], role: 'bias' },
      { name: `${p}mlp.dense_h_to_4h.weight`, shape: [I, E], role: 'matrix' },
      { name: `${p}mlp.dense_h_to_4h.bias`, shape: [I], role: 'bias' },
      { name: `${p}mlp.dense_4h_to_h.weight`, shape: [E, I], role: 'mlpOut' },
      { name: `${p}mlp.dense_4h_to_h.bias`, shape: [E], role: 'bias' },
    );
  }
  layout.push(
    { name: 'gpt_neox.final_layer_norm.weight', shape: [E], role: 'gain' },
    { name: 'gpt_neox.final_layer_norm.bias', shape: [E], role: 'bias' },
    { name: 'embed_out.weight', shape: [V, E], role: 'matrix' },
  );
  return layout;
}

/**
 * Llama (LlamaForCausalLM keys): Linear weights are (out, in); K kv heads of width d (head_dim,
 * else E/H); no biases; lm_head unless tied. SmolLM2, Qwen2.5 and Mistral use the same names;
 * qwen3 adds q_norm and k_norm, gemma3_text those and the norms around its MLP.
 */
export function llamaLayout({
  model_type: type = 'llama',
  vocab_size: V,
  hidden_size: E,
  num_hidden_layers: N,
  num_attention_heads: H,
  num_key_value_heads: K = H,
  head_dim: d = E / H,
  intermediate_size: I,
  tie_word_embeddings: tied = false,
}) {
  const gemma = type === 'gemma3_text';
  const layout = [{ name: 'model.embed_tokens.weight', shape: [V, E], role: 'matrix' }];
  for (let l = 0; l < N; l++) {
    const p = `model.layers.${l}.`;
    layout.push(
      { name: `${p}input_layernorm.weight`, shape: [E], role: 'gain' },
      { name: `${p}self_attn.q_proj.weight`, shape: [H * d, E], role: 'matrix' },
      { name: `${p}self_attn.k_proj.weight`, shape: [K * d, E], role: 'matrix' },
      { name: `${p}self_attn.v_proj.weight`, shape: [K * d, E], role: 'matrix' },
      { name: `${p}self_attn.o_proj.weight`, shape: [E, H * d], role: 'matrix' },
      { name: `${p}post_attention_layernorm.weight`, shape: [E], role: 'gain' },
      { name: `${p}mlp.gate_proj.weight`, shape: [I, E], role: 'matrix' },
      { name: `${p}mlp.up_proj.weight`, shape: [I, E], role: 'matrix' },
      { name: `${p}mlp.down_proj.weight`, shape: [E, I], role: 'mlpOut' },
    );
    if (type === 'qwen2') {
      layout.push(
        { name: `${p}self_attn.q_proj.bias`, shape: [H * d], role: 'bias' },
        { name: `${p}self_attn.k_proj.bias`, shape: [K * d], role: 'bias' },
        { name: `${p}self_attn.v_proj.bias`, shape: [K * d], role: 'bias' },
      );
    }
    if (type === 'qwen3' || gemma) {
      layout.push(
        { name: `${p}self_attn.q_norm.weight`, shape: [d], role: 'gain' },
        { name: `${p}self_attn.k_norm.weight`, shape: [d], role: 'gain' },
      );
    }
    if (gemma) {
      layout.push(
        { name: `${p}pre_feedforward_layernorm.weight`, shape: [E], role: 'gain' },
        { name: `${p}post_feedforward_layernorm.weight`, shape: [E], role: 'gain' },
      );
    }
  }
  layout.push({ name: 'model.norm.weight', shape: [E], role: 'gain' });
  if (!tied) layout.push({ name: 'lm_head.weight', shape: [V, E], role: 'matrix' });
  return layout;
}

/** How many values a tensor of `shape` holds. */
export const sizeOf = (shape) => shape.reduce((a, b) => a * b, 1);

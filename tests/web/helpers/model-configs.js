// Configs as the language-model module returns them (llamaConfig: Hugging Face keys plus the
// core's `rope` and parameter count), for the tests of what the Models view prints.
import { TINY_NEOX_CONFIG } from '../../helpers/tiny-models.js';

/** SmolLM2-135M: grouped-query (9 query heads, 3 key/value heads), tied, RoPE θ = 10⁵. */
export const SMOLLM2_135M = Object.freeze({
  model_type: 'llama',
  vocab_size: 49152,
  max_position_embeddings: 8192,
  hidden_size: 576,
  num_hidden_layers: 30,
  num_attention_heads: 9,
  num_key_value_heads: 3,
  head_dim: 64,
  intermediate_size: 1536,
  rope_theta: 100000,
  rope: { scaling: 'none', factor: 1, originalLength: 8192, rotaryDim: 64, base: 100000 },
  sliding_window: 0,
  tie_word_embeddings: true,
  rms_norm_eps: 1e-5,
  parameters: 134515008,
});

/** Pythia-70m (GPT-NeoX): fused qkv, a quarter of each head rotated, parallel residual. */
export const PYTHIA_70M = Object.freeze({
  ...TINY_NEOX_CONFIG,
  vocab_size: 50304,
  hidden_size: 512,
  num_hidden_layers: 6,
  num_attention_heads: 8,
  intermediate_size: 2048,
  max_position_embeddings: 2048,
  rotary_pct: 0.25,
  rope: { scaling: 'none', factor: 1, originalLength: 2048, rotaryDim: 16, base: 10000 },
  parameters: 70426624,
});

// Types of the Llama family's API (llama.js: llama, mistral, qwen2, qwen3, gemma3_text, smollm3), in the
// same lab as GPT-2's and GPT-NeoX's (poslab-lm module). Forward options and results are
// GPT-NeoX's.
import type { RopeLmLoading, RopeLmModel, RopeScalingName, ShardedCheckpoint } from './gpt-neox';

/** config.json's keys (transformers' names); the core reads and checks them as the CLI does. */
export interface LlamaConfig {
  model_type: 'llama' | 'mistral' | 'qwen2' | 'qwen3' | 'gemma3_text' | 'smollm3';
  vocab_size: number;
  hidden_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  max_position_embeddings: number; // the trained context
  num_key_value_heads: number; // K, which divides num_attention_heads
  head_dim: number;
  intermediate_size: number;
  rope_theta: number;
  rms_norm_eps: number;
  tie_word_embeddings: boolean;
  sliding_window: number; // 0: none
  /** gemma3_text only: the scores' scale is its −½ power. */
  query_pre_attn_scalar?: number;
  /** gemma3_text only: the sliding layers' RoPE base (unscaled), and how many layers slide. */
  rope_local_base_freq?: number;
  sliding_layers?: number;
  /** smollm3 only: each layer's rotation as config.json spells it, 1 rotates q and k, 0 does not (NoPE). */
  no_rope_layers?: number[];
  /** The config's own rotation (rope_scaling, or 'none'; 'longrope' for Phi-3's per-pair lists). */
  rope: {
    scaling: RopeScalingName | 'longrope';
    factor: number;
    originalLength: number;
    rotaryDim: number;
    base: number;
  };
  parameters: number;
  json: string; // the config.json the core reads back to this config
}

/** A preset, or config.json as its text: one of them is required. */
export interface LlamaConfigChoice {
  preset?: 'smollm2-135m' | 'qwen2.5-0.5b' | 'smollm3-3b';
  config?: string | Record<string, unknown>;
}

export type LlamaModel = RopeLmModel<'llama', LlamaConfig>;
export type LlamaLoading = RopeLmLoading<LlamaModel>;

export interface LlamaLab {
  llamaConfig(choice: LlamaConfigChoice): LlamaConfig;
  llamaRandom(choice: LlamaConfigChoice & { seed?: number; dtype?: 'F32' | 'F16' }): LlamaModel;
  /** header: the file's first 8 + N bytes; checked against the config before allocating. */
  llamaLoader(options: LlamaConfigChoice & { header: Uint8Array; fileSize: number; name?: string }): LlamaLoading;
  /** Every shard's header checked against the index and the config before allocating. */
  llamaShardedLoader(options: LlamaConfigChoice & ShardedCheckpoint): LlamaLoading;
}

export function bindLlama(module: object): LlamaLab;

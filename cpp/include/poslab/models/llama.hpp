// The Llama family — Llama 2 / 3.x, SmolLM2, TinyLlama (`llama`), Mistral (`mistral`), Qwen2 /
// Qwen2.5 (`qwen2`), Qwen3 (`qwen3`), SmolLM3 (`smollm3`) — as Hugging Face's
// modeling_llama.py, modeling_mistral.py, modeling_qwen2.py and modeling_qwen3.py compute it,
// on the family's decoder skeleton. What tells the members apart: qwen2 biases q, k and v
// (never o); qwen3 RMS-normalises every head of q and k (q_norm, k_norm over d) before RoPE;
// mistral, qwen2 and qwen3 may attend in a sliding window (masking_utils: key j visible to query i
// when i − W < j <= i). Gemma 3's text model (`gemma3_text`, modeling_gemma3.py) is the same
// description with its own few ops: RMSNorm gains (1 + w), q/k norms as qwen3's, a norm after
// attention and around the MLP too (sandwich), embeddings times √E, scores times
// query_pre_attn_scalar^(−1/2), the gated GELU-tanh MLP, and sliding layers (layer_types, or
// every layer but each sliding_window_pattern-th) that turn at rope_local_base_freq unscaled
// while the full ones turn at rope_theta with the scaling. SmolLM3 (`smollm3`,
// modeling_smollm3.py) is Llama with NoPE layers: SmolLM3Attention's use_rope =
// no_rope_layers[i] (1 rotates, 0 does not; absent, every no_rope_layer_interval-th layer is
// NoPE), a NoPE layer's q and k going to attention unrotated, and with use_sliding_window and a
// sliding_window its NoPE layers slide (layer_types). Shapes: T tokens,
// E = hidden_size, H = num_attention_heads, K = num_key_value_heads (H/K query heads share one
// key/value head: GQA, MQA at K = 1), d = head_dim (config's, else E/H), I = intermediate_size,
// V = vocab_size, N = num_hidden_layers.
//   x = embed_tokens[tok]                                                   (T, E)
//   per layer: a = input_layernorm(x)                       RMSNorm: a/√(mean(a²) + eps)·γ
//              q = q_proj(a) (T, H·d), k = k_proj(a), v = v_proj(a) (T, K·d)
//              RoPE on q and k over the whole head (rotate_half pairs = RopeStyle::kNeox,
//              θ_i = rope_theta^(−2i/d), the config's rope_scaling if any; none in a NoPE
//              layer); k and v repeated
//              to H heads (repeat_kv: query head h reads kv head h / (H/K)); causal, scale 1/√d
//              h = x + o_proj(attention)                                   (T, E)
//              x = h + down_proj(silu(gate_proj(m)) · up_proj(m)),  m = post_attention_layernorm(h)
//   logits = norm(x) · lm_headᵀ                  lm_head = embed_tokens when tie_word_embeddings
// Weights are torch Linear (out, in), no biases unless attention_bias (llama, qwen3, smollm3:
// q, k, v and o_proj) or qwen2 (q, k and v).
//
// Length and memory as GPT-NeoX's (gpt_neox.hpp): up to kMaxRopeLmTokens, the losses reduced a
// panel of the vocabulary at a time, every large tensor checked against the element cap first.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

// The shared pieces: the loader, options and result, trace, dims, rope_scaling (lm.hpp et al.).
#include "poslab/models/lm.hpp"
#include "poslab/models/lm_dims.hpp"
#include "poslab/models/lm_rope_scaling.hpp"

namespace poslab {

struct LlamaWeights;

// config.json's rope_scaling in LmRopeScaling's fields, read as GPT-NeoX's.
struct LlamaConfig : LmRopeScaling {
  using Weights = LlamaWeights;  // for the shared templates of lm_weights.hpp
  // config.json's model_type: kLlama, kMistral, kQwen2, kQwen3, kGemma3 or kSmolLm3.
  LmArchitecture model_type = LmArchitecture::kLlama;
  // vocab_size, max_position_embeddings (the trained context), hidden_size, num_hidden_layers,
  // num_attention_heads (kDimKeys): SmolLM2-135M's by default.
  LmDims dims{49152, 8192, 576, 30, 9};
  static constexpr LmDimKeys kDimKeys = kHiddenSizeDimKeys;
  long long num_key_value_heads = 3;  // K, which divides H
  long long explicit_head_dim = 0;    // config.json's head_dim; 0: E/H
  long long intermediate_size = 1536;
  double rope_theta = 100000.0;
  double rms_norm_eps = 1e-5;
  bool tie_word_embeddings = true;
  bool attention_bias = false;
  // The top-level (legacy) original_max_position_embeddings, when rope_scaling has none; 0:
  // absent.
  long long original_max_position_embeddings = 0;
  // Sliding-window attention of width W = sliding_window on the layers sliding_layers marks
  // (empty: none): mistral's every layer once sliding_window is set; qwen2's and qwen3's
  // layer_types, or with use_sliding_window the layers from max_window_layers on.
  long long sliding_window = 0;
  std::vector<bool> sliding_layers;
  // The layers that do not rotate q and k (NoPE), N entries (empty: every layer rotates):
  // smollm3's no_rope_layers (0 there is true here) or every no_rope_layer_interval-th layer.
  std::vector<bool> nope_layers;
  // gemma3_text: scores times query_pre_attn_scalar^(−1/2), and the sliding layers' base.
  double query_pre_attn_scalar = 256.0;
  double rope_local_base_freq = 10000.0;

  bool qkv_bias() const { return attention_bias || model_type == LmArchitecture::kQwen2; }
  bool o_bias() const { return attention_bias && model_type != LmArchitecture::kQwen2; }
  bool qk_norm() const {
    return model_type == LmArchitecture::kQwen3 || model_type == LmArchitecture::kGemma3;
  }
  bool gemma() const { return model_type == LmArchitecture::kGemma3; }
  bool smollm3() const { return model_type == LmArchitecture::kSmolLm3; }
  // The model in messages: "Gemma 3", "SmolLM3", else "Llama".
  const char* family_name() const { return gemma() ? "Gemma 3" : smollm3() ? "SmolLM3" : "Llama"; }
  // What the RMSNorm gains add to the stored weights: Gemma's (1 + w), 0 elsewhere.
  double norm_gain_offset() const { return gemma() ? 1.0 : 0.0; }
  // Gemma multiplies the embeddings by √E (as float32, in the model's dtype).
  double embedding_scale() const;
  // The attention scores' scale: 1/√d, Gemma's query_pre_attn_scalar^(−1/2).
  double attention_scale() const;
  // The window of layer i's attention, 0 for a full causal one.
  long long window_of(std::size_t layer) const {
    return layer < sliding_layers.size() && sliding_layers[layer] ? sliding_window : 0;
  }

  // "smollm2-135m": 49152, 576, 30 layers, 9 heads, 3 kv heads, I 1536, tied.
  static LlamaConfig smollm2_135m();
  // "qwen2.5-0.5b": qwen2, 151936, 896, 24 layers, 14 heads, 2 kv heads, I 4864, θ 1e6, tied.
  static LlamaConfig qwen2_5_0_5b();
  // "smollm3-3b": smollm3, 128256, 2048, 36 layers (every 4th NoPE), 16 heads, 4 kv heads,
  // I 11008, θ 5e6, context 65536, eps 1e-6, tied.
  static LlamaConfig smollm3_3b();
  static LlamaConfig preset(const std::string& name);
  // Hugging Face config.json text (model_type llama, mistral, qwen2, qwen3, gemma3_text or
  // smollm3; llama when absent). Required: vocab_size, hidden_size, num_hidden_layers,
  // num_attention_heads, intermediate_size. Optional with the member's transformers defaults
  // (model_types.cpp): num_key_value_heads (absent: llama H, mistral 8, qwen 32, smollm3 4;
  // null: H), head_dim (E/H; qwen3 128), max_position_embeddings (llama 2048, mistral 131072,
  // qwen and smollm3 32768), rope_theta 10000 (smollm3 2e6), rms_norm_eps 1e-6,
  // tie_word_embeddings false (smollm3 true), attention_bias false (llama, qwen3, smollm3),
  // sliding_window (mistral: 4096, null for none), use_sliding_window false, sliding_window
  // 4096, max_window_layers 28 and layer_types (qwen2, qwen3), no_rope_layers or
  // no_rope_layer_interval 4, use_sliding_window false, sliding_window null and layer_types
  // (smollm3), rope_scaling (linear, dynamic, yarn, llama3; "type" or "rope_type"),
  // original_max_position_embeddings. Refused, naming the key: hidden_act other than "silu",
  // mlp_bias true, pretraining_tp other than 1 (but smollm3, whose modeling never reads it),
  // partial_rotary_factor other than 1, a rope_scaling this core does not compute. Other keys
  // (dropout, token ids, ...) do not change the forward pass and are ignored. `name` labels
  // errors.
  static LlamaConfig from_json(const std::string& text, const std::string& name);
  // The config.json that from_json reads back to this config.
  std::string to_json() const;

  // Throws unless every size is positive, H divides E, K divides H, d is even, eps, θ and the
  // scaling are valid, the NoPE layers are smollm3's (one entry per layer) and the parameter
  // count is within kMaxLlamaParameters.
  void validate() const;
  std::uint64_t parameter_count() const;
  long long head_dim() const { return explicit_head_dim > 0 ? explicit_head_dim : dims.head_dim(); }
  // The rotation of q and k: neox pairs over the whole head, rope_theta, the scaling. Its
  // original length N: max_position_embeddings for dynamic (transformers' dynamic NTK divides
  // by it), else rope_scaling's original_max_position_embeddings, the top-level one, or
  // max_position_embeddings, in that order.
  RopeOptions rope() const;
  // Layer i's rotation: rope() (or `full`, an override to explore), but Gemma's sliding layers
  // turn at rope_local_base_freq unscaled (with full's zeroed pairs).
  RopeOptions layer_rope(std::size_t layer, const RopeOptions& full) const;
  // Whether layer i is a NoPE layer (no rotation of q and k), and whether any is.
  bool nope(std::size_t layer) const { return layer < nope_layers.size() && nope_layers[layer]; }
  bool has_nope_layers() const;
  // Whether layer i turns at the local base (Gemma 3's sliding layers), and whether any does.
  bool local_rotation(std::size_t layer) const { return gemma() && window_of(layer) != 0; }
  bool has_local_rotation() const;
};

// 2^30 parameters in the wasm build: Qwen3-0.6B's 596M fit, 1.2 GB held in BF16 as stored; the
// 2 GiB heap, not this count, is what refuses a larger model there ("out of memory: … capped
// at 2 GiB"). 2^32 natively.
inline constexpr std::uint64_t kMaxLlamaParameters = std::uint64_t{16} * kMaxElements;

// Every weight keeps the dtype its checkpoint stored, BF16 widened to F32 (random init is F32).
// The biases exist only with attention_bias.
struct LlamaLayer {
  StoredTensor input_layernorm_weight, post_attention_layernorm_weight;  // (E,)
  StoredTensor q_proj_weight, q_proj_bias;                               // (H·d, E), (H·d,)
  StoredTensor k_proj_weight, k_proj_bias;                               // (K·d, E), (K·d,)
  StoredTensor v_proj_weight, v_proj_bias;                               // (K·d, E), (K·d,)
  StoredTensor o_proj_weight, o_proj_bias;                               // (E, H·d), (E,)
  StoredTensor q_norm_weight, k_norm_weight;  // (d,): qwen3's per-head RMSNorm gains
  StoredTensor pre_feedforward_layernorm_weight, post_feedforward_layernorm_weight;  // gemma
  StoredTensor gate_proj_weight, up_proj_weight;                                     // (I, E)
  StoredTensor down_proj_weight;                                                     // (E, I)
};

struct LlamaWeights {
  LlamaConfig config;
  StoredTensor embed_tokens;  // (V, E)
  std::vector<LlamaLayer> layers;
  StoredTensor norm_weight;  // (E,)
  StoredTensor lm_head;      // (V, E); empty when tied
  // The vocabulary matrix of the head: lm_head, or embed_tokens when tied.
  const StoredTensor& head() const { return config.tie_word_embeddings ? embed_tokens : lm_head; }
  std::uint64_t bytes() const;
};

// Hugging Face's names ("model.embed_tokens.weight", "model.layers.0.self_attn.q_proj.weight",
// ..., "model.norm.weight", "lm_head.weight" unless tied), shapes and inits for the shared
// loader. Skipped: the rotary buffers older checkpoints saved
// (model.layers.N.self_attn.rotary_emb.inv_freq for a layer the config has) and, when tied,
// an lm_head.weight the file carries anyway (transformers ties it to embed_tokens).
LmTensorLayout lm_tensor_layout(LlamaWeights& weights, LmLayers layers);

// Streamed: LlamaLoader; whole: lm_weights_from_bytes / load_lm_weights with the config
// (lm_weights.hpp).
using LlamaLoader = LmLoader<LlamaWeights>;

// The logits, losses, trace (norm statistics of the inputs) and top-k asked for, and the
// rotation to explore (lm.hpp).
using LlamaResult = RopeLmResult;
using LlamaOptions = RopeLmOptions;

// tokens: 1 <= T <= kMaxRopeLmTokens ids, each in [0, V); sizes checked before any work.
LlamaResult llama_forward(const LlamaWeights& weights, const std::vector<long long>& tokens,
                          const LlamaOptions& options = {});

}  // namespace poslab

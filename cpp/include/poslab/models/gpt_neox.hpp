// GPT-NeoX (Black et al. 2022; Pythia, Biderman et al. 2023) as Hugging Face's `gpt_neox`
// computes it, with a trace of the intermediates a viewer wants. Shapes: T tokens,
// E = hidden_size, H = num_attention_heads, d = E/H, R = int(d·rotary_pct) rotated dims,
// I = intermediate_size, V = vocab_size, N = num_hidden_layers.
//   x = embed_in[tok]                                                      (T, E)
//   per layer: a = attention.dense(attn(rope(query_key_value(input_layernorm(x)))))
//              m = mlp(post_attention_layernorm(x)),  x = x + a + m       parallel residual
//          or  h = x + a,  x = h + mlp(post_attention_layernorm(h))       sequential
//     query_key_value (3E, E): its output viewed as (T, H, 3d) is per head [q | k | v];
//     RoPE rotates the first R dims of q and k (rotate_half pairs = RopeStyle::kNeox,
//     θ_i = rotary_emb_base^(−2i/R), the config's rope_scaling if any); causal, scale 1/√d;
//     mlp = dense_4h_to_h(gelu(dense_h_to_4h(·))), gelu the exact erf form.
//   logits = final_layer_norm(x) · embed_outᵀ                              (T, V), untied
// Weights are torch Linear (out, in): y = x·Wᵀ + b.
//
// Length: RoPE has no position table, so T may exceed max_position_embeddings (what the
// scaling curves are for) up to kMaxRopeLmTokens = 65 536, the range over which the core's
// angles stay within 1e-5 (ARCHITECTURE.md §4). Long sequences ask for the losses instead of
// the logits: (T, V) would pass the element cap (Pythia's V = 50 304: T > 5 336), and the
// losses are reduced a block of the vocabulary at a time, never holding (T, V). Attention
// weights (H, T, T) are only kept when traced, and the whole trace (N, H, T, T) is capped.
// Both precisions keep memory bounded at long T (the reference attention works per head in
// blocks of 128 query rows); the double path is the slower by about 4× (Pythia-70m, T = 2048:
// 18 s against 4 s on one core).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

// The shared pieces: the loader, options and result, trace, dims, rope_scaling (lm.hpp et al.).
#include "poslab/models/lm.hpp"
#include "poslab/models/lm_dims.hpp"
#include "poslab/models/lm_rope_scaling.hpp"

namespace poslab {

struct GptNeoxWeights;

// config.json's rope_scaling ({"type" | "rope_type", "factor", ...}) in LmRopeScaling's
// fields; none when absent.
struct GptNeoxConfig : LmRopeScaling {
  using Weights = GptNeoxWeights;  // for the shared templates of lm_weights.hpp
  // vocab_size, max_position_embeddings (the trained context: RoPE scalings' N), hidden_size,
  // num_hidden_layers, num_attention_heads (kDimKeys): Pythia-70m's by default.
  LmDims dims{50304, 2048, 512, 6, 8};
  static constexpr LmDimKeys kDimKeys = kHiddenSizeDimKeys;
  long long intermediate_size = 2048;
  double rotary_pct = 0.25;
  double rotary_emb_base = 10000.0;
  double layer_norm_eps = 1e-5;
  bool use_parallel_residual = true;

  static GptNeoxConfig pythia_70m();   // 50304, 512, 6 layers, 8 heads, I 2048
  static GptNeoxConfig pythia_160m();  // 50304, 768, 12 layers, 12 heads, I 3072
  // "pythia-70m" | "pythia-160m"
  static GptNeoxConfig preset(const std::string& name);
  // Hugging Face config.json text. Required: vocab_size, hidden_size, num_hidden_layers,
  // num_attention_heads, intermediate_size (transformers' defaults are GPT-NeoX-20B, which no
  // small checkpoint matches). Optional with transformers' defaults: max_position_embeddings
  // 2048, rotary_pct 0.25 (alias partial_rotary_factor), rotary_emb_base 10000 (alias
  // rope_theta), layer_norm_eps 1e-5, use_parallel_residual true, rope_scaling. Refused, naming
  // the key: hidden_act other than "gelu", tie_word_embeddings true, attention_bias false, a
  // rope_scaling this core does not compute. Other keys (dropout, token ids, ...) do not change
  // the forward pass and are ignored. `name` labels errors.
  static GptNeoxConfig from_json(const std::string& text, const std::string& name);
  // The config.json that from_json reads back to this config (model_type "gpt_neox").
  std::string to_json() const;

  // Throws unless every size is positive, H divides E, R = int(d·rotary_pct) is even and >= 2,
  // eps, base and the scaling are valid and the parameter count is within kMaxGptNeoxParameters.
  void validate() const;
  // embed_in + N layers + final_layer_norm + embed_out.
  std::uint64_t parameter_count() const;
  long long head_dim() const { return dims.head_dim(); }
  // The rotation of q and k as the config describes it: neox pairs, base, fraction, scaling
  // (original length defaulting to max_position_embeddings).
  RopeOptions rope() const;
};

// The most parameters a model may have (as GPT-2's: 8× the per-tensor element cap).
inline constexpr std::uint64_t kMaxGptNeoxParameters = std::uint64_t{8} * kMaxElements;

// Every weight keeps the dtype its checkpoint stored, BF16 widened to F32 (random init is F32).
struct GptNeoxLayer {
  StoredTensor input_layernorm_weight, input_layernorm_bias;                    // (E,)
  StoredTensor post_attention_layernorm_weight, post_attention_layernorm_bias;  // (E,)
  StoredTensor query_key_value_weight;                    // (3E, E): output per head [q | k | v]
  StoredTensor query_key_value_bias;                      // (3E,)
  StoredTensor dense_weight, dense_bias;                  // (E, E), (E,)
  StoredTensor dense_h_to_4h_weight, dense_h_to_4h_bias;  // (I, E), (I,)
  StoredTensor dense_4h_to_h_weight, dense_4h_to_h_bias;  // (E, I), (E,)
};

struct GptNeoxWeights {
  GptNeoxConfig config;
  StoredTensor embed_in;  // (V, E)
  std::vector<GptNeoxLayer> layers;
  StoredTensor final_layer_norm_weight, final_layer_norm_bias;  // (E,)
  StoredTensor embed_out;                                       // (V, E)

  std::uint64_t bytes() const;
};

// The architecture's description of its checkpoint for the shared loader (lm_weights.hpp):
// Hugging Face's names ("gpt_neox.embed_in.weight", "gpt_neox.layers.0.attention.
// query_key_value.weight", ..., "embed_out.weight" in checkpoint order), shapes and inits. The
// buffers some checkpoints carry (gpt_neox.layers.N.attention.rotary_emb.inv_freq,
// .attention.bias, .attention.masked_bias for a layer the config has,
// gpt_neox.rotary_emb.inv_freq) are skipped; any other name is refused. The layers sized to
// num_hidden_layers or required to have it. From it (lm_weights.hpp): lm_named_tensors,
// check_lm_weights, lm_random_weights (matrices and embeddings N(0, 0.02²) from
// poslab::Rng(seed), biases 0, LayerNorm gains 1).
LmTensorLayout lm_tensor_layout(GptNeoxWeights& weights, LmLayers layers);

// A .safetensors checkpoint delivered as a stream of bytes, checked against `config` (every
// name, shape and dtype) before the weights are allocated (LmLoader).
using GptNeoxLoader = LmLoader<GptNeoxWeights>;

// The whole checkpoint: lm_weights_from_bytes / load_lm_weights with the config
// (lm_weights.hpp); the file does not say its head count or rotary settings.

// Per layer: attention, input_layernorm's and post_attention_layernorm's statistics, the
// residual norms (lm_layer_trace.hpp).
using GptNeoxLayerTrace = LmLayerTrace;

// The logits, losses, trace and top-k asked for, and the rotation to explore (lm.hpp).
using GptNeoxResult = RopeLmResult;
using GptNeoxOptions = RopeLmOptions;

// tokens: 1 <= T <= kMaxRopeLmTokens ids, each in [0, V). Every tensor the pass will
// allocate ((T, V) logits, the (N, H, T, T) trace, activations) is checked against the
// element cap before any work.
GptNeoxResult gpt_neox_forward(const GptNeoxWeights& weights, const std::vector<long long>& tokens,
                               const GptNeoxOptions& options = {});

}  // namespace poslab

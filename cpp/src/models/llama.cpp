// The Llama forward pass over one sequence, on the family's decoder skeleton (decoder.hpp) with
// the Llama family's own ops: RMSNorm, separate q/k/v projections with grouped-query heads,
// and the SwiGLU MLP (Gemma 3: (1 + w) gains, sandwich norms, the gated GELU-tanh MLP, its
// scale and local rotation; SmolLM3: its NoPE layers); the products in either precision
// (model_ops.hpp). Tensors between steps are float32 in both. Shapes: T tokens, E width, H query
// heads, K kv heads, d head width, I MLP width, V vocabulary.
#include "poslab/models/llama.hpp"

#include "models/decoder.hpp"
#include "models/model_ops.hpp"
#include "models/vocabulary_head.hpp"
#include "poslab/models/lm.hpp"

namespace poslab {
namespace {

// torch's Linear, its bias when the checkpoint has one (attention_bias).
TensorF linear(const TensorF& x, const StoredTensor& w, const StoredTensor& b, Precision precision,
               const char* what) {
  return model::linear(x, w, b.size() > 0 ? &b : nullptr, precision, what);
}

// RMSNorm of every head's vector: x (n, T, d) as (n·T, d) rows.
TensorF per_head_rms_norm(TensorF x, const StoredTensor& weight, const LlamaConfig& c) {
  const Shape shape = x.shape;
  x.shape = {shape[0] * shape[1], shape[2]};
  TensorF y = model::rms_norm(x, weight, c.rms_norm_eps, c.norm_gain_offset());
  y.shape = shape;
  return y;
}

// Causal (or sliding-window) self-attention of layer i: q (H heads), k and v (K heads) projected
// separately, q and k rotated (not in a NoPE layer), k and v repeated to H heads, heads merged (T,
// H·d) and projected by o_proj.
TensorF self_attention(const TensorF& a, const LlamaLayer& layer, const LlamaConfig& c,
                       std::size_t i, const RopeOptions& rope, const RopeLmOptions& options,
                       LmLayerTrace* trace) {
  const Precision precision = options.precision;
  const std::size_t H = std::size_t(c.dims.heads), K = std::size_t(c.num_key_value_heads);
  const TensorF q = linear(a, layer.q_proj_weight, layer.q_proj_bias, precision, "q (T, H·d)");
  const TensorF k = linear(a, layer.k_proj_weight, layer.k_proj_bias, precision, "k (T, K·d)");
  const TensorF v = linear(a, layer.v_proj_weight, layer.v_proj_bias, precision, "v (T, K·d)");
  model::Heads heads{model::heads_of(q, H, "q (H, T, d)"), model::heads_of(k, K, "k (K, T, d)"),
                     model::heads_of(v, K, "v (K, T, d)")};
  if (c.qk_norm()) {  // qwen3, gemma3: q_norm and k_norm over each head's d values, before RoPE
    heads.q = per_head_rms_norm(std::move(heads.q), layer.q_norm_weight, c);
    heads.k = per_head_rms_norm(std::move(heads.k), layer.k_norm_weight, c);
  }
  const RopeOptions layer_rope = c.local_rotation(i)
                                     ? surgery_rope(c.layer_rope(i, rope), options.surgery, true)
                                     : c.layer_rope(i, rope);
  const TensorF merged = model::rope_attention(std::move(heads), layer_rope, options, i, trace,
                                               c.window_of(i), c.attention_scale(), c.nope(i));
  TensorF out =
      linear(merged, layer.o_proj_weight, layer.o_proj_bias, precision, "attention (T, E)");
  if (!c.gemma()) return out;
  return model::rms_norm(out, layer.post_attention_layernorm_weight, c.rms_norm_eps, 1.0);
}

// down_proj(act(gate_proj(m)) · up_proj(m)): (T, E) → (T, I) → (T, E); act silu (SwiGLU), or
// Gemma's GELU-tanh with the post-feedforward norm after.
TensorF mlp(const TensorF& m, const LlamaLayer& layer, const LlamaConfig& c, Precision precision) {
  TensorF gate = model::linear(m, layer.gate_proj_weight, nullptr, precision, "MLP gate (T, I)");
  const TensorF up = model::linear(m, layer.up_proj_weight, nullptr, precision, "MLP up (T, I)");
  if (c.gemma()) {
    model::geglu_tanh(gate, up, precision);
  } else {
    model::swiglu(gate, up, precision);
  }
  TensorF out =
      model::linear(gate, layer.down_proj_weight, nullptr, precision, "MLP output (T, E)");
  if (!c.gemma()) return out;
  return model::rms_norm(out, layer.post_feedforward_layernorm_weight, c.rms_norm_eps, 1.0);
}

// Every large tensor the pass will allocate, against the element cap, before any work.
void check_sizes(const LlamaConfig& c, std::size_t T, const LlamaOptions& options) {
  const std::size_t H = std::size_t(c.dims.heads), d = std::size_t(c.head_dim());
  checked_numel({T, H * d}, "q (T, H·d)");
  checked_numel({H, T, d}, "repeated kv heads (H, T, d)");
  checked_numel({T, std::size_t(c.intermediate_size)}, "MLP hidden (T, I)");
  model::check_output_sizes(T, std::size_t(c.dims.vocab_size), std::size_t(c.dims.layers), H,
                            options.logits, options.trace);
}

}  // namespace

LlamaResult llama_forward(const LlamaWeights& weights, const std::vector<long long>& tokens,
                          const LlamaOptions& options) {
  check_lm_weights(weights);
  const LlamaConfig& c = weights.config;
  const double eps = c.rms_norm_eps, offset = c.norm_gain_offset();
  const Precision precision = options.precision;
  const auto layer = [&](std::size_t i, const RopeOptions& rope, const RopeLmOptions& o) {
    const LlamaLayer* l = &weights.layers[i];
    // The norm before the MLP: post_attention_layernorm, Gemma's pre_feedforward_layernorm
    // (its post_attention_layernorm follows the attention instead).
    const StoredTensor& before_mlp =
        c.gemma() ? l->pre_feedforward_layernorm_weight : l->post_attention_layernorm_weight;
    return model::DecoderLayer{
        model::rms_norm_op(l->input_layernorm_weight, eps, offset),
        model::rms_norm_op(before_mlp, eps, offset),
        [l, &c, i, &rope, &o](const TensorF& a, LmLayerTrace* t) {
          return self_attention(a, *l, c, i, rope, o, t);
        },
        [l, &c, precision](const TensorF& m) { return mlp(m, *l, c, precision); },
        model::Residual::kSequential};
  };
  return model::rope_lm_forward(
      tokens, options, c.rope(), c.dims, c.head_dim(),
      {c.family_name(), &weights.embed_tokens, c.embedding_scale(), &weights.head(),
       weights.layers.size(), [&](std::size_t T) { check_sizes(c, T, options); }, layer,
       [&](const TensorF& x) { return model::rms_norm(x, weights.norm_weight, eps, offset); },
       c.has_local_rotation()});
}

}  // namespace poslab

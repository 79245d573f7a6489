// The GPT-NeoX forward pass over one sequence, from the core's LayerNorm and RoPE and the
// blocks both language models share (model_ops.hpp: linear, GELU, attention), in either
// precision: kDouble accumulates in double through Eigen with the reference RoPE and
// attention; kFloat uses poslab::fast::gemm, fast::rope_apply and fast::attention. Tensors
// between steps are float32 in both.
// Shapes: T tokens, E width, H heads, d = E/H, I MLP width, V vocabulary.
#include "poslab/models/gpt_neox.hpp"

#include <algorithm>
#include <cmath>

#include "models/decoder.hpp"
#include "models/model_ops.hpp"
#include "models/vocabulary_head.hpp"
#include "poslab/models/lm.hpp"

namespace poslab {
namespace {

TensorF linear(const TensorF& x, const StoredTensor& w, const StoredTensor& b, Precision precision,
               const char* what) {
  return model::linear(x, w, &b, precision, what);
}

// Causal self-attention of one layer: qkv (T, 3E) = query_key_value(a), per head [q | k | v];
// q and k rotated; heads merged and projected by dense.
TensorF self_attention(const TensorF& a, const GptNeoxLayer& layer, std::size_t i, std::size_t H,
                       const RopeOptions& rope, const RopeLmOptions& options, LmLayerTrace* trace) {
  const Precision precision = options.precision;
  const TensorF qkv = linear(a, layer.query_key_value_weight, layer.query_key_value_bias, precision,
                             "query_key_value output (T, 3E)");
  model::Heads heads = model::split_heads(qkv, H, model::QkvLayout::kPerHead);
  const TensorF merged = model::rope_attention(std::move(heads), rope, options, i, trace);
  return linear(merged, layer.dense_weight, layer.dense_bias, precision, "attention (T, E)");
}

// dense_4h_to_h(gelu(dense_h_to_4h(m))): (T, E) → (T, I) → (T, E), GELU the exact erf form
// (Hugging Face's "gelu").
TensorF mlp(const TensorF& m, const GptNeoxLayer& layer, Precision precision) {
  TensorF hidden = linear(m, layer.dense_h_to_4h_weight, layer.dense_h_to_4h_bias, precision,
                          "MLP hidden (T, I)");
  model::gelu_erf(hidden, precision);
  return linear(hidden, layer.dense_4h_to_h_weight, layer.dense_4h_to_h_bias, precision,
                "MLP output (T, E)");
}

// Every large tensor the pass will allocate, against the element cap, before any work.
void check_sizes(const GptNeoxConfig& c, std::size_t T, const GptNeoxOptions& options) {
  const std::size_t E = std::size_t(c.dims.width), I = std::size_t(c.intermediate_size);
  const std::size_t V = std::size_t(c.dims.vocab_size), H = std::size_t(c.dims.heads);
  const std::size_t N = std::size_t(c.dims.layers);
  checked_numel({T, 3 * E}, "query_key_value output (T, 3E)");
  checked_numel({T, I}, "MLP hidden (T, I)");
  model::check_output_sizes(T, V, N, H, options.logits, options.trace);
}

}  // namespace

GptNeoxResult gpt_neox_forward(const GptNeoxWeights& weights, const std::vector<long long>& tokens,
                               const GptNeoxOptions& options) {
  check_lm_weights(weights);
  const GptNeoxConfig& c = weights.config;
  const std::size_t H = std::size_t(c.dims.heads);
  const double eps = c.layer_norm_eps;
  const Precision precision = options.precision;
  const auto layer = [&](std::size_t i, const RopeOptions& rope, const RopeLmOptions& o) {
    const GptNeoxLayer* l = &weights.layers[i];
    return model::DecoderLayer{
        model::layer_norm_op(l->input_layernorm_weight, l->input_layernorm_bias, eps),
        model::layer_norm_op(l->post_attention_layernorm_weight, l->post_attention_layernorm_bias,
                             eps),
        [l, i, H, &rope, &o](const TensorF& a, LmLayerTrace* t) {
          return self_attention(a, *l, i, H, rope, o, t);
        },
        [l, precision](const TensorF& m) { return mlp(m, *l, precision); },
        c.use_parallel_residual ? model::Residual::kParallel : model::Residual::kSequential};
  };
  return model::rope_lm_forward(
      tokens, options, c.rope(), c.dims, c.head_dim(),
      {"GPT-NeoX", &weights.embed_in, 1.0, &weights.embed_out, weights.layers.size(),
       [&](std::size_t T) { check_sizes(c, T, options); }, layer,
       [&](const TensorF& x) {
         return model::layer_norm(x, weights.final_layer_norm_weight, weights.final_layer_norm_bias,
                                  eps);
       }});
}

}  // namespace poslab

// The GPT-NeoX forward pass over one sequence, from the core's LayerNorm and RoPE and the
// blocks both language models share (model_ops.hpp: linear, GELU, attention), in either
// precision: kDouble accumulates in double through Eigen with the reference RoPE and
// attention; kFloat uses poslab::fast::gemm, fast::rope_apply and fast::attention. Tensors
// between steps are float32 in both.
// Shapes: T tokens, E width, H heads, d = E/H, I MLP width, V vocabulary.
#include "poslab/models/gpt_neox.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "models/decoder.hpp"
#include "models/model_ops.hpp"
#include "poslab/fast/gemm.hpp"
#include "poslab/models/lm.hpp"

namespace poslab {
namespace {

using MatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMapF = Eigen::Map<const MatrixF>;
using MapF = Eigen::Map<MatrixF, 0, Eigen::OuterStride<>>;

// Columns [c0, c0 + n) of x (T, E) · wᵀ, w (V, E) the vocabulary matrix, added into c (row
// stride ldc): one panel of the vocabulary head. model::linear makes whole (T, out) products;
// the head needs a panel at a time so that (T, V) never has to exist. The float path reads
// (F32) or widens (F16) just the panel's rows and calls fast::gemm; the double path widens
// them to double 512 KB at a time, as model::linear's reference does.
void head_panel(const TensorF& x, const MatrixD* x_double, const StoredTensor& w, std::size_t c0,
                std::size_t n, Precision precision, float* c, std::size_t ldc) {
  const std::size_t T = x.dim(0), E = x.dim(1);
  if (precision == Precision::kFloat) {
    std::vector<float> widened;
    const float* rows = w.f32.data() + c0 * E;
    if (w.dtype == StoredDType::kF16) {
      widened.resize(n * E);
      w.widen(c0 * E, n * E, widened.data());
      rows = widened.data();
    }
    fast::gemm(T, n, E, x.ptr(), E, fast::Op::kNone, rows, E, fast::Op::kTranspose, c, ldc,
               /*accumulate=*/true);
    return;
  }
  const std::size_t panel = std::max<std::size_t>(1, (std::size_t{1} << 16) / E);
  MatrixD W(std::min(panel, n), E);
  for (std::size_t r0 = 0; r0 < n; r0 += panel) {
    const std::size_t m = std::min(panel, n - r0);
    w.widen((c0 + r0) * E, m * E, W.data());
    MapF out(c + r0, T, m, Eigen::OuterStride<>(ldc));
    out = (out.cast<double>() + *x_double * W.topRows(m).transpose()).cast<float>();
  }
}

TensorF linear(const TensorF& x, const StoredTensor& w, const StoredTensor& b, Precision precision,
               const char* what) {
  return model::linear(x, w, &b, model::Layout::kOutIn, precision, what);
}

// Causal self-attention of one layer: qkv (T, 3E) = query_key_value(a), per head [q | k | v];
// q and k rotated; heads merged and projected by dense.
TensorF self_attention(const TensorF& a, const GptNeoxLayer& layer, std::size_t H,
                       const RopeOptions& rope, Precision precision, TensorF* weights) {
  const TensorF qkv = linear(a, layer.query_key_value_weight, layer.query_key_value_bias, precision,
                             "query_key_value output (T, 3E)");
  model::Heads heads = model::split_heads(qkv, H, model::QkvLayout::kPerHead);
  model::rotate(heads, rope, precision);
  const TensorF merged = model::causal_attention(heads, nullptr, precision, weights);
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

// final (T, E) · embed_outᵀ a panel of vocabulary columns at a time: into result.logits when
// asked, through the streaming loss otherwise, never holding more than (T, panel) besides; the
// last row is kept whole for the top-k.
void vocabulary_head(const TensorF& final_x, const StoredTensor& embed_out,
                     const std::vector<long long>& tokens, const GptNeoxOptions& options,
                     GptNeoxResult& result) {
  const std::size_t T = final_x.dim(0), E = final_x.dim(1), V = embed_out.dim(0);
  // About 4 M elements per panel (16 MB of float32, 32 MB of double in the reference), and
  // whole panels of at least 64 columns so the product keeps its shape at very long T.
  const std::size_t panel = std::min(V, std::max<std::size_t>(64, (std::size_t{1} << 22) / T));
  if (options.logits) result.logits = TensorF({T, V}, "logits (T, V)");
  std::vector<float> block(options.logits ? 0 : T * panel), last(V);
  std::optional<NextTokenLoss> loss;
  if (options.loss_by_position) loss.emplace(tokens, V);
  std::optional<MatrixD> x_double;
  if (options.precision == Precision::kDouble) {
    x_double = ConstMapF(final_x.ptr(), T, E).cast<double>();
  }
  for (std::size_t v0 = 0; v0 < V; v0 += panel) {
    const std::size_t n = std::min(panel, V - v0);
    float* c = options.logits ? result.logits.ptr() + v0 : block.data();
    const std::size_t ldc = options.logits ? V : n;
    for (std::size_t t = 0; t < T; ++t) std::fill_n(c + t * ldc, n, 0.0f);
    head_panel(final_x, x_double ? &*x_double : nullptr, embed_out, v0, n, options.precision, c,
               ldc);
    if (loss) loss->add(c, ldc, v0, n);
    std::copy_n(c + (T - 1) * ldc, n, last.data() + v0);
  }
  if (loss) result.losses = loss->losses();
  TopK top = top_k(last.data(), V, std::size_t(std::max(0LL, options.top_k)));
  result.top_ids = std::move(top.ids);
  result.top_probs = std::move(top.probs);
}

// Every large tensor the pass will allocate, against the element cap, before any work.
void check_sizes(const GptNeoxConfig& c, std::size_t T, const GptNeoxOptions& options) {
  const std::size_t E = std::size_t(c.dims.width), I = std::size_t(c.intermediate_size);
  const std::size_t V = std::size_t(c.dims.vocab_size), H = std::size_t(c.dims.heads);
  const std::size_t N = std::size_t(c.dims.layers);
  checked_numel({T, 3 * E}, "query_key_value output (T, 3E)");
  checked_numel({T, I}, "MLP hidden (T, I)");
  try {
    if (options.logits) checked_numel({T, V}, "logits (T, V)");
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + ": ask for the loss by position instead", "tokens");
  }
  try {
    if (options.trace) checked_numel({N, H, T, T}, "the trace's attention maps (N, H, T, T)");
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + ": trace a shorter sequence", "trace");
  }
}

}  // namespace

GptNeoxResult gpt_neox_forward(const GptNeoxWeights& weights, const std::vector<long long>& tokens,
                               const GptNeoxOptions& options) {
  check_lm_weights(weights);
  const GptNeoxConfig& c = weights.config;
  model::check_tokens(tokens, c.dims.vocab_size, kMaxGptNeoxTokens, "GPT-NeoX",
                      "the limit of " + std::to_string(kMaxGptNeoxTokens) +
                          " (RoPE angles are exact to 1e-5 up to there)");
  require(options.top_k >= 0, "topK", "top_k must be non-negative");
  require(options.logits || options.loss_by_position, "logits",
          "ask for the logits, the loss by position or both");
  const std::size_t T = tokens.size(), E = std::size_t(c.dims.width);
  const std::size_t H = std::size_t(c.dims.heads);
  const RopeOptions rope = options.rope ? *options.rope : c.rope();
  // A bad rotation fails here, before any work, with its field.
  rope_frequencies(c.head_dim(), rope, static_cast<long long>(T));
  if (options.loss_by_position) NextTokenLoss(tokens, std::size_t(c.dims.vocab_size));
  check_sizes(c, T, options);
  const double eps = c.layer_norm_eps;
  const Precision precision = options.precision;
  GptNeoxResult result;

  // x[t] = embed_in[token t]                                                 (T, E)
  TensorF x({T, E}, "residual stream (T, E)");
  for (std::size_t t = 0; t < T; ++t) {
    weights.embed_in.widen(std::size_t(tokens[t]) * E, E, x.ptr() + t * E);
  }

  const auto layer_of = [&](std::size_t i) {
    const GptNeoxLayer* layer = &weights.layers[i];
    return model::DecoderLayer{
        model::layer_norm_op(layer->input_layernorm_weight, layer->input_layernorm_bias, eps),
        model::layer_norm_op(layer->post_attention_layernorm_weight,
                             layer->post_attention_layernorm_bias, eps),
        [layer, H, &rope, precision](const TensorF& a, TensorF* w) {
          return self_attention(a, *layer, H, rope, precision, w);
        },
        [layer, precision](const TensorF& m) { return mlp(m, *layer, precision); },
        c.use_parallel_residual ? model::Residual::kParallel : model::Residual::kSequential};
  };
  x = model::decoder_layers(std::move(x), weights.layers.size(), layer_of,
                            options.trace ? &result.layers : nullptr);

  const TensorF final_x =
      model::layer_norm(x, weights.final_layer_norm_weight, weights.final_layer_norm_bias, eps);
  vocabulary_head(final_x, weights.embed_out, tokens, options, result);
  return result;
}

}  // namespace poslab

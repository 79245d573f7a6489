// Multi-head self-attention: full-width projections, per-head position handling, merge.
#include "poslab/layers/multihead.hpp"

#include <Eigen/Dense>
#include <cmath>
#include <limits>

#include "poslab/base/random.hpp"

namespace poslab {

namespace {

using MatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMapF =
    Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

void check_projection(const TensorF& w, const TensorF& b, std::size_t D, const char* name) {
  require(w.shape == Shape{D, D}, std::string("W") + name + " must be (D, D) = " +
                                      shape_string({D, D}) + ", got " + shape_string(w.shape));
  require(b.size() == 0 || b.shape == Shape{D}, std::string("b") + name +
                                                    " must be (D,) = " + shape_string({D}) +
                                                    " or empty, got " + shape_string(b.shape));
  require_finite(w, std::string("W") + name);
  require_finite(b, std::string("b") + name);
}

// x (L, D) · W (D, D) + b, in double.
MatrixD project(const MatrixD& x, const TensorF& w, const TensorF& b) {
  const std::size_t D = w.dim(0);
  MatrixD y = x * ConstMapF(w.ptr(), D, D).cast<double>();
  if (b.size()) y.rowwise() += ConstMapF(b.ptr(), 1, D).cast<double>().row(0);
  return y;
}

// (L, H·d) → (H, L, d).
TensorF split_heads(const MatrixD& y, std::size_t H) {
  const std::size_t L = std::size_t(y.rows()), d = std::size_t(y.cols()) / H;
  TensorF out({H, L, d});
  for (std::size_t h = 0; h < H; ++h)
    for (std::size_t l = 0; l < L; ++l)
      for (std::size_t c = 0; c < d; ++c) out.data[(h * L + l) * d + c] = float(y(l, h * d + c));
  return out;
}

// (H, L, d) → (L, H·d).
MatrixD merge_heads(const TensorF& t) {
  const std::size_t H = t.dim(0), L = t.dim(1), d = t.dim(2);
  MatrixD out(L, H * d);
  for (std::size_t h = 0; h < H; ++h)
    for (std::size_t l = 0; l < L; ++l)
      for (std::size_t c = 0; c < d; ++c) out(l, h * d + c) = t.data[(h * L + l) * d + c];
  return out;
}

}  // namespace

PositionBias parse_position_bias(const std::string& name) {
  return parse_position_method(name, kSupportBias, "position bias", "bias");
}

MultiHeadWeights random_multihead_weights(long long model_dim, std::uint64_t seed) {
  const std::size_t D = positive_size(model_dim, "model dim");
  Rng rng(seed);
  const double std = 1.0 / std::sqrt(double(D));
  MultiHeadWeights w;
  for (TensorF* m : {&w.wq, &w.wk, &w.wv, &w.wo}) {
    *m = TensorF({D, D}, "projection (D, D)");
    for (float& value : m->data) value = static_cast<float>(std * rng.normal());
  }
  return w;
}

// x (L, D) → output (L, D), weights (H, L, L).
MultiHeadResult multihead_attention(const TensorF& x, const MultiHeadWeights& weights,
                                    const MultiHeadOptions& options) {
  require(x.ndim() == 2, "x", "multi-head input must be (L, D), got " + shape_string(x.shape));
  const std::size_t L = x.dim(0), D = x.dim(1);
  const std::size_t H = positive_size(options.num_heads, "heads", false, "heads");
  require(
      D > 0 && D % H == 0, "heads",
      "model dim " + std::to_string(D) + " is not divisible by " + std::to_string(H) + " heads");
  check_projection(weights.wq, weights.bq, D, "q");
  check_projection(weights.wk, weights.bk, D, "k");
  check_projection(weights.wv, weights.bv, D, "v");
  check_projection(weights.wo, weights.bo, D, "o");
  require(supports(options.bias.method, kSupportBias), "bias",
          std::string(to_string(options.bias.method)) + " is not a position bias (expected " +
              name_list(kPositionBiasNames) + ")");
  require_finite(x, "x");

  const MatrixD X = ConstMapF(x.ptr(), L, D).cast<double>();
  MultiHeadResult r;
  r.q = split_heads(project(X, weights.wq, weights.bq), H);
  r.k = split_heads(project(X, weights.wk, weights.bk), H);
  r.v = split_heads(project(X, weights.wv, weights.bv), H);
  if (options.rope) {
    r.q = rope_apply(r.q, *options.rope, 0, RotationSide::kQuery);
    r.k = rope_apply(r.k, *options.rope, 0, RotationSide::kKey);
  }
  const long long heads = static_cast<long long>(H), length = static_cast<long long>(L);
  const long long offset = options.mask.offset;
  if (options.bias.method != PositionBias::kNone) {
    r.bias = score_bias_tensor(options.bias, heads, length, length, offset);
  }

  // A custom mask reaches the scores as −∞ in the bias, as a user-supplied mask would.
  TensorF masked_bias;
  if (!options.custom_mask.empty()) {
    require(options.custom_mask.size() == L * L, "customMask",
            "custom mask has " + std::to_string(options.custom_mask.size()) +
                " entries, but (L, L) = " + shape_string({L, L}) + " needs " +
                std::to_string(L * L));
    masked_bias = r.bias.size() ? r.bias : TensorF({H, L, L}, "attention bias (H, L, L)");
    for (std::size_t n = 0; n < masked_bias.size(); ++n) {
      if (options.custom_mask[n % (L * L)]) {
        masked_bias.data[n] = -std::numeric_limits<float>::infinity();
      }
    }
  }

  AttentionOptions attend;
  attend.mask = options.mask;
  attend.key_padding = options.key_padding;
  attend.bias = masked_bias.size() ? &masked_bias : r.bias.size() ? &r.bias : nullptr;
  attend.scale = options.scale;
  attend.return_scores = true;
  AttentionResult a = attention(r.q, r.k, r.v, attend);
  r.weights = std::move(a.weights);
  r.scores = std::move(a.scores);

  const MatrixD merged = merge_heads(a.output);
  r.heads = std::move(a.output);
  const MatrixD y = project(merged, weights.wo, weights.bo);
  r.output = TensorF({L, D});
  for (std::size_t n = 0; n < r.output.size(); ++n) r.output.data[n] = float(y.data()[n]);
  return r;
}

}  // namespace poslab

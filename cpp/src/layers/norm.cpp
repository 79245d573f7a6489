// LayerNorm and RMSNorm over the last axis, statistics in double.
#include "poslab/layers/norm.hpp"

#include <cmath>
#include <string>

#include "poslab/base/format.hpp"

namespace poslab {

namespace {

struct Rows {
  std::size_t count, width;
};

Rows check_input(const TensorF& x, double eps, const TensorF* gamma, const TensorF* beta) {
  require(x.ndim() >= 1, "norm input must have at least one axis");
  const std::size_t D = x.shape.back();
  require(D > 0, "norm input has zero width");
  require(std::isfinite(eps) && eps >= 0.0, "eps",
          "eps must be a non-negative finite number (got " + format_number(eps) + ")");
  for (const auto& [param, name] : {std::pair{gamma, "gamma"}, std::pair{beta, "beta"}}) {
    require(!param || param->shape == Shape{D}, name,
            std::string(name) + " must be (D,) = " + shape_string({D}) + ", got " +
                (param ? shape_string(param->shape) : ""));
    if (param) require_finite(*param, name);
  }
  // A NaN or ∞ would poison its row's statistics and turn the whole row, finite values too,
  // into zeros or NaN.
  require_finite(x, "x");
  return {x.size() / D, D};
}

// x · inv_std, or 0 when both are 0 (a constant row with eps = 0) instead of NaN.
double normalise(double centred, double variance_plus_eps) {
  return variance_plus_eps > 0.0 ? centred / std::sqrt(variance_plus_eps) : 0.0;
}

struct RowStats {
  double mean, variance;
};

// Mean and biased variance (divide by D, as LayerNorm does) of one row, in double.
RowStats row_stats(const float* in, std::size_t width) {
  double mean = 0.0;
  for (std::size_t c = 0; c < width; ++c) mean += in[c];
  mean /= double(width);
  double variance = 0.0;
  for (std::size_t c = 0; c < width; ++c) variance += (in[c] - mean) * (in[c] - mean);
  variance /= double(width);
  return {mean, variance};
}

}  // namespace

// x (..., D) → mean (...), variance (...).
NormStats layer_norm_stats(const TensorF& x) {
  const Rows r = check_input(x, 0.0, nullptr, nullptr);
  const Shape rows(x.shape.begin(), x.shape.end() - 1);
  NormStats stats{TensorF(rows, "LayerNorm mean"), TensorF(rows, "LayerNorm variance")};
  for (std::size_t n = 0; n < r.count; ++n) {
    const RowStats s = row_stats(x.ptr() + n * r.width, r.width);
    stats.mean.data[n] = static_cast<float>(s.mean);
    stats.variance.data[n] = static_cast<float>(s.variance);
  }
  return stats;
}

// x (..., D) → (..., D).
TensorF layer_norm(const TensorF& x, double eps, const TensorF* gamma, const TensorF* beta) {
  const Rows r = check_input(x, eps, gamma, beta);
  TensorF y = x;
  for (std::size_t n = 0; n < r.count; ++n) {
    const float* in = x.ptr() + n * r.width;
    float* out = y.ptr() + n * r.width;
    const auto [mean, variance] = row_stats(in, r.width);
    for (std::size_t c = 0; c < r.width; ++c) {
      double value = normalise(in[c] - mean, variance + eps);
      if (gamma) value *= gamma->data[c];
      if (beta) value += beta->data[c];
      out[c] = static_cast<float>(value);
    }
  }
  return y;
}

// x (..., D) → (..., D).
TensorF rms_norm(const TensorF& x, double eps, const TensorF* gamma) {
  const Rows r = check_input(x, eps, gamma, nullptr);
  TensorF y = x;
  for (std::size_t n = 0; n < r.count; ++n) {
    const float* in = x.ptr() + n * r.width;
    float* out = y.ptr() + n * r.width;
    double mean_square = 0.0;
    for (std::size_t c = 0; c < r.width; ++c) mean_square += double(in[c]) * in[c];
    mean_square /= double(r.width);
    for (std::size_t c = 0; c < r.width; ++c) {
      double value = normalise(in[c], mean_square + eps);
      if (gamma) value *= gamma->data[c];
      out[c] = static_cast<float>(value);
    }
  }
  return y;
}

}  // namespace poslab

// Similarity matrices, the sinusoidal offset matrix and RoPE's long-range decay.
#include "poslab/analysis.hpp"

#include <Eigen/Dense>
#include <cmath>
#include <complex>

#include "poslab/formulas.hpp"

namespace poslab {

SimilarityMetric parse_similarity_metric(const std::string& name) {
  return parse_name(kSimilarityMetricNames, name, "similarity metric", "metric");
}

namespace {

using MatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// S (L, L) in double.
MatrixD similarity_double(const TensorF& x, SimilarityMetric metric) {
  require(x.ndim() == 2, "x", "similarity input must be (L, D), got " + shape_string(x.shape));
  const std::size_t L = x.dim(0), D = x.dim(1);
  checked_numel({L, L}, "similarity matrix (L, L)");
  require_finite(x, "x");
  const MatrixD X =
      Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
          x.ptr(), L, D)
          .cast<double>();
  MatrixD S = X * X.transpose();
  if (metric == SimilarityMetric::kCosine) {
    const Eigen::VectorXd norm = X.rowwise().norm();
    for (std::size_t i = 0; i < L; ++i) {
      for (std::size_t j = 0; j < L; ++j) {
        const double denominator = norm[i] * norm[j];
        S(i, j) = denominator > 0.0 ? S(i, j) / denominator : 0.0;  // zero rows: 0, not NaN
      }
    }
  }
  return S;
}

}  // namespace

// x (L, D) → (L, L).
TensorF similarity_matrix(const TensorF& x, SimilarityMetric metric) {
  const MatrixD S = similarity_double(x, metric);
  TensorF out({std::size_t(S.rows()), std::size_t(S.cols())});
  for (std::size_t n = 0; n < out.size(); ++n) out.data[n] = static_cast<float>(S.data()[n]);
  return out;
}

// x (L, D) → (L,): mean similarity at each offset |i − j|.
TensorF similarity_by_offset(const TensorF& x, SimilarityMetric metric) {
  const MatrixD S = similarity_double(x, metric);
  const std::size_t L = std::size_t(S.rows());
  TensorF out({L});
  for (std::size_t k = 0; k < L; ++k) {
    double sum = 0.0;
    for (std::size_t i = 0; i + k < L; ++i) sum += S(i, i + k);  // S is symmetric
    out.data[k] = static_cast<float>(sum / double(L - k));
  }
  return out;
}

// (D, D) block diagonal.
TensorF offset_matrix(long long dim, long long k, double base) {
  const std::size_t D = positive_size(dim, "dim", false, "dim");
  require(D % 2 == 0, "dim", "dim must be even (got " + std::to_string(dim) + ")");
  require(std::isfinite(base) && base > 0.0, "base", "base must be a positive finite number");
  TensorF m({D, D}, "offset matrix (D, D)");
  for (std::size_t i = 0; i < D / 2; ++i) {
    const double a = formulas::angle(double(k), formulas::inv_freq(int(i), int(D), base));
    const float c = static_cast<float>(std::cos(a)), s = static_cast<float>(std::sin(a));
    // sin((p+k)w) = sin(pw)cos(kw) + cos(pw)sin(kw); cos((p+k)w) = cos(pw)cos(kw) − sin(pw)sin(kw)
    m.data[(2 * i) * D + 2 * i] = c;
    m.data[(2 * i) * D + 2 * i + 1] = s;
    m.data[(2 * i + 1) * D + 2 * i] = -s;
    m.data[(2 * i + 1) * D + 2 * i + 1] = c;
  }
  return m;
}

// (M+1,) for m = 0..M.
TensorF rope_decay(long long head_dim, long long max_distance, const RopeOptions& options) {
  const std::size_t M = positive_size(max_distance, "max distance", true, "maxDistance");
  const RopeFrequencies f = rope_frequencies(head_dim, options, 0);
  const std::size_t half = f.inv_freq.size();
  require(double(M + 1) * double(half) <= 1e8, "maxDistance",
          "max distance is too large for the decay curve");
  TensorF out({M + 1}, "RoPE decay curve");
  for (std::size_t m = 0; m <= M; ++m) {
    std::complex<double> partial = 0.0;
    double total = 0.0;
    for (std::size_t i = 0; i < half; ++i) {
      partial += std::polar(1.0, formulas::angle(double(m), f.inv_freq[i]));
      total += std::abs(partial);
    }
    out.data[m] = static_cast<float>(total / double(half));
  }
  return out;
}

// (R/2,).
TensorF rope_wavelengths(long long head_dim, const RopeOptions& options, long long total_length) {
  const RopeFrequencies f = rope_frequencies(head_dim, options, total_length);
  TensorF out({f.inv_freq.size()});
  for (std::size_t i = 0; i < f.inv_freq.size(); ++i) {
    out.data[i] = static_cast<float>(2.0 * formulas::kPi / f.inv_freq[i]);
  }
  return out;
}

}  // namespace poslab

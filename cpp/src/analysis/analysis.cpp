// Similarity matrices, the sinusoidal offset matrix and RoPE's long-range decay.
#include "poslab/analysis/analysis.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "poslab/positions/formulas.hpp"

namespace poslab {

SimilarityMetric parse_similarity_metric(const std::string& name) {
  return parse_name(kSimilarityMetricNames, name, "similarity metric", "metric");
}

namespace {

using MatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Rows of S (L, L) a block at a time, in double: visit(first_row, block) gets rows
// [first_row, first_row + block.rows()). Never forming S whole keeps the working set at the
// float32 result plus one block (S in double at L = 16384 was 2 GiB beside the 1 GiB result).
// Checks x (L, D) and returns L.
std::size_t similarity_input(const TensorF& x) {
  require(x.ndim() == 2, "x", "similarity input must be (L, D), got " + shape_string(x.shape));
  checked_numel({x.dim(0), x.dim(0)}, "similarity matrix (L, L)");
  require_finite(x, "x");
  return x.dim(0);
}

template <class Visit>
void similarity_rows(const TensorF& x, SimilarityMetric metric, Visit visit) {
  const std::size_t L = x.dim(0), D = x.dim(1);
  const MatrixD X =
      Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
          x.ptr(), L, D)
          .cast<double>();
  const Eigen::VectorXd norm = X.rowwise().norm();
  const std::size_t rows =
      std::max<std::size_t>(1, (std::size_t(1) << 20) / std::max<std::size_t>(L, 1));
  for (std::size_t first = 0; first < L; first += rows) {
    const std::size_t n = std::min(rows, L - first);
    MatrixD block = X.middleRows(first, n) * X.transpose();
    if (metric == SimilarityMetric::kCosine) {
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < L; ++j) {
          const double denominator = norm[first + i] * norm[j];
          block(i, j) = denominator > 0.0 ? block(i, j) / denominator : 0.0;  // zero rows: 0
        }
      }
    }
    visit(first, block);
  }
}

}  // namespace

// x (L, D) → (L, L).
TensorF similarity_matrix(const TensorF& x, SimilarityMetric metric) {
  const std::size_t L = similarity_input(x);
  TensorF out({L, L});
  similarity_rows(x, metric, [&](std::size_t first, const MatrixD& block) {
    float* row = out.data.data() + first * L;
    for (Eigen::Index n = 0; n < block.size(); ++n) row[n] = static_cast<float>(block.data()[n]);
  });
  return out;
}

// x (L, D) → (L,): mean similarity at each offset |i − j|.
TensorF similarity_by_offset(const TensorF& x, SimilarityMetric metric) {
  const std::size_t L = similarity_input(x);
  std::vector<double> sum(L, 0.0);
  similarity_rows(x, metric, [&](std::size_t first, const MatrixD& block) {
    for (Eigen::Index i = 0; i < block.rows(); ++i) {
      const std::size_t row = first + std::size_t(i);
      for (std::size_t j = row; j < L; ++j) sum[j - row] += block(i, Eigen::Index(j));
    }
  });
  TensorF out({L});
  for (std::size_t k = 0; k < L; ++k) out.data[k] = static_cast<float>(sum[k] / double(L - k));
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

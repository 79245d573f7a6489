// Tools for looking at encodings: similarity, the offset matrix, RoPE's decay.
#pragma once

#include <string>

#include "poslab/base/defaults.hpp"
#include "poslab/base/tensor.hpp"
#include "poslab/positions/rope.hpp"

namespace poslab {

enum class SimilarityMetric { kCosine, kDot };
inline constexpr Named<SimilarityMetric> kSimilarityMetricNames[] = {
    {SimilarityMetric::kCosine, "cosine"}, {SimilarityMetric::kDot, "dot"}};
SimilarityMetric parse_similarity_metric(const std::string& name);  // Error with field "metric"

// S[i,j] = sim(x_i, x_j) for x (L, D): (L, L). Cosine of a zero row is 0, not NaN.
TensorF similarity_matrix(const TensorF& x, SimilarityMetric metric);

// Mean of S[i,j] over all pairs with |i − j| = k, for k in [0, L): (L,).
TensorF similarity_by_offset(const TensorF& x, SimilarityMetric metric);

// M_k (D, D) with PE(p+k) = M_k · PE(p) for the interleaved sinusoidal table: block
// diagonal, block i = [[cos kw_i, sin kw_i], [−sin kw_i, cos kw_i]]. k may be negative.
TensorF offset_matrix(long long dim, long long k, double base = defaults::kBase);

// RoFormer §3.4.3 upper bound of |q·k| vs relative distance m = 0..max_distance:
// (1/(R/2)) Σ_{j=1}^{R/2} |Σ_{i<j} e^{i m θ_i}|, with θ from `options`: (max_distance+1,).
TensorF rope_decay(long long head_dim, long long max_distance, const RopeOptions& options = {});

// Wavelength 2π/θ_i of each rotated pair, (R/2,), for the effective (scaled) frequencies.
TensorF rope_wavelengths(long long head_dim, const RopeOptions& options,
                         long long total_length = 0);

}  // namespace poslab

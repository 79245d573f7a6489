// Normalisations over the last axis of x (..., D).
#pragma once

#include "poslab/base/defaults.hpp"
#include "poslab/base/tensor.hpp"

namespace poslab {

// (x − mean) / √(var + eps) · γ + β, with the biased variance (divide by D).
// gamma and beta are (D,) or null (1 and 0).
TensorF layer_norm(const TensorF& x, double eps = defaults::kNormEps,
                   const TensorF* gamma = nullptr, const TensorF* beta = nullptr);

// The statistics LayerNorm normalises by, per row of x (..., D): mean (...) and biased
// variance (...), in double, returned as float32 (for traces of what a model normalised).
struct NormStats {
  TensorF mean, variance;
};
NormStats layer_norm_stats(const TensorF& x);

// x / √(mean(x²) + eps) · γ. gamma is (D,) or null.
TensorF rms_norm(const TensorF& x, double eps = defaults::kNormEps, const TensorF* gamma = nullptr);

}  // namespace poslab

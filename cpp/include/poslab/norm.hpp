// Normalisations over the last axis of x (..., D).
#pragma once

#include "poslab/tensor.hpp"

namespace poslab {

// (x − mean) / √(var + eps) · γ + β, with the biased variance (divide by D).
// gamma and beta are (D,) or null (1 and 0).
TensorF layer_norm(const TensorF& x, double eps = 1e-5, const TensorF* gamma = nullptr,
                   const TensorF* beta = nullptr);

// x / √(mean(x²) + eps) · γ. gamma is (D,) or null.
TensorF rms_norm(const TensorF& x, double eps = 1e-5, const TensorF* gamma = nullptr);

}  // namespace poslab

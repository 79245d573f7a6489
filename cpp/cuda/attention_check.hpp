// Argument checks shared by both attention launchers (host code).
#pragma once

#include "poslab/cuda/attention.hpp"

namespace poslab::cuda::detail {

// Throws poslab::Error for bad sizes or options; returns the scale (1/√d unless given).
double check_attention(const AttentionDims& dims, const AttentionConfig& config);

}  // namespace poslab::cuda::detail

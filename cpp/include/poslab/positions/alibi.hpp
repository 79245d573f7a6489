// ALiBi (Press et al. 2022): no position in the embeddings; a per-head linear penalty on
// distance added to the attention scores.
#pragma once

#include <vector>

#include "poslab/base/tensor.hpp"

namespace poslab {

// Slopes m_h for H heads, (H,): geometric from 2^(-8/H), the reference's interleaving rule
// when H is not a power of two.
TensorF alibi_slopes(long long num_heads);

// Bias[h,i,j] = −m_h·|p_i − j|, (H, Lq, Lk), with query i at p_i = i + offset as the mask
// places it (mask.hpp; the CUDA kernel computes the same in place). Symmetric: the causal mask,
// not the bias, removes the future. Offsets beyond ±2^30 are refused, as the mask's are.
TensorF alibi_bias(long long num_heads, long long query_length, long long key_length,
                   long long offset = 0);

// The same for queries and keys at the positions given, one per token in any order (the
// position lens's shuffled and constant positions): Bias[h,i,j] = −m_h·|p_i − p_j|, (H, T, T).
TensorF alibi_bias(long long num_heads, const std::vector<long long>& positions);

}  // namespace poslab

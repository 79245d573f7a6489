// ALiBi bias generation on the GPU: the same (H, Lq, Lk) tensor as poslab::alibi_bias.
#pragma once

#include <cuda_runtime_api.h>

namespace poslab::cuda {

// Kernel variants (cpp/cuda/alibi.cu):
//   1  one thread per element.
//   2  one thread per 16-byte chunk of a row (4 keys), needs Lk % 4 == 0.
inline constexpr int kAlibiVariants = 2;

// bias: device (H, Lq, Lk) float32, −m_h·|i − j| in double with m_h = formulas::alibi_slope.
void alibi_bias(float* bias, long long num_heads, long long query_length, long long key_length,
                int variant = 2, cudaStream_t stream = nullptr);

}  // namespace poslab::cuda

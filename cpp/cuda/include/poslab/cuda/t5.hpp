// T5 relative-position bias on the GPU: the same (H, Lq, Lk) tensor as poslab::t5_bias.
#pragma once

#include <cuda_runtime_api.h>

#include "poslab/positions/relative.hpp"

namespace poslab::cuda {

// Kernel variants (cpp/cuda/t5.cu):
//   1  one thread per element: bucket (formulas::t5_bucket) then a table lookup.
//   2  one thread per 4 keys of a row, the buckets computed once and written for every head
//      (the bucket does not depend on the head), 16-byte stores; needs Lk % 4 == 0.
inline constexpr int kT5Variants = 2;

// bias: device (H, Lq, Lk) float32 = table[bucket(j − i), h]; table: device
// (num_buckets, H) float32 (poslab::t5_bias draws it with learned_table(num_buckets, H, seed,
// 1.0)).
void t5_bias(float* bias, const float* table, long long num_heads, long long query_length,
             long long key_length, const T5BucketOptions& options, int variant = 2,
             cudaStream_t stream = nullptr);

}  // namespace poslab::cuda

// ALiBi bias (Press et al. 2022) on the GPU, llm.c style:
//   alibi_kernel1  one thread per element.
//   alibi_kernel2  one thread per 4 keys of a row, one 16-byte store; grid-stride over rows.
// Both evaluate ALiBi's term (score_bias.hpp) in double with m_h = formulas::alibi_slope, stored
// as float32 (+0 on the diagonal), as poslab::alibi_bias does. Write-only: bandwidth-bound.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "common.cuh"
#include "launch.hpp"
#include "poslab/base/errors.hpp"
#include "poslab/cuda/alibi.hpp"
#include "poslab/positions/formulas.hpp"
#include "poslab/positions/score_bias.hpp"

namespace poslab::cuda {
namespace {

// The term of score_bias.hpp at head slope m.
__device__ __forceinline__ float alibi_value(double slope, long long i, long long j) {
  return static_cast<float>(score_bias::Alibi<float>::at_slope(slope, i, j));
}

// bias (H, Lq, Lk).
__global__ void alibi_kernel1(float* bias, int H, long long Lq, long long Lk) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= H * Lq * Lk) return;
  const long long j = idx % Lk;
  const long long i = (idx / Lk) % Lq;
  const int h = static_cast<int>(idx / (Lk * Lq));
  bias[idx] = alibi_value(formulas::alibi_slope(h, H), i, j);
}

// bias (H, Lq, Lk), Lk % 4 == 0. Block (x: 4-key chunks of a row, y: rows), grid-stride
// over the H·Lq rows; slopes once per block into shared memory.
__global__ void alibi_kernel2(float* bias, int H, int Lq, long long Lk) {
  extern __shared__ double slopes[];  // (H,)
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  for (int h = tid; h < H; h += blockDim.x * blockDim.y) slopes[h] = formulas::alibi_slope(h, H);
  __syncthreads();
  const long long chunks = Lk / 4;
  const long long rows = static_cast<long long>(H) * Lq;
  for (long long row = static_cast<long long>(blockIdx.x) * blockDim.y + threadIdx.y; row < rows;
       row += static_cast<long long>(gridDim.x) * blockDim.y) {
    const int h = static_cast<int>(row / Lq);  // once per row, not per element
    const long long i = row - static_cast<long long>(h) * Lq;
    const double m = slopes[h];
    float* out = bias + row * Lk;
    for (long long c = threadIdx.x; c < chunks; c += blockDim.x) {
      const long long j = 4 * c;
      *reinterpret_cast<float4*>(out + j) =
          make_float4(alibi_value(m, i, j), alibi_value(m, i, j + 1), alibi_value(m, i, j + 2),
                      alibi_value(m, i, j + 3));
    }
  }
}

}  // namespace

void alibi_bias(float* bias, long long num_heads, long long query_length, long long key_length,
                int variant, cudaStream_t stream) {
  const long long n = detail::bias_elements(num_heads, query_length, key_length, "ALiBi bias");
  require(variant >= 1 && variant <= kAlibiVariants,
          "unknown ALiBi kernel variant " + std::to_string(variant));
  if (n == 0) return;
  const int H = static_cast<int>(num_heads);
  if (variant == 1 || key_length % 4 != 0 || !detail::aligned16(bias)) {
    alibi_kernel1<<<detail::ceil_div(n, 256), 256, 0, stream>>>(bias, H, query_length, key_length);
    check_launch("alibi_kernel1");
    return;
  }
  const dim3 block = detail::row_block(int(std::min<long long>(key_length / 4, 256)));
  const unsigned blocks = std::min<long long>(detail::ceil_div(num_heads * query_length, block.y),
                                              8LL * detail::multiprocessor_count());
  alibi_kernel2<<<blocks, block, sizeof(double) * H, stream>>>(bias, H, int(query_length),
                                                               key_length);
  check_launch("alibi_kernel2");
}

}  // namespace poslab::cuda

// T5 relative-position bias (Raffel et al. 2020) on the GPU, llm.c style:
//   t5_kernel1  one thread per element: formulas::t5_bucket(j − i), then table[bucket, h].
//   t5_kernel2  one thread per 4 keys of a row: the 4 buckets once, then one 16-byte store
//               per head (the bucket does not depend on the head); grid-stride over rows.
// The bucket is the host formula compiled for the device (float32 log, as the reference).
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "common.cuh"
#include "launch.hpp"
#include "poslab/base/errors.hpp"
#include "poslab/cuda/t5.hpp"
#include "poslab/positions/formulas.hpp"

namespace poslab::cuda {
namespace {

struct BucketArgs {
  bool bidirectional;
  int num_buckets;
  int max_distance;
};

__device__ __forceinline__ int bucket_of(long long i, long long j, const BucketArgs& a) {
  return formulas::t5_bucket(j - i, a.bidirectional, a.num_buckets, a.max_distance);
}

// bias (H, Lq, Lk), table (num_buckets, H).
__global__ void t5_kernel1(float* bias, const float* table, int H, long long Lq, long long Lk,
                           BucketArgs args) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= H * Lq * Lk) return;
  const long long j = idx % Lk;
  const long long i = (idx / Lk) % Lq;
  const int h = static_cast<int>(idx / (Lk * Lq));
  bias[idx] = table[bucket_of(i, j, args) * H + h];
}

// bias (H, Lq, Lk), Lk % 4 == 0; the table is staged in shared memory. Block (x: 4-key
// chunks of a row, y: query rows), grid-stride over rows.
__global__ void t5_kernel2(float* bias, const float* table, int H, long long Lq, long long Lk,
                           BucketArgs args) {
  extern __shared__ float stable[];  // (num_buckets, H)
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  for (int e = tid; e < args.num_buckets * H; e += blockDim.x * blockDim.y) stable[e] = table[e];
  __syncthreads();
  const long long chunks = Lk / 4;
  const long long plane = Lq * Lk;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.y + threadIdx.y; i < Lq;
       i += static_cast<long long>(gridDim.x) * blockDim.y) {
    for (long long c = threadIdx.x; c < chunks; c += blockDim.x) {
      const long long j = 4 * c;
      int bk[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) bk[k] = bucket_of(i, j + k, args) * H;
      float* out = bias + i * Lk + j;
      for (int h = 0; h < H; ++h) {
        *reinterpret_cast<float4*>(out + h * plane) =
            make_float4(stable[bk[0] + h], stable[bk[1] + h], stable[bk[2] + h], stable[bk[3] + h]);
      }
    }
  }
}

}  // namespace

void t5_bias(float* bias, const float* table, long long num_heads, long long query_length,
             long long key_length, const T5BucketOptions& options, int variant,
             cudaStream_t stream) {
  const long long n = detail::bias_elements(num_heads, query_length, key_length, "T5 bias");
  check_t5_options(options);
  require(variant >= 1 && variant <= kT5Variants,
          "unknown T5 kernel variant " + std::to_string(variant));
  if (n == 0) return;
  const int H = static_cast<int>(num_heads);
  const BucketArgs args{options.bidirectional, static_cast<int>(options.num_buckets),
                        static_cast<int>(options.max_distance)};
  const std::size_t table_bytes = sizeof(float) * options.num_buckets * H;
  if (variant == 1 || key_length % 4 != 0 || !detail::aligned16(bias) || table_bytes > 48 * 1024) {
    t5_kernel1<<<detail::ceil_div(n, 256), 256, 0, stream>>>(bias, table, H, query_length,
                                                             key_length, args);
    check_launch("t5_kernel1");
    return;
  }
  const dim3 block = detail::row_block(int(std::min<long long>(key_length / 4, 256)));
  const unsigned blocks = std::min<long long>(detail::ceil_div(query_length, block.y),
                                              8LL * detail::multiprocessor_count());
  t5_kernel2<<<blocks, block, table_bytes, stream>>>(bias, table, H, query_length, key_length,
                                                     args);
  check_launch("t5_kernel2");
}

}  // namespace poslab::cuda

// Sinusoidal position table (Vaswani et al. 2017) on the GPU, llm.c style:
//   sinusoidal_kernel1  one thread per (position, pair), double sin/cos, two scattered stores.
//   sinusoidal_kernel2  one thread per 16-byte chunk of a row, grid-stride over rows; w_i
//                       computed once per block into shared memory with formulas::inv_freq
//                       (as w/2π split into two float32s); the angle is reduced exactly in
//                       float32-pair arithmetic and its sin/cos taken by the SFU
//                       (angles.cuh). Positions up to 2^24; variant 1 beyond.
//   sinusoidal_kernel3  variant 2 for the interleaved layout with a quarter of the SFU work:
//                       a thread's rows are p, p + S, p + 2S, ... (S the grid's row stride);
//                       every 4th from the SFU, the 3 between by rotating the previous
//                       (sin, cos) by S·w_i (angle addition, coefficients once per block in
//                       double). The SFU's 16 ops per clock per SM otherwise pace a table
//                       that HBM could write faster.
// Validated against poslab::sinusoidal_table in tests/cuda and in poslab-bench-cuda.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "angles.cuh"
#include "common.cuh"
#include "launch.hpp"
#include "poslab/base/format.hpp"
#include "poslab/base/tensor.hpp"
#include "poslab/cuda/sinusoidal.hpp"
#include "poslab/positions/formulas.hpp"

namespace poslab::cuda {
namespace {

// pe (L, D): one thread per (p, i), i in [0, D/2).
__global__ void sinusoidal_kernel1(float* pe, long long L, int D, double base, bool concat,
                                   long long offset) {
  const int half = D / 2;
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= L * half) return;
  const long long p = idx / half;
  const int i = static_cast<int>(idx % half);
  const double a = formulas::angle(double(offset + p), formulas::inv_freq(i, D, base));
  double s, c;
  sincos(a, &s, &c);
  float* row = pe + p * D;
  row[concat ? i : 2 * i] = static_cast<float>(s);
  row[concat ? half + i : 2 * i + 1] = static_cast<float>(c);
}

// pe (L, D), float4 chunks: interleaved chunk c holds pairs 2c, 2c+1 as (sin, cos, sin, cos);
// concat chunk c holds four sines (first half) or four cosines (second half). Block
// (x: chunks of a row, y: rows), grid-stride over rows: no 64-bit division per element.
// Positions offset + p <= 2^24, so that they are exact in float32.
template <bool kConcat>
__global__ void sinusoidal_kernel2(float* pe, long long L, int D, double base, long long offset) {
  extern __shared__ float2 turns[];  // (D/2,): w_i/2π as (hi, lo)
  const int half = D / 2;
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  for (int i = tid; i < half; i += blockDim.x * blockDim.y) {
    const double w = formulas::inv_freq(i, D, base) / (2.0 * formulas::kPi);
    const float hi = static_cast<float>(w);
    turns[i] = make_float2(hi, static_cast<float>(w - double(hi)));
  }
  __syncthreads();

  constexpr float kTwoPi = 6.28318530717958648f;
  const int chunks = D / 4;
  for (long long p = static_cast<long long>(blockIdx.x) * blockDim.y + threadIdx.y; p < L;
       p += static_cast<long long>(gridDim.x) * blockDim.y) {
    const float position = static_cast<float>(offset + p);
    float* row = pe + p * D;
    for (int c = threadIdx.x; c < chunks; c += blockDim.x) {
      float4 out;
      if (!kConcat) {
        const float2 w0 = turns[2 * c], w1 = turns[2 * c + 1];
        __sincosf(detail::turns_of_position(position, w0.x, w0.y) * kTwoPi, &out.x, &out.y);
        __sincosf(detail::turns_of_position(position, w1.x, w1.y) * kTwoPi, &out.z, &out.w);
      } else {
        // Only the sines or only the cosines of four pairs: one SFU op each.
        const bool cosines = 4 * c >= half;
        const int i0 = cosines ? 4 * c - half : 4 * c;
        float v[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          const float2 w = turns[i0 + k];
          const float x = detail::turns_of_position(position, w.x, w.y) * kTwoPi;
          v[k] = cosines ? __cosf(x) : __sinf(x);
        }
        out = make_float4(v[0], v[1], v[2], v[3]);
      }
      *reinterpret_cast<float4*>(row + 4 * c) = out;
    }
  }
}

constexpr int kRowsPerAnchor = 4;  // variant 3: one SFU row, then 3 rotated ones

// Interleaved only: chunk c is (sin, cos) of pairs 2c and 2c + 1.
__global__ void sinusoidal_kernel3(float* pe, long long L, int D, double base, long long offset) {
  extern __shared__ float2 shared[];  // (D/2,) w_i/2π as (hi, lo), then (D/2,) (cos, sin)(S·w_i)
  const int half = D / 2;
  float2* turns = shared;
  float2* step = shared + half;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.y;  // S rows
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  for (int i = tid; i < half; i += blockDim.x * blockDim.y) {
    const double w = formulas::inv_freq(i, D, base);
    const double t = w / (2.0 * formulas::kPi);
    const float hi = static_cast<float>(t);
    turns[i] = make_float2(hi, static_cast<float>(t - double(hi)));
    double sn, cs;
    sincos(formulas::angle(double(stride), w), &sn, &cs);
    step[i] = make_float2(static_cast<float>(cs), static_cast<float>(sn));
  }
  __syncthreads();

  constexpr float kTwoPi = 6.28318530717958648f;
  const int chunks = D / 4;
  for (int c = threadIdx.x; c < chunks; c += blockDim.x) {
    const float2 w0 = turns[2 * c], w1 = turns[2 * c + 1];
    const float2 r0 = step[2 * c], r1 = step[2 * c + 1];
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    int n = 0;
    for (long long p = static_cast<long long>(blockIdx.x) * blockDim.y + threadIdx.y; p < L;
         p += stride, ++n) {
      if (n % kRowsPerAnchor == 0) {
        const float position = static_cast<float>(offset + p);
        __sincosf(detail::turns_of_position(position, w0.x, w0.y) * kTwoPi, &v.x, &v.y);
        __sincosf(detail::turns_of_position(position, w1.x, w1.y) * kTwoPi, &v.z, &v.w);
      } else {
        // sin(a + b) = sin a cos b + cos a sin b; cos(a + b) = cos a cos b − sin a sin b.
        v = make_float4(v.x * r0.x + v.y * r0.y, v.y * r0.x - v.x * r0.y, v.z * r1.x + v.w * r1.y,
                        v.w * r1.x - v.z * r1.y);
      }
      *reinterpret_cast<float4*>(pe + p * D + 4 * c) = v;
    }
  }
}

}  // namespace

void sinusoidal_table(float* pe, long long length, long long dim, double base,
                      SinusoidalLayout layout, long long offset, int variant, cudaStream_t stream) {
  // The checks and messages of poslab::sinusoidal_table.
  require(length >= 0, "length must be non-negative (got " + std::to_string(length) + ")");
  require(dim > 0 && dim % 2 == 0,
          "dim must be even and positive (got " + std::to_string(dim) + ")");
  require(std::isfinite(base) && base > 0.0,
          "base must be a positive finite number (got " + format_number(base) + ")");
  require(offset >= 0 && offset <= (1LL << 40),
          "offset must be in [0, 2^40] (got " + std::to_string(offset) + ")");
  require(variant >= 1 && variant <= kSinusoidalVariants,
          "unknown sinusoidal kernel variant " + std::to_string(variant));
  checked_numel({std::size_t(length), std::size_t(dim)}, "sinusoidal table (L, D)");
  if (length == 0) return;
  const int D = static_cast<int>(dim);
  const bool concat = layout == SinusoidalLayout::kConcat;

  // Variant 2 needs whole float4 chunks (for concat, chunks inside one half) and its
  // frequencies in the default 48 KB of shared memory.
  const bool vectorizable = detail::aligned16(pe) && D % (concat ? 8 : 4) == 0 &&
                            D / 2 * sizeof(float2) <= 48 * 1024 && offset + length <= (1LL << 24);
  if (variant == 1 || !vectorizable) {
    const long long pairs = length * (D / 2);
    sinusoidal_kernel1<<<detail::ceil_div(pairs, 256), 256, 0, stream>>>(pe, length, D, base,
                                                                         concat, offset);
    check_launch("sinusoidal_kernel1");
    return;
  }
  const dim3 block = detail::row_block(D / 4);
  const unsigned blocks =
      std::min<long long>(detail::ceil_div(length, block.y), 8LL * detail::multiprocessor_count());
  // Variant 3 needs twice variant 2's shared memory; the concat layout runs variant 2's kernel.
  if (variant == 3 && !concat && D * sizeof(float2) <= 48 * 1024) {
    sinusoidal_kernel3<<<blocks, block, 2 * sizeof(float2) * (D / 2), stream>>>(pe, length, D, base,
                                                                                offset);
    check_launch("sinusoidal_kernel3");
    return;
  }
  const std::size_t smem = sizeof(float2) * (D / 2);
  if (concat) {
    sinusoidal_kernel2<true><<<blocks, block, smem, stream>>>(pe, length, D, base, offset);
  } else {
    sinusoidal_kernel2<false><<<blocks, block, smem, stream>>>(pe, length, D, base, offset);
  }
  check_launch("sinusoidal_kernel2");
}

}  // namespace poslab::cuda

// Device-side helpers shared by the kernels: storage-type conversions, 16-byte vectors,
// launch sizes. Included by .cu files only.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "poslab/cuda/runtime.hpp"

namespace poslab::cuda::detail {

// Storage type ↔ float32. All arithmetic happens in float32 (or double) registers. The
// cuda_fp16 / cuda_bf16 conversion operators are __half2float / __float2half_rn and
// __bfloat162float / __float2bfloat16_rn (round to nearest even, as to_half_bits on the host).
template <class T>
__device__ __forceinline__ float to_float(T x) {
  return static_cast<float>(x);
}
template <class T>
__device__ __forceinline__ T from_float(float x) {
  return static_cast<T>(x);
}

// N elements of T moved as one 16-byte access (N = 16 / sizeof(T)).
template <class T>
struct alignas(16) Vec16 {
  static constexpr int N = 16 / sizeof(T);
  T v[N];
};

template <class T>
__device__ __forceinline__ Vec16<T> load16(const T* p) {
  Vec16<T> out;
  *reinterpret_cast<uint4*>(&out) = *reinterpret_cast<const uint4*>(p);
  return out;
}
template <class T>
__device__ __forceinline__ void store16(T* p, const Vec16<T>& x) {
  *reinterpret_cast<uint4*>(p) = *reinterpret_cast<const uint4*>(&x);
}

inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

inline unsigned ceil_div(long long a, long long b) { return unsigned((a + b - 1) / b); }

// A 256-thread block shaped (x: `per_row` chunks of one row, y: rows), for kernels that walk
// rows with threadIdx.y and chunks with threadIdx.x: no 64-bit division per element.
inline dim3 row_block(int per_row) {
  const int x = per_row < 256 ? (per_row < 1 ? 1 : per_row) : 256;
  return dim3(unsigned(x), unsigned(256 / x));
}

// Calls f(T{}) with T the device type of `dtype`: one switch instead of one per launcher.
template <class F>
void dispatch_dtype(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kF32:
      f(float{});
      return;
    case DType::kF16:
      f(__half{});
      return;
    case DType::kBF16:
      f(__nv_bfloat16{});
      return;
  }
}

}  // namespace poslab::cuda::detail

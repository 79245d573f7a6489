// Which keys a query may see, and the ALiBi term: the semantics of poslab::Mask and
// poslab::attention shared by both attention kernels, so naive and fused agree by
// construction.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "poslab/attention.hpp"
#include "poslab/cuda/attention.hpp"
#include "poslab/formulas.hpp"

namespace poslab::cuda::detail {

// Positions are int: check_attention caps every tensor at 2^28 elements, and 32-bit index
// arithmetic keeps the fused kernel's register count down.
struct MaskArgs {
  bool causal;    // causal or sliding window: j > i hidden
  bool windowed;  // sliding window: i − j >= window hidden
  int window;
  const std::uint8_t* key_padding;  // (B, Lk) or null

  // Keys [first, last) are the only ones query i may see (before padding).
  __device__ __forceinline__ int first_key(int i) const {
    return windowed && i - window + 1 > 0 ? i - window + 1 : 0;
  }
  __device__ __forceinline__ int last_key(int i, int Lk) const {
    return causal && i + 1 < Lk ? i + 1 : Lk;
  }
  __device__ __forceinline__ bool hides(int i, int j, int b, int Lk) const {
    if (j >= Lk) return true;
    if (causal && j > i) return true;
    if (windowed && i - j >= window) return true;
    return key_padding != nullptr && key_padding[b * Lk + j] != 0;
  }
};

// A window wider than 2^31 − 1 hides nothing more than causal already does at these sizes.
inline MaskArgs mask_args(const AttentionConfig& config) {
  const long long w = config.mask.window < 0x7fffffffLL ? config.mask.window : 0x7fffffffLL;
  return {config.mask.kind != MaskKind::kNone, config.mask.kind == MaskKind::kSlidingWindow,
          static_cast<int>(w), config.key_padding};
}

// −m·|i − j| in double, stored as float32: poslab::alibi_bias's value.
__device__ __forceinline__ float alibi_term(double slope, int i, int j) {
  const int distance = i > j ? i - j : j - i;
  return static_cast<float>(-slope * double(distance));
}

}  // namespace poslab::cuda::detail

// Which keys a query may see: the semantics of poslab::Mask and
// poslab::attention shared by both attention kernels, so naive and fused agree by
// construction.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "poslab/cuda/attention.hpp"
#include "poslab/layers/attention.hpp"
#include "poslab/layers/mask.hpp"
#include "poslab/positions/formulas.hpp"

namespace poslab::cuda::detail {

// Positions are int: check_attention caps every tensor at 2^28 elements and |offset| at 2^30,
// and 32-bit index arithmetic keeps the fused kernel's register count down. Which keys a query
// sees is poslab::MaskRule (mask.hpp), the rule of the CPU reference.
struct MaskArgs {
  MaskRule<int> rule;
  const std::uint8_t* key_padding;  // (B, Lk) or null

  // Keys [first_key, last_key) are the only ones query i may see (before padding).
  __device__ __forceinline__ int first_key(int i, int Lk) const { return rule.keys(i, Lk).first; }
  __device__ __forceinline__ int last_key(int i, int Lk) const { return rule.keys(i, Lk).last; }
  __device__ __forceinline__ bool hides(int i, int j, int b, int Lk) const {
    return rule.hides(i, j, Lk, key_padding != nullptr ? key_padding + b * Lk : nullptr);
  }
};

// A window wider than 2^31 − 1 hides nothing more than causal already does at these sizes.
inline MaskArgs mask_args(const AttentionConfig& config) {
  Mask mask = config.mask;
  mask.window = mask.window < 0x7fffffffLL ? mask.window : 0x7fffffffLL;
  return {mask.rule<int>(), config.key_padding};
}

// log2(e): both kernels run the softmax in log2 units (exp2f), scores times scale·log2 e.
inline constexpr float kLog2e = 1.4426950408889634f;

}  // namespace poslab::cuda::detail

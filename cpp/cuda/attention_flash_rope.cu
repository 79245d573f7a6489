// RoPE (Su et al., RoFormer) in the fused kernel: Q and each K tile rotated in shared memory as
// they land, query p at p = i + offset and key j at j, every scaling as the precomputed inv_freq
// and attention factor of poslab::rope_frequencies (DeviceRopeFrequencies), the rotation of
// formulas::rotate_pair as poslab::rope_apply. Angles are reduced in double (angles.cuh): once
// per tile and pair for the tile's first row, once per block for the row offsets.
#include <string>

#include "angles.cuh"
#include "attention_flash_kernel.cuh"

namespace poslab::cuda::detail {
namespace {

struct RopeRotation {
  const double* inv_freq;  // (R/2,) on the device
  int R;
  bool neox_pairs;
  float factor;  // multiplies cos and sin (YaRN)

  static constexpr bool kRotates = true;
  static constexpr bool kRowsDependOnSide = false;
  __device__ int rotary_dim() const { return R; }
  __device__ bool neox() const { return neox_pairs; }
  __device__ float2 row_factor(int r, int k, Side) const {
    float s, c;
    sincos_of_angle(double(r) * inv_freq[k], &s, &c);
    return make_float2(c, s);
  }
  __device__ float2 tile_factor(int p0, int k, Side) const {
    float s, c;
    sincos_of_angle(double(p0) * inv_freq[k], &s, &c);
    return make_float2(c * factor, s * factor);
  }
};

}  // namespace

void flash_rope(const FlashLaunch& launch, const AttentionConfig& config) {
  const DeviceRopeFrequencies& freq = *config.rope;
  require(freq.head_dim() == launch.dims.d,
          "flash attention: RoPE frequencies are for head width " +
              std::to_string(freq.head_dim()) + ", not " + std::to_string(launch.dims.d));
  // As poslab::rope_apply: positions start at 0 (query i sits at i + offset).
  require(config.mask.offset >= 0,
          "flash attention: RoPE needs query positions >= 0, so a mask offset >= 0 (got " +
              std::to_string(config.mask.offset) + ")");
  require(freq.rotary_dim() % 4 == 0,
          "flash attention rotates two pairs at a time: the rotary dim must be a multiple of 4 "
          "(got " +
              std::to_string(freq.rotary_dim()) + ")");
  const RopeRotation rotation{freq.inv_freq(), freq.rotary_dim(), freq.style() == RopeStyle::kNeox,
                              freq.attention_factor()};
  launch_flash_method(launch, NoScoreMod{}, rotation);
}

}  // namespace poslab::cuda::detail

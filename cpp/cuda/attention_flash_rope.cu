// RoPE (Su et al., RoFormer) in the fused kernel: Q and each K tile rotated in shared memory as
// they land, query p at p = i + offset and key j at j, every scaling as the precomputed inv_freq
// and attention factor of poslab::rope_frequencies (DeviceRopeFrequencies), the rotation of
// formulas::rotate_pair as poslab::rope_apply. Angles are reduced in double (angles.cuh): once
// per tile and pair for the tile's first row, once per block for the row offsets.
// A decaying rotation (scale_base > 0) also scales each pair by formulas::decay_scale: ζ_i^e for
// a query of offset + Lq positions, ζ_i^(−e) for a key of Lk, as rope_apply(q, options, offset,
// kQuery) and rope_apply(k, options, 0, kKey) see them. The scale splits like the angle,
// ζ^(e(p0 + r)) = ζ^(e(p0)) · ζ^(±r/scale_base), so it rides in the same two tables; only the
// row table differs for keys (rebuilt once for them). It is its own instantiation, so the plain
// rotation's kernel carries none of it.
#include <algorithm>
#include <string>

#include "angles.cuh"
#include "attention_flash_kernel.cuh"
#include "poslab/base/format.hpp"
#include "poslab/positions/formulas.hpp"

namespace poslab::cuda::detail {
namespace {

template <bool kDecays>
struct RopeRotation {
  const double* inv_freq;  // (R/2,) on the device
  int R;
  bool neox_pairs;
  float factor;                // multiplies cos and sin (YaRN)
  double scale_base;           // the decay's (kDecays)
  int query_total, key_total;  // offset + Lq, Lk: what the decay centres on (kDecays)

  static constexpr bool kRotates = true;
  static constexpr bool kRowsDependOnSide = kDecays;
  __device__ int rotary_dim() const { return R; }
  __device__ bool neox() const { return neox_pairs; }
  __device__ float2 row_factor(int r, int k, RotationSide side) const {
    float s, c;
    sincos_of_angle(double(r) * inv_freq[k], &s, &c);
    if constexpr (kDecays) {
      const double exponent = double(side == RotationSide::kKey ? -r : r) / scale_base;
      const float scale = static_cast<float>(pow(formulas::decay_zeta(k, R), exponent));
      c *= scale;
      s *= scale;
    }
    return make_float2(c, s);
  }
  __device__ float2 tile_factor(int p0, int k, RotationSide side) const {
    float s, c;
    sincos_of_angle(double(p0) * inv_freq[k], &s, &c);
    float scale = factor;
    if constexpr (kDecays) {
      const bool key = side == RotationSide::kKey;
      scale *= static_cast<float>(
          formulas::decay_scale(k, R, p0, key ? key_total : query_total, scale_base, key));
    }
    return make_float2(c * scale, s * scale);
  }
};

// The largest factor a decaying rotation multiplies a q or k element by at these positions:
// ζ_0 is the least ζ, so its powers at the ends of each side's range bound every pair's.
double largest_scale(const DeviceRopeFrequencies& freq, long long offset, long long query_total,
                     long long key_total) {
  double largest = 1.0;
  auto ends = [&](long long first, long long count, long long total, bool key) {
    if (count == 0) return;
    for (long long p : {first, first + count - 1}) {
      largest = std::max(
          largest, formulas::decay_scale(0, freq.rotary_dim(), p, total, freq.scale_base(), key));
    }
  };
  ends(offset, query_total - offset, query_total, false);
  ends(0, key_total, key_total, true);
  return largest * freq.attention_factor();
}

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
  const bool neox = freq.style() == RopeStyle::kNeox;
  if (freq.scale_base() == 0.0) {
    const RopeRotation<false> rotation{
        freq.inv_freq(), freq.rotary_dim(), neox, freq.attention_factor(), 0.0, 0, 0};
    launch_flash_method(launch, NoScoreMod{}, rotation);
    return;
  }
  const long long query_total = config.mask.offset + launch.dims.Lq, key_total = launch.dims.Lk;
  // The scaled q and k are held in the storage type: refuse a scale that alone overflows it.
  const double storage_max = launch.dtype == DType::kF16 ? 65504.0 : 3.3895313892515355e38;
  const double largest = largest_scale(freq, config.mask.offset, query_total, key_total);
  require(largest <= storage_max,
          "flash attention: the rotation's decay scales q or k by up to " + format_number(largest) +
              " at these positions (offset + Lq = " + std::to_string(query_total) +
              ", Lk = " + std::to_string(key_total) + "), past " + dtype_name(launch.dtype) +
              "'s largest value; use a larger scale base or a shorter sequence");
  const RopeRotation<true> rotation{freq.inv_freq(),
                                    freq.rotary_dim(),
                                    neox,
                                    freq.attention_factor(),
                                    freq.scale_base(),
                                    static_cast<int>(query_total),
                                    static_cast<int>(key_total)};
  launch_flash_method(launch, NoScoreMod{}, rotation);
}

}  // namespace poslab::cuda::detail

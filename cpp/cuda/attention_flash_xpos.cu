// xPos (Sun et al. 2023, as torchscale's XPOS) in the fused kernel: Q and each K tile rotated on
// gptj pairs by p·θ_i as they land, like RoPE, and each pair scaled by ζ_i^e for a query and
// ζ_i^(−e) for a key, e = (p − ⌈total/2⌉)/scale_base: formulas::xpos_scale, the scale
// poslab::xpos_apply multiplies on the CPU. Queries are positions p_i = i + offset of
// offset + Lq, keys j of Lk, as xpos_apply(q, kQuery, offset) and xpos_apply(k, kKey, 0) see
// them. The scale splits like the angle: ζ^(e(p0 + r)) = ζ^(e(p0)) · ζ^(±r/scale_base), so the
// kernel composes it from the tile's factor and the row table as it does the rotation; only
// the row table differs for keys (it is rebuilt once for them).
#include <algorithm>
#include <string>

#include "angles.cuh"
#include "attention_flash_kernel.cuh"
#include "poslab/base/format.hpp"
#include "poslab/positions/formulas.hpp"

namespace poslab::cuda::detail {
namespace {

struct XposRotation {
  const double* inv_freq;  // θ_k, (D/2,) on the device
  int D;
  double scale_base;
  int query_total, key_total;  // offset + Lq, Lk

  static constexpr bool kRotates = true;
  static constexpr bool kRowsDependOnSide = true;
  __device__ int rotary_dim() const { return D; }
  __device__ bool neox() const { return false; }
  __device__ float2 row_factor(int r, int k, Side side) const {
    float s, c;
    sincos_of_angle(double(r) * inv_freq[k], &s, &c);
    const double exponent = double(side == Side::kKey ? -r : r) / scale_base;
    const float scale = static_cast<float>(pow(formulas::xpos_zeta(k, D), exponent));
    return make_float2(c * scale, s * scale);
  }
  __device__ float2 tile_factor(int p0, int k, Side side) const {
    float s, c;
    sincos_of_angle(double(p0) * inv_freq[k], &s, &c);
    const bool key = side == Side::kKey;
    const float scale = static_cast<float>(
        formulas::xpos_scale(k, D, p0, key ? key_total : query_total, scale_base, key));
    return make_float2(c * scale, s * scale);
  }
};

// The largest factor xPos multiplies a q or k element by at these positions: ζ_0 is the least
// ζ, so its powers at the ends of each side's range bound every pair's.
double largest_scale(int D, double scale_base, long long offset, long long Lq, long long Lk) {
  double largest = 1.0;
  auto ends = [&](long long first, long long count, long long total, bool key) {
    if (count == 0) return;
    for (long long p : {first, first + count - 1}) {
      largest = std::max(largest, formulas::xpos_scale(0, D, p, total, scale_base, key));
    }
  };
  ends(offset, Lq, offset + Lq, false);
  ends(0, Lk, Lk, true);
  return largest;
}

}  // namespace

void flash_xpos(const FlashLaunch& launch, const AttentionConfig& config) {
  const DeviceXposFrequencies& freq = *config.xpos;
  const AttentionDims& n = launch.dims;
  require(freq.head_dim() == n.d, "flash attention: xPos frequencies are for head width " +
                                      std::to_string(freq.head_dim()) + ", not " +
                                      std::to_string(n.d));
  // As poslab::xpos_apply: positions start at 0 (query i sits at i + offset).
  require(config.mask.offset >= 0,
          "flash attention: xPos needs query positions >= 0, so a mask offset >= 0 (got " +
              std::to_string(config.mask.offset) + ")");
  // The scaled q and k are held in the storage type: refuse a scale that alone overflows it.
  const double storage_max = launch.dtype == DType::kF16 ? 65504.0 : 3.3895313892515355e38;
  const double largest =
      largest_scale(freq.head_dim(), freq.scale_base(), config.mask.offset, n.Lq, n.Lk);
  require(largest <= storage_max,
          "flash attention: xPos scales q or k by up to " + format_number(largest) +
              " at these positions (offset + Lq = " + std::to_string(config.mask.offset + n.Lq) +
              ", Lk = " + std::to_string(n.Lk) + "), past " + dtype_name(launch.dtype) +
              "'s largest value; use a larger scale base or a shorter sequence");
  const XposRotation rotation{freq.inv_freq(), freq.head_dim(), freq.scale_base(),
                              static_cast<int>(config.mask.offset + n.Lq), static_cast<int>(n.Lk)};
  launch_flash_method(launch, NoScoreMod{}, rotation);
}

}  // namespace poslab::cuda::detail

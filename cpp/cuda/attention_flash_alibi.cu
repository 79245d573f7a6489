// ALiBi (Press et al. 2022) in the fused kernel: −m_h·|p − j| added to each score, m_h from
// formulas::alibi_slope, the formula poslab::alibi_bias evaluates on the CPU.
#include "attention_flash_kernel.cuh"
#include "poslab/positions/formulas.hpp"

namespace poslab::cuda::detail {
namespace {

struct AlibiScoreMod {
  int num_heads;

  static constexpr bool kModifies = true;
  template <class Tl>
  static constexpr int shared_floats() {
    return 0;
  }
  struct Head {
    float slope_log2;  // m_h · log2(e)
    __device__ float operator()(float s, int p, int j) const {
      const int distance = p - j;
      return s - slope_log2 * static_cast<float>(distance < 0 ? -distance : distance);
    }
  };
  __device__ Head at_head(int h) const {
    return {static_cast<float>(formulas::alibi_slope(h, num_heads)) * kLog2e};
  }
  template <class Tl>
  __device__ void stage(Head&, float*, int, int) const {}
};

}  // namespace

void flash_alibi(const FlashLaunch& launch, const AttentionConfig&) {
  launch_flash_method(launch, AlibiScoreMod{launch.args.H}, NoRotation{});
}

}  // namespace poslab::cuda::detail

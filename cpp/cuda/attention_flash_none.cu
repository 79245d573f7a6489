// The fused kernel without a position method (masks and padding only): no score modifier, no
// rotation, so none of their code is compiled in.
#include "attention_flash_kernel.cuh"

namespace poslab::cuda::detail {

void flash_without_position(const FlashLaunch& launch, const AttentionConfig&) {
  launch_flash_method(launch, NoScoreMod{}, NoRotation{});
}

}  // namespace poslab::cuda::detail

// The fused kernel's position methods, one launcher each, for attention_flash to pick from.
// Each lives in its own file with its policy (a score modifier or a rotation, the contracts in
// attention_flash_kernel.cuh), its option checks and the kernel's instantiations: every score
// bias through its term in attention_flash_bias.cu, the rotations in attention_flash_rope.cu.
#pragma once

#include <cuda_runtime.h>

#include "attention_mask.cuh"
#include "poslab/cuda/attention.hpp"
#include "poslab/cuda/runtime.hpp"

namespace poslab::cuda::detail {

// What every instantiation reads; the position method's parameters travel in its policy.
struct FlashArgs {
  const void* q;
  const void* k;
  const void* v;
  void* o;
  int H, Lq, Lk;
  float scale_log2;  // scale · log2(e)
  MaskArgs mask;
};

// One checked call of attention_flash, as a method's launcher receives it.
struct FlashLaunch {
  FlashArgs args;
  AttentionDims dims;
  DType dtype;
  int variant;
  cudaStream_t stream;
};

// Each checks the options of its method in `config` (throwing poslab::Error), then launches
// (nothing when Lq = 0). flash_rope runs RoPE with or without a decay (config.rope).
void flash_without_position(const FlashLaunch& launch, const AttentionConfig& config);
void flash_score_bias(const FlashLaunch& launch, const AttentionConfig& config);
void flash_rope(const FlashLaunch& launch, const AttentionConfig& config);

}  // namespace poslab::cuda::detail

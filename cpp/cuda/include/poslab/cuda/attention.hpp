// Attention forward on the GPU, softmax(Q Kᵀ · scale + bias + mask) V, with the semantics of
// poslab::attention: masks, key padding, a score bias, zero output for a query that sees no key.
// Position terms read the mask's positions (mask.hpp): query i at p_i = i + mask.offset, key j
// at j.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "poslab/cuda/rope.hpp"
#include "poslab/cuda/runtime.hpp"
#include "poslab/layers/attention.hpp"
#include "poslab/positions/score_bias.hpp"

namespace poslab::cuda {

// q (B, H, Lq, d), k and v (B, H, Lk, d), out (B, H, Lq, d), row-major.
struct AttentionDims {
  long long B = 1, H = 1, Lq = 0, Lk = 0, d = 0;
};

struct AttentionConfig {
  Mask mask;                                  // none, causal, or causal sliding window W
  double scale = 0.0;                         // 0 means 1/√d
  const std::uint8_t* key_padding = nullptr;  // device (B, Lk); nonzero hides the key
  const float* bias = nullptr;                // naive only: device (H, Lq, Lk), every batch
  // A score bias of the table computed in the kernel by its term (positions/score_bias.hpp), the
  // formula poslab::score_bias_tensor evaluates: b_h(p_i, j) for the method, its device float32
  // parameters in the term's layout (its kTensors in order: T5's (num_buckets, H) table;
  // ALiBi: none) and its options (bias_shape; its heads are the call's H).
  PositionMethod score_bias = PositionMethod::kNone;
  const float* bias_parameters = nullptr;
  score_bias::TermShape bias_shape;
  // Flash only: RoPE applied to the Q and K tiles as they are loaded (query at p_i, key at j),
  // the scalings as precomputed inv_freq and attention factor. Head width must be freq's. With
  // a decay (scale_base > 0) as poslab::rope_apply's: queries (of offset + Lq positions) scaled
  // by ζ_i^e, keys (of Lk) by ζ_i^(−e).
  const DeviceRopeFrequencies* rope = nullptr;
};

// Variant 1, "standard attention": S = Q Kᵀ·scale with cuBLAS into a (B, H, Lq, Lk) float32
// workspace, one masked-softmax kernel writing P over S (float32 math), O = P V with cuBLAS.
// fp32, fp16 and bf16; Lk up to 32 768 (16 384 when Lk is not a multiple of 4).
std::size_t attention_naive_workspace(const AttentionDims& dims, DType dtype);
void attention_naive(const void* q, const void* k, const void* v, void* out, DType dtype,
                     const AttentionDims& dims, const AttentionConfig& config, cublasHandle_t blas,
                     void* workspace, std::size_t workspace_bytes, cudaStream_t stream = nullptr);

// Variants 2-4, fused flash-style: one block per 64 (variant 2, 4 warps of 16 rows), 128
// (variant 3, 8 warps of 16 rows) or 128 (variant 4, 4 warps of 32 rows, FlashAttention-2's
// layout) queries of one head, online softmax over 64-key tiles in shared memory (variant 4 at
// d = 128: 32), fp16/bf16 tensor cores (mma.sync m16n8k16) accumulating in float32; masks,
// padding, a score bias (any relative term of score_bias.hpp: ALiBi, T5, …) and RoPE (with or
// without a decay) inside the kernel; tiles a causal or windowed block cannot see are never
// loaded. fp16 and bf16, d = 64 or 128. No `bias` tensor, and one position method per call (a
// score bias or RoPE: each term is its own instantiation of the kernel, a decaying RoPE another).
inline constexpr int kAttentionVariants = 4;  // 1 is attention_naive
void attention_flash(const void* q, const void* k, const void* v, void* out, DType dtype,
                     const AttentionDims& dims, const AttentionConfig& config, int variant = 2,
                     cudaStream_t stream = nullptr);

}  // namespace poslab::cuda

// Attention forward on the GPU, softmax(Q Kᵀ · scale + bias + mask) V, with the semantics of
// poslab::attention: masks, key padding, ALiBi, zero output for a query that sees no key.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "poslab/attention.hpp"
#include "poslab/cuda/runtime.hpp"

namespace poslab::cuda {

// q (B, H, Lq, d), k and v (B, H, Lk, d), out (B, H, Lq, d), row-major.
struct AttentionDims {
  long long B = 1, H = 1, Lq = 0, Lk = 0, d = 0;
};

struct AttentionConfig {
  Mask mask;                                  // none, causal, or causal sliding window W
  double scale = 0.0;                         // 0 means 1/√d
  const std::uint8_t* key_padding = nullptr;  // device (B, Lk); nonzero hides the key
  bool alibi = false;                         // adds −m_h·|i − j| (formulas::alibi_slope)
  const float* bias = nullptr;                // naive only: device (H, Lq, Lk), every batch
};

// Variant 1, "standard attention": S = Q Kᵀ·scale with cuBLAS into a (B, H, Lq, Lk) float32
// workspace, one masked-softmax kernel writing P over S (float32 math), O = P V with cuBLAS.
// fp32, fp16 and bf16; Lk up to 32 768 (16 384 when Lk is not a multiple of 4).
std::size_t attention_naive_workspace(const AttentionDims& dims, DType dtype);
void attention_naive(const void* q, const void* k, const void* v, void* out, DType dtype,
                     const AttentionDims& dims, const AttentionConfig& config, cublasHandle_t blas,
                     void* workspace, std::size_t workspace_bytes, cudaStream_t stream = nullptr);

// Variant 2, fused flash-style: one block per 64 queries of one head, online softmax over
// 64-key tiles in shared memory, fp16/bf16 tensor cores (mma.sync m16n8k16) accumulating in
// float32; masks, padding and ALiBi inside the kernel; tiles a causal or windowed block
// cannot see are never loaded. fp16 and bf16, d = 64 or 128. No `bias` tensor.
void attention_flash(const void* q, const void* k, const void* v, void* out, DType dtype,
                     const AttentionDims& dims, const AttentionConfig& config,
                     cudaStream_t stream = nullptr);

}  // namespace poslab::cuda

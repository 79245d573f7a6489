// "Standard attention" on the GPU, the baseline the fused kernel is measured against:
//   1. S = Q Kᵀ·scale          cuBLAS strided-batched GEMM, float32 accumulation, S stored as
//                              float32 in a (B, H, Lq, Lk) workspace (scores rounded to fp16
//                              would move the weights by u·|s|, past the fp16 tolerance)
//   2. masked_softmax_kernel   one block per row: mask, padding, ALiBi or a bias tensor,
//                              numerically stable softmax in float32; the row stays in
//                              registers, so S is read once, and P is written in the storage
//                              type over the start of its own row of S (row stride 4·Lk bytes)
//   3. O = P V                 cuBLAS strided-batched GEMM reading P with that stride
// Validated against poslab::attention in tests/cuda and poslab-bench-cuda.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <string>

#include "attention_check.hpp"
#include "attention_mask.cuh"
#include "common.cuh"
#include "mma.cuh"
#include "poslab/cuda/attention.hpp"

namespace poslab::cuda {
namespace {

using detail::from_float;
using detail::kLog2e;

struct SoftmaxArgs {
  int H, Lq, Lk;
  detail::MaskArgs mask;
  const float* bias;  // (H, Lq, Lk) or null
};

// A score bias's term (positions/score_bias.hpp) added to each score, or none.
struct NoTerm {
  static constexpr bool kAdds = false;  // never called: the kernel skips the term
};
template <class Term>
struct TermBias {
  static constexpr bool kAdds = true;
  Term term;
  __device__ float operator()(int h, int p, int j) const {
    return static_cast<float>(term.value(h, p, j));
  }
};

// Reduces `v` over the block (max or sum); every thread gets the result.
template <bool kMax>
__device__ float block_reduce(float v, float* scratch) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const float w = __shfl_xor_sync(0xffffffffu, v, o);
    v = kMax ? fmaxf(v, w) : v + w;
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warps = blockDim.x / 32;
  __syncthreads();  // scratch may still be read by a previous reduction
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < warps ? scratch[lane] : (kMax ? -INFINITY : 0.0f);
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const float w = __shfl_xor_sync(0xffffffffu, v, o);
    v = kMax ? fmaxf(v, w) : v + w;
  }
  return v;
}

// V float32 values stored as T, in one access when V > 1.
template <class T, int V>
__device__ __forceinline__ void store_row_chunk(T* p, const float (&x)[V], float scale) {
  if constexpr (V == 4 && sizeof(T) == 4) {
    *reinterpret_cast<float4*>(p) =
        make_float4(x[0] * scale, x[1] * scale, x[2] * scale, x[3] * scale);
  } else if constexpr (V == 4) {
    const uint2 packed = make_uint2(detail::pack2<T>(x[0] * scale, x[1] * scale),
                                    detail::pack2<T>(x[2] * scale, x[3] * scale));
    *reinterpret_cast<uint2*>(p) = packed;
  } else {
#pragma unroll
    for (int e = 0; e < V; ++e) p[e] = from_float<T>(x[e] * scale);
  }
}

// S (B, H, Lq, Lk) float32 → P as T at the start of each row of S; one block per row, each
// thread kItems chunks of V keys held in registers (log2 units). Hidden keys read nothing
// and are written as 0. Every thread has read its part of the row before the first
// reduction's barrier, so writing P over the row is safe.
template <class T, int V, int kItems, class Bias>
__global__ void masked_softmax_kernel(float* S, SoftmaxArgs a, Bias term) {
  __shared__ float scratch[32];
  const int row = blockIdx.x;  // (b·H + h)·Lq + i
  const int i = row % a.Lq;
  const int h = (row / a.Lq) % a.H;
  const int b = row / (a.Lq * a.H);
  float* srow = S + static_cast<long long>(row) * a.Lk;
  T* prow = reinterpret_cast<T*>(srow);
  const int lo = a.mask.first_key(i, a.Lk), hi = a.mask.last_key(i, a.Lk);
  const float* brow = a.bias ? a.bias + (static_cast<long long>(h) * a.Lq + i) * a.Lk : nullptr;

  float x[kItems][V];
  float mx = -INFINITY;
#pragma unroll
  for (int it = 0; it < kItems; ++it) {
    const int j0 = (it * blockDim.x + threadIdx.x) * V;
    const bool any = j0 < hi && j0 + V > lo;  // some key of the chunk is visible
    float raw[V];
    if (any) {
      if constexpr (V == 4) {
        const float4 v = *reinterpret_cast<const float4*>(srow + j0);
        raw[0] = v.x, raw[1] = v.y, raw[2] = v.z, raw[3] = v.w;
      } else {
        raw[0] = srow[j0];
      }
    }
#pragma unroll
    for (int e = 0; e < V; ++e) {
      const int j = j0 + e;
      float s = -INFINITY;
      if (any && !a.mask.hides(i, j, b, a.Lk)) {
        s = raw[e];
        if constexpr (Bias::kAdds) s += term(h, i + a.mask.rule.offset, j);
        if (brow) s += brow[j];
        s *= kLog2e;
      }
      x[it][e] = s;
      mx = fmaxf(mx, s);
    }
  }
  mx = block_reduce<true>(mx, scratch);
  float sum = 0.0f;
#pragma unroll
  for (int it = 0; it < kItems; ++it) {
#pragma unroll
    for (int e = 0; e < V; ++e) {
      x[it][e] = x[it][e] == -INFINITY ? 0.0f : exp2f(x[it][e] - mx);
      sum += x[it][e];
    }
  }
  sum = block_reduce<false>(sum, scratch);
  // A row that sees no key (mx = −∞) attends to nothing: zero weights, never NaN.
  const float inv = mx == -INFINITY ? 0.0f : 1.0f / sum;
#pragma unroll
  for (int it = 0; it < kItems; ++it) {
    const int j0 = (it * blockDim.x + threadIdx.x) * V;
    if (j0 >= a.Lk) continue;
    store_row_chunk<T, V>(prow + j0, x[it], inv);
  }
}

template <class T, int V, int kItems, class Bias>
void launch_softmax(float* S, const SoftmaxArgs& args, const Bias& term, long long rows,
                    cudaStream_t stream) {
  const long long per_thread = V * kItems;
  long long threads = (args.Lk + per_thread - 1) / per_thread;
  threads = (threads + 31) / 32 * 32;
  threads = threads < 32 ? 32 : threads;
  require(threads <= 1024, "naive attention: Lk = " + std::to_string(args.Lk) +
                               " is longer than one softmax block holds (" +
                               std::to_string(1024 * per_thread) + ")");
  masked_softmax_kernel<T, V, kItems, Bias>
      <<<unsigned(rows), unsigned(threads), 0, stream>>>(S, args, term);
  check_launch("masked_softmax_kernel");
}

cudaDataType cuda_type(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return CUDA_R_32F;
    case DType::kF16:
      return CUDA_R_16F;
    case DType::kBF16:
      return CUDA_R_16BF;
  }
  return CUDA_R_32F;
}

void check_blas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw Error(std::string(what) + " failed: " + cublasGetStatusString(status));
  }
}

}  // namespace

std::size_t attention_naive_workspace(const AttentionDims& n, DType dtype) {
  (void)dtype;  // S is float32 whatever the storage type; P overwrites it in place
  return std::size_t(n.B * n.H) * std::size_t(n.Lq) * std::size_t(n.Lk) * sizeof(float);
}

void attention_naive(const void* q, const void* k, const void* v, void* out, DType dtype,
                     const AttentionDims& n, const AttentionConfig& config, cublasHandle_t blas,
                     void* workspace, std::size_t workspace_bytes, cudaStream_t stream) {
  const double scale = detail::check_attention(n, config);
  const PositionMethodInfo& bias_info = position_method_info(config.score_bias);
  require(config.score_bias == PositionMethod::kNone || supports(config.score_bias, kSupportCuda),
          "bias", std::string("naive attention does not compute ") + bias_info.name + "'s bias");
  require(config.rope == nullptr || config.rope->scale_base() == 0.0,
          "naive attention does not apply a decaying rotation (config.rope with a scale base): "
          "attention_flash does");
  require(config.rope == nullptr,
          "naive attention takes rotated q and k (cuda::rope_apply), not config.rope");
  require(workspace_bytes >= attention_naive_workspace(n, dtype),
          "naive attention needs a workspace of " +
              std::to_string(attention_naive_workspace(n, dtype)) + " bytes");
  if (n.B * n.H * n.Lq == 0) return;
  require(n.Lq <= INT32_MAX && n.Lk <= INT32_MAX && n.B * n.H * n.Lq <= INT32_MAX,
          "naive attention: sizes past 2^31 rows");
  if (n.Lk == 0) {  // no key at all: every output row is zero
    check(cudaMemsetAsync(out, 0, std::size_t(n.B * n.H * n.Lq * n.d) * dtype_size(dtype), stream),
          "cudaMemsetAsync");
    return;
  }
  check_blas(cublasSetStream(blas, stream), "cublasSetStream");
  const cudaDataType type = cuda_type(dtype);
  const float alpha = static_cast<float>(scale), one = 1.0f, zero = 0.0f;
  const long long batch = n.B * n.H;
  // Row-major S (Lq, Lk) is column-major Sᵀ (Lk, Lq) = K Qᵀ: A = K read transposed.
  check_blas(cublasGemmStridedBatchedEx(
                 blas, CUBLAS_OP_T, CUBLAS_OP_N, int(n.Lk), int(n.Lq), int(n.d), &alpha, k, type,
                 int(n.d), n.Lk * n.d, q, type, int(n.d), n.Lq * n.d, &zero, workspace, CUDA_R_32F,
                 int(n.Lk), n.Lq * n.Lk, int(batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
             "cuBLAS Q Kᵀ");

  const SoftmaxArgs args{int(n.H), int(n.Lq), int(n.Lk), detail::mask_args(config), config.bias};
  const auto softmax = [&](const auto& term) {
    detail::dispatch_dtype(dtype, [&](auto zero_value) {
      using T = decltype(zero_value);
      float* S = static_cast<float*>(workspace);
      if (n.Lk % 4 == 0) {
        launch_softmax<T, 4, 8>(S, args, term, batch * n.Lq, stream);
      } else {
        launch_softmax<T, 1, 16>(S, args, term, batch * n.Lq, stream);
      }
    });
  };
  if (config.score_bias == PositionMethod::kNone) {
    softmax(NoTerm{});
  } else {
    score_bias::TermShape shape = config.bias_shape;
    shape.heads = int(n.H);
    score_bias::with_term_type(bias_info.term, [&](auto type) {
      using Term = typename decltype(type)::template With<float>;
      if constexpr (Term::kRelative) {  // the terms a GPU build computes
        softmax(TermBias<Term>{Term(config.bias_parameters, shape)});
      }
    });
  }

  // Row-major O (Lq, d) is column-major Oᵀ (d, Lq) = Vᵀ Pᵀ; P's rows are 4·Lk bytes apart.
  const long long p_stride = n.Lk * static_cast<long long>(sizeof(float) / dtype_size(dtype));
  check_blas(cublasGemmStridedBatchedEx(
                 blas, CUBLAS_OP_N, CUBLAS_OP_N, int(n.d), int(n.Lq), int(n.Lk), &one, v, type,
                 int(n.d), n.Lk * n.d, workspace, type, int(p_stride), n.Lq * p_stride, &zero, out,
                 type, int(n.d), n.Lq * n.d, int(batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
             "cuBLAS P V");
}

}  // namespace poslab::cuda

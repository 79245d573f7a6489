// Float32 matrix product, the one kernel behind every float32 linear layer (GPT-2, GPT-NeoX,
// the trainer's forward and backward passes). Google Highway, static dispatch: AVX2/AVX-512
// natively, SIMD128 in wasm (a multiply and an add per step; the relaxed wasm build's one
// f32x4.relaxed_madd, src/fast/madd.hpp). Packed panels
// and a register-blocked micro-kernel, as in Goto & van de Geijn (2008) and BLIS.
//
//   C (M, N) = op(A) · op(B)        (+ C when `accumulate`)
//   op(A) is A (M, K) stored row-major with stride lda, or Aᵀ when A is stored (K, M);
//   op(B) is B (K, N) stored row-major with stride ldb, or Bᵀ when B is stored (N, K).
//
// Tolerance policy (tests/cpp/gemm_test.cpp): products accumulate in float32, so each element
// is within K·2^-24·Σ_k |a_ik|·|b_kj| (plus one rounding of C when accumulating) of the exact
// double product — γ_K of Higham's bound. Natively the micro-kernel may fuse the multiply and
// add (FMA), wasm SIMD128 cannot and relaxed SIMD may (the engine picks): native, SIMD and
// relaxed results differ within that bound, not bit for bit.
#pragma once

#include <cstddef>

#include "poslab/base/tensor.hpp"

namespace poslab::fast {

enum class Op { kNone, kTranspose };

// The raw form: pointers and leading dimensions, no checks beyond the sizes themselves (the
// callers own the shapes). M, N or K may be 0 (K = 0 writes zeros unless accumulating).
void gemm(std::size_t M, std::size_t N, std::size_t K, const float* a, std::size_t lda, Op op_a,
          const float* b, std::size_t ldb, Op op_b, float* c, std::size_t ldc,
          bool accumulate = false);

// The tensor form: a is (M, K), or (K, M) with Op::kTranspose; b is (K, N), or (N, K) with
// Op::kTranspose; returns C (M, N). Throws Error when the inner sizes differ or an operand is
// not 2-D; the result's size is checked before allocation.
TensorF matmul(const TensorF& a, const TensorF& b, Op op_a = Op::kNone, Op op_b = Op::kNone);

}  // namespace poslab::fast

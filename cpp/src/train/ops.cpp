// The two scalar types of the trainer's products: float on the SIMD GEMM the language models
// use, double on plain loops (the finite-difference tests' reference precision).
#include "train/ops.hpp"

#include <algorithm>
#include <cmath>

#include "poslab/fast.hpp"
#include "poslab/formulas.hpp"
#include "poslab/gemm.hpp"

namespace poslab::train::ops {

void matmul(std::size_t M, std::size_t N, std::size_t K, const float* a, bool ta, const float* b,
            bool tb, float* c, bool accumulate) {
  using fast::Op;
  fast::gemm(M, N, K, a, ta ? M : K, ta ? Op::kTranspose : Op::kNone, b, tb ? K : N,
             tb ? Op::kTranspose : Op::kNone, c, N, accumulate);
}

void matmul(std::size_t M, std::size_t N, std::size_t K, const double* a, bool ta, const double* b,
            bool tb, double* c, bool accumulate) {
  for (std::size_t i = 0; i < M; ++i) {
    for (std::size_t j = 0; j < N; ++j) {
      double s = accumulate ? c[i * N + j] : 0.0;
      for (std::size_t k = 0; k < K; ++k) {
        s += (ta ? a[k * M + i] : a[i * K + k]) * (tb ? b[j * K + k] : b[k * N + j]);
      }
      c[i * N + j] = s;
    }
  }
}

void gelu_tanh_forward(float* out, const float* in, std::size_t n) {
  std::copy(in, in + n, out);
  fast::gelu_tanh(out, n);
}

void gelu_tanh_forward(double* out, const double* in, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = formulas::gelu_tanh(in[i]);
}

}  // namespace poslab::train::ops

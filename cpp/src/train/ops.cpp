// The two scalar types of the trainer's products: float on the SIMD GEMM the language models
// use, double on plain loops (the finite-difference tests' reference precision).
#include "train/ops.hpp"

#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>

#include "poslab/fast/fast.hpp"
#include "poslab/fast/gemm.hpp"
#include "poslab/positions/formulas.hpp"

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

namespace hn = hwy::HWY_NAMESPACE;

// Attention rows are short (≤ T keys) and there are B·H·T of them per layer: a libm exp per
// key was a tenth of a training step. A sink joins the maximum and the denominator only.
float softmax_row(float* row, std::size_t n, const float* sink) {
  float mx = sink != nullptr ? std::max(*sink, row[0]) : row[0];
  for (std::size_t j = 1; j < n; ++j) mx = std::max(mx, row[j]);
  float sum = 0;
  const auto block = [&](auto d, std::size_t j) {
    const auto e = hn::Exp(d, hn::Sub(hn::LoadU(d, row + j), hn::Set(d, mx)));
    hn::StoreU(e, d, row + j);
    sum += hn::GetLane(hn::SumOfLanes(d, e));
  };
  const hn::ScalableTag<float> d;
  const std::size_t lanes = hn::Lanes(d);
  std::size_t j = 0;
  for (; j + lanes <= n; j += lanes) block(d, j);
  for (; j < n; ++j) block(hn::CappedTag<float, 1>(), j);
  const float sink_e = sink != nullptr ? std::exp(*sink - mx) : 0.0f;
  const float inv = 1.0f / (sum + sink_e);
  for (std::size_t i = 0; i < n; ++i) row[i] *= inv;
  return sink_e * inv;
}

double softmax_row(double* row, std::size_t n, const double* sink) {
  double mx = sink != nullptr ? std::max(*sink, row[0]) : row[0];
  for (std::size_t j = 1; j < n; ++j) mx = std::max(mx, row[j]);
  double sum = 0;
  for (std::size_t j = 0; j < n; ++j) {
    row[j] = std::exp(row[j] - mx);
    sum += row[j];
  }
  const double sink_e = sink != nullptr ? std::exp(*sink - mx) : 0.0;
  for (std::size_t j = 0; j < n; ++j) row[j] /= sum + sink_e;
  return sink_e / (sum + sink_e);
}

// Vectorised with Highway: with the x = 0 case as a branch the compiler kept it scalar.
void gelu_tanh_backward(float* din, const float* dout, const float* in, const float* out,
                        std::size_t n) {
  const auto block = [&](auto d, std::size_t i) {
    const auto x = hn::LoadU(d, in + i);
    const auto one = hn::Set(d, 1.0f), half = hn::Set(d, 0.5f);
    const auto zero = hn::Eq(x, hn::Zero(d));
    // t = 2·out/x − 1 (0 at x = 0, where out is 0 too)
    const auto ratio = hn::Div(hn::LoadU(d, out + i), hn::IfThenElse(zero, one, x));
    const auto t = hn::IfThenElse(zero, hn::Zero(d), hn::MulSub(hn::Set(d, 2.0f), ratio, one));
    const auto x2 = hn::Mul(x, x);
    const auto du = hn::Mul(hn::Set(d, 0.7978845608028654f),
                            hn::MulAdd(hn::Set(d, 3 * 0.044715f), x2, one));  // du/dx
    const auto sech2 = hn::NegMulAdd(t, t, one);                              // 1 − t²
    const auto slope =
        hn::MulAdd(hn::Mul(hn::Mul(half, x), sech2), du, hn::Mul(half, hn::Add(one, t)));
    hn::StoreU(hn::MulAdd(hn::LoadU(d, dout + i), slope, hn::LoadU(d, din + i)), d, din + i);
  };
  const hn::ScalableTag<float> d;
  const std::size_t lanes = hn::Lanes(d);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) block(d, i);
  for (; i < n; ++i) block(hn::CappedTag<float, 1>(), i);
}

void gelu_tanh_forward(float* out, const float* in, std::size_t n) {
  std::copy(in, in + n, out);
  fast::gelu_tanh(out, n);
}

void gelu_tanh_forward(double* out, const double* in, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = formulas::gelu_tanh(in[i]);
}

}  // namespace poslab::train::ops

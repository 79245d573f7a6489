// The two scalar types of the trainer's products: float on the SIMD GEMM the language models
// use, double on plain loops (the finite-difference tests' reference precision).
#include "train/ops.hpp"

#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>

#include "fast/madd.hpp"
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

// The attention kernels below: four-lane vectors (every target has them; the head widths are
// multiples of four) through fast::madd, relaxed_madd in the relaxed wasm build.
namespace {
// weighted_rows with d = V·4: V accumulators of four lanes.
template <std::size_t V>
void weighted_rows_fixed(float* __restrict out, const float* __restrict w, std::size_t w_stride,
                         const float* __restrict x, std::size_t x_stride, std::size_t n, bool add) {
  const hn::Full128<float> d4;
  hn::Vec<hn::Full128<float>> acc[V];
  for (std::size_t v = 0; v < V; ++v) acc[v] = hn::Zero(d4);
  for (std::size_t i = 0; i < n; ++i) {
    const auto wi = hn::Set(d4, w[i * w_stride]);
    const float* xi = x + i * x_stride;
    for (std::size_t v = 0; v < V; ++v) acc[v] = fast::madd(wi, hn::LoadU(d4, xi + 4 * v), acc[v]);
  }
  for (std::size_t v = 0; v < V; ++v) {
    hn::StoreU(add ? hn::Add(hn::LoadU(d4, out + 4 * v), acc[v]) : acc[v], d4, out + 4 * v);
  }
}

// dots with d = V·4.
template <std::size_t V>
void dots_fixed(float* __restrict out, const float* __restrict a, const float* __restrict x,
                std::size_t x_stride, std::size_t n) {
  const hn::Full128<float> d4;
  using VF = hn::Vec<hn::Full128<float>>;
  VF av[V];
  for (std::size_t v = 0; v < V; ++v) av[v] = hn::LoadU(d4, a + 4 * v);
  std::size_t j = 0;
  for (; j + 4 <= n; j += 4) {
    VF s[4];
    for (std::size_t q = 0; q < 4; ++q) {
      const float* xj = x + (j + q) * x_stride;
      s[q] = hn::Mul(av[0], hn::LoadU(d4, xj));
      for (std::size_t v = 1; v < V; ++v) s[q] = fast::madd(av[v], hn::LoadU(d4, xj + 4 * v), s[q]);
    }
    // (s0, s1, s2, s3) → (Σs0, Σs1, Σs2, Σs3): pairwise lane sums, then the halves.
    const VF u01 =
        hn::Add(hn::InterleaveLower(d4, s[0], s[1]), hn::InterleaveUpper(d4, s[0], s[1]));
    const VF u23 =
        hn::Add(hn::InterleaveLower(d4, s[2], s[3]), hn::InterleaveUpper(d4, s[2], s[3]));
    hn::StoreU(hn::Add(hn::ConcatLowerLower(d4, u23, u01), hn::ConcatUpperUpper(d4, u23, u01)), d4,
               out + j);
  }
  for (; j < n; ++j) {
    const float* xj = x + j * x_stride;
    VF s = hn::Mul(av[0], hn::LoadU(d4, xj));
    for (std::size_t v = 1; v < V; ++v) s = fast::madd(av[v], hn::LoadU(d4, xj + 4 * v), s);
    out[j] = hn::GetLane(hn::SumOfLanes(d4, s));
  }
}
}  // namespace

void weighted_rows(float* __restrict out, const float* __restrict w, std::size_t w_stride,
                   const float* __restrict x, std::size_t x_stride, std::size_t n, std::size_t d,
                   bool add) {
  switch (d) {
    case 8:
      return weighted_rows_fixed<2>(out, w, w_stride, x, x_stride, n, add);
    case 16:
      return weighted_rows_fixed<4>(out, w, w_stride, x, x_stride, n, add);
    case 32:
      return weighted_rows_fixed<8>(out, w, w_stride, x, x_stride, n, add);
    case 64:
      return weighted_rows_fixed<16>(out, w, w_stride, x, x_stride, n, add);
    default:
      return weighted_rows<float>(out, w, w_stride, x, x_stride, n, d, add);
  }
}

void dots(float* __restrict out, const float* __restrict a, const float* __restrict x,
          std::size_t x_stride, std::size_t n, std::size_t d) {
  switch (d) {
    case 8:
      return dots_fixed<2>(out, a, x, x_stride, n);
    case 16:
      return dots_fixed<4>(out, a, x, x_stride, n);
    case 32:
      return dots_fixed<8>(out, a, x, x_stride, n);
    case 64:
      return dots_fixed<16>(out, a, x, x_stride, n);
    default:
      return dots<float>(out, a, x, x_stride, n, d);
  }
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

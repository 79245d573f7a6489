// GELU and SiLU over float32 arrays with Highway: whole vectors, then a one-lane tail. Each runs
// once per hidden unit per token per layer (T·4E per block), which in the double reference
// costs as much as a small GEMM, and one element at a time through libm's exp a tenth of the
// products' time in wasm.
#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include "poslab/fast/fast.hpp"

namespace poslab::fast {

namespace hn = hwy::HWY_NAMESPACE;

namespace {

// f(tag, pointer) over x[0, n): full vectors, then single lanes.
template <class F>
void for_each_lane_block(float* x, std::size_t n, F&& f) {
  const hn::ScalableTag<float> d;
  const std::size_t N = hn::Lanes(d);
  std::size_t i = 0;
  for (; i + N <= n; i += N) f(d, x + i);
  const hn::CappedTag<float, 1> d1;
  for (; i < n; ++i) f(d1, x + i);
}

// GELU's tanh form, 0.5·x·(1 + tanh(u)), u = √(2/π)·(x + 0.044715·x³), with tanh's 13/6
// rational approximation on [−9, 9] (±1 outside, as in float), the one of Eigen's
// generic_fast_tanh_float and onnxruntime's MLAS: a couple of ulp, and no exp. With Highway's
// Tanh (an Expm1, a division and a select) the GELU took 3.5 ns an element in wasm (Node 20),
// 9 % of a training step; this one 1.6.
constexpr float kTanhAlpha[7] = {
    4.89352455891786e-03f,  6.37261928875436e-04f, 1.48572235717979e-05f, 5.12229709037114e-08f,
    -8.60467152213735e-11f, 2.00018790482477e-13f, -2.76076847742355e-16f};
constexpr float kTanhBeta[4] = {4.89352518554385e-03f, 2.26843463243900e-03f, 1.18534705686654e-04f,
                                1.19825839466702e-06f};

template <class D>
HWY_INLINE void gelu_tanh_block(D d, float* p) {
  const auto x = hn::LoadU(d, p);
  const auto u = hn::Mul(hn::Set(d, 0.7978845608028654f),
                         hn::MulAdd(hn::Mul(hn::Set(d, 0.044715f), hn::Mul(x, x)), x, x));
  const auto limit = hn::Set(d, 9.0f);
  const auto v = hn::Min(hn::Max(u, hn::Neg(limit)), limit);
  const auto v2 = hn::Mul(v, v);
  auto num = hn::MulAdd(v2, hn::Set(d, kTanhAlpha[6]), hn::Set(d, kTanhAlpha[5]));
  for (int i = 4; i >= 0; --i) num = hn::MulAdd(v2, num, hn::Set(d, kTanhAlpha[i]));
  auto den = hn::MulAdd(v2, hn::Set(d, kTanhBeta[3]), hn::Set(d, kTanhBeta[2]));
  den = hn::MulAdd(v2, den, hn::Set(d, kTanhBeta[1]));
  den = hn::MulAdd(v2, den, hn::Set(d, kTanhBeta[0]));
  const auto t = hn::Div(hn::Mul(v, num), den);
  const auto half_x = hn::Mul(hn::Set(d, 0.5f), x);
  hn::StoreU(hn::MulAdd(half_x, t, half_x), d, p);
}

// 0.5·x·(1 + erf(x/√2)), erf(z) = sign(z)·(1 − t·(a1 + t·(a2 + … t·a5))·e^(−z²)),
// t = 1/(1 + p·|z|) (Abramowitz & Stegun 7.1.26).
template <class D>
HWY_INLINE void gelu_erf_block(D d, float* p) {
  const auto x = hn::LoadU(d, p);
  const auto z = hn::Mul(x, hn::Set(d, 0.7071067811865476f));
  const auto a = hn::Abs(z);
  const auto t = hn::Div(hn::Set(d, 1.0f), hn::MulAdd(hn::Set(d, 0.3275911f), a, hn::Set(d, 1.0f)));
  auto poly = hn::Set(d, 1.061405429f);
  poly = hn::MulAdd(poly, t, hn::Set(d, -1.453152027f));
  poly = hn::MulAdd(poly, t, hn::Set(d, 1.421413741f));
  poly = hn::MulAdd(poly, t, hn::Set(d, -0.284496736f));
  poly = hn::MulAdd(poly, t, hn::Set(d, 0.254829592f));
  poly = hn::Mul(poly, t);
  const auto erf_abs =
      hn::NegMulAdd(poly, hn::Exp(d, hn::Neg(hn::Mul(a, a))), hn::Set(d, 1.0f));  // 1 − poly·e
  const auto erf = hn::CopySignToAbs(erf_abs, z);
  const auto half_x = hn::Mul(hn::Set(d, 0.5f), x);
  hn::StoreU(hn::MulAdd(half_x, erf, half_x), d, p);
}

// x / (1 + e^(−x)). Highway's Exp is defined up to 104, so −x is capped at 88 (e^88 < FLT_MAX)
// and below x = −88 the result is 0: the formula's is under 1e-36 in magnitude there.
template <class D>
HWY_INLINE void silu_block(D d, float* p) {
  const auto x = hn::LoadU(d, p);
  const auto cap = hn::Set(d, 88.0f);
  const auto e = hn::Exp(d, hn::Min(hn::Neg(x), cap));
  const auto y = hn::Div(x, hn::Add(hn::Set(d, 1.0f), e));
  hn::StoreU(hn::IfThenZeroElse(hn::Lt(x, hn::Neg(cap)), y), d, p);
}

}  // namespace

void silu(float* x, std::size_t n) {
  for_each_lane_block(x, n, [](auto d, float* p) { silu_block(d, p); });
}

void gelu_tanh(float* x, std::size_t n) {
  for_each_lane_block(x, n, [](auto d, float* p) { gelu_tanh_block(d, p); });
}

void gelu_erf(float* x, std::size_t n) {
  for_each_lane_block(x, n, [](auto d, float* p) { gelu_erf_block(d, p); });
}

}  // namespace poslab::fast

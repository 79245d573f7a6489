// xPos (Sun et al. 2023) against torchscale's XPOS transcribed in reference.hpp, and the
// properties the paper builds it for: q·k depends on n − m only and decays with it.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "poslab/positions/rope.hpp"
#include "reference.hpp"

namespace {

using poslab::Error;
using poslab::TensorF;
using poslab::xpos_apply;
using poslab::XposOptions;
using poslab::XposSide;

double Dot(const TensorF& a, std::size_t row_a, const TensorF& b, std::size_t row_b) {
  const std::size_t D = a.shape.back();
  double s = 0;
  for (std::size_t c = 0; c < D; ++c) s += double(a.data[row_a * D + c]) * b.data[row_b * D + c];
  return s;
}

TEST(Xpos, QueriesAndKeysMatchTorchscaleOnLDAndHLD) {
  for (const bool key : {false, true}) {
    for (const long long offset : {0LL, 1LL, 5LL, 3000LL}) {
      for (const poslab::Shape& shape : {poslab::Shape{7, 32}, poslab::Shape{3, 6, 8}}) {
        const TensorF x = ref::random_tensor(shape, 3 + offset);
        const XposSide side = key ? XposSide::kKey : XposSide::kQuery;
        EXPECT_ALLCLOSE(xpos_apply(x, XposOptions{}, side, offset),
                        ref::xpos_apply(x, 10000.0, 512.0, key, offset), ref::kTight)
            << (key ? "key" : "query") << " offset " << offset << " rank " << shape.size();
      }
    }
  }
}

TEST(Xpos, OtherBaseAndScaleBaseMatchTorchscale) {
  const TensorF x = ref::random_tensor({9, 16}, 11);
  XposOptions o;
  o.base = 500.0;
  o.scale_base = 4.0;  // a strong decay: scales far from 1 within 9 positions
  for (const bool key : {false, true}) {
    EXPECT_ALLCLOSE(xpos_apply(x, o, key ? XposSide::kKey : XposSide::kQuery, 2),
                    ref::xpos_apply(x, 500.0, 4.0, key, 2), ref::kTight);
  }
}

// One sequence's queries and keys: q_n·k_m = Σ_i ζ_i^((n−m)/s)·(R_n q)_i·(R_m k)_i, with R the
// gptj RoPE rotation and (·)_i pair i: the centre cancels, only n − m remains.
TEST(Xpos, ScoresAreRopeScoresDecayedByZetaToTheDistance) {
  const std::size_t L = 40, D = 16;
  const TensorF q = ref::random_tensor({L, D}, 5), k = ref::random_tensor({L, D}, 6);
  XposOptions o;
  o.scale_base = 8.0;  // far from 1 within the sequence
  const TensorF qx = xpos_apply(q, o, XposSide::kQuery), kx = xpos_apply(k, o, XposSide::kKey);
  poslab::RopeOptions rope;
  rope.style = poslab::RopeStyle::kGptj;
  const TensorF qr = poslab::rope_apply(q, rope), kr = poslab::rope_apply(k, rope);
  for (const auto& [n, m] :
       {std::pair{0, 0}, std::pair{39, 0}, std::pair{20, 31}, std::pair{7, 6}}) {
    double want = 0;
    for (std::size_t i = 0; i < D / 2; ++i) {
      const double zeta = (2.0 * double(i) + 0.4 * D) / (1.4 * D);
      const double pair = double(qr.data[n * D + 2 * i]) * kr.data[m * D + 2 * i] +
                          double(qr.data[n * D + 2 * i + 1]) * kr.data[m * D + 2 * i + 1];
      want += std::pow(zeta, double(n - m) / 8.0) * pair;
    }
    EXPECT_NEAR(Dot(qx, n, kx, m), want, 1e-5 + 1e-5 * std::fabs(want)) << n << ", " << m;
  }
}

TEST(Xpos, RefusesBadOptionsShapesAndOverflow) {
  const TensorF x = ref::random_tensor({4, 8}, 1);
  for (const double base : {ref::kNaN, 0.0, 1.0, -3.0, ref::kInf}) {
    EXPECT_THROW(xpos_apply(x, XposOptions{base, 512.0}, XposSide::kQuery), Error) << base;
  }
  for (const double scale_base : {ref::kNaN, 0.0, -512.0, ref::kInf}) {
    EXPECT_THROW(xpos_apply(x, XposOptions{10000.0, scale_base}, XposSide::kKey), Error)
        << scale_base;
  }
  EXPECT_THROW(xpos_apply(ref::random_tensor({4, 7}, 1), XposOptions{}, XposSide::kQuery), Error);
  EXPECT_THROW(xpos_apply(ref::random_tensor({8}, 1), XposOptions{}, XposSide::kQuery), Error);
  EXPECT_THROW(xpos_apply(x, XposOptions{}, XposSide::kQuery, -1), Error);
  // ζ_0 = 2/7 to the power −(2^20/2)/1: no float32 holds it.
  try {
    xpos_apply(x, XposOptions{10000.0, 1.0}, XposSide::kKey, 1 << 20);
    ADD_FAILURE() << "an overflowing scale was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "x");
    EXPECT_NE(std::string(e.what()).find("overflows float32"), std::string::npos) << e.what();
  }
}

}  // namespace

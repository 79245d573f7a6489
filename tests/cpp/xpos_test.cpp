// xPos (Sun et al. 2023), the table's decaying rotation (rotation_defaults, rope_apply with a
// scale base), against torchscale's XPOS transcribed in reference.hpp, and the properties the
// paper builds it for: q·k depends on n − m only and decays with it.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "poslab/fast/fast.hpp"
#include "poslab/positions/position_methods.hpp"
#include "poslab/positions/rope.hpp"
#include "reference.hpp"

namespace {

using poslab::Error;
using poslab::RopeOptions;
using poslab::RotationSide;
using poslab::TensorF;

// xPos at the table's defaults (gptj pairs, scale base 512), with base and scale base set.
RopeOptions Xpos(double base = 10000.0, double scale_base = 512.0) {
  RopeOptions o = poslab::rotation_defaults(poslab::PositionMethod::kXpos);
  o.base = base;
  o.scale_base = scale_base;
  return o;
}

TensorF Apply(const TensorF& x, const RopeOptions& o, bool key, long long offset = 0) {
  return poslab::rope_apply(x, o, offset, key ? RotationSide::kKey : RotationSide::kQuery);
}

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
        EXPECT_ALLCLOSE(Apply(x, Xpos(), key, offset),
                        ref::xpos_apply(x, 10000.0, 512.0, key, offset), ref::kTight)
            << (key ? "key" : "query") << " offset " << offset << " rank " << shape.size();
      }
    }
  }
}

TEST(Xpos, OtherBaseAndScaleBaseMatchTorchscale) {
  const TensorF x = ref::random_tensor({9, 16}, 11);
  const RopeOptions o = Xpos(500.0, 4.0);  // a strong decay: far from 1 within 9 positions
  for (const bool key : {false, true}) {
    EXPECT_ALLCLOSE(Apply(x, o, key, 2), ref::xpos_apply(x, 500.0, 4.0, key, 2), ref::kTight);
  }
}

// One sequence's queries and keys: q_n·k_m = Σ_i ζ_i^((n−m)/s)·(R_n q)_i·(R_m k)_i, with R the
// gptj RoPE rotation and (·)_i pair i: the centre cancels, only n − m remains.
TEST(Xpos, ScoresAreRopeScoresDecayedByZetaToTheDistance) {
  const std::size_t L = 40, D = 16;
  const TensorF q = ref::random_tensor({L, D}, 5), k = ref::random_tensor({L, D}, 6);
  const RopeOptions o = Xpos(10000.0, 8.0);  // far from 1 within the sequence
  const TensorF qx = Apply(q, o, false), kx = Apply(k, o, true);
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

TEST(Xpos, TableRowIsGptjPairsWithScaleBase512) {
  const RopeOptions xpos = poslab::rotation_defaults(poslab::PositionMethod::kXpos);
  EXPECT_EQ(xpos.style, poslab::RopeStyle::kGptj);
  EXPECT_EQ(xpos.scale_base, 512.0);
  const RopeOptions rope = poslab::rotation_defaults(poslab::PositionMethod::kRope);
  EXPECT_EQ(rope.style, poslab::RopeStyle::kNeox);
  EXPECT_EQ(rope.scale_base, 0.0);
  try {
    poslab::rotation_defaults(poslab::PositionMethod::kAlibi);
    ADD_FAILURE() << "ALiBi was given rotation options";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "method");
  }
}

// The fast path has no decay: it hands a decaying rotation to the reference, which the wasm
// build's lab.rope calls through it.
TEST(Xpos, FastRopeApplyGivesTheReferencesDecay) {
  const TensorF x = ref::random_tensor({2, 9, 16}, 12);
  for (const bool key : {false, true}) {
    const RotationSide side = key ? RotationSide::kKey : RotationSide::kQuery;
    EXPECT_ALLCLOSE(poslab::fast::rope_apply(x, Xpos(10000.0, 4.0), 3, side),
                    Apply(x, Xpos(10000.0, 4.0), key, 3), ref::kTight);
  }
}

// Scale base 0 is no decay: the plain rotation in the method's pairs, on both sides.
TEST(Xpos, ScaleBaseZeroIsPlainGptjRope) {
  const TensorF x = ref::random_tensor({5, 8}, 13);
  RopeOptions gptj;
  gptj.style = poslab::RopeStyle::kGptj;
  for (const bool key : {false, true}) {
    EXPECT_ALLCLOSE(Apply(x, Xpos(10000.0, 0.0), key, 2), poslab::rope_apply(x, gptj, 2),
                    ref::kTight);
  }
}

TEST(Xpos, RefusesBadOptionsShapesAndOverflow) {
  const TensorF x = ref::random_tensor({4, 8}, 1);
  for (const double base : {ref::kNaN, 0.0, 1.0, -3.0, ref::kInf}) {
    EXPECT_THROW(Apply(x, Xpos(base, 512.0), false), Error) << base;
  }
  for (const double scale_base : {ref::kNaN, -512.0, ref::kInf}) {
    try {
      Apply(x, Xpos(10000.0, scale_base), true);
      ADD_FAILURE() << "scale base " << scale_base << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.field(), "scaleBase");
    }
  }
  EXPECT_THROW(Apply(ref::random_tensor({4, 7}, 1), Xpos(), false), Error);
  EXPECT_THROW(Apply(ref::random_tensor({8}, 1), Xpos(), false), Error);
  EXPECT_THROW(Apply(x, Xpos(), false, -1), Error);
  // ζ_0 = 2/7 to the power −(2^20/2)/1: no float32 holds it.
  try {
    Apply(x, Xpos(10000.0, 1.0), true, 1 << 20);
    ADD_FAILURE() << "an overflowing scale was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "x");
    EXPECT_NE(std::string(e.what()).find("overflows float32"), std::string::npos) << e.what();
  }
}

}  // namespace

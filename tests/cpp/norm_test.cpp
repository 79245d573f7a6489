// LayerNorm (biased variance, eps inside the square root) and RMSNorm over the last axis.
#include "poslab/layers/norm.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "reference.hpp"

namespace {

using poslab::Error;

TEST(LayerNorm, NonFiniteInputIsRefusedNotZeroed) {
  // A NaN or ∞ once turned its whole row, finite values too, into zeros with no error.
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  constexpr float kInf = std::numeric_limits<float>::infinity();
  for (const float bad : {kNaN, kInf, -kInf}) {
    poslab::TensorF x = ref::random_tensor({3, 4}, 4);
    x.data[6] = bad;
    poslab::TensorF gamma = ref::random_tensor({4}, 5);
    EXPECT_THROW(poslab::layer_norm(x), Error) << bad;
    EXPECT_THROW(poslab::rms_norm(x), Error) << bad;
    EXPECT_THROW(poslab::layer_norm_stats(x), Error) << bad;
    gamma.data[1] = bad;
    EXPECT_THROW(poslab::layer_norm(ref::random_tensor({3, 4}, 4), 1e-5, &gamma), Error) << bad;
  }
  poslab::TensorF x = ref::random_tensor({3, 4}, 4);
  x.data[6] = kNaN;
  try {
    poslab::layer_norm(x);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "x[1, 2] is NaN: inputs must be finite");
  }
}

TEST(LayerNorm, MatchesReference) {
  const poslab::TensorF x = ref::random_tensor({3, 5, 16}, 1, -4, 4);
  const poslab::TensorF gamma = ref::random_tensor({16}, 2, 0.5, 1.5);
  const poslab::TensorF beta = ref::random_tensor({16}, 3);
  for (const double eps : {1e-5, 1e-2, 0.0}) {
    EXPECT_ALLCLOSE(poslab::layer_norm(x, eps, &gamma, &beta),
                    ref::layer_norm(x, eps, &gamma, &beta), ref::kTight)
        << eps;
    EXPECT_ALLCLOSE(poslab::layer_norm(x, eps), ref::layer_norm(x, eps, nullptr, nullptr),
                    ref::kTight)
        << eps;
    EXPECT_ALLCLOSE(poslab::layer_norm(x, eps, &gamma), ref::layer_norm(x, eps, &gamma, nullptr),
                    ref::kTight)
        << eps;
  }
}

TEST(LayerNorm, RowsHaveZeroMeanAndUnitBiasedVariance) {
  // D = 4 makes the biased/unbiased difference large: unbiased would give variance 3/4.
  for (const std::size_t D : {4u, 64u}) {
    const poslab::TensorF x = ref::random_tensor({10, D}, 4, -3, 5);
    const poslab::TensorF y = poslab::layer_norm(x, 1e-5);
    ASSERT_EQ(y.shape, x.shape);
    for (std::size_t r = 0; r < 10; ++r) {
      double mean = 0, var = 0;
      for (std::size_t c = 0; c < D; ++c) mean += y.data[r * D + c];
      mean /= double(D);
      for (std::size_t c = 0; c < D; ++c) var += std::pow(y.data[r * D + c] - mean, 2);
      var /= double(D);
      EXPECT_NEAR(mean, 0.0, 1e-6) << "D=" << D << " row " << r;
      EXPECT_NEAR(var, 1.0, 1e-4) << "D=" << D << " row " << r;  // var/(var + eps) ≈ 1 − 1e-5
    }
  }
}

TEST(LayerNorm, StatsAreMeanAndBiasedVariancePerRow) {
  // D = 4: the biased variance of {1, 2, 3, 4} is 1.25 (unbiased would be 5/3).
  const poslab::TensorF x({2, 1, 4}, std::vector<float>{1, 2, 3, 4, -2, -2, -2, -2});
  const poslab::NormStats s = poslab::layer_norm_stats(x);
  ASSERT_EQ(s.mean.shape, (poslab::Shape{2, 1}));
  ASSERT_EQ(s.variance.shape, (poslab::Shape{2, 1}));
  EXPECT_EQ(s.mean.data, (std::vector<float>{2.5f, -2.0f}));
  EXPECT_EQ(s.variance.data, (std::vector<float>{1.25f, 0.0f}));
}

TEST(LayerNorm, EpsIsInsideTheSquareRoot) {
  // Row (0, 2e-3): mean 1e-3, biased variance 1e-6. With eps = 1e-5 inside the root:
  // ±1e-3/√(1.1e-5) = ±0.30151; dividing by (std + eps) would give ±0.990.
  const poslab::TensorF x(poslab::Shape{1, 2}, std::vector<float>{0.0f, 2e-3f});
  const poslab::TensorF y = poslab::layer_norm(x, 1e-5);
  const double want = 1e-3 / std::sqrt(1e-6 + 1e-5);
  EXPECT_NEAR(y.data[0], -want, 1e-5);
  EXPECT_NEAR(y.data[1], want, 1e-5);
}

TEST(LayerNorm, ConstantRowGivesBetaNotNaN) {
  const poslab::TensorF x(poslab::Shape{2, 3}, std::vector<float>{5, 5, 5, -1, -1, -1});
  const poslab::TensorF beta(poslab::Shape{3}, std::vector<float>{0.5f, -0.25f, 0.0f});
  const poslab::TensorF y = poslab::layer_norm(x, 1e-5, nullptr, &beta);
  for (std::size_t r = 0; r < 2; ++r)
    for (std::size_t c = 0; c < 3; ++c) EXPECT_EQ(y.data[r * 3 + c], beta.data[c]);
}

TEST(LayerNorm, DefaultEpsIsOneEMinusFive) {
  const poslab::TensorF x = ref::random_tensor({2, 8}, 5, -1e-2, 1e-2);  // variance ~3e-5
  EXPECT_ALLCLOSE(poslab::layer_norm(x), ref::layer_norm(x, 1e-5, nullptr, nullptr), ref::kTight);
  EXPECT_FALSE(
      ref::AllClose(poslab::layer_norm(x), ref::layer_norm(x, 0.0, nullptr, nullptr), ref::kTight));
}

TEST(RmsNorm, MatchesReference) {
  const poslab::TensorF x = ref::random_tensor({4, 2, 32}, 6, -4, 4);
  const poslab::TensorF gamma = ref::random_tensor({32}, 7, 0.5, 1.5);
  for (const double eps : {1e-5, 1e-1}) {
    EXPECT_ALLCLOSE(poslab::rms_norm(x, eps, &gamma), ref::rms_norm(x, eps, &gamma), ref::kTight);
    EXPECT_ALLCLOSE(poslab::rms_norm(x, eps), ref::rms_norm(x, eps, nullptr), ref::kTight);
  }
}

TEST(RmsNorm, RowsHaveUnitRootMeanSquareAndKeepTheMean) {
  const poslab::TensorF x = ref::random_tensor({10, 16}, 8, 1, 3);  // mean far from 0
  const poslab::TensorF y = poslab::rms_norm(x, 1e-6);
  for (std::size_t r = 0; r < 10; ++r) {
    double ms = 0, mean = 0;
    for (std::size_t c = 0; c < 16; ++c) {
      ms += double(y.data[r * 16 + c]) * y.data[r * 16 + c];
      mean += y.data[r * 16 + c];
    }
    EXPECT_NEAR(ms / 16, 1.0, 1e-5) << r;
    EXPECT_GT(mean / 16, 0.5) << r;  // not re-centred
  }
}

TEST(RmsNorm, ZeroRowStaysZero) {
  const poslab::TensorF x(poslab::Shape{1, 4});
  for (float v : poslab::rms_norm(x).data) EXPECT_EQ(v, 0.0f);
}

TEST(Norm, RejectsBadGammaAndBetaShapes) {
  const poslab::TensorF x = ref::random_tensor({3, 8}, 9);
  const poslab::TensorF short_gamma = ref::random_tensor({7}, 1);
  const poslab::TensorF matrix_gamma = ref::random_tensor({1, 8}, 1);
  const poslab::TensorF good = ref::random_tensor({8}, 1);
  EXPECT_THROW(poslab::layer_norm(x, 1e-5, &short_gamma), Error);
  EXPECT_THROW(poslab::layer_norm(x, 1e-5, &matrix_gamma), Error);
  EXPECT_THROW(poslab::layer_norm(x, 1e-5, &good, &short_gamma), Error);
  EXPECT_THROW(poslab::rms_norm(x, 1e-5, &short_gamma), Error);
  EXPECT_THROW(poslab::rms_norm(x, 1e-5, &matrix_gamma), Error);
}

TEST(Norm, RejectsBadEps) {
  const poslab::TensorF x = ref::random_tensor({3, 8}, 10);
  for (const double eps : {-1e-5, -1.0, ref::kNaN, ref::kInf}) {
    EXPECT_THROW(poslab::layer_norm(x, eps), Error) << eps;
    EXPECT_THROW(poslab::rms_norm(x, eps), Error) << eps;
  }
}

TEST(Norm, RejectsTensorsWithoutAnAxis) {
  EXPECT_THROW(poslab::layer_norm(poslab::TensorF{}), Error);
  EXPECT_THROW(poslab::rms_norm(poslab::TensorF{}), Error);
}

}  // namespace

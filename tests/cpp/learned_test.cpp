// Learned absolute table: seeded N(0, std²), reproducible, shapes checked.
#include "poslab/positions/learned.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "reference.hpp"

namespace {

using poslab::Error;
using poslab::learned_table;

TEST(Learned, ShapeIsLengthByDim) {
  const poslab::TensorF t = learned_table(7, 5, 3);
  EXPECT_EQ(t.shape, (poslab::Shape{7, 5}));
  EXPECT_EQ(t.size(), 35u);
}

TEST(Learned, SameSeedSameTable) {
  const poslab::TensorF a = learned_table(64, 32, 1234);
  const poslab::TensorF b = learned_table(64, 32, 1234);
  EXPECT_EQ(a.data, b.data);
}

TEST(Learned, DifferentSeedDifferentTable) {
  const poslab::TensorF a = learned_table(64, 32, 1);
  const poslab::TensorF b = learned_table(64, 32, 2);
  int equal = 0;
  for (std::size_t i = 0; i < a.size(); ++i) equal += a.data[i] == b.data[i];
  EXPECT_LT(equal, 5);
}

TEST(Learned, StdIsAboutTwoHundredths) {
  const poslab::TensorF t = learned_table(1024, 512, 0);  // 524 288 draws
  double sum = 0, sum2 = 0;
  for (float v : t.data) {
    sum += v;
    sum2 += double(v) * v;
  }
  const double n = double(t.size());
  const double mean = sum / n;
  const double sd = std::sqrt(sum2 / n - mean * mean);
  EXPECT_NEAR(mean, 0.0, 2e-4);  // σ of the mean = 2.8e-5
  EXPECT_NEAR(sd, 0.02, 2e-4);   // σ of the sd = 2e-5
}

TEST(Learned, ValuesAreNormallyDistributed) {
  const poslab::TensorF t = learned_table(512, 256, 5, 1.0);
  int within1 = 0, within2 = 0;
  for (float v : t.data) {
    within1 += std::fabs(v) < 1.0f;
    within2 += std::fabs(v) < 2.0f;
  }
  const double n = double(t.size());
  EXPECT_NEAR(within1 / n, 0.682689, 0.005);
  EXPECT_NEAR(within2 / n, 0.954500, 0.003);
}

TEST(Learned, StdScalesTheSameDraws) {
  const poslab::TensorF unit = learned_table(16, 16, 9, 1.0);
  const poslab::TensorF small = learned_table(16, 16, 9, 0.02);
  std::vector<double> want;
  for (float v : unit.data) want.push_back(0.02 * v);
  EXPECT_ALLCLOSE(small, want, (ref::Tol{1e-9, 1e-6}));
}

TEST(Learned, RejectsBadSizes) {
  EXPECT_THROW(learned_table(4, 0), Error);
  EXPECT_THROW(learned_table(4, -8), Error);
  EXPECT_THROW(learned_table(-1, 8), Error);
  EXPECT_THROW(learned_table(1'000'000'000LL, 1'000'000LL), Error);
  EXPECT_THROW(learned_table(1LL << 20, 1LL << 20), Error);
}

TEST(Learned, RejectsBadStd) {
  EXPECT_THROW(learned_table(4, 8, 0, -0.02), Error);
  EXPECT_THROW(learned_table(4, 8, 0, ref::kNaN), Error);
  EXPECT_THROW(learned_table(4, 8, 0, ref::kInf), Error);
}

}  // namespace

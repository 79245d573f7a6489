// The portable seeded generator: SplitMix64 bits, uniforms in [0, 1), Box-Muller normals.
#include "poslab/base/random.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

namespace {

TEST(Random, SplitMix64FirstOutputsAreTheReferenceValues) {
  // SplitMix64 (Steele, Lea, Flood 2014) from state 0: the published first outputs.
  poslab::Rng rng(0);
  EXPECT_EQ(rng.next_u64(), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(rng.next_u64(), 0x6e789e6aa1b965f4ULL);
  EXPECT_EQ(rng.next_u64(), 0x06c45d188009454fULL);
  poslab::Rng rng42(42);
  EXPECT_EQ(rng42.next_u64(), 0xbdd732262feb6e95ULL);
  EXPECT_EQ(rng42.next_u64(), 0x28efe333b266f103ULL);
}

TEST(Random, SameSeedSameStream) {
  poslab::Rng a(1234), b(1234);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(a.uniform(), b.uniform());
    EXPECT_EQ(a.normal(), b.normal());
  }
}

TEST(Random, DifferentSeedsDiffer) {
  poslab::Rng a(1), b(2);
  int same = 0;
  for (int i = 0; i < 100; ++i) same += a.next_u64() == b.next_u64();
  EXPECT_EQ(same, 0);
}

TEST(Random, UniformIsInUnitIntervalWith53Bits) {
  poslab::Rng rng(7);
  double sum = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    const double u = rng.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    const double scaled = u * 0x1.0p53;  // a multiple of 2^-53
    ASSERT_EQ(scaled, std::floor(scaled)) << u;
    sum += u;
  }
  EXPECT_NEAR(sum / n, 0.5, 0.005);  // σ of the mean ≈ 0.0009
}

TEST(Random, UniformUsesAllFiftyThreeBits) {
  // With 53 random bits, u·2^53 is odd half the time; a 52-bit mapping would never be.
  poslab::Rng rng(8);
  int odd = 0;
  for (int i = 0; i < 1000; ++i) odd += std::fmod(rng.uniform() * 0x1.0p53, 2.0) == 1.0;
  EXPECT_GT(odd, 400);
  EXPECT_LT(odd, 600);
}

TEST(Random, UniformIsTheTop53BitsOfOneDraw) {
  // The mapping is part of the cross-platform contract (wasm and CUDA host draw the same
  // tables): u = (next_u64() >> 11) · 2^-53.
  poslab::Rng bits(0), uniform(0);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(uniform.uniform(), static_cast<double>(bits.next_u64() >> 11) * 0x1.0p-53) << i;
  }
}

TEST(Random, NormalHasZeroMeanUnitVariance) {
  poslab::Rng rng(99);
  const int n = 200000;
  double sum = 0, sum2 = 0;
  int within_one = 0;
  for (int i = 0; i < n; ++i) {
    const double z = rng.normal();
    ASSERT_TRUE(std::isfinite(z));
    sum += z;
    sum2 += z * z;
    within_one += std::fabs(z) < 1.0;
  }
  const double mean = sum / n;
  EXPECT_NEAR(mean, 0.0, 0.012);                    // 5σ of the mean
  EXPECT_NEAR(sum2 / n - mean * mean, 1.0, 0.016);  // 5σ of the variance
  EXPECT_NEAR(double(within_one) / n, 0.682689, 0.006);
}

TEST(Random, NormalPairsAreIndependent) {
  // Box-Muller yields two independent normals per pair of uniforms: consecutive draws are
  // uncorrelated (r·cos θ and r·sin θ), not copies.
  poslab::Rng rng(5);
  const int pairs = 50000;
  double sxy = 0;
  int equal = 0;
  for (int i = 0; i < pairs; ++i) {
    const double a = rng.normal(), b = rng.normal();
    sxy += a * b;
    equal += a == b;
  }
  EXPECT_EQ(equal, 0);
  EXPECT_NEAR(sxy / pairs, 0.0, 0.025);  // σ ≈ 0.0045
}

}  // namespace

// The scalar formulas shared by every build (formulas.hpp), each against its definition.
#include "poslab/positions/formulas.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "reference.hpp"

namespace {

namespace f = poslab::formulas;

TEST(Formulas, InvFreqIsBasePowerMinusTwoIOverD) {
  EXPECT_EQ(f::inv_freq(0, 64, 10000.0), 1.0);
  for (int D : {2, 8, 64, 512}) {
    for (int i = 0; i < D / 2; ++i) {
      const double want = std::pow(10000.0L, -2.0L * i / D);
      EXPECT_NEAR(f::inv_freq(i, D, 10000.0), want, 1e-15 * want) << "i=" << i << " D=" << D;
    }
  }
  EXPECT_NEAR(f::inv_freq(1, 4, 10000.0), 0.01, 1e-17);
  EXPECT_NEAR(f::inv_freq(3, 8, 500000.0), std::pow(500000.0, -0.75), 1e-18);
}

TEST(Formulas, AngleIsPositionTimesFrequency) {
  EXPECT_EQ(f::angle(65535.0, 1.0), 65535.0);
  EXPECT_EQ(f::angle(3.0, 0.25), 0.75);
}

TEST(Formulas, RotatePairIsARotation) {
  const double a = 0.7;
  double x = 1.0, y = 0.0;
  f::rotate_pair(x, y, std::cos(a), std::sin(a));
  EXPECT_NEAR(x, std::cos(a), 1e-15);  // (1, 0) turns counter-clockwise to (cos a, sin a)
  EXPECT_NEAR(y, std::sin(a), 1e-15);
  double u = 0.0, v = 1.0;
  f::rotate_pair(u, v, std::cos(a), std::sin(a));
  EXPECT_NEAR(u, -std::sin(a), 1e-15);
  EXPECT_NEAR(v, std::cos(a), 1e-15);
  // Norm preserved, and rotating by a then −a is the identity.
  double p = 0.3, q = -1.7;
  f::rotate_pair(p, q, std::cos(2.1), std::sin(2.1));
  EXPECT_NEAR(std::hypot(p, q), std::hypot(0.3, -1.7), 1e-14);
  f::rotate_pair(p, q, std::cos(-2.1), std::sin(-2.1));
  EXPECT_NEAR(p, 0.3, 1e-14);
  EXPECT_NEAR(q, -1.7, 1e-14);
}

// torchscale's XPOS: ζ_i = (2i + 0.4·D)/(1.4·D), exponent (p + (−total // 2)) / scale_base,
// keys the reciprocal. Python's floor division written out: −5 // 2 = −3, −4 // 2 = −2.
TEST(Formulas, XposScaleIsTorchscalesCentredPowerOfZeta) {
  EXPECT_DOUBLE_EQ(f::decay_zeta(0, 10), 4.0 / 14.0);
  EXPECT_DOUBLE_EQ(f::decay_zeta(4, 10), 12.0 / 14.0);
  EXPECT_EQ(f::decay_exponent(0, 5, 1.0), -3.0);
  EXPECT_EQ(f::decay_exponent(4, 5, 1.0), 1.0);
  EXPECT_EQ(f::decay_exponent(0, 4, 1.0), -2.0);
  EXPECT_EQ(f::decay_exponent(3, 4, 1.0), 1.0);
  EXPECT_EQ(f::decay_exponent(0, 1, 512.0), -1.0 / 512.0);
  for (int D : {2, 8, 64}) {
    for (long long total : {1LL, 2LL, 7LL, 4096LL}) {
      const double min_pos = std::floor(-double(total) / 2.0);
      for (long long p : {0LL, total / 2, total - 1}) {
        for (int i = 0; i < D / 2; ++i) {
          const double zeta = (2.0 * i + 0.4 * D) / (1.4 * D);
          const double want = std::pow(zeta, (min_pos + double(p)) / 512.0);
          const double q = f::decay_scale(i, D, p, total, 512.0, false);
          const double k = f::decay_scale(i, D, p, total, 512.0, true);
          EXPECT_NEAR(q, want, 1e-15 * want) << "D=" << D << " i=" << i << " p=" << p;
          EXPECT_NEAR(k, 1.0 / want, 1e-15 / want) << "D=" << D << " i=" << i << " p=" << p;
        }
      }
    }
  }
  // Relative: a query at n and a key at m of one sequence multiply to ζ^((n − m)/s).
  const double qk = f::decay_scale(3, 16, 900, 1000, 512.0, false) *
                    f::decay_scale(3, 16, 100, 1000, 512.0, true);
  EXPECT_NEAR(qk, std::pow(f::decay_zeta(3, 16), 800.0 / 512.0), 1e-15);
}

// σ and log σ against their definitions where those are exact in double, and far out where
// the naive forms overflow or lose everything (log σ(−800) = −800, not −inf).
TEST(Formulas, SigmoidAndLogSigmoidAreStableAtBothEnds) {
  for (double x : {-30.0, -2.5, -0.1, 0.0, 0.3, 4.0, 30.0}) {
    EXPECT_NEAR(f::sigmoid(x), 1 / (1 + std::exp(-x)), 1e-15) << x;
    EXPECT_NEAR(f::log_sigmoid(x), std::log(1 / (1 + std::exp(-x))), 1e-13) << x;
  }
  EXPECT_EQ(f::sigmoid(0), 0.5);
  EXPECT_EQ(f::log_sigmoid(-800), -800);
  EXPECT_EQ(f::log_sigmoid(800), 0);
  EXPECT_EQ(f::sigmoid(-800), 0);
  EXPECT_EQ(f::sigmoid(800), 1);
}

TEST(Formulas, AlibiSlopeMatchesReferenceGetSlopes) {
  for (int H = 1; H <= 80; ++H) {
    const std::vector<double> want = ref::alibi_get_slopes(H);
    ASSERT_EQ(int(want.size()), H);
    for (int h = 0; h < H; ++h) {
      EXPECT_NEAR(f::alibi_slope(h, H), want[h], 1e-13 * want[h]) << "H=" << H << " h=" << h;
    }
  }
}

TEST(Formulas, ShawIndexClipsRelativeDistance) {
  // clip(key − query, −K, K) + K with K = 3.
  EXPECT_EQ(f::shaw_index(5, 5, 3), 3);
  EXPECT_EQ(f::shaw_index(5, 6, 3), 4);
  EXPECT_EQ(f::shaw_index(5, 8, 3), 6);
  EXPECT_EQ(f::shaw_index(5, 100, 3), 6);
  EXPECT_EQ(f::shaw_index(5, 4, 3), 2);
  EXPECT_EQ(f::shaw_index(5, 2, 3), 0);
  EXPECT_EQ(f::shaw_index(100, 0, 3), 0);
  EXPECT_EQ(f::shaw_index(0, 0, 0), 0);
  EXPECT_EQ(f::shaw_index(0, 9, 0), 0);
}

TEST(Formulas, T5BucketMatchesFloat32Reference) {
  struct Config {
    bool bidirectional;
    int num_buckets, max_distance;
  };
  for (const Config c : {Config{false, 32, 128}, Config{true, 32, 128}, Config{false, 8, 16},
                         Config{true, 8, 16}, Config{true, 64, 256}, Config{false, 36, 32},
                         Config{true, 38, 16}, Config{false, 2, 4}, Config{true, 4, 8}}) {
    for (long long r = -1000; r <= 1000; ++r) {
      ASSERT_EQ(f::t5_bucket(r, c.bidirectional, c.num_buckets, c.max_distance),
                ref::t5_bucket_hf(r, c.bidirectional, c.num_buckets, c.max_distance))
          << "relative " << r << " bidirectional " << c.bidirectional << " buckets "
          << c.num_buckets << " max_distance " << c.max_distance;
    }
  }
}

TEST(Formulas, T5BucketIsMonotoneInDistanceAndInRange) {
  for (bool bidirectional : {false, true}) {
    int previous_neg = -1, previous_pos = -1;
    for (long long n = 0; n <= 5000; ++n) {
      const int neg = f::t5_bucket(-n, bidirectional, 32, 128);
      const int pos = f::t5_bucket(n, bidirectional, 32, 128);
      ASSERT_GE(neg, 0);
      ASSERT_LT(neg, 32);
      ASSERT_GE(pos, 0);
      ASSERT_LT(pos, 32);
      EXPECT_GE(neg, previous_neg) << n;
      EXPECT_GE(pos, previous_pos) << n;
      previous_neg = neg;
      previous_pos = pos;
    }
  }
}

}  // namespace

// Rotary position embedding (RoFormer) and its long-context scalings, against a naive double
// reference and the Hugging Face `rope_type` functions transcribed in reference.hpp.
#include "poslab/positions/rope.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "reference.hpp"

namespace {

using poslab::Error;
using poslab::rope_apply;
using poslab::rope_frequencies;
using poslab::RopeOptions;
using poslab::RopeScaling;
using poslab::RopeStyle;

RopeOptions Options(RopeStyle style, RopeScaling scaling = RopeScaling::kNone, double factor = 1.0,
                    long long original_length = 0) {
  RopeOptions o;
  o.style = style;
  o.scaling = scaling;
  o.factor = factor;
  o.original_length = original_length;
  return o;
}

const char* Name(RopeStyle s) { return s == RopeStyle::kNeox ? "neox" : "gptj"; }

// Indices of the rotated pairs of a row: neox (i, i + R/2), gptj (2i, 2i + 1).
std::pair<std::size_t, std::size_t> Pair(RopeStyle s, std::size_t i, std::size_t R) {
  return s == RopeStyle::kNeox ? std::make_pair(i, i + R / 2) : std::make_pair(2 * i, 2 * i + 1);
}

double Dot(const poslab::TensorF& a, const poslab::TensorF& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += double(a.data[i]) * b.data[i];
  return s;
}

// q rotated to position m, k to position n, then q·k.
double DotAt(const poslab::TensorF& q, const poslab::TensorF& k, const RopeOptions& o, long long m,
             long long n) {
  return Dot(rope_apply(q, o, m), rope_apply(k, o, n));
}

// ------------------------------------------------------------------------ the rotation

TEST(Rope, MatchesReferenceOnLD) {
  for (const RopeStyle style : {RopeStyle::kNeox, RopeStyle::kGptj}) {
    for (const long long offset : {0LL, 1LL, 100LL, 65000LL}) {
      const poslab::TensorF x = ref::random_tensor({7, 32}, 1 + offset);
      const RopeOptions o = Options(style);
      EXPECT_ALLCLOSE(rope_apply(x, o, offset),
                      ref::rope_apply(x, ref::rope_freqs(32, o), style, offset), ref::kTight)
          << Name(style) << " offset " << offset;
    }
  }
}

TEST(Rope, MatchesReferenceOnHLD) {
  for (const RopeStyle style : {RopeStyle::kNeox, RopeStyle::kGptj}) {
    for (const long long offset : {0LL, 37LL}) {
      const poslab::TensorF x = ref::random_tensor({3, 9, 16}, 5);
      RopeOptions o = Options(style);
      o.base = 500000.0;
      const poslab::TensorF y = rope_apply(x, o, offset);
      ASSERT_EQ(y.shape, x.shape);
      EXPECT_ALLCLOSE(y, ref::rope_apply(x, ref::rope_freqs(16, o), style, offset), ref::kTight)
          << Name(style) << " offset " << offset;
    }
  }
}

TEST(Rope, NonFiniteInputIsRefusedNotPassedThrough) {
  for (const float bad :
       {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
        -std::numeric_limits<float>::infinity()}) {
    poslab::TensorF x = ref::random_tensor({2, 3, 8}, 21);
    x.data[13] = bad;
    EXPECT_THROW(poslab::rope_apply(x, poslab::RopeOptions{}), poslab::Error) << bad;
  }
}

TEST(Rope, PositionZeroIsIdentity) {
  const poslab::TensorF x = ref::random_tensor({1, 64}, 3);
  for (const RopeStyle style : {RopeStyle::kNeox, RopeStyle::kGptj}) {
    EXPECT_EQ(rope_apply(x, Options(style), 0).data, x.data) << Name(style);
  }
}

TEST(Rope, KnownValueOfTheFirstPair) {
  // x = e_0 at position 1: neox pair (0, D/2) turns by θ_0 = 1 → (cos 1, sin 1).
  poslab::TensorF x(poslab::Shape{1, 8});
  x.data[0] = 1.0f;
  const poslab::TensorF neox = rope_apply(x, Options(RopeStyle::kNeox), 1);
  EXPECT_FLOAT_EQ(neox.data[0], std::cos(1.0));
  EXPECT_FLOAT_EQ(neox.data[4], std::sin(1.0));
  const poslab::TensorF gptj = rope_apply(x, Options(RopeStyle::kGptj), 1);
  EXPECT_FLOAT_EQ(gptj.data[0], std::cos(1.0));
  EXPECT_FLOAT_EQ(gptj.data[1], std::sin(1.0));
}

TEST(Rope, PreservesNormOfEveryRotatedPair) {
  const poslab::TensorF x = ref::random_tensor({2, 10, 64}, 9);
  for (const RopeStyle style : {RopeStyle::kNeox, RopeStyle::kGptj}) {
    const poslab::TensorF y = rope_apply(x, Options(style), 1000);
    for (std::size_t r = 0; r < 20; ++r)
      for (std::size_t i = 0; i < 32; ++i) {
        const auto [u, v] = Pair(style, i, 64);
        const double before = std::hypot(x.data[r * 64 + u], x.data[r * 64 + v]);
        const double after = std::hypot(y.data[r * 64 + u], y.data[r * 64 + v]);
        EXPECT_NEAR(after, before, 1e-6) << Name(style) << " row " << r << " pair " << i;
      }
  }
}

TEST(Rope, DotProductDependsOnlyOnRelativePosition) {
  const poslab::TensorF q = ref::random_tensor({1, 64}, 21);
  const poslab::TensorF k = ref::random_tensor({1, 64}, 22);
  const double scale = std::sqrt(Dot(q, q) * Dot(k, k));
  for (const RopeStyle style : {RopeStyle::kNeox, RopeStyle::kGptj}) {
    const RopeOptions o = Options(style);
    for (const long long diff : {5LL, -3LL, 0LL, 200LL}) {
      const long long first = std::max(0LL, diff);
      const double want = DotAt(q, k, o, first, first - diff);
      for (const long long m : {first + 7, first + 1000, first + 30000, 65535LL}) {
        EXPECT_NEAR(DotAt(q, k, o, m, m - diff), want, 2e-6 * scale)
            << Name(style) << " m=" << m << " n=" << m - diff;
      }
    }
    // …and it does change with the difference.
    EXPECT_GT(std::fabs(DotAt(q, k, o, 10, 5) - DotAt(q, k, o, 10, 4)), 1e-3 * scale);
  }
}

TEST(Rope, GptjAndNeoxAreTheSameRotationUpToAPermutation) {
  // Permutation P: gptj dim 2i ↔ neox dim i, gptj dim 2i+1 ↔ neox dim i + D/2.
  const std::size_t L = 6, D = 32;
  const poslab::TensorF x = ref::random_tensor({L, D}, 31);
  poslab::TensorF px(x.shape);
  for (std::size_t r = 0; r < L; ++r)
    for (std::size_t i = 0; i < D / 2; ++i) {
      px.data[r * D + i] = x.data[r * D + 2 * i];
      px.data[r * D + D / 2 + i] = x.data[r * D + 2 * i + 1];
    }
  const poslab::TensorF gptj = rope_apply(x, Options(RopeStyle::kGptj), 17);
  const poslab::TensorF neox = rope_apply(px, Options(RopeStyle::kNeox), 17);
  std::vector<double> p_gptj(x.size());
  for (std::size_t r = 0; r < L; ++r)
    for (std::size_t i = 0; i < D / 2; ++i) {
      p_gptj[r * D + i] = gptj.data[r * D + 2 * i];
      p_gptj[r * D + D / 2 + i] = gptj.data[r * D + 2 * i + 1];
    }
  EXPECT_ALLCLOSE(neox, p_gptj, ref::kTight);
  // Without the permutation the two styles differ.
  EXPECT_FALSE(ref::AllClose(rope_apply(x, Options(RopeStyle::kNeox), 17), gptj, ref::kTight));
}

TEST(Rope, OffsetEqualsSlicingALongerApplication) {
  const std::size_t P = 13, L = 8, D = 24;
  const poslab::TensorF full_x = ref::random_tensor({P + L, D}, 41);
  poslab::TensorF tail_x(poslab::Shape{L, D});
  std::copy(full_x.data.begin() + P * D, full_x.data.end(), tail_x.data.begin());
  for (const RopeStyle style : {RopeStyle::kNeox, RopeStyle::kGptj}) {
    const poslab::TensorF full = rope_apply(full_x, Options(style), 0);
    const poslab::TensorF tail = rope_apply(tail_x, Options(style), P);
    std::vector<double> want(full.data.begin() + P * D, full.data.end());
    EXPECT_ALLCLOSE(tail, want, ref::kTight) << Name(style);
  }
}

TEST(Rope, RotaryFractionLeavesTailDimsUntouched) {
  const std::size_t L = 5, D = 16;
  const poslab::TensorF x = ref::random_tensor({L, D}, 51);
  for (const RopeStyle style : {RopeStyle::kNeox, RopeStyle::kGptj}) {
    RopeOptions o = Options(style);
    o.rotary_fraction = 0.5;  // R = 8: neox pairs (i, i + 4), gptj (2i, 2i + 1), i < 4
    const poslab::TensorF y = rope_apply(x, o, 3);
    for (std::size_t r = 0; r < L; ++r)
      for (std::size_t c = 8; c < D; ++c) EXPECT_EQ(y.data[r * D + c], x.data[r * D + c]);
    const ref::Freqs fr = ref::rope_freqs(D, o);
    ASSERT_EQ(fr.rotary_dim, 8u);
    EXPECT_ALLCLOSE(y, ref::rope_apply(x, fr, style, 3), ref::kTight) << Name(style);
    const poslab::RopeFrequencies got = rope_frequencies(D, o);
    EXPECT_EQ(got.rotary_dim, 8);
    EXPECT_ALLCLOSE(got.inv_freq, fr.inv_freq, ref::kFrequency);  // base^(−2i/R), not /D
  }
}

TEST(Rope, LargePositionsWithinTolerance) {
  // p up to 65 535 with head width 128: the angle must be formed in double.
  const poslab::TensorF x = ref::random_tensor({4, 128}, 61);
  for (const RopeStyle style : {RopeStyle::kNeox, RopeStyle::kGptj}) {
    const RopeOptions o = Options(style);
    EXPECT_ALLCLOSE(rope_apply(x, o, 65532),
                    ref::rope_apply(x, ref::rope_freqs(128, o), style, 65532), ref::kTight)
        << Name(style);
  }
}

TEST(Rope, LinearScalingIsPositionInterpolation) {
  // θ/f at position f·m is θ at position m.
  const poslab::TensorF x = ref::random_tensor({1, 32}, 71);
  for (const long long m : {1LL, 5LL, 1000LL}) {
    const poslab::TensorF scaled =
        rope_apply(x, Options(RopeStyle::kNeox, RopeScaling::kLinear, 4.0), 4 * m);
    const poslab::TensorF plain = rope_apply(x, Options(RopeStyle::kNeox), m);
    EXPECT_ALLCLOSE(scaled, plain, ref::kTight) << m;
  }
}

TEST(Rope, ScaledApplicationsMatchReference) {
  const std::size_t L = 6, D = 64;
  const poslab::TensorF x = ref::random_tensor({2, L, D}, 81);
  struct Case {
    RopeScaling scaling;
    double factor;
    long long original;
  };
  for (const Case c : {Case{RopeScaling::kLinear, 4.0, 0}, Case{RopeScaling::kNtk, 4.0, 0},
                       Case{RopeScaling::kYarn, 4.0, 64}, Case{RopeScaling::kLlama3, 8.0, 256}}) {
    for (const RopeStyle style : {RopeStyle::kNeox, RopeStyle::kGptj}) {
      const RopeOptions o = Options(style, c.scaling, c.factor, c.original);
      EXPECT_ALLCLOSE(rope_apply(x, o, 500), ref::rope_apply(x, ref::rope_freqs(D, o), style, 500),
                      ref::kTight)
          << poslab::to_string(c.scaling) << " " << Name(style);
    }
  }
}

TEST(Rope, DynamicScalingReadsOffsetPlusLength) {
  const std::size_t L = 8, D = 32;
  const poslab::TensorF x = ref::random_tensor({L, D}, 91);
  const RopeOptions o = Options(RopeStyle::kNeox, RopeScaling::kDynamic, 4.0, 16);
  // S = 0 + 8 ≤ N = 16: plain RoPE.
  EXPECT_ALLCLOSE(rope_apply(x, o, 0), rope_apply(x, Options(RopeStyle::kNeox), 0), ref::kTight);
  EXPECT_ALLCLOSE(rope_apply(x, o, 8), rope_apply(x, Options(RopeStyle::kNeox), 8), ref::kTight);
  // S = 20 + 8 = 28 > 16: base · ((4·28/16) − 3)^(32/30).
  const ref::Freqs fr = ref::rope_freqs(D, o, 28);
  EXPECT_ALLCLOSE(rope_apply(x, o, 20), ref::rope_apply(x, fr, RopeStyle::kNeox, 20), ref::kTight);
  EXPECT_FALSE(ref::AllClose(rope_apply(x, o, 20), rope_apply(x, Options(RopeStyle::kNeox), 20),
                             ref::kTight));
}

TEST(Rope, YarnScalesCosAndSinByTheAttentionFactor) {
  const std::size_t L = 4, D = 32;
  const poslab::TensorF x = ref::random_tensor({L, D}, 101);
  for (const double f : {2.0, 4.0, 16.0}) {
    for (const RopeStyle style : {RopeStyle::kNeox, RopeStyle::kGptj}) {
      const RopeOptions o = Options(style, RopeScaling::kYarn, f, 128);
      const double mscale = 0.1 * std::log(f) + 1.0;
      EXPECT_NEAR(rope_frequencies(D, o).attention_factor, mscale, 1e-12);
      const poslab::TensorF y = rope_apply(x, o, 77);
      for (std::size_t r = 0; r < L; ++r)
        for (std::size_t i = 0; i < D / 2; ++i) {
          const auto [u, v] = Pair(style, i, D);
          const double before = std::hypot(x.data[r * D + u], x.data[r * D + v]);
          const double after = std::hypot(y.data[r * D + u], y.data[r * D + v]);
          EXPECT_NEAR(after, mscale * before, 2e-6) << "f=" << f << " " << Name(style);
        }
    }
  }
}

// ----------------------------------------------------------------- effective frequencies

TEST(RopeFrequencies, DefaultIsBasePowerMinusTwoIOverR) {
  const poslab::RopeFrequencies f = rope_frequencies(64, RopeOptions{});
  EXPECT_EQ(f.rotary_dim, 64);
  ASSERT_EQ(f.inv_freq.size(), 32u);
  EXPECT_EQ(f.attention_factor, 1.0);
  EXPECT_EQ(f.inv_freq[0], 1.0);
  for (int i = 0; i < 32; ++i) {
    const double want = std::pow(10000.0, -2.0 * i / 64);
    EXPECT_NEAR(f.inv_freq[i], want, 1e-12 * want) << i;
  }
}

TEST(RopeFrequencies, LinearDividesByFactor) {
  const RopeOptions o = Options(RopeStyle::kNeox, RopeScaling::kLinear, 4.0);
  const poslab::RopeFrequencies f = rope_frequencies(64, o);
  EXPECT_ALLCLOSE(f.inv_freq, ref::rope_freqs(64, o).inv_freq, ref::kFrequency);
  EXPECT_NEAR(f.inv_freq[0], 0.25, 1e-15);
  EXPECT_EQ(f.attention_factor, 1.0);
}

TEST(RopeFrequencies, NtkRaisesTheBase) {
  for (const double factor : {2.0, 4.0, 8.0}) {
    const RopeOptions o = Options(RopeStyle::kNeox, RopeScaling::kNtk, factor);
    const poslab::RopeFrequencies f = rope_frequencies(64, o);
    EXPECT_ALLCLOSE(f.inv_freq, ref::rope_freqs(64, o).inv_freq, ref::kFrequency) << factor;
    // Spot value: θ_1 = (base · f^(64/62))^(−2/64).
    const double want = std::pow(10000.0 * std::pow(factor, 64.0 / 62.0), -2.0 / 64.0);
    EXPECT_NEAR(f.inv_freq[1], want, 1e-12 * want);
    EXPECT_EQ(f.inv_freq[0], 1.0);  // the fastest pair is untouched
  }
}

TEST(RopeFrequencies, DynamicIsUnchangedUpToTheOriginalLength) {
  const RopeOptions o = Options(RopeStyle::kNeox, RopeScaling::kDynamic, 4.0, 2048);
  const std::vector<double> plain = ref::default_inv_freq(64, 10000.0);
  for (const long long S : {0LL, 1LL, 2047LL, 2048LL}) {
    EXPECT_ALLCLOSE(rope_frequencies(64, o, S).inv_freq, plain, ref::kFrequency) << "S=" << S;
  }
}

TEST(RopeFrequencies, DynamicRaisesTheBaseBeyondTheOriginalLength) {
  for (const long long S : {2049LL, 4096LL, 10000LL}) {
    const RopeOptions o = Options(RopeStyle::kNeox, RopeScaling::kDynamic, 4.0, 2048);
    const poslab::RopeFrequencies f = rope_frequencies(64, o, S);
    EXPECT_ALLCLOSE(f.inv_freq, ref::rope_freqs(64, o, S).inv_freq, ref::kFrequency) << S;
    const double base = 10000.0 * std::pow(4.0 * S / 2048.0 - 3.0, 64.0 / 62.0);
    EXPECT_NEAR(f.inv_freq[5], std::pow(base, -10.0 / 64), 1e-12 * f.inv_freq[5]) << S;
  }
}

TEST(RopeFrequencies, YarnMatchesHuggingFace) {
  struct Case {
    long long head_dim;
    double base, factor;
    long long original;
    double beta_fast, beta_slow;
  };
  for (const Case c :
       {Case{64, 10000.0, 4.0, 2048, 32.0, 1.0}, Case{128, 500000.0, 8.0, 8192, 32.0, 1.0},
        Case{64, 10000.0, 16.0, 4096, 16.0, 2.0}, Case{32, 10000.0, 2.0, 512, 32.0, 1.0}}) {
    RopeOptions o = Options(RopeStyle::kNeox, RopeScaling::kYarn, c.factor, c.original);
    o.base = c.base;
    o.beta_fast = c.beta_fast;
    o.beta_slow = c.beta_slow;
    const poslab::RopeFrequencies f = rope_frequencies(c.head_dim, o);
    const ref::Freqs want = ref::rope_freqs(c.head_dim, o);
    EXPECT_ALLCLOSE(f.inv_freq, want.inv_freq, ref::kFrequency)
        << "D=" << c.head_dim << " f=" << c.factor << " N=" << c.original;
    EXPECT_NEAR(f.attention_factor, 0.1 * std::log(c.factor) + 1.0, 1e-12);
  }
}

TEST(RopeFrequencies, YarnRampRegionsByHand) {
  // D = 64, base 10000, N = 2048, f = 4: find_correction_dim(32) = 64·ln(2048/(64π))/(2 ln 1e4)
  // = 8.06 → floor 8; find_correction_dim(1) = 20.1 → ceil 21. Pairs below 8 keep θ_i,
  // pairs from 21 on get θ_i/4, pair 14 is (14 − 8)/13 of the way to θ/4.
  const RopeOptions o = Options(RopeStyle::kNeox, RopeScaling::kYarn, 4.0, 2048);
  const poslab::RopeFrequencies f = rope_frequencies(64, o);
  const std::vector<double> theta = ref::default_inv_freq(64, 10000.0);
  for (int i = 0; i <= 8; ++i) EXPECT_NEAR(f.inv_freq[i], theta[i], 1e-12 * theta[i]) << i;
  for (int i = 21; i < 32; ++i) EXPECT_NEAR(f.inv_freq[i], theta[i] / 4, 1e-12 * theta[i]) << i;
  const double ramp = 6.0 / 13.0;
  const double want = theta[14] / 4 * ramp + theta[14] * (1 - ramp);
  EXPECT_NEAR(f.inv_freq[14], want, 1e-12 * want);
}

TEST(RopeFrequencies, YarnEqualCorrectionBoundsUseTheSingularityRule) {
  // N = 4 < 2π: find_correction_dim(1) < 0, so low = max(floor(·), 0) = 0 and
  // high = min(ceil(−0.2), R − 1) = 0; equal bounds make the ramp max 0.001, so pair 0 keeps
  // θ_0 (ramp 0) and every other pair is fully interpolated (ramp clamped to 1).
  RopeOptions o = Options(RopeStyle::kNeox, RopeScaling::kYarn, 4.0, 4);
  const poslab::RopeFrequencies f = rope_frequencies(8, o);
  // θ_i = 10000^(−2i/8) = 10^(−i).
  EXPECT_ALLCLOSE(f.inv_freq, (std::vector<double>{1.0, 0.1 / 4, 0.01 / 4, 0.001 / 4}),
                  ref::kFrequency);
  EXPECT_ALLCLOSE(f.inv_freq, ref::rope_freqs(8, o).inv_freq, ref::kFrequency);
  for (double v : f.inv_freq) EXPECT_TRUE(std::isfinite(v));
}

TEST(RopeFrequencies, Llama3MatchesHuggingFace) {
  struct Case {
    long long head_dim;
    double base, factor, low, high;
    long long original;
  };
  for (const Case c :
       {Case{128, 500000.0, 8.0, 1.0, 4.0, 8192}, Case{64, 10000.0, 16.0, 2.0, 8.0, 1024},
        Case{64, 10000.0, 4.0, 1.0, 4.0, 256}}) {
    RopeOptions o = Options(RopeStyle::kNeox, RopeScaling::kLlama3, c.factor, c.original);
    o.base = c.base;
    o.low_freq_factor = c.low;
    o.high_freq_factor = c.high;
    const std::vector<double> theta = ref::default_inv_freq(c.head_dim, c.base);
    // The case must exercise all three bands, or it proves little.
    int high_band = 0, low_band = 0, medium = 0;
    for (double t : theta) {
      const double w = 2 * ref::kPi / t;
      if (w < c.original / c.high)
        ++high_band;
      else if (w > c.original / c.low)
        ++low_band;
      else
        ++medium;
    }
    ASSERT_GT(high_band, 0);
    ASSERT_GT(low_band, 0);
    ASSERT_GT(medium, 0);
    const poslab::RopeFrequencies f = rope_frequencies(c.head_dim, o);
    EXPECT_ALLCLOSE(f.inv_freq, ref::rope_freqs(c.head_dim, o).inv_freq, ref::kFrequency)
        << "D=" << c.head_dim << " f=" << c.factor;
    EXPECT_EQ(f.attention_factor, 1.0);
    // Fast pairs untouched, slow pairs divided by f.
    EXPECT_NEAR(f.inv_freq.front(), theta.front(), 1e-15);
    EXPECT_NEAR(f.inv_freq.back(), theta.back() / c.factor, 1e-12 * theta.back());
  }
}

// Llama-4-Scout's low_freq_factor = high_freq_factor = 1, which transformers accepts: the
// band between them is empty, so every pair is either kept (wavelength below N) or divided by
// the factor (above N). Misordered factors stay refused.
TEST(RopeFrequencies, Llama3WithEqualFactorsHasNoSmoothBand) {
  RopeOptions o = Options(RopeStyle::kNeox, RopeScaling::kLlama3, 16.0, 8192);
  o.base = 500000.0;
  o.low_freq_factor = o.high_freq_factor = 1.0;
  const poslab::RopeFrequencies f = rope_frequencies(128, o);
  EXPECT_ALLCLOSE(f.inv_freq, ref::rope_freqs(128, o).inv_freq, ref::kFrequency);
  const std::vector<double> theta = ref::default_inv_freq(128, 500000.0);
  int kept = 0;
  for (std::size_t i = 0; i < theta.size(); ++i) {
    const bool fast = 2 * ref::kPi / theta[i] < 8192.0;
    kept += fast;
    const double want = fast ? theta[i] : theta[i] / 16.0;
    EXPECT_NEAR(f.inv_freq[i], want, 1e-12 * want) << i;
  }
  EXPECT_GT(kept, 0);
  EXPECT_LT(kept, int(theta.size()));
  o.low_freq_factor = 2.0;
  EXPECT_THROW(rope_frequencies(128, o), Error);
}

TEST(RopeFrequencies, DefaultLlama3FactorsAreOneAndFour) {
  const RopeOptions o;
  EXPECT_EQ(o.low_freq_factor, 1.0);
  EXPECT_EQ(o.high_freq_factor, 4.0);
  EXPECT_EQ(o.beta_fast, 32.0);
  EXPECT_EQ(o.beta_slow, 1.0);
  EXPECT_EQ(o.base, 10000.0);
  EXPECT_EQ(o.style, RopeStyle::kNeox);
}

// ------------------------------------------------------------------------ bad input

TEST(Rope, RejectsOddRotaryDim) {
  EXPECT_THROW(rope_frequencies(7, RopeOptions{}), Error);
  RopeOptions half;
  half.rotary_fraction = 0.5;
  EXPECT_THROW(rope_frequencies(10, half), Error);  // R = 5
  EXPECT_THROW(rope_apply(ref::random_tensor({2, 7}, 1), RopeOptions{}), Error);
  EXPECT_THROW(rope_apply(ref::random_tensor({2, 10}, 1), half), Error);
}

TEST(Rope, RejectsBadRotaryFraction) {
  for (const double fraction : {-0.5, 1.5, ref::kNaN, ref::kInf}) {
    RopeOptions o;
    o.rotary_fraction = fraction;
    EXPECT_THROW(rope_frequencies(64, o), Error) << fraction;
    EXPECT_THROW(rope_apply(ref::random_tensor({2, 64}, 1), o), Error) << fraction;
  }
}

TEST(Rope, RejectsFactorBelowOne) {
  for (const RopeScaling s : {RopeScaling::kLinear, RopeScaling::kNtk, RopeScaling::kDynamic,
                              RopeScaling::kYarn, RopeScaling::kLlama3}) {
    for (const double factor : {0.5, 0.0, -2.0, ref::kNaN}) {
      const RopeOptions o = Options(RopeStyle::kNeox, s, factor, 2048);
      EXPECT_THROW(rope_frequencies(64, o, 4096), Error)
          << poslab::to_string(s) << " factor " << factor;
    }
  }
}

TEST(Rope, RejectsMissingOriginalLength) {
  for (const RopeScaling s : {RopeScaling::kDynamic, RopeScaling::kYarn, RopeScaling::kLlama3}) {
    for (const long long n : {0LL, -1LL}) {
      const RopeOptions o = Options(RopeStyle::kNeox, s, 4.0, n);
      EXPECT_THROW(rope_frequencies(64, o, 100), Error) << poslab::to_string(s) << " N=" << n;
      EXPECT_THROW(rope_apply(ref::random_tensor({2, 64}, 1), o), Error) << poslab::to_string(s);
    }
  }
}

TEST(Rope, RejectsBadBase) {
  for (const double base : {ref::kNaN, 0.0, -10000.0, ref::kInf}) {
    RopeOptions o;
    o.base = base;
    EXPECT_THROW(rope_frequencies(64, o), Error) << base;
    EXPECT_THROW(rope_apply(ref::random_tensor({2, 64}, 1), o), Error) << base;
  }
}

TEST(Rope, RejectsBadShapesAndOffsets) {
  EXPECT_THROW(rope_apply(ref::random_tensor({64}, 1), RopeOptions{}), Error);
  EXPECT_THROW(rope_apply(ref::random_tensor({1, 2, 2, 8}, 1), RopeOptions{}), Error);
  EXPECT_THROW(rope_apply(ref::random_tensor({2, 8}, 1), RopeOptions{}, -1), Error);
  EXPECT_THROW(rope_frequencies(0, RopeOptions{}), Error);
  EXPECT_THROW(rope_frequencies(-64, RopeOptions{}), Error);
}

TEST(Rope, RejectsPositionsThatOverflow) {
  // offset + L − 1 must not overflow (undefined behaviour, then garbage angles).
  const poslab::TensorF x = ref::random_tensor({3, 8}, 1);
  EXPECT_THROW(rope_apply(x, RopeOptions{}, std::numeric_limits<long long>::max()), Error);
  EXPECT_THROW(rope_apply(x, RopeOptions{}, std::numeric_limits<long long>::max() - 1), Error);
}

// Row l at positions[l]: rising positions are the offset form exactly; any order rotates each
// row as if alone at its position; the sequence length `dynamic` reads is max + 1.
TEST(Rope, PositionsOneByOneRotateEachRowAtItsOwn) {
  const poslab::TensorF x = ref::random_tensor({2, 5, 8}, 4);
  RopeOptions o;
  o.style = RopeStyle::kGptj;
  EXPECT_EQ(rope_apply(x, o, std::vector<long long>{7, 8, 9, 10, 11}).data,
            rope_apply(x, o, 7).data);
  const std::vector<long long> shuffled{4, 0, 3, 3, 1};
  const poslab::TensorF moved = rope_apply(x, o, shuffled);
  for (std::size_t h = 0; h < 2; ++h)
    for (std::size_t l = 0; l < 5; ++l) {
      poslab::TensorF row({1, 8});
      std::copy_n(x.ptr() + (h * 5 + l) * 8, 8, row.ptr());
      const poslab::TensorF alone = rope_apply(row, o, shuffled[l]);
      for (std::size_t c = 0; c < 8; ++c) EXPECT_EQ(moved.data[(h * 5 + l) * 8 + c], alone.data[c]);
    }
  RopeOptions dynamic;
  dynamic.scaling = RopeScaling::kDynamic;
  dynamic.factor = 2;
  dynamic.original_length = 4;
  // Positions 9, 5, 6, 7, 8: a sequence of 10, as the offset form at 5..9 sees it on the rows
  // put in order of position (row 0 last).
  const poslab::TensorF scaled = rope_apply(x, dynamic, std::vector<long long>{9, 5, 6, 7, 8});
  const std::size_t order[5] = {1, 2, 3, 4, 0};
  poslab::TensorF sorted({2, 5, 8});
  for (std::size_t h = 0; h < 2; ++h)
    for (std::size_t k = 0; k < 5; ++k)
      std::copy_n(x.ptr() + (h * 5 + order[k]) * 8, 8, sorted.ptr() + (h * 5 + k) * 8);
  const poslab::TensorF in_order = rope_apply(sorted, dynamic, 5);
  for (std::size_t h = 0; h < 2; ++h)
    for (std::size_t k = 0; k < 5; ++k)
      for (std::size_t c = 0; c < 8; ++c) {
        EXPECT_EQ(scaled.data[(h * 5 + order[k]) * 8 + c], in_order.data[(h * 5 + k) * 8 + c]);
      }
  EXPECT_THROW(rope_apply(x, o, std::vector<long long>{0, 1, 2}), Error);
  EXPECT_THROW(rope_apply(x, o, std::vector<long long>{0, 1, 2, -1, 4}), Error);
}

TEST(Rope, ParseNames) {
  EXPECT_EQ(poslab::parse_rope_style("neox"), RopeStyle::kNeox);
  EXPECT_EQ(poslab::parse_rope_style("gptj"), RopeStyle::kGptj);
  EXPECT_THROW(poslab::parse_rope_style("llama"), Error);
  for (const char* name : {"none", "linear", "ntk", "dynamic", "yarn", "llama3"}) {
    EXPECT_EQ(poslab::to_string(poslab::parse_rope_scaling(name)), name);
  }
  EXPECT_EQ(poslab::parse_rope_scaling("yarn"), RopeScaling::kYarn);
  EXPECT_THROW(poslab::parse_rope_scaling("longrope"), Error);
  EXPECT_THROW(poslab::parse_rope_scaling(""), Error);
}

}  // namespace

// Analysis tools: similarity matrices, similarity by offset, the offset matrix M_k, RoPE's
// relative-distance decay and per-pair wavelengths.
#include "poslab/analysis/analysis.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "poslab/positions/sinusoidal.hpp"
#include "reference.hpp"

namespace {

using poslab::Error;
using poslab::SimilarityMetric;

// y = M x for M (D, D) and x a row of a table.
std::vector<double> MatVec(const poslab::TensorF& m, const float* x, std::size_t D) {
  std::vector<double> y(D, 0.0);
  for (std::size_t r = 0; r < D; ++r)
    for (std::size_t c = 0; c < D; ++c) y[r] += double(m.data[r * D + c]) * x[c];
  return y;
}

// ---------------------------------------------------------------------------- similarity

TEST(Similarity, CosineDiagonalIsOneAndSymmetric) {
  const poslab::TensorF pe = poslab::sinusoidal_table(20, 32);
  const poslab::TensorF s = poslab::similarity_matrix(pe, SimilarityMetric::kCosine);
  ASSERT_EQ(s.shape, (poslab::Shape{20, 20}));
  for (std::size_t i = 0; i < 20; ++i) {
    EXPECT_NEAR(s.data[i * 20 + i], 1.0, 1e-6) << i;
    for (std::size_t j = 0; j < 20; ++j) {
      EXPECT_EQ(s.data[i * 20 + j], s.data[j * 20 + i]) << i << "," << j;
      EXPECT_LE(std::fabs(s.data[i * 20 + j]), 1.0f + 1e-6f);
    }
  }
}

TEST(Similarity, CosineOfAZeroRowIsZeroNotNaN) {
  poslab::TensorF x = ref::random_tensor({4, 6}, 1);
  for (std::size_t c = 0; c < 6; ++c) x.data[2 * 6 + c] = 0.0f;
  const poslab::TensorF s = poslab::similarity_matrix(x, SimilarityMetric::kCosine);
  EXPECT_TRUE(ref::AllFinite(s));
  for (std::size_t j = 0; j < 4; ++j) {
    EXPECT_EQ(s.data[2 * 4 + j], 0.0f) << j;
    EXPECT_EQ(s.data[j * 4 + 2], 0.0f) << j;
  }
  EXPECT_ALLCLOSE(s, ref::similarity(x, true), ref::kAcceptance);
}

TEST(Similarity, NonFiniteRowsAreRefusedForBothMetrics) {
  // Cosine once gave 0 for a NaN row and NaN for an ∞ row, without an error.
  for (const float bad : {std::nanf(""), INFINITY, -INFINITY}) {
    poslab::TensorF x = ref::random_tensor({3, 4}, 9);
    x.data[5] = bad;
    for (const auto metric : {poslab::SimilarityMetric::kCosine, poslab::SimilarityMetric::kDot}) {
      EXPECT_THROW(poslab::similarity_matrix(x, metric), poslab::Error) << bad;
      EXPECT_THROW(poslab::similarity_by_offset(x, metric), poslab::Error) << bad;
    }
  }
}

TEST(Similarity, CosineAndDotMatchReference) {
  const poslab::TensorF x = ref::random_tensor({9, 12}, 2, -3, 3);
  EXPECT_ALLCLOSE(poslab::similarity_matrix(x, SimilarityMetric::kCosine), ref::similarity(x, true),
                  ref::kAcceptance);
  EXPECT_ALLCLOSE(poslab::similarity_matrix(x, SimilarityMetric::kDot), ref::similarity(x, false),
                  ref::kAcceptance);
  const poslab::TensorF pe =
      poslab::sinusoidal_table(50, 64, 10000.0, poslab::SinusoidalLayout::kInterleaved, 7);
  EXPECT_ALLCLOSE(poslab::similarity_matrix(pe, SimilarityMetric::kDot), ref::similarity(pe, false),
                  ref::kAcceptance);
}

TEST(Similarity, ByOffsetMatchesReference) {
  const poslab::TensorF x = ref::random_tensor({11, 8}, 3);
  for (const bool cosine : {true, false}) {
    const SimilarityMetric m = cosine ? SimilarityMetric::kCosine : SimilarityMetric::kDot;
    const poslab::TensorF got = poslab::similarity_by_offset(x, m);
    ASSERT_EQ(got.shape, (poslab::Shape{11}));
    EXPECT_ALLCLOSE(got, ref::similarity_by_offset(x, cosine), ref::kAcceptance) << cosine;
  }
}

TEST(Similarity, SinusoidalDotDependsOnlyOnOffset) {
  // PE(p)·PE(p+k) = Σ cos(k w_i): every pair at offset k has the same dot product, so the
  // by-offset mean equals any single pair.
  const poslab::TensorF pe = poslab::sinusoidal_table(30, 16);
  const poslab::TensorF s = poslab::similarity_matrix(pe, SimilarityMetric::kDot);
  const poslab::TensorF by = poslab::similarity_by_offset(pe, SimilarityMetric::kDot);
  for (std::size_t k = 0; k < 30; ++k) {
    double want = 0;
    for (int i = 0; i < 8; ++i) want += std::cos(k * std::pow(10000.0, -2.0 * i / 16));
    EXPECT_NEAR(by.data[k], want, 1e-5) << k;
    for (std::size_t i = 0; i + k < 30; ++i) EXPECT_NEAR(s.data[i * 30 + i + k], want, 1e-5);
  }
}

TEST(Similarity, ParseMetric) {
  EXPECT_EQ(poslab::parse_similarity_metric("cosine"), SimilarityMetric::kCosine);
  EXPECT_EQ(poslab::parse_similarity_metric("dot"), SimilarityMetric::kDot);
  EXPECT_THROW(poslab::parse_similarity_metric("euclid"), Error);
}

TEST(Similarity, RejectsNonMatrices) {
  EXPECT_THROW(poslab::similarity_matrix(ref::random_tensor({8}, 1), SimilarityMetric::kDot),
               Error);
  EXPECT_THROW(
      poslab::similarity_matrix(ref::random_tensor({2, 3, 4}, 1), SimilarityMetric::kCosine),
      Error);
  EXPECT_THROW(poslab::similarity_by_offset(ref::random_tensor({8}, 1), SimilarityMetric::kDot),
               Error);
}

// ------------------------------------------------------------------------ offset matrix

TEST(OffsetMatrix, MapsPositionPToPPlusK) {
  for (const double base : {10000.0, 100.0}) {
    for (const std::size_t D : {2u, 16u, 64u}) {
      const poslab::TensorF pe = poslab::sinusoidal_table(300, D, base);
      for (const long long k : {1LL, 5LL, -3LL, 37LL, -100LL, 0LL}) {
        const poslab::TensorF m = poslab::offset_matrix(D, k, base);
        ASSERT_EQ(m.shape, (poslab::Shape{D, D}));
        for (const long long p : {100LL, 150LL, 200LL, 262LL}) {
          const std::vector<double> got = MatVec(m, pe.data.data() + p * D, D);
          const std::vector<float> want(pe.data.begin() + (p + k) * D,
                                        pe.data.begin() + (p + k + 1) * D);
          EXPECT_ALLCLOSE(got, want, ref::kAcceptance)
              << "base " << base << " D " << D << " p " << p << " k " << k;
        }
      }
    }
  }
}

TEST(OffsetMatrix, MatchesReferenceAndIsOrthogonal) {
  for (const long long k : {1LL, -7LL, 1000LL, 65535LL}) {
    const std::size_t D = 32;
    const poslab::TensorF m = poslab::offset_matrix(D, k);
    EXPECT_ALLCLOSE(m, ref::offset_matrix(D, k, 10000.0), ref::kTight) << k;
    // M Mᵀ = I.
    for (std::size_t r = 0; r < D; ++r)
      for (std::size_t c = 0; c < D; ++c) {
        double dot = 0;
        for (std::size_t t = 0; t < D; ++t) dot += double(m.data[r * D + t]) * m.data[c * D + t];
        EXPECT_NEAR(dot, r == c ? 1.0 : 0.0, 1e-6) << k << " " << r << "," << c;
      }
  }
}

TEST(OffsetMatrix, ZeroIsIdentityAndNegativeIsInverse) {
  const poslab::TensorF id = poslab::offset_matrix(8, 0);
  for (std::size_t r = 0; r < 8; ++r)
    for (std::size_t c = 0; c < 8; ++c) EXPECT_EQ(id.data[r * 8 + c], r == c ? 1.0f : 0.0f);
  const poslab::TensorF plus = poslab::offset_matrix(8, 9), minus = poslab::offset_matrix(8, -9);
  for (std::size_t r = 0; r < 8; ++r)
    for (std::size_t c = 0; c < 8; ++c)
      EXPECT_FLOAT_EQ(minus.data[r * 8 + c], plus.data[c * 8 + r]);
}

TEST(OffsetMatrix, RejectsBadInput) {
  EXPECT_THROW(poslab::offset_matrix(7, 1), Error);
  EXPECT_THROW(poslab::offset_matrix(0, 1), Error);
  EXPECT_THROW(poslab::offset_matrix(-4, 1), Error);
  EXPECT_THROW(poslab::offset_matrix(8, 1, 0.0), Error);
  EXPECT_THROW(poslab::offset_matrix(8, 1, ref::kNaN), Error);
  EXPECT_THROW(poslab::offset_matrix(1 << 20, 1), Error);  // (2^20)^2 elements
}

// ---------------------------------------------------------------------------- RoPE decay

TEST(RopeDecay, AtZeroIsTheMeanOfOneToHalfR) {
  // At m = 0 every term is 1, so |partial sum j| = j and the mean is (R/2 + 1)/2.
  for (const long long R : {2LL, 8LL, 64LL, 128LL}) {
    const poslab::TensorF decay = poslab::rope_decay(R, 10);
    ASSERT_EQ(decay.shape, (poslab::Shape{11}));
    EXPECT_NEAR(decay.data[0], (R / 2 + 1) / 2.0, 1e-5) << R;
  }
}

TEST(RopeDecay, MatchesReference) {
  for (const long long D : {16LL, 128LL}) {
    const poslab::TensorF got = poslab::rope_decay(D, 300);
    EXPECT_ALLCLOSE(got, ref::rope_decay(ref::default_inv_freq(D, 10000.0), 300), ref::kAcceptance)
        << D;
  }
  poslab::RopeOptions scaled;
  scaled.scaling = poslab::RopeScaling::kLinear;
  scaled.factor = 4.0;
  scaled.base = 500000.0;
  EXPECT_ALLCLOSE(poslab::rope_decay(64, 200, scaled),
                  ref::rope_decay(ref::rope_freqs(64, scaled).inv_freq, 200), ref::kAcceptance);
}

TEST(RopeDecay, FallsFromItsStartingValue) {
  const poslab::TensorF decay = poslab::rope_decay(128, 1000);
  const double start = decay.data[0];
  for (std::size_t m = 1; m <= 1000; ++m) EXPECT_LT(decay.data[m], start) << m;
  EXPECT_LT(decay.data[1000], 0.5 * start);
}

TEST(RopeDecay, RejectsBadInput) {
  EXPECT_THROW(poslab::rope_decay(7, 10), Error);
  EXPECT_THROW(poslab::rope_decay(0, 10), Error);
  EXPECT_THROW(poslab::rope_decay(64, -1), Error);
}

// ---------------------------------------------------------------------------- wavelengths

TEST(Wavelengths, RopeAreTwoPiOverTheEffectiveTheta) {
  std::vector<poslab::RopeOptions> configs(4);
  configs[1].scaling = poslab::RopeScaling::kLinear;
  configs[1].factor = 8.0;
  configs[2].scaling = poslab::RopeScaling::kLlama3;
  configs[2].factor = 8.0;
  configs[2].original_length = 1024;
  configs[3].rotary_fraction = 0.5;
  configs[3].base = 500000.0;
  for (const poslab::RopeOptions& o : configs) {
    const ref::Freqs fr = ref::rope_freqs(64, o);
    const poslab::TensorF wl = poslab::rope_wavelengths(64, o);
    ASSERT_EQ(wl.shape, (poslab::Shape{fr.rotary_dim / 2}));
    std::vector<double> want;
    for (double t : fr.inv_freq) want.push_back(2 * ref::kPi / t);
    EXPECT_ALLCLOSE(wl, want, ref::kTight) << poslab::to_string(o.scaling);
  }
}

TEST(Wavelengths, DynamicReadsTheTotalLength) {
  poslab::RopeOptions o;
  o.scaling = poslab::RopeScaling::kDynamic;
  o.factor = 2.0;
  o.original_length = 100;
  std::vector<double> want;
  for (double t : ref::rope_freqs(32, o, 400).inv_freq) want.push_back(2 * ref::kPi / t);
  EXPECT_ALLCLOSE(poslab::rope_wavelengths(32, o, 400), want, ref::kTight);
}

}  // namespace

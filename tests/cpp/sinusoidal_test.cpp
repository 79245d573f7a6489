// Sinusoidal absolute positions (Vaswani et al. 2017) against a long-double reference.
#include "poslab/positions/sinusoidal.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "reference.hpp"

namespace {

using poslab::Error;
using poslab::sinusoidal_table;
using poslab::SinusoidalLayout;

constexpr SinusoidalLayout kInter = SinusoidalLayout::kInterleaved;
constexpr SinusoidalLayout kConcat = SinusoidalLayout::kConcat;

TEST(Sinusoidal, KnownValuesAtPositionOne) {
  const poslab::TensorF pe = sinusoidal_table(2, 4);
  ASSERT_EQ(pe.shape, (poslab::Shape{2, 4}));
  EXPECT_FLOAT_EQ(pe.data[4 + 0], std::sin(1.0));   // PE[1,0] = sin(1·w_0), w_0 = 1
  EXPECT_FLOAT_EQ(pe.data[4 + 1], std::cos(1.0));   // PE[1,1] = cos(1)
  EXPECT_FLOAT_EQ(pe.data[4 + 2], std::sin(0.01));  // w_1 = 10000^(-2/4) = 0.01
  EXPECT_FLOAT_EQ(pe.data[4 + 3], std::cos(0.01));
}

TEST(Sinusoidal, PositionZeroIsZeroOneInterleaved) {
  const poslab::TensorF pe = sinusoidal_table(1, 16);
  for (int c = 0; c < 16; ++c) EXPECT_EQ(pe.data[c], c % 2 == 0 ? 0.0f : 1.0f) << c;
}

TEST(Sinusoidal, PositionZeroIsZerosThenOnesInConcat) {
  const poslab::TensorF pe = sinusoidal_table(1, 16, 10000.0, kConcat);
  for (int c = 0; c < 16; ++c) EXPECT_EQ(pe.data[c], c < 8 ? 0.0f : 1.0f) << c;
}

TEST(Sinusoidal, MatchesLongDoubleReference) {
  for (const bool concat : {false, true}) {
    for (const long long D : {2LL, 4LL, 6LL, 64LL, 130LL}) {
      for (const double base : {10000.0, 100.0, 500000.0, 2.0}) {
        const poslab::TensorF pe = sinusoidal_table(37, D, base, concat ? kConcat : kInter);
        EXPECT_ALLCLOSE(pe, ref::sinusoidal(37, D, base, concat), ref::kTight)
            << "D=" << D << " base=" << base << " concat=" << concat;
      }
    }
  }
}

TEST(Sinusoidal, LargePositionsWithinTolerance) {
  // p = 65535, D = 512: angles near 6.5e4 rad lose ~4e-3 rad in float32; double keeps 1e-7.
  const poslab::TensorF row = sinusoidal_table(1, 512, 10000.0, kInter, 65535);
  EXPECT_ALLCLOSE(row, ref::sinusoidal(1, 512, 10000.0L, false, 65535), ref::kTight);
  const poslab::TensorF rows = sinusoidal_table(4, 512, 10000.0, kConcat, 65532);
  EXPECT_ALLCLOSE(rows, ref::sinusoidal(4, 512, 10000.0L, true, 65532), ref::kTight);
  // The whole table up to 65 536 positions, narrow so the long-double loop stays quick.
  const poslab::TensorF table = sinusoidal_table(65536, 8);
  EXPECT_ALLCLOSE(table, ref::sinusoidal(65536, 8, 10000.0L, false), ref::kTight);
}

TEST(Sinusoidal, ConcatIsAPermutationOfInterleaved) {
  const long long L = 50, D = 24;
  const poslab::TensorF inter = sinusoidal_table(L, D, 10000.0, kInter);
  const poslab::TensorF concat = sinusoidal_table(L, D, 10000.0, kConcat);
  for (long long p = 0; p < L; ++p) {
    for (long long i = 0; i < D / 2; ++i) {
      EXPECT_EQ(concat.data[p * D + i], inter.data[p * D + 2 * i]) << p << "," << i;
      EXPECT_EQ(concat.data[p * D + D / 2 + i], inter.data[p * D + 2 * i + 1]) << p << "," << i;
    }
  }
}

TEST(Sinusoidal, OffsetEqualsSlicingALongerTable) {
  const poslab::TensorF full = sinusoidal_table(40, 32);
  const poslab::TensorF tail = sinusoidal_table(15, 32, 10000.0, kInter, 25);
  ASSERT_EQ(tail.shape, (poslab::Shape{15, 32}));
  for (std::size_t i = 0; i < tail.size(); ++i) EXPECT_EQ(tail.data[i], full.data[25 * 32 + i]);
}

TEST(Sinusoidal, EachPairHasUnitNorm) {
  const poslab::TensorF pe = sinusoidal_table(100, 64, 10000.0, kInter, 1000);
  for (std::size_t r = 0; r < 100; ++r)
    for (std::size_t i = 0; i < 32; ++i)
      EXPECT_NEAR(std::hypot(pe.data[r * 64 + 2 * i], pe.data[r * 64 + 2 * i + 1]), 1.0, 1e-6);
}

TEST(Sinusoidal, WavelengthsAreTwoPiOverFrequency) {
  for (const double base : {10000.0, 500000.0}) {
    const poslab::TensorF wl = poslab::sinusoidal_wavelengths(64, base);
    ASSERT_EQ(wl.shape, (poslab::Shape{32}));
    std::vector<double> want;
    for (int i = 0; i < 32; ++i) want.push_back(2.0 * ref::kPi * std::pow(base, 2.0 * i / 64));
    EXPECT_ALLCLOSE(wl, want, ref::kTight);
  }
  EXPECT_FLOAT_EQ(poslab::sinusoidal_wavelengths(2, 10000.0).data[0], float(2 * ref::kPi));
}

TEST(Sinusoidal, ParseLayout) {
  EXPECT_EQ(poslab::parse_sinusoidal_layout("interleaved"), kInter);
  EXPECT_EQ(poslab::parse_sinusoidal_layout("concat"), kConcat);
  EXPECT_THROW(poslab::parse_sinusoidal_layout("foo"), Error);
  EXPECT_THROW(poslab::parse_sinusoidal_layout(""), Error);
}

TEST(Sinusoidal, RejectsOddDim) {
  EXPECT_THROW(sinusoidal_table(4, 3), Error);
  EXPECT_THROW(sinusoidal_table(4, 1), Error);
  EXPECT_THROW(sinusoidal_table(4, 513, 10000.0, kConcat), Error);
  EXPECT_THROW(poslab::sinusoidal_wavelengths(7), Error);
}

TEST(Sinusoidal, RejectsZeroOrNegativeDim) {
  EXPECT_THROW(sinusoidal_table(4, 0), Error);
  EXPECT_THROW(sinusoidal_table(4, -2), Error);
  EXPECT_THROW(poslab::sinusoidal_wavelengths(0), Error);
}

TEST(Sinusoidal, RejectsNegativeLengthAndOffset) {
  EXPECT_THROW(sinusoidal_table(-1, 8), Error);
  EXPECT_THROW(sinusoidal_table(-1000000, 8), Error);
  EXPECT_THROW(sinusoidal_table(4, 8, 10000.0, kInter, -1), Error);
}

TEST(Sinusoidal, RejectsAbsurdSizesWithErrorNotBadAlloc) {
  // EXPECT_THROW with poslab::Error fails on std::bad_alloc / std::length_error.
  EXPECT_THROW(sinusoidal_table(1'000'000'000LL, 1'000'000LL), Error);
  EXPECT_THROW(sinusoidal_table(1LL << 20, 1LL << 20), Error);  // each fine, product not
  EXPECT_THROW(sinusoidal_table(std::numeric_limits<long long>::max(), 2), Error);
  EXPECT_THROW(sinusoidal_table(2, std::numeric_limits<long long>::max() - 1), Error);
}

TEST(Sinusoidal, RejectsBadBase) {
  for (const double base : {0.0, -1.0, -10000.0, ref::kNaN, ref::kInf, -ref::kInf}) {
    EXPECT_THROW(sinusoidal_table(4, 8, base), Error) << base;
    EXPECT_THROW(poslab::sinusoidal_wavelengths(8, base), Error) << base;
  }
}

}  // namespace

// ALiBi (Press et al. 2022): head slopes by the reference `get_slopes` rule and the bias
// −m_h·|i − j|.
#include "poslab/positions/alibi.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "reference.hpp"

namespace {

using poslab::Error;

std::vector<double> Slopes(long long H) {
  const poslab::TensorF s = poslab::alibi_slopes(H);
  EXPECT_EQ(s.shape, (poslab::Shape{std::size_t(H)}));
  return {s.data.begin(), s.data.end()};
}

TEST(Alibi, EightHeadSlopesAreOneHalfToOne256th) {
  const poslab::TensorF s = poslab::alibi_slopes(8);
  ASSERT_EQ(s.shape, (poslab::Shape{8}));
  const std::vector<float> want = {1.0f / 2,  1.0f / 4,  1.0f / 8,   1.0f / 16,
                                   1.0f / 32, 1.0f / 64, 1.0f / 128, 1.0f / 256};
  for (int h = 0; h < 8; ++h) EXPECT_EQ(s.data[h], want[h]) << h;  // exact in binary
}

TEST(Alibi, TwelveHeadSlopesInterleaveTheSixteenHeadList) {
  // get_slopes(12) = get_slopes(8) + get_slopes(16)[0::2][:4]
  //                = 2^-1 … 2^-8, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5.
  const std::vector<double> want = {0.5,
                                    0.25,
                                    0.125,
                                    0.0625,
                                    0.03125,
                                    0.015625,
                                    0.0078125,
                                    0.00390625,
                                    std::pow(2.0, -0.5),
                                    std::pow(2.0, -1.5),
                                    std::pow(2.0, -2.5),
                                    std::pow(2.0, -3.5)};
  EXPECT_ALLCLOSE(Slopes(12), want, (ref::Tol{0, 1e-7}));
  EXPECT_ALLCLOSE(Slopes(12), ref::alibi_get_slopes(12), (ref::Tol{0, 1e-7}));
}

TEST(Alibi, SmallHeadCountsByHand) {
  // 1: 2^-8. 3: get_slopes(2) = [2^-4, 2^-8] + get_slopes(4)[0] = 2^-2.
  // 5: get_slopes(4) + get_slopes(8)[0] = 2^-1. 6: … + get_slopes(8)[0, 2] = 2^-1, 2^-3.
  EXPECT_EQ(Slopes(1), (std::vector<double>{1.0 / 256}));
  EXPECT_EQ(Slopes(2), (std::vector<double>{1.0 / 16, 1.0 / 256}));
  EXPECT_EQ(Slopes(3), (std::vector<double>{1.0 / 16, 1.0 / 256, 1.0 / 4}));
  EXPECT_EQ(Slopes(5), (std::vector<double>{1.0 / 4, 1.0 / 16, 1.0 / 64, 1.0 / 256, 1.0 / 2}));
  EXPECT_EQ(Slopes(6),
            (std::vector<double>{1.0 / 4, 1.0 / 16, 1.0 / 64, 1.0 / 256, 1.0 / 2, 1.0 / 8}));
}

TEST(Alibi, SlopesMatchReferenceForManyHeadCounts) {
  for (int H : {1, 2, 3, 4, 5, 6, 7, 9, 12, 16, 20, 24, 32, 40, 64, 96, 100}) {
    EXPECT_ALLCLOSE(Slopes(H), ref::alibi_get_slopes(H), (ref::Tol{0, 1e-7})) << "H=" << H;
  }
}

TEST(Alibi, BiasIsMinusSlopeTimesDistance) {
  for (const auto& [H, Lq, Lk] :
       std::vector<std::tuple<int, int, int>>{{4, 5, 7}, {12, 6, 6}, {3, 9, 2}, {1, 1, 1}}) {
    const poslab::TensorF b = poslab::alibi_bias(H, Lq, Lk);
    EXPECT_ALLCLOSE(b, ref::alibi_bias(H, Lq, Lk), ref::kTight)
        << "H=" << H << " Lq=" << Lq << " Lk=" << Lk;
  }
}

// Query i sits at i + offset, as the mask (and the CUDA kernel) places it: a decoder's new
// queries after a cache of Lk − Lq keys see distance 0 on their own key.
TEST(Alibi, BiasPlacesQueryIAtIPlusOffset) {
  for (const auto& [H, Lq, Lk, offset] : std::vector<std::tuple<int, int, int, long long>>{
           {4, 3, 9, 6}, {2, 5, 5, -2}, {3, 4, 4, 1000}, {1, 1, 7, 6}}) {
    const poslab::TensorF b = poslab::alibi_bias(H, Lq, Lk, offset);
    EXPECT_ALLCLOSE(b, ref::alibi_bias(H, Lq, Lk, offset), ref::kTight)
        << "H=" << H << " Lq=" << Lq << " Lk=" << Lk << " offset=" << offset;
  }
  const poslab::TensorF last = poslab::alibi_bias(1, 1, 7, 6);
  EXPECT_EQ(last.data[6], 0.0f);
  EXPECT_THROW(poslab::alibi_bias(1, 1, 1, (1LL << 30) + 1), Error);
}

TEST(Alibi, BiasIsSymmetricWithZeroDiagonal) {
  // The bias alone does not remove the future: that is the causal mask's job.
  const int H = 5, L = 9;
  const poslab::TensorF b = poslab::alibi_bias(H, L, L);
  for (int h = 0; h < H; ++h)
    for (int i = 0; i < L; ++i) {
      EXPECT_EQ(b.data[(h * L + i) * L + i], 0.0f);
      for (int j = 0; j < L; ++j) {
        EXPECT_EQ(b.data[(h * L + i) * L + j], b.data[(h * L + j) * L + i]);
        if (i != j) {
          EXPECT_LT(b.data[(h * L + i) * L + j], 0.0f);
        }
      }
    }
}

TEST(Alibi, RejectsZeroOrNegativeHeads) {
  EXPECT_THROW(poslab::alibi_slopes(0), Error);
  EXPECT_THROW(poslab::alibi_slopes(-4), Error);
  EXPECT_THROW(poslab::alibi_bias(0, 4, 4), Error);
  EXPECT_THROW(poslab::alibi_bias(-1, 4, 4), Error);
}

TEST(Alibi, RejectsBadLengths) {
  EXPECT_THROW(poslab::alibi_bias(4, -1, 4), Error);
  EXPECT_THROW(poslab::alibi_bias(4, 4, -1), Error);
  EXPECT_THROW(poslab::alibi_bias(64, 100000, 100000), Error);  // 6.4e11 elements
  EXPECT_THROW(poslab::alibi_slopes(1'000'000'000'000LL), Error);
}

// Positions given one by one: rising ones are the offset form; any order gives |p_i − p_j|.
TEST(Alibi, PositionsOneByOneGiveTheirDistances) {
  EXPECT_EQ(poslab::alibi_bias(4, std::vector<long long>{3, 4, 5, 6}).data,
            poslab::alibi_bias(4, 4, 4).data);
  const poslab::TensorF shuffled = poslab::alibi_bias(2, std::vector<long long>{2, 0, 5});
  const poslab::TensorF slopes = poslab::alibi_slopes(2);
  EXPECT_FLOAT_EQ(shuffled.data[0 * 3 + 2], -slopes.data[0] * 3.0f);      // h 0: |2 − 5|
  EXPECT_FLOAT_EQ(shuffled.data[9 + 1 * 3 + 0], -slopes.data[1] * 2.0f);  // h 1: |0 − 2|
  EXPECT_EQ(shuffled.data[9 + 4], 0.0f);
}

}  // namespace

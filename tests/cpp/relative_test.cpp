// Relative positions that index a table: Shaw et al. clipped distances and T5 buckets.
#include "poslab/positions/relative.hpp"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "poslab/positions/formulas.hpp"
#include "poslab/positions/learned.hpp"
#include "reference.hpp"

namespace {

using poslab::Error;
using poslab::T5BucketOptions;

std::vector<int> as_ints(const poslab::TensorI& t) { return {t.data.begin(), t.data.end()}; }

// ------------------------------------------------------------------------------- Shaw

TEST(Shaw, IndicesAreClippedDistancePlusKByHand) {
  // index[i,j] = clip(j − i, −2, 2) + 2 for Lq = Lk = 4.
  const poslab::TensorI idx = poslab::shaw_indices(4, 4, 2);
  ASSERT_EQ(idx.shape, (poslab::Shape{4, 4}));
  EXPECT_EQ(as_ints(idx), (std::vector<int>{2, 3, 4, 4,  //
                                            1, 2, 3, 4,  //
                                            0, 1, 2, 3,  //
                                            0, 0, 1, 2}));
}

TEST(Shaw, IndicesMatchReferenceForRectangularShapes) {
  for (const auto& [Lq, Lk, K] : std::vector<std::tuple<int, int, int>>{
           {5, 7, 2}, {7, 5, 3}, {1, 9, 4}, {9, 1, 1}, {6, 6, 0}, {3, 3, 10}}) {
    const poslab::TensorI idx = poslab::shaw_indices(Lq, Lk, K);
    ASSERT_EQ(idx.shape, (poslab::Shape{std::size_t(Lq), std::size_t(Lk)}));
    for (int i = 0; i < Lq; ++i)
      for (int j = 0; j < Lk; ++j) {
        const int got = idx.data[i * Lk + j];
        EXPECT_EQ(got, ref::shaw_index(i, j, K)) << i << "," << j << " K=" << K;
        EXPECT_GE(got, 0);
        EXPECT_LE(got, 2 * K);
      }
  }
}

TEST(Shaw, TableIsSeededWithShapeTwoKPlusOneByD) {
  const poslab::TensorF a = poslab::shaw_table(3, 8, 11);
  EXPECT_EQ(a.shape, (poslab::Shape{7, 8}));
  EXPECT_EQ(a.data, poslab::shaw_table(3, 8, 11).data);
  const poslab::TensorF b = poslab::shaw_table(3, 8, 12);
  int equal = 0;
  for (std::size_t i = 0; i < a.size(); ++i) equal += a.data[i] == b.data[i];
  EXPECT_LT(equal, 3);
}

TEST(Shaw, TableStdIsAboutTwoHundredths) {
  const poslab::TensorF t = poslab::shaw_table(500, 128, 0);  // 128 128 draws
  double sum = 0, sum2 = 0;
  for (float v : t.data) {
    sum += v;
    sum2 += double(v) * v;
  }
  const double n = double(t.size());
  EXPECT_NEAR(sum / n, 0.0, 3e-4);
  EXPECT_NEAR(std::sqrt(sum2 / n), 0.02, 4e-4);
}

TEST(Shaw, EmbeddingsGatherTheSeededTable) {
  const int Lq = 5, Lk = 7, K = 2, D = 6;
  const poslab::TensorF table = poslab::shaw_table(K, D, 42);
  const poslab::TensorF emb = poslab::shaw_embeddings(Lq, Lk, K, D, 42);
  ASSERT_EQ(emb.shape, (poslab::Shape{5, 7, 6}));
  for (int i = 0; i < Lq; ++i)
    for (int j = 0; j < Lk; ++j)
      for (int c = 0; c < D; ++c)
        EXPECT_EQ(emb.data[(i * Lk + j) * D + c], table.data[ref::shaw_index(i, j, K) * D + c])
            << i << "," << j << "," << c;
  // A different seed gathers a different table.
  const poslab::TensorF other = poslab::shaw_embeddings(Lq, Lk, K, D, 43);
  EXPECT_NE(other.data, emb.data);
}

TEST(Shaw, RejectsBadSizes) {
  EXPECT_THROW(poslab::shaw_indices(4, 4, -1), Error);
  EXPECT_THROW(poslab::shaw_indices(-1, 4, 2), Error);
  EXPECT_THROW(poslab::shaw_indices(4, -1, 2), Error);
  EXPECT_THROW(poslab::shaw_table(-2, 8), Error);
  EXPECT_THROW(poslab::shaw_table(2, 0), Error);
  EXPECT_THROW(poslab::shaw_embeddings(4, 4, 2, 0), Error);
  EXPECT_THROW(poslab::shaw_embeddings(4, 4, -2, 8), Error);
  EXPECT_THROW(poslab::shaw_embeddings(100000, 100000, 2, 8), Error);  // 8e10 elements
}

// --------------------------------------------------------------------------------- T5

TEST(T5, UnidirectionalSmallTableByHand) {
  // num_buckets 8, max_distance 16, not bidirectional: n = max(i − j, 0) (keys in the past),
  // max_exact = 4. n < 4 → n. n ≥ 4 → 4 + floor(ln(n/4) / ln(16/4) · 4) = 4 + floor(2·log2 n − 4):
  //   n=4 → 4+0, 5 → 4+floor(0.64)=4, 6 → 4+floor(1.17)=5, 7 → 4+floor(1.61)=5,
  //   8 → 4+2=6 (exactly 2: logf(2)/float(ln 4) is exactly 0.5), 9,10,11 → 6 (2.34, 2.64, 2.92),
  //   12 → 4+floor(3.17)=7, …, 15 → 7 (3.81), 16 → 8 clamped to 7.
  // Future keys (j > i) all land in bucket 0.
  const poslab::TensorI b = poslab::t5_buckets(17, 4, {false, 8, 16});
  ASSERT_EQ(b.shape, (poslab::Shape{17, 4}));
  EXPECT_EQ(as_ints(b), (std::vector<int>{0, 0, 0, 0,  // i=0
                                          1, 0, 0, 0,  //
                                          2, 1, 0, 0,  //
                                          3, 2, 1, 0,  //
                                          4, 3, 2, 1,  // i=4
                                          4, 4, 3, 2,  //
                                          5, 4, 4, 3,  //
                                          5, 5, 4, 4,  //
                                          6, 5, 5, 4,  // i=8
                                          6, 6, 5, 5,  //
                                          6, 6, 6, 5,  //
                                          6, 6, 6, 6,  //
                                          7, 6, 6, 6,  // i=12
                                          7, 7, 6, 6,  //
                                          7, 7, 7, 6,  //
                                          7, 7, 7, 7,  //
                                          7, 7, 7, 7}));
}

TEST(T5, BidirectionalSmallTableByHand) {
  // num_buckets 8 → 4 per sign, max_distance 16, max_exact 2; keys after the query
  // (j − i > 0) add 4. n ≥ 2 → 2 + floor(ln(n/2) / ln(16/2) · 2) = 2 + floor((2/3)·log2(n/2)):
  //   n=2,3,4,5 → 2 (0, 0.39, 0.67, 0.88), n=6,7 → 3 (1.06, 1.20), 16 → 4 clamped to 3.
  // So j − i = 0 → 0; −1 → 1; −2..−5 → 2; ≤ −6 → 3; +1 → 5; +2..+5 → 6; ≥ +6 → 7.
  const poslab::TensorI b = poslab::t5_buckets(8, 8, {true, 8, 16});
  ASSERT_EQ(b.shape, (poslab::Shape{8, 8}));
  EXPECT_EQ(as_ints(b), (std::vector<int>{0, 5, 6, 6, 6, 6, 7, 7,  //
                                          1, 0, 5, 6, 6, 6, 6, 7,  //
                                          2, 1, 0, 5, 6, 6, 6, 6,  //
                                          2, 2, 1, 0, 5, 6, 6, 6,  //
                                          2, 2, 2, 1, 0, 5, 6, 6,  //
                                          2, 2, 2, 2, 1, 0, 5, 6,  //
                                          3, 2, 2, 2, 2, 1, 0, 5,  //
                                          3, 3, 2, 2, 2, 2, 1, 0}));
}

// Relative positions (key − query) and their buckets for the T5 defaults (32 buckets,
// max_distance 128), worked out by hand from HF `_relative_position_bucket`.
struct Case {
  long long relative;
  int bucket;
};

// Unidirectional: n = max(−relative, 0), max_exact = 16; n ≥ 16 →
// 16 + floor(ln(n/16) / ln 8 · 16):
//   −20: ln 1.25 / ln 8 · 16 = 1.717 → 17;  −32: 16/3 = 5.33 → 21;  −64: 32/3 = 10.67 → 26;
//   −90: 13.29 → 29;  −100: 14.10 → 30;  −127: 15.94 → 31;  −128: 16 → 32 → clamp 31;
//   −500: 26.5 → clamp 31. Every key in the future (relative > 0) is bucket 0.
const std::vector<Case> kUnidirectional = {
    {0, 0},    {-1, 1},   {-8, 8},    {-15, 15},  {-16, 16},  {-20, 17},  {-32, 21},
    {-64, 26}, {-90, 29}, {-100, 30}, {-127, 31}, {-128, 31}, {-500, 31}, {1, 0},
    {8, 0},    {16, 0},   {20, 0},    {128, 0},   {500, 0}};

// Bidirectional: 16 buckets per sign, positive relatives add 16; max_exact = 8; n ≥ 8 →
// 8 + floor(ln(n/8) / ln 16 · 8):
//   8 → 8;  15: 1.81 → 9;  16: exactly 2 (logf(2) / float(ln 16) is exactly 1/4) → 10;
//   20: 2.64 → 10;  32: exactly 4 → 12;  64: exactly 6 in float32 (and in exact math) → 14;
//   90: 6.98 → 14;  100: 7.29 → 15;  127: 7.98 → 15;  128: 8 → 16 → clamp 15;  500 → 15.
const std::vector<Case> kBidirectional = {{0, 0},     {-1, 1},    {-8, 8},    {-15, 9},  {-16, 10},
                                          {-20, 10},  {-32, 12},  {-64, 14},  {-90, 14}, {-100, 15},
                                          {-127, 15}, {-128, 15}, {-500, 15}, {1, 17},   {7, 23},
                                          {8, 24},    {15, 25},   {16, 26},   {20, 26},  {32, 28},
                                          {64, 30},   {100, 31},  {127, 31},  {128, 31}, {500, 31}};

void CheckCases(const std::vector<Case>& cases, bool bidirectional) {
  const T5BucketOptions options{bidirectional, 32, 128};
  // Query i, key 0: relative −i. Query 0, key j: relative +j.
  const poslab::TensorI past = poslab::t5_buckets(501, 1, options);
  const poslab::TensorI future = poslab::t5_buckets(1, 501, options);
  for (const Case c : cases) {
    EXPECT_EQ(poslab::formulas::t5_bucket(c.relative, bidirectional, 32, 128), c.bucket)
        << "relative " << c.relative;
    const int from_table = c.relative <= 0 ? past.data[-c.relative] : future.data[c.relative];
    EXPECT_EQ(from_table, c.bucket) << "relative " << c.relative;
  }
}

TEST(T5, UnidirectionalDefaultBucketsByHand) { CheckCases(kUnidirectional, false); }

TEST(T5, BidirectionalDefaultBucketsByHand) { CheckCases(kBidirectional, true); }

TEST(T5, Float32EdgesMatchTheReference) {
  // Where float32 and double disagree, the reference's float32 wins. num_buckets 36,
  // max_distance 32, unidirectional, n = 24: ln(24/18)/ln(32/18)·18 = 9 exactly (ln(16/9) =
  // 2 ln(4/3)); float32 gives 9.000001 → 18 + 9 = 27, a double evaluation gives
  // 8.999999999999998 → 26.
  EXPECT_EQ(poslab::formulas::t5_bucket(-24, false, 36, 32), 27);
  EXPECT_EQ(poslab::t5_buckets(25, 1, {false, 36, 32}).data[24], 27);
  // Bidirectional, 38 buckets (19 per sign, max_exact 9), max_distance 16, n = 12:
  // ln(12/9)/ln(16/9)·10 = 5 exactly; float32 5.0000005 → 9 + 5 = 14 (double: 13); +12 → 19 + 14.
  EXPECT_EQ(poslab::formulas::t5_bucket(-12, true, 38, 16), 14);
  EXPECT_EQ(poslab::formulas::t5_bucket(12, true, 38, 16), 33);
  const poslab::TensorI b = poslab::t5_buckets(13, 13, {true, 38, 16});
  EXPECT_EQ(b.data[12 * 13 + 0], 14);
  EXPECT_EQ(b.data[0 * 13 + 12], 33);
}

// Query i sits at i + offset (mask.hpp): the bucket of key j is that of j − (i + offset).
TEST(T5, BucketsPlaceQueryIAtIPlusOffset) {
  for (const T5BucketOptions o : {T5BucketOptions{false, 32, 128}, T5BucketOptions{true, 16, 40}}) {
    for (long long offset : {-50LL, 3LL, 700LL}) {
      const long long Lq = 20, Lk = 90;
      const poslab::TensorI b = poslab::t5_buckets(Lq, Lk, o, offset);
      for (long long i = 0; i < Lq; ++i)
        for (long long j = 0; j < Lk; ++j)
          ASSERT_EQ(b.data[i * Lk + j], ref::t5_bucket_hf(j - (i + offset), o.bidirectional,
                                                          o.num_buckets, o.max_distance))
              << i << "," << j << " offset " << offset;
      const poslab::TensorF bias = poslab::t5_bias(3, Lq, Lk, o, 7, offset);
      const poslab::TensorF table = poslab::learned_table(o.num_buckets, 3, 7, 1.0);
      for (std::size_t n = 0; n < b.size(); ++n)
        ASSERT_EQ(bias.data[2 * b.size() + n], table.data[std::size_t(b.data[n]) * 3 + 2]);
    }
  }
  EXPECT_THROW(poslab::t5_buckets(2, 2, {}, -(1LL << 30) - 1), Error);
}

TEST(T5, TablesMatchFloat32ReferenceAndStayInRange) {
  for (const T5BucketOptions o : {T5BucketOptions{false, 32, 128}, T5BucketOptions{true, 32, 128},
                                  T5BucketOptions{true, 64, 256}, T5BucketOptions{false, 16, 40},
                                  T5BucketOptions{true, 10, 20}}) {
    const long long Lq = 300, Lk = 260;
    const poslab::TensorI b = poslab::t5_buckets(Lq, Lk, o);
    ASSERT_EQ(b.shape, (poslab::Shape{300, 260}));
    std::set<int> seen;
    for (long long i = 0; i < Lq; ++i)
      for (long long j = 0; j < Lk; ++j) {
        const int got = b.data[i * Lk + j];
        ASSERT_EQ(got, ref::t5_bucket_hf(j - i, o.bidirectional, o.num_buckets, o.max_distance))
            << i << "," << j << " buckets " << o.num_buckets;
        ASSERT_GE(got, 0);
        ASSERT_LT(got, o.num_buckets);
        seen.insert(got);
      }
    // Every bucket is used at this size, except num_buckets/2 when bidirectional: a positive
    // relative position is at least 1, so the upper half never sees its exact bucket 0.
    EXPECT_EQ(seen.size(), std::size_t(o.num_buckets - (o.bidirectional ? 1 : 0)));
  }
}

TEST(T5, ExtremeOptionsKeepBucketsInRange) {
  // 2^20 buckets with max_distance just above max_exact = 2^19: at n = 2^20 the log part is
  // ln 2 / ln(1 + 2^-19) · 2^19 ≈ 1.9e11, beyond int32. The reference converts with
  // .to(torch.long) (int64) and clamps to num_buckets − 1; an int32 conversion would be
  // undefined and in practice negative, and a negative bucket indexes outside the T5 table.
  const T5BucketOptions o{false, 1 << 20, (1 << 19) + 1};
  EXPECT_EQ(poslab::formulas::t5_bucket(-(1 << 20), false, 1 << 20, (1 << 19) + 1), (1 << 20) - 1);
  const poslab::TensorI b = poslab::t5_buckets((1 << 20) + 1, 1, o);
  int worst = 0;
  for (int v : b.data) worst = std::min(worst, v);
  EXPECT_EQ(worst, 0) << "negative bucket";
  EXPECT_EQ(b.data[1 << 20], (1 << 20) - 1);
}

TEST(T5, LargeMaxDistanceIsNotTruncated) {
  // max_distance = 2^32 + 20 is accepted (or rejected) as a whole, never read as 20:
  // relative −100 → 16 + floor(ln(100/16) / ln((2^32 + 20)/16) · 16) = 16 + floor(1.51) = 17
  // (were it 20, the log part would saturate at 31).
  const T5BucketOptions o{false, 32, (1LL << 32) + 20};
  try {
    const poslab::TensorI b = poslab::t5_buckets(101, 1, o);
    EXPECT_EQ(b.data[100], 17);
    EXPECT_EQ(b.data[100], ref::t5_bucket_hf(-100, false, 32, (1LL << 32) + 20));
  } catch (const Error&) {
    SUCCEED() << "rejected: also fine";
  }
}

TEST(T5, DefaultOptionsAreUnidirectional32By128) {
  const T5BucketOptions o;
  EXPECT_FALSE(o.bidirectional);
  EXPECT_EQ(o.num_buckets, 32);
  EXPECT_EQ(o.max_distance, 128);
  EXPECT_EQ(poslab::t5_buckets(200, 1).data[100], 30);  // relative −100
}

TEST(T5, BiasIsAPerHeadTableIndexedByBucket) {
  const int H = 3, Lq = 24, Lk = 24;
  const T5BucketOptions o{true, 16, 32};
  const poslab::TensorF bias = poslab::t5_bias(H, Lq, Lk, o, 7);
  const poslab::TensorI b = poslab::t5_buckets(Lq, Lk, o);
  ASSERT_EQ(bias.shape, (poslab::Shape{3, 24, 24}));
  // value[h, bucket] is a function of (h, bucket): the same bucket always gives the same bias.
  for (int h = 0; h < H; ++h) {
    std::vector<float> value(16, NAN);
    for (int i = 0; i < Lq; ++i)
      for (int j = 0; j < Lk; ++j) {
        const int k = b.data[i * Lk + j];
        const float v = bias.data[(h * Lq + i) * Lk + j];
        if (std::isnan(value[k])) value[k] = v;
        EXPECT_EQ(v, value[k]) << "h=" << h << " bucket " << k;
      }
    // …and different buckets different values (a continuous draw never repeats). Bucket 8
    // (relative 0 of the upper half) never occurs, so 15 values.
    std::set<float> distinct;
    for (float v : value)
      if (!std::isnan(v)) distinct.insert(v);
    EXPECT_EQ(distinct.size(), std::size_t(15));
  }
  EXPECT_EQ(bias.data, poslab::t5_bias(H, Lq, Lk, o, 7).data);
  EXPECT_NE(bias.data, poslab::t5_bias(H, Lq, Lk, o, 8).data);
  EXPECT_TRUE(ref::AllFinite(bias));
}

TEST(T5, RejectsBadOptions) {
  // Too few buckets leave max_exact = 0 (a division by zero in the reference).
  EXPECT_THROW(poslab::t5_buckets(4, 4, {false, 1, 128}), Error);
  EXPECT_THROW(poslab::t5_buckets(4, 4, {false, 0, 128}), Error);
  EXPECT_THROW(poslab::t5_buckets(4, 4, {false, -32, 128}), Error);
  EXPECT_THROW(poslab::t5_buckets(4, 4, {true, 2, 128}), Error);
  EXPECT_THROW(poslab::t5_buckets(4, 4, {true, 3, 128}), Error);
  // max_distance must exceed max_exact (else log(max_distance/max_exact) ≤ 0).
  EXPECT_THROW(poslab::t5_buckets(4, 4, {false, 32, 16}), Error);
  EXPECT_THROW(poslab::t5_buckets(4, 4, {false, 32, 8}), Error);
  EXPECT_THROW(poslab::t5_buckets(4, 4, {true, 32, 8}), Error);
  EXPECT_THROW(poslab::t5_buckets(4, 4, {true, 32, 0}), Error);
  EXPECT_THROW(poslab::t5_buckets(4, 4, {true, 32, -128}), Error);
  EXPECT_THROW(poslab::t5_bias(2, 4, 4, {false, 32, 16}), Error);
}

TEST(T5, RejectsBadSizes) {
  EXPECT_THROW(poslab::t5_buckets(-1, 4), Error);
  EXPECT_THROW(poslab::t5_buckets(4, -1), Error);
  EXPECT_THROW(poslab::t5_buckets(1'000'000'000LL, 1'000'000LL), Error);
  EXPECT_THROW(poslab::t5_bias(0, 4, 4), Error);
  EXPECT_THROW(poslab::t5_bias(-1, 4, 4), Error);
  EXPECT_THROW(poslab::t5_bias(64, 100000, 100000), Error);
}

}  // namespace

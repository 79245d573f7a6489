// The size checks that run before any allocation, and the tensor container.
#include "poslab/tensor.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace {

using poslab::Error;
using poslab::kMaxElements;
using poslab::Shape;

TEST(Tensor, CheckedNumelMultipliesDims) {
  EXPECT_EQ(poslab::checked_numel({8, 512, 64}, "t"), 8u * 512u * 64u);
  EXPECT_EQ(poslab::checked_numel({7}, "t"), 7u);
  EXPECT_EQ(poslab::checked_numel({}, "t"), 1u);
  EXPECT_EQ(poslab::checked_numel({0, 5}, "t"), 0u);
}

TEST(Tensor, CheckedNumelAcceptsExactlyTheCap) {
  EXPECT_EQ(poslab::checked_numel({kMaxElements}, "t"), kMaxElements);
  EXPECT_EQ(poslab::checked_numel({kMaxElements / 4, 4}, "t"), kMaxElements);
}

TEST(Tensor, CheckedNumelRejectsAboveTheCap) {
  EXPECT_THROW(poslab::checked_numel({kMaxElements + 1}, "t"), Error);
  EXPECT_THROW(poslab::checked_numel({kMaxElements / 2 + 1, 2}, "t"), Error);
  EXPECT_THROW(poslab::checked_numel({1u << 20, 1u << 20}, "t"), Error);
}

TEST(Tensor, CheckedNumelRejectsOverflow) {
  const std::size_t max = std::numeric_limits<std::size_t>::max();
  EXPECT_THROW(poslab::checked_numel({max, 2}, "t"), Error);
  EXPECT_THROW(poslab::checked_numel({std::size_t{1} << 32, std::size_t{1} << 32}, "t"), Error);
  // Overflow that wraps to a small number must not slip through: 2^33 · 2^31 = 2^64 ≡ 0.
  EXPECT_THROW(poslab::checked_numel({std::size_t{1} << 33, std::size_t{1} << 31, 1}, "t"), Error);
  EXPECT_THROW(poslab::checked_numel({max, max, max}, "t"), Error);
}

TEST(Tensor, CheckedNumelMessageNamesTheTensor) {
  try {
    poslab::checked_numel({1u << 20, 1u << 20}, "attention weights (H,Lq,Lk)");
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("attention weights"), std::string::npos) << e.what();
  }
}

TEST(Tensor, ConstructorChecksSizeBeforeAllocating) {
  // Throws poslab::Error, not std::bad_alloc or std::length_error.
  EXPECT_THROW(poslab::TensorF(Shape{1u << 20, 1u << 20}), Error);
  EXPECT_THROW(poslab::TensorF(Shape{std::numeric_limits<std::size_t>::max(), 3}), Error);
}

TEST(Tensor, ConstructorZeroFillsAndKeepsShape) {
  poslab::TensorF t(Shape{2, 3, 4});
  EXPECT_EQ(t.ndim(), 3u);
  EXPECT_EQ(t.size(), 24u);
  EXPECT_EQ(t.dim(1), 3u);
  for (float v : t.data) EXPECT_EQ(v, 0.0f);
}

TEST(Tensor, ConstructorRejectsDataOfTheWrongSize) {
  EXPECT_THROW(poslab::TensorF(Shape{2, 3}, std::vector<float>(5)), Error);
  EXPECT_THROW(poslab::TensorI(Shape{2, 3}, std::vector<std::int32_t>(7)), Error);
  EXPECT_NO_THROW(poslab::TensorF(Shape{2, 3}, std::vector<float>(6)));
}

TEST(Tensor, ShapeStringLooksLikeNumpy) {
  EXPECT_EQ(poslab::shape_string({8, 512, 64}), "(8, 512, 64)");
  EXPECT_EQ(poslab::shape_string({3}), "(3,)");
  EXPECT_EQ(poslab::shape_string({}), "()");
}

TEST(Tensor, PositiveSizeAcceptsPositive) {
  EXPECT_EQ(poslab::positive_size(1, "n"), 1u);
  EXPECT_EQ(poslab::positive_size(512, "n"), 512u);
  EXPECT_EQ(poslab::positive_size(0, "n", /*allow_zero=*/true), 0u);
}

TEST(Tensor, PositiveSizeRejectsNegativeAndZero) {
  EXPECT_THROW(poslab::positive_size(0, "n"), Error);
  EXPECT_THROW(poslab::positive_size(-1, "n"), Error);
  EXPECT_THROW(poslab::positive_size(-1, "n", /*allow_zero=*/true), Error);
  EXPECT_THROW(poslab::positive_size(std::numeric_limits<long long>::min(), "n"), Error);
}

TEST(Tensor, PositiveSizeRejectsAbsurdValues) {
  EXPECT_THROW(poslab::positive_size(std::numeric_limits<long long>::max(), "n"), Error);
  EXPECT_THROW(poslab::positive_size(1'000'000'000'000LL, "n"), Error);
}

TEST(Tensor, PositiveSizeMessageSaysWhatAndValue) {
  try {
    poslab::positive_size(-3, "heads");
    FAIL() << "no exception";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("heads"), std::string::npos) << m;
    EXPECT_NE(m.find("-3"), std::string::npos) << m;
  }
}

}  // namespace

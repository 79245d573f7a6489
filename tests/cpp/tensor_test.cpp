// The size checks that run before any allocation, and the tensor container.
#include "poslab/base/tensor.hpp"

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

// Message of the Error `f` throws, or "" if it throws none.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Tensor, EveryAxisIsBoundedAlsoNextToAZeroAxis) {
  // The product is 0, but a loop over the huge axis would still run for days.
  EXPECT_EQ(error_of([] {
              poslab::checked_numel({0, std::size_t{1} << 50, 2}, "x");
            }),
            "x (0, 1125899906842624, 2): axis 1 has 1125899906842624 entries; the limit is " +
                std::to_string(poslab::kMaxElements));
  EXPECT_NE(error_of([] { poslab::checked_numel({poslab::kMaxElements + 1, 0}, "x"); }), "");
  EXPECT_EQ(poslab::checked_numel({poslab::kMaxElements, 0}, "x"), 0u);
  EXPECT_EQ(poslab::checked_numel({}, "x"), 1u);
}

TEST(Tensor, IndexStringIsTheMultiIndexOfAFlatElement) {
  EXPECT_EQ(poslab::index_string({2, 3, 4}, 0), "[0, 0, 0]");
  EXPECT_EQ(poslab::index_string({2, 3, 4}, 23), "[1, 2, 3]");
  EXPECT_EQ(poslab::index_string({5}, 4), "[4]");
  EXPECT_EQ(poslab::index_string({}, 0), "[]");
}

TEST(Tensor, RequireFiniteNamesTheFirstBadElementAndItsValue) {
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const poslab::TensorF t({2, 2}, std::vector<float>{1, -kInf, kNaN, kInf});
  EXPECT_EQ(error_of([&] { poslab::require_finite(t, "x"); }),
            "x[0, 1] is -inf: inputs must be finite");
  EXPECT_EQ(error_of([&] {
              poslab::require_finite(t, "bias", poslab::NonFinite::kAllowNegativeInfinity);
            }),
            "bias[1, 0] is NaN: inputs must be finite (-inf is allowed: it hides a key)");
  const poslab::TensorF plus({3}, std::vector<float>{-kInf, 2, kInf});
  EXPECT_EQ(error_of([&] {
              poslab::require_finite(plus, "m", poslab::NonFinite::kAllowNegativeInfinity);
            }),
            "m[2] is +inf: inputs must be finite (-inf is allowed: it hides a key)");
  const poslab::TensorF ok({2}, std::vector<float>{-3.4e38f, 3.4e38f});
  EXPECT_EQ(error_of([&] { poslab::require_finite(ok, "x"); }), "");
}

}  // namespace

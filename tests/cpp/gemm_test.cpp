// poslab::fast::gemm against a naive triple loop in double, for the four transpose variants,
// sizes that leave partial tiles and partial cache blocks on every axis, accumulation into C
// and strided operands. Tolerance (gemm.hpp): |c − exact| <= K·2^-24·Σ_k |a_ik|·|b_kj| plus
// one rounding of the stored C, i.e. Higham's γ_K for a float32 accumulation — the bound is
// per element, so the test also fails on a wrong element that happens to be small.
#include "poslab/fast/gemm.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "poslab/base/random.hpp"

namespace {

using poslab::fast::Op;

constexpr double kUnit = 0x1p-24;  // float32 unit roundoff

std::vector<float> random_values(std::size_t n, std::uint64_t seed) {
  poslab::Rng rng(seed);
  std::vector<float> x(n);
  for (float& v : x) v = static_cast<float>(rng.normal());
  return x;
}

struct Operand {
  std::vector<float> data;
  std::size_t ld;
  Op op;
  // Element (i, j) of op(X).
  double operator()(std::size_t i, std::size_t j) const {
    return op == Op::kNone ? data[i * ld + j] : data[j * ld + i];
  }
};

// op(X) of `rows` × `cols`, stored with `pad` extra columns per row (ld > width).
Operand make_operand(std::size_t rows, std::size_t cols, Op op, std::size_t pad,
                     std::uint64_t seed) {
  const std::size_t stored_rows = op == Op::kNone ? rows : cols;
  const std::size_t width = (op == Op::kNone ? cols : rows) + pad;
  return {random_values(stored_rows * width, seed), width, op};
}

struct Case {
  std::size_t M, N, K;
  Op op_a, op_b;
  bool accumulate;
  std::size_t pad;  // extra columns in every stored operand and in C
};

std::string describe(const Case& c) {
  return "M=" + std::to_string(c.M) + " N=" + std::to_string(c.N) + " K=" + std::to_string(c.K) +
         (c.op_a == Op::kTranspose ? " Aᵀ" : " A") + (c.op_b == Op::kTranspose ? "·Bᵀ" : "·B") +
         (c.accumulate ? " +C" : "") + " pad=" + std::to_string(c.pad);
}

void ExpectMatchesReference(const Case& c) {
  SCOPED_TRACE(describe(c));
  const Operand a = make_operand(c.M, c.K, c.op_a, c.pad, 1);
  const Operand b = make_operand(c.K, c.N, c.op_b, c.pad, 2);
  const std::size_t ldc = c.N + c.pad;
  std::vector<float> out = random_values(c.M * ldc, 3);
  const std::vector<float> before = out;
  poslab::fast::gemm(c.M, c.N, c.K, a.data.data(), a.ld, c.op_a, b.data.data(), b.ld, c.op_b,
                     out.data(), ldc, c.accumulate);
  int failures = 0;
  for (std::size_t i = 0; i < c.M; ++i) {
    for (std::size_t j = 0; j < ldc; ++j) {
      const double old = before[i * ldc + j];
      if (j >= c.N) {  // padding columns of C are never written
        ASSERT_EQ(out[i * ldc + j], before[i * ldc + j]) << "C[" << i << "," << j << "]";
        continue;
      }
      double exact = c.accumulate ? old : 0.0, magnitude = c.accumulate ? std::fabs(old) : 0.0;
      for (std::size_t p = 0; p < c.K; ++p) {
        exact += a(i, p) * b(p, j);
        magnitude += std::fabs(a(i, p) * b(p, j));
      }
      const double bound = (double(c.K) + 1.0) * kUnit * magnitude + kUnit * std::fabs(exact);
      if (std::fabs(out[i * ldc + j] - exact) > bound && ++failures <= 5) {
        ADD_FAILURE() << "C[" << i << "," << j << "] = " << out[i * ldc + j] << ", exact " << exact
                      << ", bound " << bound;
      }
    }
  }
  EXPECT_EQ(failures, 0);
}

TEST(Gemm, MatchesDoubleReferenceForEveryTransposeVariant) {
  for (const Op op_a : {Op::kNone, Op::kTranspose}) {
    for (const Op op_b : {Op::kNone, Op::kTranspose}) {
      // Tiny, single tile, edges on every axis, more than one kc block of K (256) and one mc
      // block of M; up to 16 rows a row-major B is read in place (with several K blocks too);
      // up to 8 rows A·Bᵀ takes K in chunks of 128 (8 × 31 × 1030: two row groups, a K tail).
      for (const auto& [M, N, K] : std::vector<std::array<std::size_t, 3>>{{1, 1, 1},
                                                                           {4, 12, 8},
                                                                           {6, 16, 3},
                                                                           {7, 13, 5},
                                                                           {3, 50, 600},
                                                                           {8, 31, 1030},
                                                                           {16, 33, 300},
                                                                           {33, 70, 257},
                                                                           {150, 41, 600}}) {
        ExpectMatchesReference({M, N, K, op_a, op_b, false, 0});
      }
    }
  }
}

TEST(Gemm, AccumulatesIntoCAndRespectsStrides) {
  for (const Op op_a : {Op::kNone, Op::kTranspose}) {
    for (const Op op_b : {Op::kNone, Op::kTranspose}) {
      ExpectMatchesReference({29, 37, 300, op_a, op_b, true, 3});
      ExpectMatchesReference({5, 9, 2, op_a, op_b, false, 7});
    }
  }
}

TEST(Gemm, WideNSpansSeveralColumnBlocks) {
  // N past the 2048-column block, as in the logits product x · wteᵀ.
  ExpectMatchesReference({3, 2100, 40, Op::kNone, Op::kTranspose, false, 0});
  ExpectMatchesReference({9, 4099, 17, Op::kNone, Op::kNone, true, 0});
}

TEST(Gemm, EmptySizes) {
  std::vector<float> c = {1.0f, 2.0f, 3.0f, 4.0f};
  const float a = 0.0f, b = 0.0f;
  // K = 0: the empty sum, zeros unless accumulating.
  poslab::fast::gemm(2, 2, 0, &a, 1, Op::kNone, &b, 2, Op::kNone, c.data(), 2, true);
  EXPECT_EQ(c, (std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f}));
  poslab::fast::gemm(2, 2, 0, &a, 1, Op::kNone, &b, 2, Op::kNone, c.data(), 2, false);
  EXPECT_EQ(c, (std::vector<float>{0.0f, 0.0f, 0.0f, 0.0f}));
  // M or N = 0 touches nothing.
  poslab::fast::gemm(0, 2, 3, &a, 3, Op::kNone, &b, 2, Op::kNone, nullptr, 2);
  poslab::fast::gemm(2, 0, 3, &a, 3, Op::kNone, &b, 0, Op::kNone, nullptr, 0);
}

TEST(Matmul, TensorFormChecksShapes) {
  const poslab::TensorF a({2, 3}, random_values(6, 4)), b({4, 3}, random_values(12, 5));
  const poslab::TensorF c = poslab::fast::matmul(a, b, Op::kNone, Op::kTranspose);
  ASSERT_EQ(c.shape, (poslab::Shape{2, 4}));
  for (std::size_t i = 0; i < 2; ++i) {
    for (std::size_t j = 0; j < 4; ++j) {
      double exact = 0.0;
      for (std::size_t p = 0; p < 3; ++p) exact += double(a.data[i * 3 + p]) * b.data[j * 3 + p];
      EXPECT_NEAR(c.data[i * 4 + j], exact, 1e-5);
    }
  }
  try {
    poslab::fast::matmul(a, b);
    FAIL() << "inner sizes 3 and 4 were accepted";
  } catch (const poslab::Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "matmul: inner sizes differ (3 vs 4) for a (2, 3) and b (4, 3)");
    EXPECT_EQ(e.field(), "b");
  }
  EXPECT_THROW(poslab::fast::matmul(poslab::TensorF({6}, random_values(6, 6)), b), poslab::Error);
}

}  // namespace

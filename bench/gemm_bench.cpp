// poslab::fast::gemm on the shapes of GPT-2 small's forward at T = 128 (x · W for c_attn,
// c_proj, c_fc, mlp.c_proj, and x · wteᵀ for the logits) and of the trainer's backward
// (Aᵀ·B for a weight gradient), against Eigen's float product on the same operands.
// FLOP = 2·M·N·K per call.
#include <benchmark/benchmark.h>

#include <Eigen/Dense>
#include <cstdint>

#include "naive.hpp"
#include "poslab/fast/gemm.hpp"

namespace {

using poslab::fast::Op;
using MatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct Shape {
  std::int64_t M, N, K;
  Op op_a, op_b;
};

Shape shape_of(const benchmark::State& state) {
  return {state.range(0), state.range(1), state.range(2), Op(state.range(3)), Op(state.range(4))};
}

void set_flops(benchmark::State& state, const Shape& s) {
  state.counters["FLOP/s"] = benchmark::Counter(2.0 * double(s.M) * double(s.N) * double(s.K),
                                                benchmark::Counter::kIsIterationInvariantRate);
}

void BM_PoslabGemm(benchmark::State& state) {
  const Shape s = shape_of(state);
  const auto a = poslab::bench::random_normal(std::size_t(s.M * s.K), 1);
  const auto b = poslab::bench::random_normal(std::size_t(s.K * s.N), 2);
  std::vector<float> c(std::size_t(s.M * s.N));
  const std::size_t lda = s.op_a == Op::kNone ? s.K : s.M, ldb = s.op_b == Op::kNone ? s.N : s.K;
  for (auto _ : state) {
    poslab::fast::gemm(s.M, s.N, s.K, a.data(), lda, s.op_a, b.data(), ldb, s.op_b, c.data(), s.N);
    benchmark::DoNotOptimize(c.data());
  }
  set_flops(state, s);
}

void BM_EigenGemm(benchmark::State& state) {
  const Shape s = shape_of(state);
  const auto a = poslab::bench::random_normal(std::size_t(s.M * s.K), 1);
  const auto b = poslab::bench::random_normal(std::size_t(s.K * s.N), 2);
  MatrixF c(s.M, s.N);
  const Eigen::Map<const MatrixF> A(a.data(), s.op_a == Op::kNone ? s.M : s.K,
                                    s.op_a == Op::kNone ? s.K : s.M);
  const Eigen::Map<const MatrixF> B(b.data(), s.op_b == Op::kNone ? s.K : s.N,
                                    s.op_b == Op::kNone ? s.N : s.K);
  for (auto _ : state) {
    if (s.op_a == Op::kNone && s.op_b == Op::kNone) c.noalias() = A * B;
    if (s.op_a == Op::kNone && s.op_b == Op::kTranspose) c.noalias() = A * B.transpose();
    if (s.op_a == Op::kTranspose && s.op_b == Op::kNone) c.noalias() = A.transpose() * B;
    if (s.op_a == Op::kTranspose && s.op_b == Op::kTranspose) {
      c.noalias() = A.transpose() * B.transpose();
    }
    benchmark::DoNotOptimize(c.data());
  }
  set_flops(state, s);
}

void shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"M", "N", "K", "opA", "opB"});
  const auto none = std::int64_t(Op::kNone), t = std::int64_t(Op::kTranspose);
  b->Args({128, 2304, 768, none, none});  // c_attn
  b->Args({128, 768, 768, none, none});   // attn.c_proj
  b->Args({128, 3072, 768, none, none});  // mlp.c_fc
  b->Args({128, 768, 3072, none, none});  // mlp.c_proj
  b->Args({128, 50257, 768, none, t});    // logits x · wteᵀ
  b->Args({8, 3072, 768, none, none});    // a short prompt
  b->Args({768, 3072, 128, t, none});     // weight gradient xᵀ · dy
  b->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_PoslabGemm)->Apply(shapes);
BENCHMARK(BM_EigenGemm)->Apply(shapes);

}  // namespace

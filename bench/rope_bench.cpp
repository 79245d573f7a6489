// RoPE apply (neox pairing, positions 0..L−1): poslab::rope_apply (core) and its float32 SIMD
// fast path (poslab::fast) against the naive loop
// (pow for θ_i, sin and cos per pair, rotate). x is (H, L, d) with H = 8, d = 64, or a 2-D
// (L, D) input, shown as H:1. Items are elements of x; bytes are x read plus the result written.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "naive.hpp"
#include "poslab/fast/fast.hpp"
#include "poslab/positions/rope.hpp"

namespace {

poslab::TensorF make_input(std::int64_t H, std::int64_t L, std::int64_t D) {
  const std::size_t n = static_cast<std::size_t>(H * L * D);
  poslab::Shape shape = H == 1 ? poslab::Shape{std::size_t(L), std::size_t(D)}
                               : poslab::Shape{std::size_t(H), std::size_t(L), std::size_t(D)};
  return poslab::TensorF(std::move(shape), poslab::bench::random_normal(n, /*seed=*/7));
}

void set_throughput(benchmark::State& state, std::int64_t elements) {
  state.SetItemsProcessed(state.iterations() * elements);
  state.SetBytesProcessed(state.iterations() * elements * 2 * std::int64_t(sizeof(float)));
}

using RopeFn = poslab::TensorF (*)(const poslab::TensorF&, const poslab::RopeOptions&, long long,
                                   poslab::RotationSide);

template <RopeFn rope>
void rope_timed(benchmark::State& state) {
  const std::int64_t H = state.range(0), L = state.range(1), D = state.range(2);
  const poslab::TensorF x = make_input(H, L, D);
  const poslab::RopeOptions options;  // base 10000, neox, no scaling
  // Validate what is timed first: within 1e-5 (+1e-5 relative) of the double baseline.
  const poslab::TensorF check = rope(x, options, 0, poslab::RotationSide::kQuery);
  const std::vector<float> want = poslab::naive::rope_neox(x.data, H, L, D);
  if (poslab::bench::tolerance_ratio(check.data, want, 1e-5, 1e-5) > 1.0) {
    state.SkipWithError("RoPE disagrees with the naive baseline");
    return;
  }
  for (auto _ : state) {
    poslab::TensorF y = rope(x, options, 0, poslab::RotationSide::kQuery);
    benchmark::DoNotOptimize(y.data.data());
    benchmark::ClobberMemory();
  }
  set_throughput(state, H * L * D);
}

void rope_naive(benchmark::State& state) {
  const std::int64_t H = state.range(0), L = state.range(1), D = state.range(2);
  const poslab::TensorF x = make_input(H, L, D);
  for (auto _ : state) {
    std::vector<float> y = poslab::naive::rope_neox(x.data, H, L, D);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  set_throughput(state, H * L * D);
}

void register_pair(std::int64_t H, std::int64_t L, std::int64_t D) {
  benchmark::RegisterBenchmark("rope/core", rope_timed<poslab::rope_apply>)
      ->Args({H, L, D})
      ->ArgNames({"H", "L", "D"})
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("rope/fast", rope_timed<poslab::fast::rope_apply>)
      ->Args({H, L, D})
      ->ArgNames({"H", "L", "D"})
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("rope/naive", rope_naive)
      ->Args({H, L, D})
      ->ArgNames({"H", "L", "D"})
      ->Unit(benchmark::kMillisecond);
}

const bool registered = [] {
  for (std::int64_t L : {512, 4096}) register_pair(8, L, 64);  // (H, L, d): per-head q or k
  for (std::int64_t L : {512, 4096}) {
    for (std::int64_t D : {64, 256, 1024}) register_pair(1, L, D);  // (L, D)
  }
  return true;
}();

}  // namespace

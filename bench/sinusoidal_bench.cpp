// Sinusoidal table (L, D): poslab::sinusoidal_table (core, double angles) and its float32
// SIMD fast path (poslab::fast) against the naive double loop (pow, sin and cos per pair). Items
// are table elements; bytes are those written.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "naive.hpp"
#include "poslab/fast/fast.hpp"
#include "poslab/positions/sinusoidal.hpp"

namespace {

void set_throughput(benchmark::State& state, std::int64_t elements) {
  state.SetItemsProcessed(state.iterations() * elements);
  state.SetBytesProcessed(state.iterations() * elements * std::int64_t(sizeof(float)));
}

using TableFn = poslab::TensorF (*)(long long, long long, double, poslab::SinusoidalLayout,
                                    long long);

template <TableFn table>
void sinusoidal_timed(benchmark::State& state) {
  const std::int64_t L = state.range(0), D = state.range(1);
  // Validate what is timed first: within 1e-5 of the double-precision baseline.
  const poslab::TensorF check = table(L, D, 1e4, poslab::SinusoidalLayout::kInterleaved, 0);
  const std::vector<float> want = poslab::naive::sinusoidal_table(L, D);
  if (poslab::bench::tolerance_ratio(check.data, want, 1e-5, 1e-5) > 1.0) {
    state.SkipWithError("sinusoidal table disagrees with the naive baseline");
    return;
  }
  for (auto _ : state) {
    poslab::TensorF pe = table(L, D, 1e4, poslab::SinusoidalLayout::kInterleaved, 0);
    benchmark::DoNotOptimize(pe.data.data());
    benchmark::ClobberMemory();
  }
  set_throughput(state, L * D);
}

void sinusoidal_naive(benchmark::State& state) {
  const std::int64_t L = state.range(0), D = state.range(1);
  for (auto _ : state) {
    std::vector<float> pe = poslab::naive::sinusoidal_table(L, D);
    benchmark::DoNotOptimize(pe.data());
    benchmark::ClobberMemory();
  }
  set_throughput(state, L * D);
}

// Core and naive side by side for each size, so the table reads as pairs.
const bool registered = [] {
  for (std::int64_t L : {512, 4096}) {
    for (std::int64_t D : {64, 256, 1024}) {
      benchmark::RegisterBenchmark("sinusoidal/core", sinusoidal_timed<poslab::sinusoidal_table>)
          ->Args({L, D})
          ->ArgNames({"L", "D"})
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark("sinusoidal/fast",
                                   sinusoidal_timed<poslab::fast::sinusoidal_table>)
          ->Args({L, D})
          ->ArgNames({"L", "D"})
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark("sinusoidal/naive", sinusoidal_naive)
          ->Args({L, D})
          ->ArgNames({"L", "D"})
          ->Unit(benchmark::kMillisecond);
    }
  }
  return true;
}();

}  // namespace

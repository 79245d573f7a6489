// Attention softmax(Q Kᵀ/√d + mask) V, H = 8 heads, d = 64, Lq = Lk = L, mask none or causal:
// poslab::attention (core, double accumulation) and its float32 SIMD fast path
// (poslab::fast), without and with the (H, L, L) weights returned, against the naive
// per-row loop in double. FLOP rates count QKᵀ and PV at 2 flops per multiply-add
// (softmax's exp and divisions are not counted):
//   dense_FLOP  = 4·H·L·L·d per call, whatever the mask (comparable across rows);
//   useful_FLOP = 4·H·d·L(L+1)/2 under the causal mask (only keys j <= i), = dense otherwise.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "naive.hpp"
#include "poslab/fast/fast.hpp"
#include "poslab/layers/attention.hpp"

namespace {

constexpr std::int64_t kHeads = 8;
constexpr std::int64_t kHeadDim = 64;

struct Inputs {
  poslab::TensorF q, k, v;  // (H, L, d) each
};

Inputs make_inputs(std::int64_t L) {
  const std::size_t n = static_cast<std::size_t>(kHeads * L * kHeadDim);
  const poslab::Shape shape{std::size_t(kHeads), std::size_t(L), std::size_t(kHeadDim)};
  return {poslab::TensorF(shape, poslab::bench::random_normal(n, /*seed=*/1)),
          poslab::TensorF(shape, poslab::bench::random_normal(n, /*seed=*/2)),
          poslab::TensorF(shape, poslab::bench::random_normal(n, /*seed=*/3))};
}

std::vector<float> run_naive(const Inputs& in, std::int64_t L, bool causal) {
  return poslab::naive::attention(in.q.data, in.k.data, in.v.data, kHeads, L, L, kHeadDim, causal);
}

// The naive output for (L, causal), kept once computed: the naive benchmark (registered
// first) fills it, so validating the core does not cost a second naive run (7 s at 4096).
std::map<std::pair<std::int64_t, bool>, std::vector<float>>& reference_cache() {
  static std::map<std::pair<std::int64_t, bool>, std::vector<float>> cache;
  return cache;
}

const std::vector<float>& reference(const Inputs& in, std::int64_t L, bool causal) {
  auto& cache = reference_cache();
  auto it = cache.find({L, causal});
  if (it == cache.end())
    it = cache.emplace(std::make_pair(L, causal), run_naive(in, L, causal)).first;
  return it->second;
}

void set_flops(benchmark::State& state, std::int64_t L, bool causal) {
  const double dense = 4.0 * kHeads * double(L) * double(L) * kHeadDim;
  const double useful = causal ? 4.0 * kHeads * kHeadDim * double(L) * double(L + 1) / 2.0 : dense;
  // Printed per second with SI prefixes: "12.3G/s" is 12.3 GFLOP/s.
  state.counters["dense_FLOP"] =
      benchmark::Counter(dense, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["useful_FLOP"] =
      benchmark::Counter(useful, benchmark::Counter::kIsIterationInvariantRate);
}

// range(0) = L, range(1) = causal (0/1), range(2) = return_weights (0/1).
using AttentionFn = poslab::AttentionResult (*)(const poslab::TensorF&, const poslab::TensorF&,
                                                const poslab::TensorF&,
                                                const poslab::AttentionOptions&);

template <AttentionFn attend>
void attention_timed(benchmark::State& state) {
  const std::int64_t L = state.range(0);
  const bool causal = state.range(1) != 0;
  const Inputs in = make_inputs(L);
  poslab::AttentionOptions options;
  options.mask.kind = causal ? poslab::MaskKind::kCausal : poslab::MaskKind::kNone;
  options.return_weights = state.range(2) != 0;
  // Validate what is timed first, against the double-precision baseline.
  const poslab::AttentionResult check = attend(in.q, in.k, in.v, options);
  if (poslab::bench::tolerance_ratio(check.output.data, reference(in, L, causal), 1e-5, 1e-4) >
      1.0) {
    state.SkipWithError("attention disagrees with the naive baseline");
    return;
  }
  for (auto _ : state) {
    poslab::AttentionResult result = attend(in.q, in.k, in.v, options);
    benchmark::DoNotOptimize(result.output.data.data());
    benchmark::DoNotOptimize(result.weights.data.data());
    benchmark::ClobberMemory();
  }
  set_flops(state, L, causal);
}

void attention_naive(benchmark::State& state) {
  const std::int64_t L = state.range(0);
  const bool causal = state.range(1) != 0;
  const Inputs in = make_inputs(L);
  std::vector<float> out;
  for (auto _ : state) {
    out = run_naive(in, L, causal);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  reference_cache()[{L, causal}] = std::move(out);
  set_flops(state, L, causal);
}

const bool registered = [] {
  for (std::int64_t L : {512, 2048, 4096}) {
    for (std::int64_t causal : {0, 1}) {
      // From L = 2048 one iteration outlasts the minimum time (0.5 s), so it runs once.
      benchmark::RegisterBenchmark("attention/naive", attention_naive)
          ->Args({L, causal})
          ->ArgNames({"L", "causal"})
          ->Unit(benchmark::kMillisecond);
      for (std::int64_t weights : {0, 1}) {
        benchmark::RegisterBenchmark("attention/core", attention_timed<poslab::attention>)
            ->Args({L, causal, weights})
            ->ArgNames({"L", "causal", "weights"})
            ->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark("attention/fast", attention_timed<poslab::fast::attention>)
            ->Args({L, causal, weights})
            ->ArgNames({"L", "causal", "weights"})
            ->Unit(benchmark::kMillisecond);
      }
    }
  }
  return true;
}();

}  // namespace

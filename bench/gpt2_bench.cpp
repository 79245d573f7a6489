// GPT-2 small's forward pass natively (the wasm figure's counterpart, bench/wasm/ort_gpt2.mjs):
// random weights (gpt2_random_weights, seed 1), T = 4, 8, 32, 128, 512 random token ids, no
// trace, every T row of the logits computed; precision double (the reference) and float
// (float32 SIMD products), the float rows checked against the double logits first
// (max |Δ| ≤ 1e-3 · max |logit|, the bar of the ORT comparison). FLOP counted as there:
//   FLOP(T) = 2·T·(12·N·E² + V·E) + 2·N·E·T·(T + 1)
// (the weight matmuls with the tied lm_head, plus causal attention's QKᵀ and PV).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "poslab/base/random.hpp"
#include "poslab/models/gpt2.hpp"

namespace {

const poslab::Gpt2Weights& weights() {
  static const poslab::Gpt2Weights w =
      poslab::lm_random_weights(poslab::Gpt2Config::small(), /*seed=*/1);
  return w;
}

std::vector<long long> tokens(std::int64_t T) {
  poslab::Rng rng{static_cast<std::uint64_t>(T)};
  std::vector<long long> ids(static_cast<std::size_t>(T));
  for (long long& id : ids) id = static_cast<long long>(rng.next_u64() % 50257);
  return ids;
}

double forward_flops(std::int64_t T) {
  const poslab::Gpt2Config& c = weights().config;
  const double E = double(c.dims.width), N = double(c.dims.layers), V = double(c.dims.vocab_size);
  return 2.0 * double(T) * (12.0 * N * E * E + V * E) + 2.0 * N * E * double(T) * double(T + 1);
}

// The double logits of each T, kept once computed (the double rows run first).
std::map<std::int64_t, std::vector<float>>& reference_cache() {
  static std::map<std::int64_t, std::vector<float>> cache;
  return cache;
}

poslab::Gpt2Options options_for(poslab::Precision precision) {
  poslab::Gpt2Options o;
  o.trace = false;
  o.top_k = 1;
  o.precision = precision;
  return o;
}

const std::vector<float>& reference(std::int64_t T) {
  auto& cache = reference_cache();
  auto it = cache.find(T);
  if (it == cache.end()) {
    const poslab::Gpt2Result r =
        poslab::gpt2_forward(weights(), tokens(T), options_for(poslab::Precision::kDouble));
    it = cache.emplace(T, r.logits.data).first;
  }
  return it->second;
}

// max |got − want| / max |want|
double relative_error(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) return INFINITY;
  double diff = 0, max = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double d = std::fabs(double(got[i]) - double(want[i]));
    if (!(d <= diff)) diff = std::isnan(d) ? INFINITY : d;
    max = std::max(max, std::fabs(double(want[i])));
  }
  return diff / max;
}

void gpt2_timed(benchmark::State& state, poslab::Precision precision) {
  const std::int64_t T = state.range(0);
  const poslab::Gpt2Options o = options_for(precision);
  const std::vector<long long> ids = tokens(T);
  weights();  // the random init is not timed
  if (precision == poslab::Precision::kFloat) {
    const double error =
        relative_error(poslab::gpt2_forward(weights(), ids, o).logits.data, reference(T));
    state.counters["max_rel_err"] = error;
    if (!(error <= 1e-3)) {
      state.SkipWithError("float logits disagree with the double forward");
      return;
    }
  }
  std::vector<float> logits;
  for (auto _ : state) {
    poslab::Gpt2Result r = poslab::gpt2_forward(weights(), ids, o);
    benchmark::DoNotOptimize(r.logits.data.data());
    logits = std::move(r.logits.data);
  }
  if (precision == poslab::Precision::kDouble) reference_cache()[T] = std::move(logits);
  state.counters["FLOP/s"] =
      benchmark::Counter(forward_flops(T), benchmark::Counter::kIsIterationInvariantRate);
}

const bool registered = [] {
  for (poslab::Precision p : {poslab::Precision::kDouble, poslab::Precision::kFloat}) {
    benchmark::RegisterBenchmark((std::string("gpt2/") + poslab::to_string(p)).c_str(),
                                 [p](benchmark::State& state) { gpt2_timed(state, p); })
        ->ArgName("T")
        ->Arg(4)
        ->Arg(8)
        ->Arg(32)
        ->Arg(128)
        ->Arg(512)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  return true;
}();

}  // namespace

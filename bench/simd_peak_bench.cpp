// The arithmetic peak of one core, the yardstick the GEMM and GPT-2 rows are read against: a
// register-only loop of `chains` independent accumulators, acc = acc·m + c, in three forms —
//   simd_peak/sse_mul_add   4-lane multiply then add: what wasm SIMD128 (no FMA) runs as
//   simd_peak/sse_fma       4-lane fused multiply-add: what wasm relaxed SIMD's f32x4.relaxed_madd
//                           runs as on an x86 CPU with FMA
//   simd_peak/avx2_mul_add  8-lane multiply then add
//   simd_peak/avx2_fma      8-lane fused multiply-add (what the native GEMM uses)
// FLOP = 2 per lane per chain per step. Enough chains hide the latency (mul + add or FMA) at
// full throughput; too many spill out of the 16 vector registers: the best row is the peak.
// m and c pass through DoNotOptimize in every iteration and the result, which depends on every lane
// of every accumulator, is kept, so nothing folds or drops. Compiled per function with target
// attributes (no -march flag needed); rows the CPU cannot run skip with a message.
#include <benchmark/benchmark.h>
#include <immintrin.h>

#include <cstdint>
#include <string>

namespace {

constexpr std::int64_t kSteps = 1 << 20;  // per timed iteration

// Every lane of every accumulator, summed: the kept result that depends on all of them.
__attribute__((target("avx"))) float lane_sum(const __m128* acc, int chains) {
  __m128 sum = acc[0];
  for (int i = 1; i < chains; ++i) sum = _mm_add_ps(sum, acc[i]);
  alignas(16) float lanes[4];
  _mm_store_ps(lanes, sum);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}
__attribute__((target("avx"))) float lane_sum(const __m256* acc, int chains) {
  __m256 sum = acc[0];
  for (int i = 1; i < chains; ++i) sum = _mm256_add_ps(sum, acc[i]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  float total = 0;
  for (float x : lanes) total += x;
  return total;
}

template <int kChains>
__attribute__((target("avx"))) float sse_mul_add(std::int64_t steps, float m, float c) {
  __m128 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm_set1_ps(0.001f * float(i + 1));
  const __m128 vm = _mm_set1_ps(m), vc = _mm_set1_ps(c);
  for (std::int64_t n = 0; n < steps; ++n) {
    for (int i = 0; i < kChains; ++i) acc[i] = _mm_add_ps(_mm_mul_ps(acc[i], vm), vc);
  }
  return lane_sum(acc, kChains);
}

template <int kChains>
__attribute__((target("avx,fma"))) float sse_fma(std::int64_t steps, float m, float c) {
  __m128 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm_set1_ps(0.001f * float(i + 1));
  const __m128 vm = _mm_set1_ps(m), vc = _mm_set1_ps(c);
  for (std::int64_t n = 0; n < steps; ++n) {
    for (int i = 0; i < kChains; ++i) acc[i] = _mm_fmadd_ps(acc[i], vm, vc);
  }
  return lane_sum(acc, kChains);
}

template <int kChains>
__attribute__((target("avx2"))) float avx2_mul_add(std::int64_t steps, float m, float c) {
  __m256 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm256_set1_ps(0.001f * float(i + 1));
  const __m256 vm = _mm256_set1_ps(m), vc = _mm256_set1_ps(c);
  for (std::int64_t n = 0; n < steps; ++n) {
    for (int i = 0; i < kChains; ++i) acc[i] = _mm256_add_ps(_mm256_mul_ps(acc[i], vm), vc);
  }
  return lane_sum(acc, kChains);
}

template <int kChains>
__attribute__((target("avx2,fma"))) float avx2_fma(std::int64_t steps, float m, float c) {
  __m256 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm256_set1_ps(0.001f * float(i + 1));
  const __m256 vm = _mm256_set1_ps(m), vc = _mm256_set1_ps(c);
  for (std::int64_t n = 0; n < steps; ++n) {
    for (int i = 0; i < kChains; ++i) acc[i] = _mm256_fmadd_ps(acc[i], vm, vc);
  }
  return lane_sum(acc, kChains);
}

using Loop = float (*)(std::int64_t, float, float);

// lanes: 4 or 8; runnable: the CPU has the instructions the loop needs.
template <Loop loop, int kChains>
void peak(benchmark::State& state, int lanes, bool runnable) {
  if (!runnable) {
    state.SkipWithError("this CPU lacks the instructions");
    return;
  }
  float m = 0.9999f, c = 1e-4f;  // acc → c / (1 − m) = 1: no overflow, no subnormals
  for (auto _ : state) {
    // Inside the loop: m and c may have changed, so the call is not hoisted out of it.
    benchmark::DoNotOptimize(m);
    benchmark::DoNotOptimize(c);
    float result = loop(kSteps, m, c);
    benchmark::DoNotOptimize(result);
  }
  state.counters["FLOP/s"] = benchmark::Counter(2.0 * lanes * kChains * double(kSteps),
                                                benchmark::Counter::kIsIterationInvariantRate);
}

template <int kChains>
void register_chains() {
  __builtin_cpu_init();
  const bool avx = __builtin_cpu_supports("avx"), avx2 = __builtin_cpu_supports("avx2");
  const bool fma = avx2 && __builtin_cpu_supports("fma");
  const std::string args = "/chains:" + std::to_string(kChains);
  benchmark::RegisterBenchmark(("simd_peak/sse_mul_add" + args).c_str(),
                               peak<sse_mul_add<kChains>, kChains>, 4, avx);
  benchmark::RegisterBenchmark(("simd_peak/sse_fma" + args).c_str(),
                               peak<sse_fma<kChains>, kChains>, 4,
                               avx && __builtin_cpu_supports("fma"));
  benchmark::RegisterBenchmark(("simd_peak/avx2_mul_add" + args).c_str(),
                               peak<avx2_mul_add<kChains>, kChains>, 8, avx2);
  benchmark::RegisterBenchmark(("simd_peak/avx2_fma" + args).c_str(),
                               peak<avx2_fma<kChains>, kChains>, 8, fma);
}

const bool registered = [] {
  register_chains<8>();
  register_chains<10>();
  register_chains<12>();
  register_chains<14>();
  return true;
}();

}  // namespace

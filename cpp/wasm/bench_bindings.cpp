// The poslab-bench module, for the wasm benchmarks (bench/wasm; not part of the JS API):
// the SIMD128 arithmetic peak of this build, measured with a register-only loop (and, in the
// relaxed build, the peak of f32x4.relaxed_madd, the kernels' multiply-add there), and the
// float32 GEMM (poslab::fast::gemm) timed on one shape, so every kernel can be printed as a %
// of the peak in the same engine. Timed in C++ (steady_clock is performance.now() here).
#include <emscripten/bind.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "guard.hpp"
#include "js_convert.hpp"
#include "poslab/base/random.hpp"
#include "poslab/fast/gemm.hpp"

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

namespace poslab::wasm {
namespace {

using emscripten::val;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The multiply-add of the chains: a 4-lane multiply then a 4-lane add (SIMD128 has no FMA), or
// one f32x4.relaxed_madd (the relaxed build; src/fast/madd.hpp says why the builtin's operands
// read x·y + z once cpp/wasm/relaxed_simd_patch.mjs has rewritten its opcode).
#ifdef __wasm_simd128__
template <bool kRelaxed>
inline v128_t mul_add(v128_t a, v128_t m, v128_t c) {
#ifdef POSLAB_RELAXED_SIMD
  if constexpr (kRelaxed) {
    return v128_t(__builtin_wasm_fma_f32x4(__f32x4(a), __f32x4(m), __f32x4(c)));
  }
#endif
  return wasm_f32x4_add(wasm_f32x4_mul(a, m), c);
}
#endif

// kChains independent chains acc = acc·m + c (mul_add): 8 flops per chain per iteration. The chains
// hide the mul → add latency; too many spill (the engine maps v128 onto 16 x86 registers, m and c
// take two). m and c come from JS so nothing folds, and the returned sum reads every lane of every
// accumulator, so the loop cannot be dropped. acc converges to c / (1 − m): no overflow, no
// subnormals.
template <int kChains, bool kRelaxed>
float mul_add_chains(long long iterations, float m, float c) {
#ifdef __wasm_simd128__
  v128_t acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = wasm_f32x4_splat(0.001f * float(i + 1));
  const v128_t vm = wasm_f32x4_splat(m), vc = wasm_f32x4_splat(c);
  for (long long n = 0; n < iterations; ++n) {
    for (int i = 0; i < kChains; ++i) acc[i] = mul_add<kRelaxed>(acc[i], vm, vc);
  }
  v128_t sum = acc[0];
  for (int i = 1; i < kChains; ++i) sum = wasm_f32x4_add(sum, acc[i]);
  return wasm_f32x4_extract_lane(sum, 0) + wasm_f32x4_extract_lane(sum, 1) +
         wasm_f32x4_extract_lane(sum, 2) + wasm_f32x4_extract_lane(sum, 3);
#else
  // The scalar build: the same work in four scalar lanes.
  float acc[kChains][4];
  for (int i = 0; i < kChains; ++i) std::fill_n(acc[i], 4, 0.001f * float(i + 1));
  for (long long n = 0; n < iterations; ++n) {
    for (int i = 0; i < kChains; ++i) {
      for (int l = 0; l < 4; ++l) acc[i][l] = acc[i][l] * m + c;
    }
  }
  float sum = 0;
  for (int i = 0; i < kChains; ++i) {
    for (int l = 0; l < 4; ++l) sum += acc[i][l];
  }
  return sum;
#endif
}

// One variant: its best time of `repeats` runs of `iterations` steps → GFLOP/s.
template <int kChains, bool kRelaxed = false>
val peak_variant(long long iterations, int repeats, float m, float c, double& checksum) {
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    const Clock::time_point t0 = Clock::now();
    checksum += mul_add_chains<kChains, kRelaxed>(iterations, m, c);
    best = std::min(best, seconds_since(t0));
  }
  const double flops = 8.0 * kChains * double(iterations);
  val out = val::object();
  out.set("chains", kChains);
  out.set("seconds", best);
  out.set("gflops", flops / best / 1e9);
  return out;
}

// simdPeak(iterations, m, c) → { simd, variants: [{ chains, seconds, gflops }], gflops (the
// best), relaxed, checksum }; relaxed is null, or in the relaxed build the same measure of
// f32x4.relaxed_madd chains: { variants, gflops }. The caller passes m just below 1 (0.9999)
// and c small (1e-4).
val simd_peak_js(val iterations_js, val m_js, val c_js) {
  return guarded([&] {
    const long long iterations = to_integer(iterations_js, "iterations");
    require(iterations >= 1 && iterations <= (1LL << 40), "iterations",
            "iterations must be in [1, 2^40]");
    const float m = float(to_number(m_js, "m")), c = float(to_number(c_js, "c"));
    double checksum = 0;
    val variants = val::array();
    variants.call<void>("push", peak_variant<4>(iterations, 3, m, c, checksum));
    variants.call<void>("push", peak_variant<8>(iterations, 3, m, c, checksum));
    variants.call<void>("push", peak_variant<12>(iterations, 3, m, c, checksum));
    variants.call<void>("push", peak_variant<14>(iterations, 3, m, c, checksum));
    variants.call<void>("push", peak_variant<16>(iterations, 3, m, c, checksum));
    double best = 0;
    for (int i = 0; i < 5; ++i) best = std::max(best, variants[i]["gflops"].as<double>());
    val out = val::object();
#ifdef __wasm_simd128__
    out.set("simd", true);
#else
    out.set("simd", false);
#endif
    out.set("variants", variants);
    out.set("gflops", best);
    out.set("relaxed", val::null());
#ifdef POSLAB_RELAXED_SIMD
    val relaxed = val::array();
    relaxed.call<void>("push", peak_variant<4, true>(iterations, 3, m, c, checksum));
    relaxed.call<void>("push", peak_variant<8, true>(iterations, 3, m, c, checksum));
    relaxed.call<void>("push", peak_variant<12, true>(iterations, 3, m, c, checksum));
    relaxed.call<void>("push", peak_variant<16, true>(iterations, 3, m, c, checksum));
    double relaxed_best = 0;
    for (int i = 0; i < 4; ++i)
      relaxed_best = std::max(relaxed_best, relaxed[i]["gflops"].as<double>());
    val relaxed_out = val::object();
    relaxed_out.set("variants", relaxed);
    relaxed_out.set("gflops", relaxed_best);
    out.set("relaxed", relaxed_out);
#endif
    out.set("checksum", checksum);
    return out;
  });
}

// gemmBench(M, N, K, transposeB, minSeconds) → { seconds (median), runs, gflops }: C = A·op(B)
// with A (M, K), B (K, N) or, transposed, (N, K) as GPT-2's tied lm_head reads wte; random
// inputs, one warm-up run, then runs until minSeconds have passed (at least 3).
val gemm_bench_js(val M_js, val N_js, val K_js, val transpose_js, val min_seconds_js) {
  return guarded([&] {
    const auto size = [](const val& js, const char* what) {
      const long long n = to_integer(js, what);
      require(n >= 1 && n <= 65536, what, std::string(what) + " must be in [1, 65536]");
      return std::size_t(n);
    };
    const std::size_t M = size(M_js, "M"), N = size(N_js, "N"), K = size(K_js, "K");
    require(M * K <= kMaxElements && N * K <= kMaxElements && M * N <= kMaxElements, "M",
            "operands over the element cap");
    require(transpose_js.isTrue() || transpose_js.isFalse(), "transposeB",
            "transposeB must be a boolean");
    const bool transpose = transpose_js.isTrue();
    const double min_seconds = to_number(min_seconds_js, "minSeconds");
    Rng rng(1);
    std::vector<float> a(M * K), b(K * N), c(M * N);
    for (float& x : a) x = float(rng.normal());
    for (float& x : b) x = float(rng.normal());
    const fast::Op op_b = transpose ? fast::Op::kTranspose : fast::Op::kNone;
    const std::size_t ldb = transpose ? K : N;
    const auto run = [&] {
      fast::gemm(M, N, K, a.data(), K, fast::Op::kNone, b.data(), ldb, op_b, c.data(), N);
    };
    run();
    std::vector<double> times;
    const Clock::time_point start = Clock::now();
    while (times.size() < 3 || (seconds_since(start) < min_seconds && times.size() < 1000)) {
      const Clock::time_point t0 = Clock::now();
      run();
      times.push_back(seconds_since(t0));
    }
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2];
    val out = val::object();
    out.set("seconds", median);
    out.set("runs", double(times.size()));
    out.set("gflops", 2.0 * double(M) * double(N) * double(K) / median / 1e9);
    out.set("check", c[0] + c[M * N - 1]);
    return out;
  });
}

}  // namespace
}  // namespace poslab::wasm

EMSCRIPTEN_BINDINGS(poslab_bench) {
  emscripten::function("simdPeak", &poslab::wasm::simd_peak_js);
  emscripten::function("gemmBench", &poslab::wasm::gemm_bench_js);
}

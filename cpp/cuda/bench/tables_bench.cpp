// Table and bias generation: sinusoidal (both layouts), ALiBi, T5. Write-only kernels, so
// bytes = the output size; each is checked against the core before it is timed.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>
#include <vector>

#include "inputs.hpp"
#include "poslab/cuda/alibi.hpp"
#include "poslab/cuda/compare.hpp"
#include "poslab/cuda/sinusoidal.hpp"
#include "poslab/cuda/t5.hpp"
#include "poslab/positions/alibi.hpp"
#include "poslab/positions/learned.hpp"
#include "poslab/positions/relative.hpp"
#include "poslab/positions/sinusoidal.hpp"
#include "suite.hpp"

namespace poslab::cuda::bench {
namespace {

constexpr long long kDim = 128;
constexpr double kBase = 10000.0;

void sinusoidal_case(Context& ctx, long long L, SinusoidalLayout layout, int variant) {
  DeviceBuffer pe(std::size_t(L * kDim) * sizeof(float));
  float* p = pe.as<float>();
  sinusoidal_table(p, L, kDim, kBase, layout, 0, variant);
  check(cudaDeviceSynchronize(), "sinusoidal_table");

  // The first and the last 1024 positions: the largest angles are at the end.
  const long long rows = std::min<long long>(L, 1024);
  Record r;
  r.tolerance = tolerance_for(DType::kF32);
  std::vector<float> got = download_floats(p, std::size_t(rows * kDim));
  std::vector<float> tail = download_floats(p + (L - rows) * kDim, std::size_t(rows * kDim));
  got.insert(got.end(), tail.begin(), tail.end());
  std::vector<float> want = sinusoidal_table(rows, kDim, kBase, layout, 0).data;
  const std::vector<float> want_tail = sinusoidal_table(rows, kDim, kBase, layout, L - rows).data;
  want.insert(want.end(), want_tail.begin(), want_tail.end());
  r.check = compare(got, want, r.tolerance);
  r.validated_on = "positions [0, " + std::to_string(rows) + ") and [" + std::to_string(L - rows) +
                   ", " + std::to_string(L) + ")";

  r.kernel = "sinusoidal";
  r.variant = variant == 1 ? "1-double" : variant == 2 ? "2-vec16" : "3-rotate";
  r.dtype = "fp32";
  r.shape = {{"L", L}, {"D", kDim}};
  r.params = {{"layout", layout == SinusoidalLayout::kConcat ? "concat" : "interleaved"}};
  r.timing = time_launches([&] { sinusoidal_table(p, L, kDim, kBase, layout, 0, variant); });
  r.bytes = double(L * kDim) * sizeof(float);
  ctx.add(std::move(r));
}

void alibi_case(Context& ctx, long long H, long long L, int variant) {
  const std::size_t n = std::size_t(H * L * L);
  DeviceBuffer bias(n * sizeof(float));
  float* p = bias.as<float>();
  alibi_bias(p, H, L, L, variant);
  check(cudaDeviceSynchronize(), "alibi_bias");
  Record r;
  r.tolerance = tolerance_for(DType::kF32);
  r.check = compare(download_floats(p, n), poslab::alibi_bias(H, L, L).data, r.tolerance);
  r.validated_on = "all elements";
  r.kernel = "alibi";
  r.variant = variant == 1 ? "1-scalar" : "2-vec16";
  r.dtype = "fp32";
  r.shape = {{"H", H}, {"Lq", L}, {"Lk", L}};
  r.timing = time_launches([&] { alibi_bias(p, H, L, L, variant); });
  r.bytes = double(n) * sizeof(float);
  ctx.add(std::move(r));
}

void t5_case(Context& ctx, long long H, long long L, int variant) {
  T5BucketOptions options;
  options.bidirectional = true;
  const std::size_t n = std::size_t(H * L * L);
  const TensorF table = learned_table(options.num_buckets, H, 0, 1.0);  // as poslab::t5_bias
  DeviceBuffer dtable(table.size() * sizeof(float));
  dtable.upload(table.ptr(), table.size() * sizeof(float));
  DeviceBuffer bias(n * sizeof(float));
  float* p = bias.as<float>();
  t5_bias(p, dtable.as<float>(), H, L, L, options, variant);
  check(cudaDeviceSynchronize(), "t5_bias");
  Record r;
  // Exact: both sides look up the same float32 table with the same bucket formula.
  r.tolerance = {0.0, 0.0};
  r.check = compare(download_floats(p, n), poslab::t5_bias(H, L, L, options, 0).data, r.tolerance);
  r.validated_on = "all elements, exact";
  r.kernel = "t5";
  r.variant = variant == 1 ? "1-scalar" : "2-vec16";
  r.dtype = "fp32";
  r.shape = {{"H", H}, {"Lq", L}, {"Lk", L}};
  r.params = {{"bidirectional", true}, {"num_buckets", 32}, {"max_distance", 128}};
  r.timing = time_launches([&] { t5_bias(p, dtable.as<float>(), H, L, L, options, variant); });
  r.bytes = double(n) * sizeof(float);
  ctx.add(std::move(r));
}

}  // namespace

void run_tables(Context& ctx) {
  // D = 128 float32: 4, 16, 64 and 256 MB tables.
  const std::vector<long long> lengths = ctx.quick
                                             ? std::vector<long long>{131072}
                                             : std::vector<long long>{8192, 32768, 131072, 524288};
  for (long long L : lengths) {
    for (int variant = 1; variant <= kSinusoidalVariants; ++variant) {
      sinusoidal_case(ctx, L, SinusoidalLayout::kInterleaved, variant);
      // Variant 3 is the interleaved layout's (concat runs variant 2's kernel).
      if (L == 131072 && variant != 3) sinusoidal_case(ctx, L, SinusoidalLayout::kConcat, variant);
    }
  }
  // H = 16 heads: 16, 64 and 256 MB.
  const std::vector<long long> bias_lengths =
      ctx.quick ? std::vector<long long>{1024} : std::vector<long long>{512, 1024, 2048};
  for (long long L : bias_lengths) {
    for (int variant = 1; variant <= kAlibiVariants; ++variant) alibi_case(ctx, 16, L, variant);
    for (int variant = 1; variant <= kT5Variants; ++variant) t5_case(ctx, 16, L, variant);
  }
}

}  // namespace poslab::cuda::bench

// RoPE apply on (B, H, L, D) = (1, 32, L, 128) in three storage types, both pairings, both
// variants; out of place, so bytes = read x + write out.
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "inputs.hpp"
#include "poslab/cuda/compare.hpp"
#include "poslab/cuda/rope.hpp"
#include "poslab/positions/rope.hpp"
#include "suite.hpp"

namespace poslab::cuda::bench {
namespace {

constexpr long long kHeads = 32;
constexpr long long kDim = 128;
constexpr long long kCheckedHeads = 2;  // the angles do not depend on the head

void rope_case(Context& ctx, long long L, DType dtype, RopeStyle style, int variant) {
  RopeOptions options;
  options.style = style;
  const std::size_t n = std::size_t(kHeads * L * kDim);
  std::vector<float> rounded;
  DeviceBuffer x = upload_as(random_uniform(n, 7), dtype, &rounded);
  DeviceBuffer out(n * dtype_size(dtype));
  const DeviceRopeFrequencies freq(kDim, options, L);
  rope_apply(x.get(), out.get(), dtype, kHeads, L, freq, 0, variant);
  check(cudaDeviceSynchronize(), "rope_apply");

  const std::size_t checked = std::size_t(kCheckedHeads * L * kDim);
  std::vector<float> got = download_as_float(out, checked, dtype);
  TensorF input({std::size_t(kCheckedHeads), std::size_t(L), std::size_t(kDim)},
                std::vector<float>(rounded.begin(), rounded.begin() + checked));
  Record r;
  r.tolerance = tolerance_for(dtype);
  r.check = compare(got, poslab::rope_apply(input, options, 0).data, r.tolerance);
  r.validated_on = "heads 0-1, all positions";
  r.kernel = "rope";
  r.variant = variant == 1 ? "1-scalar" : "2-vec16";
  r.dtype = dtype_name(dtype);
  r.shape = {{"B", 1}, {"H", kHeads}, {"L", L}, {"D", kDim}};
  r.params = {{"style", style == RopeStyle::kNeox ? "neox" : "gptj"}, {"scaling", "none"}};
  r.timing =
      time_launches([&] { rope_apply(x.get(), out.get(), dtype, kHeads, L, freq, 0, variant); });
  r.bytes = 2.0 * double(n) * double(dtype_size(dtype));
  ctx.add(std::move(r));
}

}  // namespace

void run_rope(Context& ctx) {
  // float32: 16, 64, 256 and 512 MB per tensor (half that in fp16/bf16); the traffic is twice
  // that, so every type has sizes past 256 MB, where one launch can near the copy roofline.
  const std::vector<long long> lengths =
      ctx.quick ? std::vector<long long>{4096} : std::vector<long long>{1024, 4096, 16384, 32768};
  for (long long L : lengths) {
    for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
      for (RopeStyle style : {RopeStyle::kNeox, RopeStyle::kGptj}) {
        for (int variant = 1; variant <= kRopeVariants; ++variant) {
          rope_case(ctx, L, dtype, style, variant);
        }
      }
    }
  }
}

}  // namespace poslab::cuda::bench

// RoPE from the GPU against poslab::rope_apply: every scaling (frequencies from
// poslab::rope_frequencies), both pairings, fp32/fp16/bf16 storage, partial rotary dims,
// in place, positions near 65 536, and the decay it leaves to attention_flash.
#include "poslab/cuda/rope.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "gpu_test.hpp"
#include "poslab/positions/rope.hpp"

namespace poslab::cuda::testing {
namespace {

std::vector<float> Values(std::size_t n) {
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = float(std::sin(0.37 * double(i) + 1.0));
  return x;
}

// Rotates x (H, L, D) on the GPU and with the core; expects them close under dtype's policy.
void ExpectMatchesCore(long long H, long long L, long long D, const RopeOptions& options,
                       long long offset, DType dtype, int variant, bool in_place = false) {
  SCOPED_TRACE(std::string("dtype ") + poslab::cuda::dtype_name(dtype) + " variant " +
               std::to_string(variant) + " style " +
               (options.style == RopeStyle::kNeox ? "neox" : "gptj") + " scaling " +
               poslab::to_string(options.scaling) + " D " + std::to_string(D));
  const std::size_t n = std::size_t(H * L * D);
  std::vector<float> rounded;
  DeviceBuffer x = poslab::cuda::upload_as(Values(n), dtype, &rounded);
  DeviceBuffer out(n * poslab::cuda::dtype_size(dtype));
  const poslab::cuda::DeviceRopeFrequencies freq(D, options, offset + L);
  void* target = in_place ? x.get() : out.get();
  poslab::cuda::rope_apply(x.get(), target, dtype, H, L, freq, offset, variant);
  Sync();
  const TensorF input({std::size_t(H), std::size_t(L), std::size_t(D)}, rounded);
  const std::vector<float> got = poslab::cuda::download_as_float(in_place ? x : out, n, dtype);
  EXPECT_TRUE(Close(got, poslab::rope_apply(input, options, offset).data, tolerance_for(dtype)));
}

RopeOptions Options(RopeStyle style, RopeScaling scaling) {
  RopeOptions o;
  o.style = style;
  o.scaling = scaling;
  if (scaling != RopeScaling::kNone) {
    o.factor = 4.0;
    o.original_length = 256;
  }
  return o;
}

TEST(Rope, EveryScalingMatchesCoreInBothPairings) {
  for (RopeScaling scaling : {RopeScaling::kNone, RopeScaling::kLinear, RopeScaling::kNtk,
                              RopeScaling::kDynamic, RopeScaling::kYarn, RopeScaling::kLlama3}) {
    for (RopeStyle style : {RopeStyle::kNeox, RopeStyle::kGptj}) {
      for (int variant = 1; variant <= poslab::cuda::kRopeVariants; ++variant) {
        // offset + L = 400 exceeds N = 256, so `dynamic` really rescales.
        ExpectMatchesCore(3, 300, 64, Options(style, scaling), 100, DType::kF32, variant);
      }
    }
  }
}

TEST(Rope, HalfAndBfloatStorageMatchCore) {
  for (DType dtype : {DType::kF16, DType::kBF16}) {
    for (RopeStyle style : {RopeStyle::kNeox, RopeStyle::kGptj}) {
      for (int variant = 1; variant <= poslab::cuda::kRopeVariants; ++variant) {
        ExpectMatchesCore(4, 129, 128, Options(style, RopeScaling::kYarn), 0, dtype, variant);
      }
    }
  }
}

TEST(Rope, PartialRotaryDimsPassTheRestThrough) {
  for (RopeStyle style : {RopeStyle::kNeox, RopeStyle::kGptj}) {
    RopeOptions o = Options(style, RopeScaling::kNone);
    o.rotary_fraction = 0.5;  // R = 64 of D = 128: vectorised
    for (DType dtype : {DType::kF32, DType::kF16}) ExpectMatchesCore(2, 50, 128, o, 0, dtype, 2);
    o.rotary_fraction = 0.4;  // R = 4 of D = 10: the scalar kernel
    ExpectMatchesCore(2, 50, 10, o, 0, DType::kF32, 2);
  }
}

TEST(Rope, InPlaceMatchesCore) {
  for (int variant = 1; variant <= poslab::cuda::kRopeVariants; ++variant) {
    ExpectMatchesCore(2, 64, 64, Options(RopeStyle::kNeox, RopeScaling::kNone), 0, DType::kF32,
                      variant, /*in_place=*/true);
  }
}

TEST(Rope, PositionsNear65536StayWithinTolerance) {
  // Angles up to 65 536 rad: float32 angles would be off by 4e-3 here.
  for (int variant = 1; variant <= poslab::cuda::kRopeVariants; ++variant) {
    ExpectMatchesCore(1, 256, 64, Options(RopeStyle::kGptj, RopeScaling::kNone), 65536 - 256,
                      DType::kF32, variant);
  }
}

// A decay scales queries and keys apart: the fused attention applies it, this kernel refuses it.
TEST(Rope, RefusesADecayingRotation) {
  RopeOptions o = Options(RopeStyle::kGptj, RopeScaling::kNone);
  o.scale_base = 512.0;
  const poslab::cuda::DeviceRopeFrequencies freq(64, o, 4);
  DeviceBuffer x(4 * 64 * sizeof(float));
  EXPECT_THROW(poslab::cuda::rope_apply(x.get(), x.get(), DType::kF32, 1, 4, freq, 0),
               poslab::Error);
}

}  // namespace
}  // namespace poslab::cuda::testing

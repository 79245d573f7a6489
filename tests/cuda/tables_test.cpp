// Sinusoidal tables, ALiBi and T5 biases from the GPU against the core functions of the same
// name: every variant, odd sizes that take the scalar fallbacks, large positions.
#include <gtest/gtest.h>

#include <vector>

#include "gpu_test.hpp"
#include "poslab/cuda/alibi.hpp"
#include "poslab/cuda/sinusoidal.hpp"
#include "poslab/cuda/t5.hpp"
#include "poslab/positions/alibi.hpp"
#include "poslab/positions/learned.hpp"
#include "poslab/positions/relative.hpp"
#include "poslab/positions/sinusoidal.hpp"

namespace poslab::cuda::testing {
namespace {

std::vector<float> Download(const DeviceBuffer& buffer, std::size_t n) {
  return poslab::cuda::download_as_float(buffer, n, DType::kF32);
}

TEST(Sinusoidal, EveryVariantMatchesCoreInBothLayouts) {
  struct Shape {
    long long L, D, offset;
  };
  // D = 6 and 130 are not multiples of the vector width: they take the scalar kernel.
  for (const Shape s : {Shape{1, 2, 0}, Shape{37, 6, 3}, Shape{300, 64, 0}, Shape{129, 128, 0},
                        Shape{64, 130, 7}, Shape{256, 128, 65536 - 256},
                        // Past the grid's rows (8 blocks per SM): variant 3 rotates rows.
                        Shape{40000, 64, 0}, Shape{40000, 128, (1LL << 24) - 40000}}) {
    for (SinusoidalLayout layout : {SinusoidalLayout::kInterleaved, SinusoidalLayout::kConcat}) {
      for (int variant = 1; variant <= poslab::cuda::kSinusoidalVariants; ++variant) {
        SCOPED_TRACE("L " + std::to_string(s.L) + " D " + std::to_string(s.D) + " offset " +
                     std::to_string(s.offset) + " variant " + std::to_string(variant));
        DeviceBuffer pe(std::size_t(s.L * s.D) * sizeof(float));
        poslab::cuda::sinusoidal_table(pe.as<float>(), s.L, s.D, 10000.0, layout, s.offset,
                                       variant);
        Sync();
        EXPECT_TRUE(Close(Download(pe, std::size_t(s.L * s.D)),
                          poslab::sinusoidal_table(s.L, s.D, 10000.0, layout, s.offset).data,
                          tolerance_for(DType::kF32)));
      }
    }
  }
}

TEST(Sinusoidal, RejectsWhatTheCoreRejects) {
  DeviceBuffer pe(64);
  EXPECT_THROW(
      poslab::cuda::sinusoidal_table(pe.as<float>(), 2, 3, 1e4, SinusoidalLayout::kInterleaved, 0),
      poslab::Error);
  EXPECT_THROW(
      poslab::cuda::sinusoidal_table(pe.as<float>(), 2, 4, -1.0, SinusoidalLayout::kInterleaved, 0),
      poslab::Error);
  EXPECT_THROW(poslab::cuda::sinusoidal_table(pe.as<float>(), 2, 4, 1e4,
                                              SinusoidalLayout::kInterleaved, 0, /*variant=*/9),
               poslab::Error);
}

TEST(Alibi, EveryVariantMatchesCore) {
  struct Shape {
    long long H, Lq, Lk;
  };
  // H = 12 is not a power of two (the interleaving rule); Lk = 7 takes the scalar kernel.
  for (const Shape s : {Shape{1, 5, 7}, Shape{8, 64, 64}, Shape{12, 33, 100}, Shape{3, 1, 4}}) {
    for (int variant = 1; variant <= poslab::cuda::kAlibiVariants; ++variant) {
      SCOPED_TRACE("H " + std::to_string(s.H) + " variant " + std::to_string(variant));
      const std::size_t n = std::size_t(s.H * s.Lq * s.Lk);
      DeviceBuffer bias(n * sizeof(float));
      poslab::cuda::alibi_bias(bias.as<float>(), s.H, s.Lq, s.Lk, variant);
      Sync();
      EXPECT_TRUE(Close(Download(bias, n), poslab::alibi_bias(s.H, s.Lq, s.Lk).data,
                        tolerance_for(DType::kF32)));
    }
  }
}

TEST(T5, EveryVariantMatchesCoreExactly) {
  struct Shape {
    long long H, Lq, Lk;
  };
  for (bool bidirectional : {false, true}) {
    for (const Shape s : {Shape{4, 300, 300}, Shape{3, 3, 513}, Shape{2, 129, 7}}) {
      for (int variant = 1; variant <= poslab::cuda::kT5Variants; ++variant) {
        SCOPED_TRACE("bidirectional " + std::to_string(bidirectional) + " Lq " +
                     std::to_string(s.Lq) + " variant " + std::to_string(variant));
        poslab::T5BucketOptions options;
        options.bidirectional = bidirectional;
        const poslab::TensorF table = poslab::learned_table(options.num_buckets, s.H, 0, 1.0);
        DeviceBuffer dtable(table.size() * sizeof(float));
        dtable.upload(table.ptr(), table.size() * sizeof(float));
        const std::size_t n = std::size_t(s.H * s.Lq * s.Lk);
        DeviceBuffer bias(n * sizeof(float));
        poslab::cuda::t5_bias(bias.as<float>(), dtable.as<float>(), s.H, s.Lq, s.Lk, options,
                              variant);
        Sync();
        // Exact: the same float32 bucket formula indexes the same table.
        EXPECT_TRUE(Close(Download(bias, n), poslab::t5_bias(s.H, s.Lq, s.Lk, options, 0).data,
                          {0.0, 0.0}));
      }
    }
  }
}

}  // namespace
}  // namespace poslab::cuda::testing

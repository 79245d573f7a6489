// POSLAB_SIMD_MAX (cmake/SimdMax.cmake) caps the instruction set of the SIMD paths so that tools
// without AVX-512, valgrind among them, can run them: the target Highway compiled the fast paths
// for must be at most the cap this build was configured with (POSLAB_SIMD_CAP, from CMake).
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstdint>
#include <string>

#include "poslab/fast/fast.hpp"

namespace {

// Highway's target bit for a name it prints, or 0.
std::int64_t target_bit(const std::string& name) {
  for (int bit = 0; bit < 63; ++bit) {
    const std::int64_t target = std::int64_t{1} << bit;
    if (name == hwy::TargetName(target)) return target;
  }
  return 0;
}

TEST(SimdTargets, FastPathsAreCompiledAtMostForTheCap) {
  const std::string cap = POSLAB_SIMD_CAP;
  if (cap == "native") GTEST_SKIP() << "no cap configured (POSLAB_SIMD_MAX=native)";
  // The best Highway target each cap allows (a higher bit is a lesser target). baseline is the
  // compiler's default, which this file is compiled for: its own static target.
  const std::int64_t best = cap == "avx2" ? HWY_AVX2 : cap == "sse4" ? HWY_SSE4 : HWY_STATIC_TARGET;
  const std::string compiled = poslab::fast::simd_target();
  const std::int64_t bit = target_bit(compiled);
  ASSERT_NE(bit, 0) << "Highway names no target '" << compiled << "'";
  EXPECT_GE(bit, best) << "compiled for " << compiled << " under POSLAB_SIMD_MAX=" << cap;
}

}  // namespace

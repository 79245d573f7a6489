// Entry point of the GPU tests: skips the whole suite (ctest SKIP_RETURN_CODE 77) when there
// is no CUDA device, so machines without a GPU build the tests but do not run them.
#include <gtest/gtest.h>

#include <cstdio>

#include "poslab/cuda/runtime.hpp"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (poslab::cuda::device_count() == 0) {
    std::printf(
        "SKIPPED: no CUDA device found (driver missing or no GPU): the GPU tests need "
        "one; they were built but not run.\n");
    return 77;
  }
  return RUN_ALL_TESTS();
}

// Helpers for the GPU tests: one assertion that applies the tolerance policy of
// poslab/cuda/compare.hpp and names the worst element when it fails.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "poslab/cuda/compare.hpp"
#include "poslab/cuda/runtime.hpp"

namespace poslab::cuda::testing {

inline ::testing::AssertionResult Close(const std::vector<float>& got,
                                        const std::vector<float>& want, Tolerance tol) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure()
           << got.size() << " results for " << want.size() << " reference values";
  }
  const Comparison c = compare(got, want, tol);
  if (c.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << c.summary();
}

inline void Sync() { check(cudaDeviceSynchronize(), "kernel"); }

}  // namespace poslab::cuda::testing

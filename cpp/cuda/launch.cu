// Launch sizes and shared size checks, and the empty kernel that measures launch overhead.
#include <cuda_runtime.h>

#include <string>

#include "launch.hpp"
#include "poslab/base/tensor.hpp"
#include "poslab/cuda/runtime.hpp"

namespace poslab::cuda {

namespace {
__global__ void empty_kernel() {}
}  // namespace

void launch_empty_kernel(cudaStream_t stream) {
  empty_kernel<<<1, 32, 0, stream>>>();
  check_launch("empty_kernel");
}

namespace detail {

int multiprocessor_count() {
  static const int count = [] {
    int device = 0, n = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device),
          "cudaDeviceGetAttribute(multiprocessors)");
    return n;
  }();
  return count;
}

long long bias_elements(long long num_heads, long long query_length, long long key_length,
                        const char* what) {
  require(num_heads >= 1 && num_heads <= 65536,
          "heads must be in [1, 65536] (got " + std::to_string(num_heads) + ")");
  require(query_length >= 0 && key_length >= 0, "lengths must be non-negative");
  return static_cast<long long>(
      checked_numel({std::size_t(num_heads), std::size_t(query_length), std::size_t(key_length)},
                    std::string(what) + " (H, Lq, Lk)"));
}

}  // namespace detail
}  // namespace poslab::cuda

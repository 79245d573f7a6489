// Launch-size helpers, and the empty kernel that measures launch overhead.
#include <cuda_runtime.h>

#include "launch.hpp"
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

}  // namespace detail
}  // namespace poslab::cuda

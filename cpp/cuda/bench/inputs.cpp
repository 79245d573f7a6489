// Random inputs (splitmix64 of seed and index) and partial downloads.
#include "inputs.hpp"

#include <cuda_runtime_api.h>

#include "poslab/cuda/runtime.hpp"

namespace poslab::cuda::bench {

std::vector<float> random_uniform(std::size_t n, std::uint64_t seed) {
  std::vector<float> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 1;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    out[i] = float(double(z >> 40) * 0x1.0p-23 - 1.0);  // 24 random bits → [−1, 1)
  }
  return out;
}

std::vector<float> download_floats(const float* device, std::size_t n) {
  std::vector<float> out(n);
  check(cudaMemcpy(out.data(), device, n * sizeof(float), cudaMemcpyDeviceToHost),
        "cudaMemcpy to host");
  return out;
}

}  // namespace poslab::cuda::bench

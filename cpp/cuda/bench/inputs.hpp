// Benchmark inputs: reproducible random values, and copies of parts of device tensors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace poslab::cuda::bench {

// n values uniform in [−1, 1) from a counter-based hash (seed, index): cheap at 10^8 values.
std::vector<float> random_uniform(std::size_t n, std::uint64_t seed);

// n float32 values from device memory at `device`.
std::vector<float> download_floats(const float* device, std::size_t n);

}  // namespace poslab::cuda::bench

// A seeded generator that gives the same numbers on every platform (native, wasm, CUDA
// host), which std::normal_distribution does not promise. Learned and Shaw tables and the
// random projections of the playground are drawn from it.
#pragma once

#include <cstdint>

namespace poslab {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}

  // SplitMix64 (Steele, Lea, Flood 2014): 64 random bits.
  std::uint64_t next_u64();
  // Uniform in [0, 1) with 53 random bits.
  double uniform();
  // Standard normal by Box-Muller (both outputs used, so pairs of calls are consumed).
  double normal();

 private:
  std::uint64_t state_;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

}  // namespace poslab

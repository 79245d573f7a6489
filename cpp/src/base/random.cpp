// A portable seeded generator: SplitMix64 bits, uniform doubles, Box-Muller normals.
#include "poslab/base/random.hpp"

#include <cmath>

#include "poslab/positions/formulas.hpp"

namespace poslab {

std::uint64_t Rng::next_u64() {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double Rng::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

double Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  // 1 − u is in (0, 1], so the log is finite.
  const double radius = std::sqrt(-2.0 * std::log(1.0 - uniform()));
  const double theta = 2.0 * formulas::kPi * uniform();
  spare_ = radius * std::sin(theta);
  has_spare_ = true;
  return radius * std::cos(theta);
}

}  // namespace poslab

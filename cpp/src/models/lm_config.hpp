// The checks every language-model config (GPT-2's, GPT-NeoX's) runs before any weight is
// allocated: the norm epsilon, and the parameter count, counted with saturating arithmetic
// (it is compared with a cap, so "huge" is all it must say) and held under the cap.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "poslab/base/errors.hpp"

namespace poslab::lm_config {

inline std::uint64_t mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}
inline std::uint64_t add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}
// A config's size as a count: 0 for a size validate() refuses.
inline std::uint64_t count(long long v) { return v > 0 ? std::uint64_t(v) : 0; }

// `key` (layer_norm_epsilon, layer_norm_eps) must be finite and >= 0.
inline void require_eps(double eps, const char* key) {
  require(std::isfinite(eps) && eps >= 0.0,
          std::string(key) + " must be a non-negative finite number");
}

inline void require_parameter_cap(std::uint64_t parameters, std::uint64_t cap) {
  require(parameters <= cap, "the model would have " + std::to_string(parameters) +
                                 " parameters; the limit is " + std::to_string(cap));
}

}  // namespace poslab::lm_config

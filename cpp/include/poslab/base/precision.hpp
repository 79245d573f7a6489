// Which arithmetic a model's forward pass runs in. Float is the default everywhere (CLI, JS
// API, page): float32 storage and float32 SIMD products (poslab::fast::gemm, fast::attention).
// Double is the readable reference the float path is checked against: float32 storage, every
// product accumulated in double.
#pragma once

#include <string>

#include "poslab/base/names.hpp"

namespace poslab {

enum class Precision { kFloat, kDouble };
inline constexpr Named<Precision> kPrecisionNames[] = {{Precision::kFloat, "float"},
                                                       {Precision::kDouble, "double"}};

// Error with field "precision" for any other name.
inline Precision parse_precision(const std::string& name) {
  return parse_name(kPrecisionNames, name, "precision", "precision");
}
inline const char* to_string(Precision precision) { return name_of(kPrecisionNames, precision); }

}  // namespace poslab

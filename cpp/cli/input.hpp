// The CLI's input arrays: read by the core's .npy reader, then held to the core's finiteness
// rule with the file named, so a NaN is reported as "q.npy[0, 3] is NaN", not by its role.
#pragma once

#include <string>

#include "poslab/base/tensor.hpp"

namespace poslab::cli {

// `rule`: kAllowNegativeInfinity for inputs where −inf means "hidden" (a bias, a mask).
TensorF read_input(const std::string& path, NonFinite rule = NonFinite::kRefuse);

}  // namespace poslab::cli

// One benchmark result and its JSON form (the schema the playground plots and that
// bench/cuda/torch_baseline.py also writes).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "device_info.hpp"
#include "poslab/cuda/compare.hpp"
#include "timing.hpp"

namespace poslab::cuda::bench {

struct Record {
  std::string kernel;     // "sinusoidal" | "rope" | "alibi" | "t5" | "attention"
  std::string variant;    // "1-naive", "2-flash", ...
  std::string dtype;      // "fp32" | "fp16" | "bf16"
  nlohmann::json shape;   // named sizes, e.g. {"B":4,"H":16,"Lq":4096,"Lk":4096,"d":128}
  nlohmann::json params;  // layout, style, mask, ...
  Timing timing;
  double bytes = 0.0;  // bytes a perfect kernel must move (0 when compute-bound)
  Timing copy;         // the roofline: a device-to-device copy moving `bytes` (read + write)
  double flops = 0.0;  // useful matrix FLOPs (0 when memory-bound)
  Comparison check;    // against the CPU reference core
  Tolerance tolerance{0.0, 0.0};
  std::string validated_on;  // which part of the output was compared
};

nlohmann::json to_json(const Record& r, const DeviceInfo& device);

// One line for the console: kernel, variant, shape, median, rate, % of peak, error.
std::string console_line(const Record& r, const DeviceInfo& device);

}  // namespace poslab::cuda::bench

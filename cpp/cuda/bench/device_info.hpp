// What the benchmark runs on, and the peaks its results are divided by.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace poslab::cuda::bench {

struct DeviceInfo {
  std::string name;
  std::string driver;       // kernel-module version ("580.159.04"), or the CUDA driver API
  int cuda_driver_api = 0;  // cudaDriverGetVersion, e.g. 13000
  int cuda_runtime = 0;     // cudaRuntimeGetVersion
  int cc_major = 0, cc_minor = 0;
  int multiprocessors = 0;
  long long memory_clock_khz = 0;
  int memory_bus_bits = 0;
  double peak_bandwidth_gbs = 0.0;  // 2 (DDR) · memory clock · bus width / 8
  double peak_tensor_tflops = 0.0;  // dense fp16/bf16 with float32 accumulation
  std::string peak_tensor_source;
};

DeviceInfo query_device();
nlohmann::json to_json(const DeviceInfo& info);

}  // namespace poslab::cuda::bench

// Device name, driver and peaks. The bandwidth peak is computed from the memory clock and bus
// width the driver reports; the tensor peak is the datasheet figure where the board is known.
#include "device_info.hpp"

#include <cuda_runtime_api.h>

#include <cctype>
#include <fstream>
#include <sstream>

#include "poslab/cuda/runtime.hpp"

namespace poslab::cuda::bench {
namespace {

int attribute(cudaDeviceAttr what, int device) {
  int value = 0;
  check(cudaDeviceGetAttribute(&value, what, device), "cudaDeviceGetAttribute");
  return value;
}

// The first word shaped like a version ("580.159.04") of the first line of
// /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64 ...").
std::string kernel_module_version() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (!std::getline(in, line)) return "";
  std::istringstream words(line);
  std::string word;
  while (words >> word) {
    const bool version = std::isdigit(static_cast<unsigned char>(word[0])) &&
                         word.find('.') != std::string::npos &&
                         word.find_first_not_of("0123456789.") == std::string::npos;
    if (version) return word;
  }
  return "";
}

}  // namespace

DeviceInfo query_device() {
  DeviceInfo info;
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  info.name = prop.name;
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.multiprocessors = prop.multiProcessorCount;
  check(cudaDriverGetVersion(&info.cuda_driver_api), "cudaDriverGetVersion");
  check(cudaRuntimeGetVersion(&info.cuda_runtime), "cudaRuntimeGetVersion");
  info.driver = kernel_module_version();
  if (info.driver.empty()) info.driver = "CUDA driver API " + std::to_string(info.cuda_driver_api);

  // CUDA 13 dropped the clock fields from cudaDeviceProp: read them as attributes.
  info.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, device);
  info.memory_bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device);
  info.peak_bandwidth_gbs =
      2.0 * double(info.memory_clock_khz) * 1e3 * double(info.memory_bus_bits) / 8.0 / 1e9;

  const std::string& n = info.name;
  const bool h100_sxm = n.find("H100") != std::string::npos &&
                        (n.find("HBM3") != std::string::npos || n.find("SXM") != std::string::npos);
  if (h100_sxm || n.find("H200") != std::string::npos) {
    info.peak_tensor_tflops = 989.4;
    info.peak_tensor_source =
        "NVIDIA H100/H200 SXM datasheet: 989 TFLOP/s dense fp16/bf16 tensor (no sparsity)";
  } else {
    // Hopper issues 4096 dense fp16 FLOP per clock per multiprocessor (1024 on Ampere).
    const int per_clock = info.cc_major >= 9 ? 4096 : 1024;
    const double clock_khz = attribute(cudaDevAttrClockRate, device);
    info.peak_tensor_tflops = info.multiprocessors * clock_khz * 1e3 * per_clock / 1e12;
    info.peak_tensor_source = "estimate: multiprocessors x boost clock x " +
                              std::to_string(per_clock) + " dense fp16 FLOP/clock";
  }
  return info;
}

nlohmann::json to_json(const DeviceInfo& d) {
  return {{"name", d.name},
          {"driver", d.driver},
          {"cuda_driver_api", d.cuda_driver_api},
          {"cuda_runtime", d.cuda_runtime},
          {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
          {"multiprocessors", d.multiprocessors},
          {"memory_clock_khz", d.memory_clock_khz},
          {"memory_bus_bits", d.memory_bus_bits},
          {"peak_bandwidth_gbs", d.peak_bandwidth_gbs},
          {"peak_bandwidth_source", "2 x memory clock x bus width / 8 (cudaDeviceGetAttribute)"},
          {"peak_tensor_tflops", d.peak_tensor_tflops},
          {"peak_tensor_source", d.peak_tensor_source}};
}

}  // namespace poslab::cuda::bench

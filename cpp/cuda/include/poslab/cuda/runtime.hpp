// Host-side plumbing shared by the CUDA kernels, the GPU tests and poslab-bench-cuda: storage
// types, CUDA error checks that throw poslab::Error, and an owning device buffer.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "poslab/base/errors.hpp"
#include "poslab/base/names.hpp"

namespace poslab::cuda {

// Storage type of a tensor on the device. Arithmetic is float32 (or double) whatever the
// storage: fp16/bf16 only halve the bytes moved and feed the tensor cores.
enum class DType { kF32, kF16, kBF16 };

inline constexpr Named<DType> kDTypeNames[] = {
    {DType::kF32, "fp32"}, {DType::kF16, "fp16"}, {DType::kBF16, "bf16"}};
const char* dtype_name(DType t);  // name_of(kDTypeNames, t)
std::size_t dtype_size(DType t);  // 4 | 2 | 2

// Throws poslab::Error("<what>: <CUDA error string>") unless `status` is cudaSuccess.
void check(cudaError_t status, const char* what);

// Throws if the last kernel launch failed (a bad configuration is reported at launch).
void check_launch(const char* kernel);

// Number of usable CUDA devices; 0 when there is no driver or no GPU (never throws).
int device_count();

// Launches a kernel that does nothing: poslab-bench-cuda times it to state the launch
// overhead that every per-launch timing includes.
void launch_empty_kernel(cudaStream_t stream = nullptr);

// An owning cudaMalloc'd buffer of raw bytes. Move-only.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }

  void upload(const void* host, std::size_t bytes);
  void download(void* host, std::size_t bytes) const;

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// float32 values in `dtype` storage (round to nearest even), and back. The GPU tests and the
// benchmark feed the CPU reference the rounded values, so only kernel arithmetic is measured.
std::vector<std::uint16_t> to_half_bits(const std::vector<float>& x, DType dtype);
std::vector<float> from_half_bits(const std::vector<std::uint16_t>& x, DType dtype);

// Uploads float32 host values as `dtype` into a fresh buffer; `rounded` (if given) receives the
// values the device holds, as float32.
DeviceBuffer upload_as(const std::vector<float>& x, DType dtype, std::vector<float>* rounded);

// Downloads n elements of `dtype` storage as float32.
std::vector<float> download_as_float(const DeviceBuffer& buffer, std::size_t n, DType dtype);

}  // namespace poslab::cuda

// Host plumbing: CUDA error checks, the owning device buffer, fp16/bf16 host conversions.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <utility>

#include "poslab/cuda/runtime.hpp"

namespace poslab::cuda {

const char* dtype_name(DType t) { return name_of(kDTypeNames, t); }

std::size_t dtype_size(DType t) { return t == DType::kF32 ? 4 : 2; }

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw Error(std::string(what) + ": " + cudaGetErrorString(status));
  }
}

void check_launch(const char* kernel) {
  check(cudaGetLastError(), (std::string("launch of ") + kernel).c_str());
}

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error for later calls
    return 0;
  }
  return n;
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes) check(cudaMalloc(&ptr_, bytes), "cudaMalloc");
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cudaFree(ptr_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (ptr_) cudaFree(ptr_);
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::upload(const void* host, std::size_t bytes) {
  require(bytes <= bytes_, "upload larger than the device buffer");
  check(cudaMemcpy(ptr_, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to device");
}

void DeviceBuffer::download(void* host, std::size_t bytes) const {
  require(bytes <= bytes_, "download larger than the device buffer");
  check(cudaMemcpy(host, ptr_, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy to host");
}

std::vector<std::uint16_t> to_half_bits(const std::vector<float>& x, DType dtype) {
  std::vector<std::uint16_t> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (dtype == DType::kF16) {
      out[i] = static_cast<__half_raw>(__float2half_rn(x[i])).x;
    } else {
      out[i] = static_cast<__nv_bfloat16_raw>(__float2bfloat16_rn(x[i])).x;
    }
  }
  return out;
}

std::vector<float> from_half_bits(const std::vector<std::uint16_t>& x, DType dtype) {
  std::vector<float> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (dtype == DType::kF16) {
      __half_raw raw;
      raw.x = x[i];
      out[i] = __half2float(__half(raw));
    } else {
      __nv_bfloat16_raw raw;
      raw.x = x[i];
      out[i] = __bfloat162float(__nv_bfloat16(raw));
    }
  }
  return out;
}

DeviceBuffer upload_as(const std::vector<float>& x, DType dtype, std::vector<float>* rounded) {
  DeviceBuffer buffer(x.size() * dtype_size(dtype));
  if (dtype == DType::kF32) {
    buffer.upload(x.data(), x.size() * 4);
    if (rounded) *rounded = x;
  } else {
    const std::vector<std::uint16_t> bits = to_half_bits(x, dtype);
    buffer.upload(bits.data(), bits.size() * 2);
    if (rounded) *rounded = from_half_bits(bits, dtype);
  }
  return buffer;
}

std::vector<float> download_as_float(const DeviceBuffer& buffer, std::size_t n, DType dtype) {
  if (dtype == DType::kF32) {
    std::vector<float> out(n);
    buffer.download(out.data(), n * 4);
    return out;
  }
  std::vector<std::uint16_t> bits(n);
  buffer.download(bits.data(), n * 2);
  return from_half_bits(bits, dtype);
}

}  // namespace poslab::cuda

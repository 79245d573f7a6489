// A weight as its checkpoint stored it. Half precision stays half in memory — half the bytes
// of float32, which is what lets GPT-2 medium fit the browser's memory — and is widened
// exactly (every half is a float) each time it is read.
#pragma once

#include <cstdint>
#include <vector>

#include "poslab/base/tensor.hpp"

namespace poslab {

enum class StoredDType { kF32, kF16 };

// "F32" | "F16"
const char* dtype_name(StoredDType dtype);
// Bytes per element: 4 | 2.
std::size_t item_size(StoredDType dtype);

// Half-precision bits ↔ float: exact widening; narrowing rounds to nearest even.
float half_to_float(std::uint16_t bits);
std::uint16_t float_to_half(float value);

struct StoredTensor {
  Shape shape;
  StoredDType dtype = StoredDType::kF32;
  std::vector<float> f32;          // the elements when dtype is F32
  std::vector<std::uint16_t> f16;  // the elements when dtype is F16

  StoredTensor() = default;
  // Zero-filled, size checked first; `what` names it in the message.
  StoredTensor(Shape s, StoredDType d, const std::string& what);
  // `values` stored as `d` (F16 rounds to nearest even).
  static StoredTensor from(const TensorF& values, StoredDType d = StoredDType::kF32);

  std::size_t size() const { return dtype == StoredDType::kF16 ? f16.size() : f32.size(); }
  std::size_t dim(std::size_t axis) const { return shape.at(axis); }
  std::size_t bytes() const { return size() * item_size(dtype); }
  // The raw little-endian element bytes (what a .safetensors buffer holds).
  char* raw();
  const char* raw() const;

  float at(std::size_t i) const {
    return dtype == StoredDType::kF16 ? half_to_float(f16[i]) : f32[i];
  }
  // Elements [begin, begin + n) widened into out.
  void widen(std::size_t begin, std::size_t n, double* out) const;
  void widen(std::size_t begin, std::size_t n, float* out) const;
  TensorF to_float() const;
};

}  // namespace poslab

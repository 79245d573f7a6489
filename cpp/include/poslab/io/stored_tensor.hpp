// A weight as its checkpoint stored it. Half precision stays half in memory — half the bytes
// of float32, which is what lets GPT-2 medium fit the browser's memory — and is widened
// exactly (every half is a float) each time it is read. BF16 (what most Hugging Face
// checkpoints ship) is widened to float32 once, as it is read: its 16 bits are the high half of
// the float's, so that is exact, and every kernel keeps seeing F32 or F16 only. (It is not
// narrowed to F16: BF16 has float32's exponent range, and values past 65504 would overflow.)
#pragma once

#include <cstdint>
#include <vector>

#include "poslab/base/tensor.hpp"

namespace poslab {

// A checkpoint tensor's dtype. kBF16 names the file's bytes only: a StoredTensor holds F32
// or F16, and a BF16 one is held as F32 (memory_dtype).
enum class StoredDType { kF32, kF16, kBF16 };

// "F32" | "F16" | "BF16"
const char* dtype_name(StoredDType dtype);
// Bytes per element: 4 | 2 | 2.
std::size_t item_size(StoredDType dtype);
// The dtype a tensor stored as `dtype` is held in: F32 for BF16, else `dtype`.
StoredDType memory_dtype(StoredDType dtype);

// Half-precision bits ↔ float: exact widening; narrowing rounds to nearest even.
float half_to_float(std::uint16_t bits);
std::uint16_t float_to_half(float value);
// bfloat16 bits ↔ float: widening is exact (the bits become the float's high half); narrowing
// rounds to nearest even (past the largest bfloat16 to ±infinity; NaN stays a quiet NaN).
float bfloat16_to_float(std::uint16_t bits);
std::uint16_t float_to_bfloat16(float value);

struct StoredTensor {
  Shape shape;
  StoredDType dtype = StoredDType::kF32;
  std::vector<float> f32;          // the elements when dtype is F32
  std::vector<std::uint16_t> f16;  // the elements when dtype is F16

  StoredTensor() = default;
  // Zero-filled, size checked first; `what` names it in the message. `d` is F32 or F16.
  StoredTensor(Shape s, StoredDType d, const std::string& what);
  // `values` stored as `d`, F32 or F16 (F16 rounds to nearest even).
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

// A weight as its checkpoint stored it. The 16-bit dtypes stay 16-bit in memory — half the
// bytes of float32, which is what lets GPT-2 medium and Qwen2.5-0.5B fit the browser's
// memory — and are widened exactly (every half and every bfloat16 is a float) each time they
// are read, a panel at a time. (BF16, what most Hugging Face checkpoints ship, is never
// narrowed to F16: it has float32's exponent range, and values past 65504 would overflow.)
#pragma once

#include <cstdint>
#include <vector>

#include "poslab/base/tensor.hpp"

namespace poslab {

// A checkpoint tensor's dtype, which is also the dtype it is held in.
enum class StoredDType { kF32, kF16, kBF16 };

// "F32" | "F16" | "BF16"
const char* dtype_name(StoredDType dtype);
// Bytes per element: 4 | 2 | 2.
std::size_t item_size(StoredDType dtype);

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
  std::vector<float> f32;             // the elements when dtype is F32
  std::vector<std::uint16_t> bits16;  // the elements' bits when dtype is F16 or BF16

  StoredTensor() = default;
  // Zero-filled, size checked first; `what` names it in the message.
  StoredTensor(Shape s, StoredDType d, const std::string& what);
  // `values` stored as `d` (F16 and BF16 round to nearest even).
  static StoredTensor from(const TensorF& values, StoredDType d = StoredDType::kF32);

  std::size_t size() const { return dtype == StoredDType::kF32 ? f32.size() : bits16.size(); }
  std::size_t dim(std::size_t axis) const { return shape.at(axis); }
  std::size_t bytes() const { return size() * item_size(dtype); }
  // The raw little-endian element bytes (what a .safetensors buffer holds).
  char* raw();
  const char* raw() const;

  float at(std::size_t i) const {
    switch (dtype) {
      case StoredDType::kF16:
        return half_to_float(bits16[i]);
      case StoredDType::kBF16:
        return bfloat16_to_float(bits16[i]);
      case StoredDType::kF32:
        break;
    }
    return f32[i];
  }
  // Elements [begin, begin + n) widened into out.
  void widen(std::size_t begin, std::size_t n, double* out) const;
  void widen(std::size_t begin, std::size_t n, float* out) const;
  TensorF to_float() const;
};

// The transpose of a 2-D tensor, (r, c) → (c, r), in its own dtype (bits copied unchanged).
StoredTensor transposed(const StoredTensor& t);

}  // namespace poslab

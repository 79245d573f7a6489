// StoredTensor and the half-precision and bfloat16 conversions.
#include "poslab/io/stored_tensor.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "poslab/base/errors.hpp"

namespace poslab {

const char* dtype_name(StoredDType dtype) {
  switch (dtype) {
    case StoredDType::kF16:
      return "F16";
    case StoredDType::kBF16:
      return "BF16";
    case StoredDType::kF32:
      break;
  }
  return "F32";
}

std::size_t item_size(StoredDType dtype) { return dtype == StoredDType::kF32 ? 4 : 2; }

namespace {

float float_of_bits(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

std::uint32_t bits_of_float(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

}  // namespace

float half_to_float(std::uint16_t bits) {
  const std::uint32_t sign = std::uint32_t(bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1fu;
  std::uint32_t mantissa = bits & 0x3ffu;
  std::uint32_t out;
  if (exponent == 0x1f) {  // infinity or NaN (payload kept)
    out = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {  // normal: rebias 15 → 127
    out = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {  // ±0
    out = sign;
  } else {  // subnormal half m·2^-24 is a normal float: shift the leading 1 into place
    int e = -1;
    do {
      ++e;
      mantissa <<= 1;
    } while ((mantissa & 0x400u) == 0);
    out = sign | std::uint32_t(112 - e) << 23 | ((mantissa & 0x3ffu) << 13);
  }
  return float_of_bits(out);
}

std::uint16_t float_to_half(float value) {
  const std::uint32_t x = bits_of_float(value);
  const std::uint16_t sign = std::uint16_t((x >> 16) & 0x8000u);
  const std::uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // infinity, or NaN kept quiet
    return sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u);
  }
  if (abs >= 0x477ff000u) return sign | 0x7c00u;    // rounds past 65504: infinity
  if (abs < 0x38800000u) {                          // below 2^-14: subnormal half (or zero)
    if (abs < 0x33000000u) return sign;             // under half the smallest subnormal
    const std::uint32_t shift = 126 - (abs >> 23);  // 14..24 when the exponent is 102..112
    const std::uint32_t m = (abs & 0x7fffffu) | 0x800000u;
    std::uint32_t half = m >> shift;
    const std::uint32_t rest = m & ((1u << shift) - 1);
    const std::uint32_t midpoint = 1u << (shift - 1);
    if (rest > midpoint || (rest == midpoint && (half & 1u))) ++half;
    return sign | std::uint16_t(half);
  }
  // Normal: rebias and round the 13 dropped bits to nearest even (a carry may bump the
  // exponent, which is still right).
  std::uint32_t half = ((abs >> 13) - (112u << 10));
  const std::uint32_t rest = abs & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
  return sign | std::uint16_t(half);
}

float bfloat16_to_float(std::uint16_t bits) { return float_of_bits(std::uint32_t(bits) << 16); }

std::uint16_t float_to_bfloat16(float value) {
  std::uint32_t x = bits_of_float(value);
  // NaN: truncated, with the quiet bit set so that no payload truncates to infinity.
  if ((x & 0x7fffffffu) > 0x7f800000u) return std::uint16_t((x >> 16) | 0x40u);
  // Round the 16 dropped bits to nearest even; a carry into the exponent is still right, and
  // past the largest bfloat16 it gives infinity.
  x += 0x7fffu + ((x >> 16) & 1u);
  return std::uint16_t(x >> 16);
}

StoredTensor::StoredTensor(Shape s, StoredDType d, const std::string& what)
    : shape(std::move(s)), dtype(d) {
  const std::size_t n = checked_numel(shape, what, kMaxWeightElements);
  if (dtype == StoredDType::kF32) {
    f32.resize(n);
  } else {
    bits16.resize(n);
  }
}

StoredTensor StoredTensor::from(const TensorF& values, StoredDType d) {
  StoredTensor t;
  t.shape = values.shape;
  t.dtype = d;
  if (d == StoredDType::kF32) {
    t.f32 = values.data;
    return t;
  }
  std::uint16_t (*const narrow)(float) =
      d == StoredDType::kBF16 ? float_to_bfloat16 : float_to_half;
  t.bits16.resize(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) t.bits16[i] = narrow(values.data[i]);
  return t;
}

char* StoredTensor::raw() {
  return dtype == StoredDType::kF32 ? reinterpret_cast<char*>(f32.data())
                                    : reinterpret_cast<char*>(bits16.data());
}

const char* StoredTensor::raw() const { return const_cast<StoredTensor*>(this)->raw(); }

namespace {

// Every forward pass widens every weight: one lookup per half instead of bit surgery.
const std::vector<float>& half_table() {
  static const std::vector<float> table = [] {
    std::vector<float> t(65536);
    for (std::uint32_t bits = 0; bits < t.size(); ++bits) t[bits] = half_to_float(bits);
    return t;
  }();
  return table;
}

template <class T>
void widen_into(const StoredTensor& w, std::size_t begin, std::size_t n, T* out) {
  switch (w.dtype) {
    case StoredDType::kF16: {
      const std::vector<float>& table = half_table();
      const std::uint16_t* bits = w.bits16.data() + begin;
      for (std::size_t i = 0; i < n; ++i) out[i] = table[bits[i]];
      return;
    }
    case StoredDType::kBF16: {  // the bits are the float's high half: a shift, vectorised
      const std::uint16_t* bits = w.bits16.data() + begin;
      for (std::size_t i = 0; i < n; ++i) out[i] = bfloat16_to_float(bits[i]);
      return;
    }
    case StoredDType::kF32:
      break;
  }
  std::copy_n(w.f32.data() + begin, n, out);
}

}  // namespace

void StoredTensor::widen(std::size_t begin, std::size_t n, double* out) const {
  widen_into(*this, begin, n, out);
}

void StoredTensor::widen(std::size_t begin, std::size_t n, float* out) const {
  widen_into(*this, begin, n, out);
}

namespace {

// out (c, r) = in (r, c)ᵀ in square tiles, so that both sides stay in cache: a column walk of
// a row-major matrix with rows kilobytes apart would miss on every element. Each output row's
// run is written whole: on GPT-2's shapes 16 × 16 tiles written this way took 1.1–2.1 ns an
// element natively, 32 × 32 read row by row 2.0–6.8.
template <class T>
void transpose_into(const std::vector<T>& in, std::size_t r, std::size_t c, std::vector<T>& out) {
  constexpr std::size_t kTile = 16;
  out.resize(in.size());
  for (std::size_t i0 = 0; i0 < r; i0 += kTile) {
    for (std::size_t j0 = 0; j0 < c; j0 += kTile) {
      const std::size_t i1 = std::min(r, i0 + kTile), j1 = std::min(c, j0 + kTile);
      for (std::size_t j = j0; j < j1; ++j) {
        for (std::size_t i = i0; i < i1; ++i) out[j * r + i] = in[i * c + j];
      }
    }
  }
}

}  // namespace

StoredTensor transposed(const StoredTensor& t) {
  require(t.shape.size() == 2, "transposed: a 2-D tensor is needed, not " + shape_string(t.shape));
  StoredTensor out;
  out.shape = {t.shape[1], t.shape[0]};
  out.dtype = t.dtype;
  if (t.dtype == StoredDType::kF32) {
    transpose_into(t.f32, t.shape[0], t.shape[1], out.f32);
  } else {
    transpose_into(t.bits16, t.shape[0], t.shape[1], out.bits16);
  }
  return out;
}

TensorF StoredTensor::to_float() const {
  TensorF t(shape, "stored tensor");
  for (std::size_t i = 0; i < t.size(); ++i) t.data[i] = at(i);
  return t;
}

}  // namespace poslab

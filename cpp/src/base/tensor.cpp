// Size checks that run before any allocation, and shape formatting for messages.
#include "poslab/base/tensor.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace poslab {

std::size_t checked_numel(const Shape& shape, const std::string& what, std::size_t limit) {
  for (std::size_t axis = 0; axis < shape.size(); ++axis) {
    if (shape[axis] > limit) {
      throw Error(what + " " + shape_string(shape) + ": axis " + std::to_string(axis) + " has " +
                  std::to_string(shape[axis]) + " entries; the limit is " + std::to_string(limit));
    }
  }
  std::size_t n = 1;
  for (std::size_t d : shape) {
    if (d != 0 && n > std::numeric_limits<std::size_t>::max() / d) {
      throw Error(what + " " + shape_string(shape) + " is too large");
    }
    n *= d;
  }
  if (n > limit) {
    throw Error(what + " " + shape_string(shape) + " would have " + std::to_string(n) +
                " elements; the limit is " + std::to_string(limit));
  }
  return n;
}

std::string shape_string(const Shape& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

std::string index_string(const Shape& shape, std::size_t flat) {
  std::vector<std::size_t> index(shape.size());
  for (std::size_t axis = shape.size(); axis-- > 0;) {
    if (shape[axis] == 0) break;
    index[axis] = flat % shape[axis];
    flat /= shape[axis];
  }
  std::string out = "[";
  for (std::size_t i = 0; i < index.size(); ++i) out += (i ? ", " : "") + std::to_string(index[i]);
  return out + "]";
}

std::size_t first_non_finite(const float* x, std::size_t n) {
  constexpr std::size_t kBlock = 64;
  std::size_t start = 0;
  for (; start + kBlock <= n; start += kBlock) {
    // An all-ones exponent plus one exponent step carries into the sign bit.
    std::uint32_t carries = 0;
    for (std::size_t i = 0; i < kBlock; ++i) {
      std::uint32_t bits;
      std::memcpy(&bits, x + start + i, sizeof bits);
      carries |= (bits & 0x7f800000u) + 0x00800000u;
    }
    if (carries & 0x80000000u) break;
  }
  for (std::size_t i = start; i < n; ++i) {
    if (!std::isfinite(x[i])) return i;
  }
  return n;
}

void require_finite(const std::vector<float>& data, const Shape& shape, const std::string& what,
                    NonFinite rule) {
  const bool allow_neg_inf = rule == NonFinite::kAllowNegativeInfinity;
  // Past the first non-finite element, one by one (-inf may be allowed there).
  for (std::size_t n = first_non_finite(data.data(), data.size()); n < data.size(); ++n) {
    const float x = data[n];
    if (x - x == 0.0f || (allow_neg_inf && x == -std::numeric_limits<float>::infinity())) continue;
    const char* value = std::isnan(x) ? "NaN" : x > 0 ? "+inf" : "-inf";
    throw Error(what + index_string(shape, n) + " is " + value + ": inputs must be finite" +
                    (allow_neg_inf ? " (-inf is allowed: it hides a key)" : ""),
                what);
  }
}

std::size_t positive_size(long long value, const char* what, bool allow_zero, const char* field) {
  const std::string about = field ? field : "";
  if (value < 0 || (value == 0 && !allow_zero)) {
    throw Error(std::string(what) + " must be " + (allow_zero ? "non-negative" : "positive") +
                    " (got " + std::to_string(value) + ")",
                about);
  }
  // Anything over the element cap can never be allocated; refusing here keeps later
  // products of sizes far from overflow.
  if (static_cast<unsigned long long>(value) > kMaxElements) {
    throw Error(std::string(what) + " " + std::to_string(value) + " is too large (limit " +
                    std::to_string(kMaxElements) + ")",
                about);
  }
  return static_cast<std::size_t>(value);
}

}  // namespace poslab

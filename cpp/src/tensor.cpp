// Size checks that run before any allocation, and shape formatting for messages.
#include "poslab/tensor.hpp"

#include <limits>
#include <sstream>

namespace poslab {

std::size_t checked_numel(const Shape& shape, const std::string& what) {
  std::size_t n = 1;
  for (std::size_t d : shape) {
    if (d != 0 && n > std::numeric_limits<std::size_t>::max() / d) {
      throw Error(what + " " + shape_string(shape) + " is too large");
    }
    n *= d;
  }
  if (n > kMaxElements) {
    std::ostringstream message;
    message << what << " " << shape_string(shape) << " would have " << n
            << " elements; the limit is " << kMaxElements;
    throw Error(message.str());
  }
  return n;
}

std::string shape_string(const Shape& shape) {
  std::ostringstream out;
  out << '(';
  for (std::size_t i = 0; i < shape.size(); ++i) out << (i ? ", " : "") << shape[i];
  out << (shape.size() == 1 ? ",)" : ")");
  return out.str();
}

std::size_t positive_size(long long value, const char* what, bool allow_zero) {
  if (value < 0 || (value == 0 && !allow_zero)) {
    throw Error(std::string(what) + " must be " + (allow_zero ? "non-negative" : "positive") +
                " (got " + std::to_string(value) + ")");
  }
  // Anything over the element cap can never be allocated; refusing here keeps later
  // products of sizes far from overflow.
  if (static_cast<unsigned long long>(value) > kMaxElements) {
    throw Error(std::string(what) + " " + std::to_string(value) + " is too large (limit " +
                std::to_string(kMaxElements) + ")");
  }
  return static_cast<std::size_t>(value);
}

}  // namespace poslab

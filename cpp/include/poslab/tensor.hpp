// A dense, row-major (C order) tensor: the one container the core passes around, and the
// size checks that run before anything is allocated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "poslab/errors.hpp"

namespace poslab {

using Shape = std::vector<std::size_t>;

// The largest tensor the core will allocate: 2^28 elements (1 GiB of float32) natively; a
// build may lower it with -DPOSLAB_MAX_ELEMENTS (the wasm build does). Anything larger is
// refused with a message before allocation, so an absurd size never reaches `new`.
#ifndef POSLAB_MAX_ELEMENTS
#define POSLAB_MAX_ELEMENTS (std::size_t{1} << 28)
#endif
inline constexpr std::size_t kMaxElements = POSLAB_MAX_ELEMENTS;

// Product of `shape`, or Error if it overflows or exceeds kMaxElements. `what` names the
// tensor in the message ("attention weights (H,Lq,Lk)").
std::size_t checked_numel(const Shape& shape, const std::string& what);

// "(8, 512, 64)"
std::string shape_string(const Shape& shape);

template <class T>
struct Tensor {
  Shape shape;
  std::vector<T> data;

  Tensor() = default;
  // Zero-filled tensor of `shape`; the size is checked first.
  explicit Tensor(Shape s, const std::string& what = "tensor")
      : shape(std::move(s)), data(checked_numel(shape, what)) {}
  Tensor(Shape s, std::vector<T> values) : shape(std::move(s)), data(std::move(values)) {
    require(data.size() == checked_numel(shape, "tensor"),
            "tensor data size does not match its shape " + shape_string(shape));
  }

  std::size_t ndim() const { return shape.size(); }
  std::size_t size() const { return data.size(); }
  std::size_t dim(std::size_t axis) const { return shape.at(axis); }
  T* ptr() { return data.data(); }
  const T* ptr() const { return data.data(); }
};

using TensorF = Tensor<float>;
using TensorI = Tensor<std::int32_t>;

// Sizes given by users are signed (a CLI may parse -3): this turns one into size_t, or
// throws "<what> must be positive (got -3)". `allow_zero` for lengths where 0 is meaningful.
std::size_t positive_size(long long value, const char* what, bool allow_zero = false);

}  // namespace poslab

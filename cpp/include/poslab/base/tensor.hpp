// A dense, row-major (C order) tensor: the one container the core passes around, and the
// size checks that run before anything is allocated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "poslab/base/errors.hpp"

namespace poslab {

using Shape = std::vector<std::size_t>;

// The largest tensor the core will allocate: 2^28 elements (1 GiB of float32) natively; a
// build may lower it with -DPOSLAB_MAX_ELEMENTS (the wasm build does). Anything larger is
// refused with a message before allocation, so an absurd size never reaches `new`.
#ifndef POSLAB_MAX_ELEMENTS
#define POSLAB_MAX_ELEMENTS (std::size_t{1} << 28)
#endif
inline constexpr std::size_t kMaxElements = POSLAB_MAX_ELEMENTS;
// A checkpoint's weight, held as stored (StoredTensor) and only ever read a panel at a time,
// may be larger than any tensor the core computes: Qwen2.5's vocabulary matrix (151936, 896)
// holds 136M elements, 272 MB in BF16. The model as a whole stays under its parameter cap.
inline constexpr std::size_t kMaxWeightElements = 4 * kMaxElements;

// Product of `shape`, or Error if any one axis or the product exceeds `limit`. Every axis is
// bounded on its own: with another axis 0 the product is 0, and a loop over the huge axis
// would still run for days. `what` names the tensor ("attention weights (H,Lq,Lk)").
std::size_t checked_numel(const Shape& shape, const std::string& what,
                          std::size_t limit = kMaxElements);

// "(8, 512, 64)"
std::string shape_string(const Shape& shape);

// The multi-index of flat element `flat` of `shape`: "[2, 0, 5]" ("[]" for a 0-d tensor).
std::string index_string(const Shape& shape, std::size_t flat);

// The one finiteness rule of the core: NaN and +inf are refused in every input; -inf only
// where it means "hidden" (an attention bias or mask).
enum class NonFinite { kRefuse, kAllowNegativeInfinity };

// The index of x's first NaN or ±inf, or n when every element is finite. Blocks of 64 are
// tested branch-free on the exponent bits (all ones: not finite), which compilers vectorise:
// the forward passes check every activation, and an element-by-element branch made the
// checks a tenth of a SmolLM2-135M forward in wasm.
std::size_t first_non_finite(const float* x, std::size_t n);

// Throws Error naming `what`, the first offending element's index and its value, e.g.
// "x.npy[3, 1] is NaN: inputs must be finite". The message is built only on failure.
// The error's field is `what`: the argument's name in the core and the JS API ("q", "bias").
void require_finite(const std::vector<float>& data, const Shape& shape, const std::string& what,
                    NonFinite rule = NonFinite::kRefuse);

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

inline void require_finite(const TensorF& tensor, const std::string& what,
                           NonFinite rule = NonFinite::kRefuse) {
  require_finite(tensor.data, tensor.shape, what, rule);
}

// Sizes given by users are signed (a CLI may parse -3): this turns one into size_t, or
// throws "<what> must be positive (got -3)". `allow_zero` for lengths where 0 is meaningful;
// `field` names the option in the error (Error::field), when there is one.
std::size_t positive_size(long long value, const char* what, bool allow_zero = false,
                          const char* field = nullptr);

}  // namespace poslab

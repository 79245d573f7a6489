// Input checks shared by a reference function and its fast path (src/fast/), so both
// accept exactly the same inputs and throw the same messages. Internal to the core.
#pragma once

#include <cstddef>

#include "poslab/base/tensor.hpp"
#include "poslab/layers/attention.hpp"

namespace poslab::detail {

// Checks of sinusoidal_table's arguments; returns (L, D).
struct SinusoidalDims {
  std::size_t L, D;
};
SinusoidalDims check_sinusoidal(long long length, long long dim, double base, long long offset);

// Checks of rope_apply's input shape and offset (the options are checked by
// rope_frequencies); returns (H, L, D), H = 1 for a 2-D input.
struct RopeDims {
  std::size_t H, L, D;
};
RopeDims check_rope_input(const TensorF& x, long long offset);

// Checks of attention's shapes, values and options; returns the sizes and the scale.
struct AttentionDims {
  std::size_t H, Lq, Lk, d, dv;
  double scale;
};
AttentionDims check_attention(const TensorF& q, const TensorF& k, const TensorF& v,
                              const AttentionOptions& options);

// attention's result before it is filled: the output, and the weights when asked, shaped as q
// is ((Lq, dv) and (Lq, Lk) for a 2-D q, with H in front for a 3-D one).
AttentionResult attention_result_shapes(const AttentionDims& n, bool two_d,
                                        const AttentionOptions& options);

}  // namespace poslab::detail

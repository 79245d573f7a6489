// Multi-head self-attention from x: project the whole width to Q, K, V, split into heads,
// optionally rotate (RopeOptions) or bias (a score-bias method) by position, attend, merge,
// project out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "poslab/base/names.hpp"
#include "poslab/base/tensor.hpp"
#include "poslab/layers/attention.hpp"
#include "poslab/positions/position_methods.hpp"
#include "poslab/positions/rope.hpp"
#include "poslab/positions/score_bias_tensor.hpp"

namespace poslab {

// Row-vector convention y = x·W + b: each W is (D_in, D_out) = (D, D); biases are (D,) or
// empty (none).
struct MultiHeadWeights {
  TensorF wq, wk, wv, wo;
  TensorF bq, bk, bv, bo;
};

// Seeded N(0, 1/D) projections (unit-variance outputs for unit-variance inputs), no biases.
MultiHeadWeights random_multihead_weights(long long model_dim, std::uint64_t seed = 0);

// The score biases of the one table (position_methods.hpp), and none: the JS API's
// multiHeadAttention bias.
using PositionBias = PositionMethod;
inline constexpr auto kPositionBiasNames = position_method_names<kSupportBias>();

// A name of kPositionBiasNames; Error with field "bias" otherwise.
PositionBias parse_position_bias(const std::string& name);

struct MultiHeadOptions {
  long long num_heads = 1;
  Mask mask;
  std::vector<std::uint8_t> key_padding;  // (L,), nonzero = padding
  std::vector<std::uint8_t>
      custom_mask;                  // (L, L), nonzero = key j hidden from query i; empty = none
  std::optional<RopeOptions> rope;  // rotate Q and K per head at positions 0..L−1
  ScoreBias bias;                   // method kNone: no bias
  std::optional<double> scale;      // default 1/√d, d = D/H
};

struct MultiHeadResult {
  TensorF output;   // (L, D)
  TensorF weights;  // (H, L, L)
  TensorF scores;   // (H, L, L) q·k·scale + bias before the softmax, −∞ where hidden
  TensorF q, k, v;  // (H, L, d) per head, Q and K after the rotation
  TensorF heads;    // (H, L, d) each head's weights · v, before merging and the output projection
  TensorF bias;     // (H, L, L) position bias added to the scores, empty if none
};

// x (L, D), D divisible by H.
MultiHeadResult multihead_attention(const TensorF& x, const MultiHeadWeights& weights,
                                    const MultiHeadOptions& options);

}  // namespace poslab

// A score-bias method as the core's callers give it (the CLI, the JS API, multi-head attention):
// the method, its table options and its parameters, and the (H, Lq, Lk) bias it adds to the
// scores, evaluated from the method's one term (score_bias.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "poslab/base/tensor.hpp"
#include "poslab/positions/position_methods.hpp"

namespace poslab {

struct ScoreBias {
  PositionMethod method = PositionMethod::kNone;
  // The table's options in the row's order (T5's numBuckets, maxDistance); score_bias_defaults
  // fills them.
  std::array<double, 2> options{};
  // The term's parameters in its layout (its kTensors in order, score_bias.hpp); empty: drawn
  // from `seed` as score_bias_parameters says.
  std::vector<float> parameters;
  std::uint64_t seed = 0;
  bool bidirectional = false;  // keys after the query are seen (T5's encoder buckets)
};

// `method` at its table defaults, seed 0, no parameters given.
ScoreBias score_bias_defaults(PositionMethod method);

// The parameters `bias` evaluates with for H heads, checked (Error naming the option): given
// ones must have the term's size and be finite; otherwise each tensor is drawn from `seed` as
// the trainer starts it (a normal table at std 1 instead, so its pattern shows), and an option
// the term ties to a tensor sets all of it when > 0 (the row's range checked).
std::vector<float> score_bias_parameters(const ScoreBias& bias, long long num_heads);

// Bias[h,i,j] = b_h(p_i, j), (H, Lq, Lk), with query i at p_i = i + offset as the mask places it
// (mask.hpp); offsets beyond ±2^30 are refused, as the mask's are. Error for a method that is
// not a score bias (field "bias").
TensorF score_bias_tensor(const ScoreBias& bias, long long num_heads, long long query_length,
                          long long key_length, long long offset = 0);

// The same for queries and keys at the positions given, one per token in any order (the
// position lens's shuffled and constant positions): Bias[h,i,j] = b_h(p_i, p_j), (H, T, T).
TensorF score_bias_tensor(const ScoreBias& bias, long long num_heads,
                          const std::vector<long long>& positions);

}  // namespace poslab

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
  // The table's options in the row's order (T5: numBuckets, maxDistance; KERPLE: r1, r2);
  // score_bias_defaults fills them.
  std::array<double, 2> options{};
  // The term's parameters in its layout (T5: the (num_buckets, H) table; KERPLE: r1 (H), r2 (H));
  // empty: drawn from `seed` as score_bias_parameters says.
  std::vector<float> parameters;
  std::uint64_t seed = 0;
  bool bidirectional = false;  // keys after the query are seen (T5's encoder buckets)
};

// `method` at its table defaults, seed 0, no parameters given.
ScoreBias score_bias_defaults(PositionMethod method);

// The parameters `bias` evaluates with for H heads, checked (Error naming the option): given
// ones must have the term's size and be finite; otherwise T5 draws its table N(0, 1) (what T5
// learns, std 1 so the pattern shows), KERPLE takes r1 and r2 from its options where > 0 and
// else draws them U(0, 2) and U(0, 1) per head as the reference starts, raised to at least
// score_bias::kKerpleMin as the reference clamps them. ALiBi has none.
std::vector<float> score_bias_parameters(const ScoreBias& bias, long long num_heads);

// KERPLE's initial r1 (H) then r2 (H) for a seed (the trainer's first values too).
std::vector<float> kerple_initial(std::size_t heads, std::uint64_t seed);

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

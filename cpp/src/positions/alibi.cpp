// ALiBi's slopes, and its bias through the one term (score_bias.hpp).
#include "poslab/positions/alibi.hpp"

#include <cmath>

#include "poslab/positions/formulas.hpp"
#include "poslab/positions/score_bias_tensor.hpp"

namespace poslab {

namespace {

std::size_t checked_heads(long long num_heads) {
  const std::size_t H = positive_size(num_heads, "heads", false, "heads");
  require(H <= 65536, "heads",
          "heads must be at most 65536 (got " + std::to_string(num_heads) + ")");
  return H;
}

}  // namespace

// (H,).
TensorF alibi_slopes(long long num_heads) {
  const std::size_t H = checked_heads(num_heads);
  TensorF slopes({H});
  for (std::size_t h = 0; h < H; ++h) {
    slopes.data[h] = static_cast<float>(formulas::alibi_slope(int(h), int(H)));
  }
  return slopes;
}

TensorF alibi_bias(long long num_heads, long long query_length, long long key_length,
                   long long offset) {
  return score_bias_tensor(score_bias_defaults(PositionMethod::kAlibi), num_heads, query_length,
                           key_length, offset);
}

TensorF alibi_bias(long long num_heads, const std::vector<long long>& positions) {
  return score_bias_tensor(score_bias_defaults(PositionMethod::kAlibi), num_heads, positions);
}

}  // namespace poslab

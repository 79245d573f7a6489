// ALiBi's slopes, and its bias through the one term (score_bias.hpp).
#include "poslab/positions/alibi.hpp"

#include <cmath>

#include "positions/term_grid.hpp"
#include "poslab/positions/formulas.hpp"

namespace poslab {

namespace {

// make(H, fill) for term_grid: ALiBi's term alone.
const auto alibi_term = [](std::size_t H, const auto& fill) {
  score_bias::TermShape shape;
  shape.heads = int(H);
  return fill(score_bias::Alibi<float>(nullptr, shape));
};

}  // namespace

// (H,).
TensorF alibi_slopes(long long num_heads) {
  const std::size_t H = detail::checked_bias_heads(num_heads);
  TensorF slopes({H});
  for (std::size_t h = 0; h < H; ++h) {
    slopes.data[h] = static_cast<float>(formulas::alibi_slope(int(h), int(H)));
  }
  return slopes;
}

TensorF alibi_bias(long long num_heads, long long query_length, long long key_length,
                   long long offset) {
  return detail::term_grid_at_offset(alibi_term, num_heads, query_length, key_length, offset,
                                     "ALiBi bias");
}

TensorF alibi_bias(long long num_heads, const std::vector<long long>& positions) {
  return detail::term_grid_at(alibi_term, num_heads, positions, "ALiBi bias");
}

}  // namespace poslab

// One score-bias term evaluated over a grid of query and key positions, in double, stored
// float32: what the core's bias tensors are. Queries at i + offset as the mask places them
// (mask.hpp), keys at j; or both at the positions given, one per token in any order. Sizes are
// checked before allocation. Private to the core: score_bias_tensor.cpp dispatches to it over
// every term, alibi.cpp calls it with ALiBi's alone (the language-model module, which runs GPT-2
// with ALiBi, then carries no other term).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "poslab/base/tensor.hpp"
#include "poslab/layers/attention.hpp"
#include "poslab/layers/mask.hpp"
#include "poslab/positions/score_bias.hpp"

namespace poslab::detail {

inline std::size_t checked_bias_heads(long long num_heads) {
  const std::size_t H = positive_size(num_heads, "heads", false, "heads");
  require(H <= 65536, "heads",
          "heads must be at most 65536 (got " + std::to_string(num_heads) + ")");
  return H;
}

template <class Term, class QueryAt, class KeyAt>
TensorF term_grid(const Term& term, std::size_t H, std::size_t Lq, std::size_t Lk, QueryAt query,
                  KeyAt key, const std::string& name) {
  TensorF out({H, Lq, Lk}, name + " (H, Lq, Lk)");
  std::vector<double> values(H);
  for (std::size_t i = 0; i < Lq; ++i) {
    for (std::size_t j = 0; j < Lk; ++j) {
      term.values(query(i), key(j), values.data());
      for (std::size_t h = 0; h < H; ++h) {
        out.data[(h * Lq + i) * Lk + j] = static_cast<float>(values[h]);
      }
    }
  }
  return out;
}

// Calls make(H) for the term once the sizes are checked, then fills (H, Lq, Lk).
template <class MakeTerm>
TensorF term_grid_at_offset(MakeTerm make, long long num_heads, long long query_length,
                            long long key_length, long long offset, const std::string& name) {
  const std::size_t H = checked_bias_heads(num_heads);
  const std::size_t Lq = positive_size(query_length, "query length", true, "queryLength");
  const std::size_t Lk = positive_size(key_length, "key length", true, "keyLength");
  check_mask_offset(offset);
  checked_numel({H, Lq, Lk}, name + " (H, Lq, Lk)");
  const MaskRule<std::int64_t> positions{false, 0, offset};
  return make(H, [&](const auto& term) {
    return term_grid(
        term, H, Lq, Lk, [&](std::size_t i) { return positions.position(std::int64_t(i)); },
        [](std::size_t j) { return std::int64_t(j); }, name);
  });
}

template <class MakeTerm>
TensorF term_grid_at(MakeTerm make, long long num_heads, const std::vector<long long>& positions,
                     const std::string& name) {
  const std::size_t H = checked_bias_heads(num_heads), T = positions.size();
  checked_numel({H, T, T}, name + " (H, T, T)");
  const auto at = [&](std::size_t i) { return std::int64_t(positions[i]); };
  return make(H, [&](const auto& term) { return term_grid(term, H, T, T, at, at, name); });
}

}  // namespace poslab::detail

// ALiBi slopes and the linear distance penalty.
#include "poslab/positions/alibi.hpp"

#include <cmath>

#include "poslab/layers/attention.hpp"
#include "poslab/layers/mask.hpp"
#include "poslab/positions/formulas.hpp"

namespace poslab {

namespace {

// (H, Lq, Lk), −m_h·|query(i) − key(j)| computed in double.
template <class QueryAt, class KeyAt>
TensorF distance_bias(std::size_t H, std::size_t Lq, std::size_t Lk, QueryAt query, KeyAt key) {
  TensorF bias({H, Lq, Lk}, "ALiBi bias (H, Lq, Lk)");
  for (std::size_t h = 0; h < H; ++h) {
    const double m = formulas::alibi_slope(int(h), int(H));
    float* plane = bias.ptr() + h * Lq * Lk;
    for (std::size_t i = 0; i < Lq; ++i) {
      for (std::size_t j = 0; j < Lk; ++j) {
        const double distance = std::fabs(double(query(i)) - double(key(j)));
        // distance 0 stores +0, not −0, so text outputs read "0".
        plane[i * Lk + j] = distance == 0.0 ? 0.0f : static_cast<float>(-m * distance);
      }
    }
  }
  return bias;
}

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
  const std::size_t H = checked_heads(num_heads);
  const std::size_t Lq = positive_size(query_length, "query length", true, "queryLength");
  const std::size_t Lk = positive_size(key_length, "key length", true, "keyLength");
  check_mask_offset(offset);
  const MaskRule<long long> positions{false, 0, offset};
  return distance_bias(
      H, Lq, Lk, [&](std::size_t i) { return positions.position((long long)i); },
      [](std::size_t j) { return (long long)j; });
}

TensorF alibi_bias(long long num_heads, const std::vector<long long>& positions) {
  const std::size_t H = checked_heads(num_heads), T = positions.size();
  const auto at = [&](std::size_t i) { return positions[i]; };
  return distance_bias(H, T, T, at, at);
}

}  // namespace poslab

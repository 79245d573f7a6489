// RoPE, float32 SIMD fast path: the cos/sin of each position are built once from the angle
// tables (double-accurate values stored as float) and reused by every head; both pairings
// rotate whole vectors of pairs with formulas::rotate_pair's arithmetic.
#include <hwy/highway.h>

#include <utility>
#include <vector>

#include "base/validation.hpp"
#include "fast/angle_table.hpp"
#include "poslab/fast/fast.hpp"
#include "poslab/positions/formulas.hpp"

namespace poslab::fast {

namespace hn = hwy::HWY_NAMESPACE;

namespace {

// formulas::rotate_pair on a vector of pairs: (x cos − y sin, x sin + y cos).
template <class D, class V = hn::Vec<D>>
HWY_INLINE void RotatePairs(D, V& x, V& y, V cos_a, V sin_a) {
  const V x0 = x;
  x = hn::MulSub(x0, cos_a, hn::Mul(y, sin_a));
  y = hn::MulAdd(x0, sin_a, hn::Mul(y, cos_a));
}

}  // namespace

// x (L, D) or (H, L, D) → same shape; pairs rotated by (offset + l)·θ_i, in place.
TensorF rope_apply(TensorF&& x, const RopeOptions& options, long long offset, RotationSide side) {
  if (options.scale_base > 0.0) return poslab::rope_apply(x, options, offset, side);
  const auto [H, L, D] = poslab::detail::check_rope_input(x, offset);
  const RopeFrequencies f =
      rope_frequencies(static_cast<long long>(D), options, offset + static_cast<long long>(L));
  const std::size_t half = std::size_t(f.rotary_dim / 2);
  const std::size_t padded = detail::round_up_to_lanes(half);
  const detail::AngleTable table(offset, L, f.inv_freq, padded, f.attention_factor);
  const bool neox = options.style == RopeStyle::kNeox;

  const hn::ScalableTag<float> d;
  const std::size_t N = hn::Lanes(d);
  const std::size_t full = half / N * N;  // pairs [0, full) in whole vectors, the rest scalar
  std::vector<float> cos_a(padded), sin_a(padded);

  TensorF out = std::move(x);  // dims beyond the rotary dim R pass through
  for (std::size_t l = 0; l < L; ++l) {
    const detail::AngleTable::Rows rows = table.rows(l);
    for (std::size_t i = 0; i < padded; i += N) {
      hn::Vec<decltype(d)> c, s;
      detail::CosSin(d, rows, i, c, s);
      hn::StoreU(c, d, cos_a.data() + i);
      hn::StoreU(s, d, sin_a.data() + i);
    }
    for (std::size_t h = 0; h < H; ++h) {
      float* row = out.ptr() + (h * L + l) * D;
      for (std::size_t i = 0; i < full; i += N) {
        const auto c = hn::LoadU(d, cos_a.data() + i);
        const auto s = hn::LoadU(d, sin_a.data() + i);
        hn::Vec<decltype(d)> u, v;
        if (neox) {  // pairs (i, i + R/2)
          u = hn::LoadU(d, row + i);
          v = hn::LoadU(d, row + half + i);
          RotatePairs(d, u, v, c, s);
          hn::StoreU(u, d, row + i);
          hn::StoreU(v, d, row + half + i);
        } else {  // pairs (2i, 2i + 1)
          hn::LoadInterleaved2(d, row + 2 * i, u, v);
          RotatePairs(d, u, v, c, s);
          hn::StoreInterleaved2(u, v, d, row + 2 * i);
        }
      }
      for (std::size_t i = full; i < half; ++i) {
        const std::size_t a = neox ? i : 2 * i;
        const std::size_t b = neox ? i + half : 2 * i + 1;
        formulas::rotate_pair(row[a], row[b], cos_a[i], sin_a[i]);
      }
    }
  }
  return out;
}

TensorF rope_apply(const TensorF& x, const RopeOptions& options, long long offset,
                   RotationSide side) {
  return rope_apply(TensorF(x), options, offset, side);
}

}  // namespace poslab::fast

// Sinusoidal table, float32 SIMD fast path: each row's sines and cosines come from the
// angle tables (angle_table.hpp) and are stored interleaved or concatenated with SIMD.
#include <hwy/highway.h>

#include <algorithm>
#include <vector>

#include "base/validation.hpp"
#include "fast/angle_table.hpp"
#include "poslab/fast/fast.hpp"
#include "poslab/positions/formulas.hpp"

namespace poslab::fast {

namespace hn = hwy::HWY_NAMESPACE;

// PE (L, D) for positions offset..offset+L−1.
TensorF sinusoidal_table(long long length, long long dim, double base, SinusoidalLayout layout,
                         long long offset) {
  const auto [L, D] = poslab::detail::check_sinusoidal(length, dim, base, offset);
  TensorF pe({L, D}, "sinusoidal table (L, D)");

  const std::size_t half = D / 2;
  const std::size_t padded = detail::round_up_to_lanes(half);
  std::vector<double> freq(half);
  for (std::size_t i = 0; i < half; ++i) freq[i] = formulas::inv_freq(int(i), int(D), base);
  const detail::AngleTable table(offset, L, freq, padded, 1.0);

  const hn::ScalableTag<float> d;
  const std::size_t N = hn::Lanes(d);
  const std::size_t full = half / N * N;  // pairs [0, full) go straight to the output
  std::vector<float> sin_tail(N), cos_tail(N);
  const bool interleaved = layout == SinusoidalLayout::kInterleaved;

  for (std::size_t p = 0; p < L; ++p) {
    float* row = pe.ptr() + p * D;
    const detail::AngleTable::Rows rows = table.rows(p);
    hn::Vec<decltype(d)> c, s;
    for (std::size_t i = 0; i < full; i += N) {
      detail::CosSin(d, rows, i, c, s);
      if (interleaved) {
        hn::StoreInterleaved2(s, c, d, row + 2 * i);
      } else {
        hn::StoreU(s, d, row + i);
        hn::StoreU(c, d, row + half + i);
      }
    }
    if (full == half) continue;
    detail::CosSin(d, rows, full, c, s);  // the table is padded: this vector is in bounds
    hn::StoreU(s, d, sin_tail.data());
    hn::StoreU(c, d, cos_tail.data());
    for (std::size_t i = full; i < half; ++i) {
      row[interleaved ? 2 * i : i] = sin_tail[i - full];
      row[interleaved ? 2 * i + 1 : half + i] = cos_tail[i - full];
    }
  }
  return pe;
}

}  // namespace poslab::fast

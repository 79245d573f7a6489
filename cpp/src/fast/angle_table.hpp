// cos/sin of (offset + l)·θ_i for every position of a call, shared by the sinusoidal and RoPE
// fast paths, without one libm call per element and without float32 angles.
//
// With l = b·B + c (B ≈ √L), the angle-sum formulas
//   cos(P + a) = cos P·cos a − sin P·sin a,   sin(P + a) = sin P·cos a + cos P·sin a
// combine a coarse table over P = (offset + b·B)·θ_i and a fine one over a = c·θ_i. Both are
// computed in double (formulas::angle, std::cos, std::sin) and stored as float32, so only
// (L/B + B)·n libm calls remain and the combination is a float32 SIMD multiply-add. Error of
// a combined value: at most 3 float32 roundings of terms whose sizes sum to <= 1 (~1.8e-7).
// The tables take P·θ and c·θ rounded separately, where the reference rounds p·θ once: the
// two agree to ulp(p·θ), far below 1e-7 for positions up to 2^20.
#pragma once

#include <hwy/highway.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "poslab/positions/formulas.hpp"

namespace poslab::fast::detail {

namespace hn = hwy::HWY_NAMESPACE;

class AngleTable {
 public:
  // theta: (n,) frequencies; `padded` >= n, a multiple of the vector width (extra lanes get
  // θ = 0). `amplitude` multiplies every cos and sin (YaRN's attention factor; 1 otherwise).
  AngleTable(long long offset, std::size_t length, const std::vector<double>& theta,
             std::size_t padded, double amplitude)
      : padded_(padded),
        block_(std::max<std::size_t>(1, std::size_t(std::ceil(std::sqrt(double(length)))))) {
    const std::size_t coarse_rows = (length + block_ - 1) / block_;
    coarse_cos_.assign(coarse_rows * padded, 0.0f);
    coarse_sin_.assign(coarse_rows * padded, 0.0f);
    fine_cos_.assign(block_ * padded, 0.0f);
    fine_sin_.assign(block_ * padded, 0.0f);
    for (std::size_t b = 0; b < coarse_rows; ++b) {
      const double position = double(offset) + double(b * block_);
      fill_row(b, position, theta, amplitude, coarse_cos_, coarse_sin_);
    }
    for (std::size_t c = 0; c < block_; ++c) {
      fill_row(c, double(c), theta, 1.0, fine_cos_, fine_sin_);
    }
  }

  // The four table rows whose combination gives position offset + l.
  struct Rows {
    const float *coarse_cos, *coarse_sin, *fine_cos, *fine_sin;
  };
  Rows rows(std::size_t l) const {
    const std::size_t b = l / block_ * padded_;
    const std::size_t c = l % block_ * padded_;
    return {coarse_cos_.data() + b, coarse_sin_.data() + b, fine_cos_.data() + c,
            fine_sin_.data() + c};
  }

 private:
  void fill_row(std::size_t row, double position, const std::vector<double>& theta,
                double amplitude, std::vector<float>& cos_out, std::vector<float>& sin_out) {
    for (std::size_t i = 0; i < padded_; ++i) {
      const double a = formulas::angle(position, i < theta.size() ? theta[i] : 0.0);
      cos_out[row * padded_ + i] = static_cast<float>(std::cos(a) * amplitude);
      sin_out[row * padded_ + i] = static_cast<float>(std::sin(a) * amplitude);
    }
  }

  std::size_t padded_;
  std::size_t block_;                           // B
  std::vector<float> coarse_cos_, coarse_sin_;  // (ceil(L/B), padded)
  std::vector<float> fine_cos_, fine_sin_;      // (B, padded)
};

// cos and sin of the angles i..i+Lanes(d)−1 of one position (i + Lanes(d) <= padded).
template <class D>
HWY_INLINE void CosSin(D d, const AngleTable::Rows& r, std::size_t i, hn::Vec<D>& cos_v,
                       hn::Vec<D>& sin_v) {
  const auto pc = hn::LoadU(d, r.coarse_cos + i);
  const auto ps = hn::LoadU(d, r.coarse_sin + i);
  const auto ac = hn::LoadU(d, r.fine_cos + i);
  const auto as = hn::LoadU(d, r.fine_sin + i);
  cos_v = hn::MulSub(pc, ac, hn::Mul(ps, as));
  sin_v = hn::MulAdd(ps, ac, hn::Mul(pc, as));
}

// The number of lanes of a full float vector, and n rounded up to a multiple of it.
inline std::size_t float_lanes() { return hn::Lanes(hn::ScalableTag<float>()); }
inline std::size_t round_up_to_lanes(std::size_t n) {
  const std::size_t lanes = float_lanes();
  return (n + lanes - 1) / lanes * lanes;
}

}  // namespace poslab::fast::detail

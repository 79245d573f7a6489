// RoPE's rotation, at offsets or one position per row, with or without a decay; the
// frequencies of each scaling are rope_frequencies.cpp's.
#include "poslab/positions/rope.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/validation.hpp"
#include "poslab/base/format.hpp"
#include "poslab/positions/formulas.hpp"

namespace poslab {

namespace {

// Positions beyond 2^40 lose the angle's integer part in double; refusing them also keeps
// offset + L far from overflow.
constexpr long long kMaxPosition = 1LL << 40;

constexpr double kFloatMax = std::numeric_limits<float>::max();

}  // namespace

namespace detail {

RopeDims check_rope_input(const TensorF& x, long long offset) {
  require(x.ndim() == 2 || x.ndim() == 3, "x",
          "RoPE input must be (L, D) or (H, L, D), got " + shape_string(x.shape));
  require(offset >= 0 && offset <= kMaxPosition, "offset",
          "offset must be in [0, 2^40] (got " + std::to_string(offset) + ")");
  const std::size_t H = x.ndim() == 3 ? x.dim(0) : 1;
  const std::size_t L = x.dim(x.ndim() - 2);
  const std::size_t D = x.dim(x.ndim() - 1);
  require(D > 0, "x", "RoPE input has zero width");
  require_finite(x, "x");
  return {H, L, D};
}

}  // namespace detail

namespace {

// x (L, D) or (H, L, D) → same shape; row l's pairs rotated by position(l)·θ_i, the
// frequencies those of a sequence of `total` positions (what `dynamic` reads and a decay
// centres on), a decaying rotation's pairs also times formulas::decay_scale.
template <class PositionOf>
TensorF rotate_rows(const TensorF& x, const detail::RopeDims& dims, const RopeOptions& options,
                    RotationSide side, PositionOf position_of, long long total) {
  const std::size_t H = dims.H, L = dims.L, D = dims.D;
  const RopeFrequencies f = rope_frequencies(static_cast<long long>(D), options, total);
  const std::size_t half = std::size_t(f.rotary_dim / 2);
  // neox pairs (i, i + R/2); gptj pairs (2i, 2i + 1).
  const bool neox = options.style == RopeStyle::kNeox;
  const bool decays = options.scale_base > 0.0;
  const bool key = side == RotationSide::kKey;

  TensorF out = x;
  std::vector<double> cos_a(half), sin_a(half), scale(half, f.attention_factor);
  for (std::size_t l = 0; l < L; ++l) {
    const long long position = position_of(l);
    for (std::size_t i = 0; i < half; ++i) {
      const double a = formulas::angle(double(position), f.inv_freq[i]);
      if (decays) {
        scale[i] = f.attention_factor * formulas::decay_scale(int(i), int(f.rotary_dim), position,
                                                              total, options.scale_base, key);
      }
      cos_a[i] = std::cos(a) * scale[i];
      sin_a[i] = std::sin(a) * scale[i];
    }
    for (std::size_t h = 0; h < H; ++h) {
      float* row = out.ptr() + (h * L + l) * D;
      for (std::size_t i = 0; i < half; ++i) {
        const std::size_t a = neox ? i : 2 * i;
        const std::size_t b = neox ? i + half : 2 * i + 1;
        double u = row[a], v = row[b];
        formulas::rotate_pair(u, v, cos_a[i], sin_a[i]);
        // A decay grows without bound in the sequence's length: refuse what float32 cannot hold.
        require(std::fabs(u) <= kFloatMax && std::fabs(v) <= kFloatMax, "x",
                "the rotation's scale " + format_number(scale[i]) + " at position " +
                    std::to_string(position) + " of " + std::to_string(total) +
                    " overflows float32; use a larger scaleBase or a shorter sequence");
        row[a] = static_cast<float>(u);
        row[b] = static_cast<float>(v);
      }
    }
  }
  return out;
}

}  // namespace

TensorF rope_apply(const TensorF& x, const RopeOptions& options, long long offset,
                   RotationSide side) {
  const detail::RopeDims dims = detail::check_rope_input(x, offset);
  return rotate_rows(
      x, dims, options, side,
      [offset](std::size_t l) { return offset + static_cast<long long>(l); },
      offset + static_cast<long long>(dims.L));
}

TensorF rope_apply(const TensorF& x, const RopeOptions& options,
                   const std::vector<long long>& positions, RotationSide side) {
  const detail::RopeDims dims = detail::check_rope_input(x, 0);
  require(positions.size() == dims.L, "positions",
          "RoPE needs one position per row: " + std::to_string(dims.L) + " rows, " +
              std::to_string(positions.size()) + " positions");
  long long last = -1;
  for (const long long p : positions) {
    require(p >= 0 && p <= kMaxPosition, "positions",
            "positions must be in [0, 2^40] (got " + std::to_string(p) + ")");
    last = std::max(last, p);
  }
  return rotate_rows(
      x, dims, options, side, [&positions](std::size_t l) { return positions[l]; }, last + 1);
}

}  // namespace poslab

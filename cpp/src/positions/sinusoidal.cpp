// Sinusoidal table (Vaswani et al. 2017): angles in double, stored as float32.
#include "poslab/positions/sinusoidal.hpp"

#include <cmath>
#include <vector>

#include "base/validation.hpp"
#include "poslab/base/format.hpp"
#include "poslab/positions/formulas.hpp"

namespace poslab {

SinusoidalLayout parse_sinusoidal_layout(const std::string& name) {
  return parse_name(kSinusoidalLayoutNames, name, "layout", "layout");
}

namespace {

void check_base(double base) {
  require(std::isfinite(base) && base > 0.0, "base",
          "base must be a positive finite number (got " + format_number(base) + ")");
}

std::size_t even_dim(long long dim) {
  const std::size_t d = positive_size(dim, "dim", false, "dim");
  require(d % 2 == 0, "dim", "dim must be even (got " + std::to_string(dim) + ")");
  return d;
}

}  // namespace

namespace detail {

SinusoidalDims check_sinusoidal(long long length, long long dim, double base, long long offset) {
  const std::size_t L = positive_size(length, "length", /*allow_zero=*/true, "length");
  const std::size_t D = even_dim(dim);
  check_base(base);
  require(offset >= 0 && offset <= (1LL << 40), "offset",
          "offset must be in [0, 2^40] (got " + std::to_string(offset) + ")");
  return {L, D};
}

}  // namespace detail

// PE (L, D) for positions offset..offset+L−1.
TensorF sinusoidal_table(long long length, long long dim, double base, SinusoidalLayout layout,
                         long long offset) {
  const auto [L, D] = detail::check_sinusoidal(length, dim, base, offset);
  TensorF pe({L, D}, "sinusoidal table (L, D)");

  const std::size_t half = D / 2;
  std::vector<double> freq(half);
  for (std::size_t i = 0; i < half; ++i) freq[i] = formulas::inv_freq(int(i), int(D), base);

  for (std::size_t p = 0; p < L; ++p) {
    float* row = pe.ptr() + p * D;
    const double position = double(offset) + double(p);
    for (std::size_t i = 0; i < half; ++i) {
      const double a = formulas::angle(position, freq[i]);
      const std::size_t sin_at = layout == SinusoidalLayout::kInterleaved ? 2 * i : i;
      const std::size_t cos_at = layout == SinusoidalLayout::kInterleaved ? 2 * i + 1 : half + i;
      row[sin_at] = static_cast<float>(std::sin(a));
      row[cos_at] = static_cast<float>(std::cos(a));
    }
  }
  return pe;
}

// (D/2,) wavelengths 2π/w_i.
TensorF sinusoidal_wavelengths(long long dim, double base) {
  const std::size_t D = even_dim(dim);
  check_base(base);
  TensorF out({D / 2});
  for (std::size_t i = 0; i < D / 2; ++i) {
    out.data[i] =
        static_cast<float>(2.0 * formulas::kPi / formulas::inv_freq(int(i), int(D), base));
  }
  return out;
}

}  // namespace poslab

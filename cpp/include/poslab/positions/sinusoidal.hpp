// Sinusoidal absolute positions (Vaswani et al. 2017).
#pragma once

#include <string>

#include "poslab/base/defaults.hpp"
#include "poslab/base/names.hpp"
#include "poslab/base/tensor.hpp"

namespace poslab {

enum class SinusoidalLayout {
  kInterleaved,  // PE[p,2i] = sin(p w_i), PE[p,2i+1] = cos(p w_i)
  kConcat,       // PE[p,i] = sin(p w_i), PE[p,D/2+i] = cos(p w_i)
};

inline constexpr Named<SinusoidalLayout> kSinusoidalLayoutNames[] = {
    {SinusoidalLayout::kInterleaved, "interleaved"}, {SinusoidalLayout::kConcat, "concat"}};
SinusoidalLayout parse_sinusoidal_layout(const std::string& name);  // Error with field "layout"

// Returns PE (L, D) for positions offset..offset+L−1, w_i = base^(-2i/D).
// D must be even and positive, base > 0 and finite.
TensorF sinusoidal_table(long long length, long long dim, double base = defaults::kBase,
                         SinusoidalLayout layout = SinusoidalLayout::kInterleaved,
                         long long offset = 0);

// Per-pair wavelength 2π/w_i = 2π·base^(2i/D): (D/2,). How many positions one cycle spans.
TensorF sinusoidal_wavelengths(long long dim, double base = defaults::kBase);

}  // namespace poslab

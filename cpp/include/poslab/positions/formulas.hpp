// Scalar formulas shared by the CPU core, the WebAssembly build and the CUDA kernels, so
// every build computes the same math. Header-only and marked host+device for nvcc.
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define POSLAB_HD __host__ __device__
#else
#define POSLAB_HD
#endif

namespace poslab::formulas {

inline constexpr double kPi = 3.14159265358979323846;

// Frequency of pair i in a D-wide sinusoidal table or RoPE rotation:
// w_i = base^(-2i/D), i in [0, D/2). Computed in double.
POSLAB_HD inline double inv_freq(int i, int dim, double base) {
  return std::pow(base, -2.0 * i / dim);
}

// Angle p·w in double: for p up to 65 536 and w <= 1, the float32 result of sin/cos of it
// stays within 1e-7 of exact math (float32 angles would be off by up to 4e-3 rad there).
POSLAB_HD inline double angle(double position, double freq) { return position * freq; }

// Rotates the pair (x, y) by the angle whose cosine and sine are given:
// (x cos − y sin, x sin + y cos). Used by RoPE in both pairings.
template <class T>
POSLAB_HD inline void rotate_pair(T& x, T& y, T cos_a, T sin_a) {
  const T x0 = x;
  const T y0 = y;
  x = x0 * cos_a - y0 * sin_a;
  y = x0 * sin_a + y0 * cos_a;
}

// A decaying rotation: xPos (Sun et al. 2023, "A Length-Extrapolatable Transformer"), as
// torchscale's XPOS (torchscale/component/xpos_relative_position.py). Each rotated pair is also
// scaled by a power of ζ_i = (2i + 0.4·R) / (1.4·R), i in [0, R/2), R the rotary width. Queries
// take ζ_i^(n/s), keys ζ_i^(−m/s) (s the scale base, 512 there), so q·k decays as ζ^((n−m)/s)
// with distance.
POSLAB_HD inline double decay_zeta(int i, int dim) { return (2.0 * i + 0.4 * dim) / (1.4 * dim); }

// The exponent torchscale raises ζ to at `position` in [0, total), total = offset + L:
// (position + min_pos) / s with min_pos = −(total)//2 in Python, −⌈total/2⌉. Centred, ζ^(±e)
// stays near 1 at both ends of a long sequence instead of underflowing at one. Queries and keys
// of one attention share `total` (the keys' length), so the centre cancels in q·k.
POSLAB_HD inline double decay_exponent(std::int64_t position, std::int64_t total,
                                       double scale_base) {
  const std::int64_t min_pos = -((total + 1) / 2);
  return static_cast<double>(position + min_pos) / scale_base;
}

// The decay of pair i at `position` of `total`: ζ_i^e for a query, ζ_i^(−e) for a key
// (torchscale's downscale). Both members of the pair take it, multiplying the rotated pair.
POSLAB_HD inline double decay_scale(int i, int dim, std::int64_t position, std::int64_t total,
                                    double scale_base, bool key) {
  const double e = decay_exponent(position, total, scale_base);
  return std::pow(decay_zeta(i, dim), key ? -e : e);
}

// GELU, tanh approximation (Hendrycks & Gimpel; GPT-2's `gelu_new`, PyTorch's
// approximate="tanh"): 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
POSLAB_HD inline double gelu_tanh(double x) {
  const double sqrt_2_over_pi = 0.79788456080286535587989211986876;
  return 0.5 * x * (1.0 + std::tanh(sqrt_2_over_pi * (x + 0.044715 * x * x * x)));
}

// GELU, exact (GPT-NeoX's hidden_act "gelu", PyTorch's default): 0.5·x·(1 + erf(x/√2)).
POSLAB_HD inline double gelu_erf(double x) {
  const double inv_sqrt_2 = 0.70710678118654752440084436210485;
  return 0.5 * x * (1.0 + std::erf(x * inv_sqrt_2));
}

// The logistic σ(x) = 1 / (1 + e^(−x)), and log σ(x) = −log(1 + e^(−x)) written so that neither
// overflows (PyTorch's logsigmoid): FoX's forget gates and CoPE's gates.
POSLAB_HD inline double sigmoid(double x) {
  return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x));
}
POSLAB_HD inline double log_sigmoid(double x) {
  return x >= 0 ? -std::log1p(std::exp(-x)) : x - std::log1p(std::exp(x));
}

// ALiBi slope of head h in [0, H) (Press et al. 2022, reference `get_slopes`). For H a
// power of two: 2^(-8(h+1)/H). Otherwise, with c the largest power of two below H, the
// first c heads take the c-head slopes and the rest take every other slope of the 2c-head
// list (2^(-8(2j+1)/(2c)) for j = h − c).
POSLAB_HD inline double alibi_slope(int h, int num_heads) {
  int c = 1;
  while (c * 2 <= num_heads) c *= 2;
  if (h < c) return std::exp2(-8.0 * (h + 1) / c);
  const int j = h - c;
  return std::exp2(-8.0 * (2 * j + 1) / (2.0 * c));
}

// T5 relative-position bucket (Raffel et al. 2020; the reference
// `_relative_position_bucket`). `relative` = key − query. The logarithmic part is computed
// in float32 exactly as the reference does, so bucket edges match it.
POSLAB_HD inline int t5_bucket(std::int64_t relative, bool bidirectional, int num_buckets,
                               int max_distance) {
  int bucket = 0;
  std::int64_t n = 0;
  if (bidirectional) {
    num_buckets /= 2;
    if (relative > 0) bucket += num_buckets;
    n = relative < 0 ? -relative : relative;
  } else {
    n = relative < 0 ? -relative : 0;
  }
  const int max_exact = num_buckets / 2;
  if (n < max_exact) return bucket + static_cast<int>(n);
  const float scaled = std::log(static_cast<float>(n) / static_cast<float>(max_exact)) /
                       static_cast<float>(std::log(static_cast<double>(max_distance) / max_exact)) *
                       static_cast<float>(num_buckets - max_exact);
  // int64 as in the reference (`.to(torch.long)`): far keys may scale past INT_MAX.
  std::int64_t large = max_exact + static_cast<std::int64_t>(scaled);
  if (large > num_buckets - 1) large = num_buckets - 1;
  return bucket + static_cast<int>(large);
}

// Shaw et al. 2018: the relative distance j − i clipped to [−K, K], as a row index into the
// (2K+1)-row table.
POSLAB_HD inline int shaw_index(std::int64_t query, std::int64_t key, int max_distance) {
  std::int64_t d = key - query;
  if (d < -max_distance) d = -max_distance;
  if (d > max_distance) d = max_distance;
  return static_cast<int>(d + max_distance);
}

}  // namespace poslab::formulas

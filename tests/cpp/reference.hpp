// Naive double-precision references of every PosLab formula for the tests, written from the
// papers, the Hugging Face reference code and docs/ARCHITECTURE.md §4 — never by calling the
// core — and the one tolerance policy every test compares with.
//
// Tolerance policy
// ----------------
// The core stores float32; each reference computes in double (long double for the sinusoidal
// table). A float32 result `got` matches a reference `ref` when, element by element,
//
//     |got − ref| ≤ atol + rtol·|ref|
//
// and got is NaN or ±∞ exactly where ref is (a NaN or ∞ where ref is finite always fails).
//   kAcceptance  atol 1e-5, rtol 1e-5   the project's acceptance bar against float64; for
//                                        composed results (attention, multi-head, sums).
//   kTight       atol 1e-6, rtol 1e-6   per-element formulas whose only error is float32
//                                        rounding of O(1) values (≤ 6e-8 each): sinusoidal,
//                                        RoPE, ALiBi, norms, the offset matrix.
//   kFrequency   atol 0,    rtol 1e-12  double-valued frequencies: p·θ at p = 65 536 stays
//                                        within 1e-5 rad only if θ is good to ~1.5e-10.
//   exact        EXPECT_EQ              integers (indices, buckets), values exact in binary.
// One helper, AllClose, applies it everywhere and names the worst element when it fails.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "poslab/poslab.hpp"

namespace ref {

using Shape = std::vector<std::size_t>;
inline constexpr double kPi = 3.141592653589793238462643383279502884;
inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline const double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---------------------------------------------------------------------------------------------
// Tolerances and the comparison helper

struct Tol {
  double atol;
  double rtol;
};
inline constexpr Tol kAcceptance{1e-5, 1e-5};
inline constexpr Tol kTight{1e-6, 1e-6};
inline constexpr Tol kFrequency{0.0, 1e-12};

// A reference tensor: row-major doubles.
struct Tensor {
  Shape shape;
  std::vector<double> data;

  Tensor() = default;
  explicit Tensor(Shape s) : shape(std::move(s)) {
    std::size_t n = 1;
    for (std::size_t d : shape) n *= d;
    data.assign(n, 0.0);
  }
  double& operator[](std::size_t i) { return data[i]; }
  double operator[](std::size_t i) const { return data[i]; }
};

inline std::string shape_str(const Shape& s) {
  std::ostringstream out;
  out << '(';
  for (std::size_t i = 0; i < s.size(); ++i) out << (i ? ", " : "") << s[i];
  out << (s.size() == 1 ? ",)" : ")");
  return out.str();
}

inline std::string index_str(std::size_t flat, const Shape& shape) {
  if (shape.empty()) return "[" + std::to_string(flat) + "]";
  std::vector<std::size_t> idx(shape.size());
  std::size_t rest = flat;
  for (std::size_t a = shape.size(); a-- > 0;) {
    idx[a] = shape[a] ? rest % shape[a] : 0;
    rest = shape[a] ? rest / shape[a] : 0;
  }
  std::ostringstream out;
  out << '[';
  for (std::size_t a = 0; a < idx.size(); ++a) out << (a ? "," : "") << idx[a];
  out << ']';
  return out.str();
}

// Compares n values; reports how many fail and the worst one (largest diff/allowed ratio).
template <class G, class R>
::testing::AssertionResult AllCloseValues(const G* got, std::size_t n_got, const R* want,
                                          std::size_t n_want, const Shape& shape, Tol tol) {
  if (n_got != n_want) {
    return ::testing::AssertionFailure()
           << "size mismatch: got " << n_got << " values, reference has " << n_want;
  }
  std::size_t failures = 0;
  std::size_t worst = 0;
  double worst_ratio = -1.0;
  for (std::size_t i = 0; i < n_got; ++i) {
    const double g = static_cast<double>(got[i]);
    const double r = static_cast<double>(want[i]);
    double ratio = 0.0;
    bool ok = true;
    if (std::isnan(r)) {
      ok = std::isnan(g);
    } else if (std::isinf(r)) {
      ok = g == r;
    } else if (!std::isfinite(g)) {
      ok = false;
    } else {
      const double allowed = tol.atol + tol.rtol * std::fabs(r);
      const double diff = std::fabs(g - r);
      ok = diff <= allowed;
      ratio = allowed > 0 ? diff / allowed : (diff > 0 ? INFINITY : 0.0);
    }
    if (!ok) {
      ++failures;
      if (!std::isfinite(ratio)) ratio = std::numeric_limits<double>::max();
      if (ratio == 0.0) ratio = std::numeric_limits<double>::max();  // NaN/inf mismatch
    }
    if (!ok && ratio > worst_ratio) {
      worst_ratio = ratio;
      worst = i;
    }
  }
  if (failures == 0) return ::testing::AssertionSuccess();
  const double g = static_cast<double>(got[worst]);
  const double r = static_cast<double>(want[worst]);
  std::ostringstream out;
  out.precision(10);
  out << failures << " of " << n_got << " values out of tolerance (atol " << tol.atol << ", rtol "
      << tol.rtol << "); worst at " << index_str(worst, shape) << " of shape " << shape_str(shape)
      << ": got " << g << ", reference " << r << ", |diff| " << std::fabs(g - r) << ", allowed "
      << tol.atol + tol.rtol * std::fabs(r);
  return ::testing::AssertionFailure() << out.str();
}

inline ::testing::AssertionResult AllClose(const poslab::TensorF& got, const Tensor& want,
                                           Tol tol) {
  if (got.shape != want.shape) {
    return ::testing::AssertionFailure() << "shape mismatch: got " << shape_str(got.shape)
                                         << ", reference " << shape_str(want.shape);
  }
  return AllCloseValues(got.data.data(), got.data.size(), want.data.data(), want.data.size(),
                        want.shape, tol);
}

// Flat comparison (shapes are checked by the caller, or the values are 1-D).
template <class G, class R>
::testing::AssertionResult AllClose(const std::vector<G>& got, const std::vector<R>& want,
                                    Tol tol) {
  return AllCloseValues(got.data(), got.size(), want.data(), want.size(), Shape{want.size()}, tol);
}

inline ::testing::AssertionResult AllClose(const poslab::TensorF& got,
                                           const std::vector<double>& want, Tol tol) {
  return AllCloseValues(got.data.data(), got.data.size(), want.data(), want.size(), got.shape, tol);
}

inline ::testing::AssertionResult AllClose(const poslab::TensorF& got, const poslab::TensorF& want,
                                           Tol tol) {
  if (got.shape != want.shape) {
    return ::testing::AssertionFailure() << "shape mismatch: got " << shape_str(got.shape)
                                         << ", expected " << shape_str(want.shape);
  }
  return AllCloseValues(got.data.data(), got.data.size(), want.data.data(), want.data.size(),
                        want.shape, tol);
}

inline bool AllFinite(const poslab::TensorF& t) {
  return std::all_of(t.data.begin(), t.data.end(), [](float v) { return std::isfinite(v); });
}

// ---------------------------------------------------------------------------------------------
// Test inputs: a small generator of its own (xorshift64*), independent of poslab::Rng.

inline poslab::TensorF random_tensor(Shape shape, std::uint64_t seed, double lo = -1.0,
                                     double hi = 1.0) {
  std::uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL;
  if (s == 0) s = 1;
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  std::vector<float> values(n);
  for (float& v : values) {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    const double u = static_cast<double>((s * 0x2545F4914F6CDD1DULL) >> 11) * 0x1.0p-53;
    v = static_cast<float>(lo + (hi - lo) * u);
  }
  return poslab::TensorF(std::move(shape), std::move(values));
}

// Attention inputs: q (H, Lq, d) and k (H, Lk, d) in [−2, 2), v (H, Lk, dv) in [−1, 1), from
// seeds seed, seed + 1 and seed + 2.
struct AttentionInputs {
  poslab::TensorF q, k, v;
};
inline AttentionInputs random_attention_inputs(std::size_t H, std::size_t Lq, std::size_t Lk,
                                               std::size_t d, std::size_t dv, std::uint64_t seed) {
  return {random_tensor({H, Lq, d}, seed, -2, 2), random_tensor({H, Lk, d}, seed + 1, -2, 2),
          random_tensor({H, Lk, dv}, seed + 2)};
}

inline Tensor widen(const poslab::TensorF& t) {
  Tensor out(t.shape);
  for (std::size_t i = 0; i < t.data.size(); ++i) out.data[i] = t.data[i];
  return out;
}

// ---------------------------------------------------------------------------------------------
// Sinusoidal (Vaswani et al. 2017): w_i = base^(-2i/D); interleaved PE[p,2i] = sin(p w_i),
// PE[p,2i+1] = cos(p w_i); concat puts the sines first. Long double, so large p stays exact.

inline Tensor sinusoidal(std::size_t L, std::size_t D, long double base, bool concat,
                         long long offset = 0) {
  Tensor pe({L, D});
  const std::size_t half = D / 2;
  for (std::size_t p = 0; p < L; ++p) {
    const long double pos = static_cast<long double>(offset) + static_cast<long double>(p);
    for (std::size_t i = 0; i < half; ++i) {
      const long double w =
          std::pow(base, -2.0L * static_cast<long double>(i) / static_cast<long double>(D));
      const long double a = pos * w;
      const std::size_t s = concat ? i : 2 * i;
      const std::size_t c = concat ? half + i : 2 * i + 1;
      pe[p * D + s] = static_cast<double>(std::sin(a));
      pe[p * D + c] = static_cast<double>(std::cos(a));
    }
  }
  return pe;
}

// ---------------------------------------------------------------------------------------------
// ALiBi (Press et al. 2022): the reference `get_slopes`, transcribed from its Python:
//   def get_slopes(n):
//     def get_slopes_power_of_2(n):
//       start = 2**(-2**-(math.log2(n)-3)); ratio = start
//       return [start*ratio**i for i in range(n)]
//     if math.log2(n).is_integer(): return get_slopes_power_of_2(n)
//     closest_power_of_2 = 2**math.floor(math.log2(n))
//     return (get_slopes_power_of_2(closest_power_of_2)
//             + get_slopes(2*closest_power_of_2)[0::2][:n-closest_power_of_2])

inline std::vector<double> alibi_get_slopes(int n) {
  const auto power_of_2 = [](int m) {
    const double start = std::pow(2.0, -std::pow(2.0, -(std::log2(double(m)) - 3.0)));
    const double ratio = start;
    std::vector<double> out;
    for (int i = 0; i < m; ++i) out.push_back(start * std::pow(ratio, i));
    return out;
  };
  const double l = std::log2(double(n));
  if (l == std::floor(l)) return power_of_2(n);
  const int closest = 1 << static_cast<int>(std::floor(l));
  std::vector<double> out = power_of_2(closest);
  const std::vector<double> doubled = alibi_get_slopes(2 * closest);
  for (std::size_t i = 0; i < doubled.size() && int(out.size()) < n; i += 2) {
    out.push_back(doubled[i]);
  }
  return out;
}

// Bias[h,i,j] = −m_h·|(i + offset) − j|, (H, Lq, Lk): query i at position i + offset, as in
// Hugging Face's BLOOM/MPT after a cache (the query's absolute position minus the key's).
inline Tensor alibi_bias(int H, std::size_t Lq, std::size_t Lk, long long offset = 0) {
  const std::vector<double> m = alibi_get_slopes(H);
  Tensor out({std::size_t(H), Lq, Lk});
  for (int h = 0; h < H; ++h)
    for (std::size_t i = 0; i < Lq; ++i)
      for (std::size_t j = 0; j < Lk; ++j)
        out[(h * Lq + i) * Lk + j] = -m[h] * std::fabs(double(i) + double(offset) - double(j));
  return out;
}

// ---------------------------------------------------------------------------------------------
// T5 buckets: Hugging Face `T5Attention._relative_position_bucket`, transcribed with its
// float32 tensor arithmetic (relative_position.float() / max_exact, torch.log in float32,
// divided by the Python float math.log(max_distance / max_exact) and multiplied by
// (num_buckets − max_exact), all float32 tensor ops; .to(long) truncates).

inline long long t5_bucket_hf(long long relative_position, bool bidirectional,
                              long long num_buckets, long long max_distance) {
  long long relative_buckets = 0;
  long long n = 0;
  if (bidirectional) {
    num_buckets /= 2;
    relative_buckets += relative_position > 0 ? num_buckets : 0;
    n = std::llabs(relative_position);
  } else {
    n = -std::min(relative_position, 0LL);
  }
  const long long max_exact = num_buckets / 2;
  if (n < max_exact) return relative_buckets + n;
  const float ratio = static_cast<float>(n) / static_cast<float>(max_exact);
  const float log_ratio = std::log(ratio);  // float32 log
  const float denominator = static_cast<float>(std::log(double(max_distance) / double(max_exact)));
  const float scaled = log_ratio / denominator * static_cast<float>(num_buckets - max_exact);
  // .to(torch.long): int64. Saturate first so the cast itself is defined for any float.
  const long long large =
      scaled >= 9.2e18f
          ? num_buckets - 1
          : std::min<long long>(max_exact + static_cast<long long>(scaled), num_buckets - 1);
  return relative_buckets + large;
}

// Shaw et al. 2018: clip(j − i, −K, K) + K.
inline int shaw_index(long long i, long long j, long long K) {
  return static_cast<int>(std::clamp(j - i, -K, K) + K);
}

// ---------------------------------------------------------------------------------------------
// RoPE frequencies: the Hugging Face `modeling_rope_utils` functions, transcribed.
// R = int(head_dim · partial_rotary_factor); `seq_len` is what `dynamic` reads.

struct Freqs {
  std::size_t rotary_dim = 0;
  std::vector<double> inv_freq;  // (R/2,)
  double attention_factor = 1.0;
};

// _compute_default_rope_parameters: 1 / base^(arange(0, R, 2) / R)
inline std::vector<double> default_inv_freq(std::size_t R, double base) {
  std::vector<double> out;
  for (std::size_t k = 0; k < R; k += 2) out.push_back(1.0 / std::pow(base, double(k) / R));
  return out;
}

inline Freqs rope_freqs(std::size_t head_dim, const poslab::RopeOptions& o, long long seq_len = 0) {
  using S = poslab::RopeScaling;
  Freqs f;
  const std::size_t R = static_cast<std::size_t>(double(head_dim) * o.rotary_fraction);
  f.rotary_dim = R;
  const double base = o.base;
  const double factor = o.factor;
  const double N = double(o.original_length);
  switch (o.scaling) {
    case S::kNone:
      f.inv_freq = default_inv_freq(R, base);
      break;
    case S::kLinear:  // _compute_linear_scaling_rope_parameters: inv_freq /= factor
      f.inv_freq = default_inv_freq(R, base);
      for (double& v : f.inv_freq) v /= factor;
      break;
    case S::kNtk:  // static NTK-aware: base · factor^(R/(R−2))
      f.inv_freq = default_inv_freq(R, base * std::pow(factor, double(R) / (double(R) - 2.0)));
      break;
    case S::kDynamic: {  // _compute_dynamic_ntk_parameters
      const double s = (seq_len > o.original_length) ? double(seq_len) : N;
      const double b =
          base * std::pow((factor * s / N) - (factor - 1.0), double(R) / (double(R) - 2.0));
      f.inv_freq = default_inv_freq(R, b);
      break;
    }
    case S::kYarn: {  // _compute_yarn_parameters (truncate = True)
      const auto get_mscale = [](double scale) {
        return scale <= 1.0 ? 1.0 : 0.1 * std::log(scale) + 1.0;
      };
      f.attention_factor = get_mscale(factor);
      const auto find_correction_dim = [&](double num_rotations) {
        return (double(R) * std::log(N / (num_rotations * 2.0 * kPi))) / (2.0 * std::log(base));
      };
      double low = std::floor(find_correction_dim(o.beta_fast));
      double high = std::ceil(find_correction_dim(o.beta_slow));
      low = std::max(low, 0.0);
      high = std::min(high, double(R) - 1.0);
      if (low == high) high += 0.001;  // linear_ramp_factor: "Prevent singularity"
      for (std::size_t i = 0; i < R / 2; ++i) {
        const double pos_freq = std::pow(base, double(2 * i) / double(R));
        const double extrapolation = 1.0 / pos_freq;
        const double interpolation = 1.0 / (factor * pos_freq);
        const double ramp = std::clamp((double(i) - low) / (high - low), 0.0, 1.0);
        const double extrapolation_factor = 1.0 - ramp;
        f.inv_freq.push_back(interpolation * (1.0 - extrapolation_factor) +
                             extrapolation * extrapolation_factor);
      }
      break;
    }
    case S::kLlama3: {  // _compute_llama3_parameters
      const std::vector<double> inv = default_inv_freq(R, base);
      const double low_freq_wavelen = N / o.low_freq_factor;
      const double high_freq_wavelen = N / o.high_freq_factor;
      for (double theta : inv) {
        const double wavelen = 2.0 * kPi / theta;
        double v = wavelen > low_freq_wavelen ? theta / factor : theta;
        const double smooth =
            (N / wavelen - o.low_freq_factor) / (o.high_freq_factor - o.low_freq_factor);
        const bool medium = !(wavelen < high_freq_wavelen) && !(wavelen > low_freq_wavelen);
        if (medium) v = (1.0 - smooth) * v / factor + smooth * v;
        f.inv_freq.push_back(v);
      }
      break;
    }
  }
  return f;
}

// Rotates x (L, D) or (H, L, D) at positions offset..offset+L−1 with the frequencies `fr`:
// neox pairs (x[i], x[i+R/2]), gptj pairs (x[2i], x[2i+1]); cos and sin carry the attention
// factor; dims R.. pass through.
inline Tensor rope_apply(const poslab::TensorF& x, const Freqs& fr, poslab::RopeStyle style,
                         long long offset) {
  Tensor out = widen(x);
  const std::size_t D = x.shape.back();
  const std::size_t L = x.shape[x.shape.size() - 2];
  const std::size_t rows = x.data.size() / D;
  const std::size_t R = fr.rotary_dim;
  const std::size_t half = R / 2;
  for (std::size_t r = 0; r < rows; ++r) {
    const double p = double(offset) + double(r % L);
    double* y = out.data.data() + r * D;
    const float* in = x.data.data() + r * D;
    for (std::size_t i = 0; i < half; ++i) {
      const double a = p * fr.inv_freq[i];
      const double c = std::cos(a) * fr.attention_factor;
      const double s = std::sin(a) * fr.attention_factor;
      const std::size_t u = style == poslab::RopeStyle::kNeox ? i : 2 * i;
      const std::size_t v = style == poslab::RopeStyle::kNeox ? i + half : 2 * i + 1;
      const double x0 = in[u];
      const double x1 = in[v];
      y[u] = x0 * c - x1 * s;
      y[v] = x1 * c + x0 * s;
    }
  }
  return out;
}

// xPos (Sun et al. 2023), torchscale's XPOS.forward
// (torchscale/component/xpos_relative_position.py) transcribed for x (L, D) or (H, L, D) at
// `offset` (queries: offset = past length; keys: 0):
//   scale = ((arange(0, D, 2) + 0.4·D) / (1.4·D)) ** (arange(min_pos, max_pos) / scale_base),
//     min_pos = −(L + offset) // 2 (Python's floor division), max_pos = L + offset + min_pos;
//   sin, cos = fixed_pos_embedding: angles p · 1/base^(arange(0, D/2) / (D/2)), p = 0..L+offset−1;
//   the last L rows of each; keys (downscale) take 1/scale;
//   out = x·cos·scale + rotate_every_two(x)·sin·scale, rotate_every_two(x) = (−x[2i+1], x[2i]).
inline Tensor xpos_apply(const poslab::TensorF& x, double base, double scale_base, bool key,
                         long long offset) {
  Tensor out = widen(x);
  const std::size_t D = x.shape.back();
  const std::size_t L = x.shape[x.shape.size() - 2];
  const std::size_t rows = x.data.size() / D;
  const double total = double(L) + double(offset);
  const double min_pos = std::floor(-total / 2.0);
  const double half = double(D / 2);
  for (std::size_t r = 0; r < rows; ++r) {
    const double p = double(offset) + double(r % L);  // row of the (L + offset) tables
    double* y = out.data.data() + r * D;
    const float* in = x.data.data() + r * D;
    for (std::size_t i = 0; i < D / 2; ++i) {
      const double zeta = (2.0 * double(i) + 0.4 * double(D)) / (1.4 * double(D));
      double scale = std::pow(zeta, (min_pos + p) / scale_base);
      if (key) scale = 1.0 / scale;
      const double a = p * (1.0 / std::pow(base, double(i) / half));
      const double x0 = in[2 * i], x1 = in[2 * i + 1];
      y[2 * i] = x0 * std::cos(a) * scale - x1 * std::sin(a) * scale;
      y[2 * i + 1] = x1 * std::cos(a) * scale + x0 * std::sin(a) * scale;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Attention: three nested loops and a stable softmax, in double.

// Written from the definition (docs/ARCHITECTURE.md §4, mask.hpp's comment), not from MaskRule:
// query i sits at position i + offset.
struct MaskSpec {
  int kind = 0;  // 0 none, 1 causal, 2 causal sliding window
  long long window = 0;
  long long offset = 0;
  bool hides(long long i, long long j) const {
    const long long position = i + offset;
    if (kind == 0) return false;
    if (j > position) return true;
    return kind == 2 && position - j >= window;
  }
};

struct AttentionOut {
  Tensor output;   // (H, Lq, dv) or (Lq, dv)
  Tensor weights;  // (H, Lq, Lk) or (Lq, Lk)
};

// q (H,Lq,d), k (H,Lk,d), v (H,Lk,dv), or all 2-D; bias (H,Lq,Lk), (Lq,Lk) or null.
inline AttentionOut attention(const poslab::TensorF& q, const poslab::TensorF& k,
                              const poslab::TensorF& v, MaskSpec mask,
                              const std::vector<std::uint8_t>& key_padding,
                              const poslab::TensorF* bias, std::optional<double> scale) {
  const bool two_d = q.ndim() == 2;
  const std::size_t H = two_d ? 1 : q.dim(0);
  const std::size_t Lq = q.shape[q.ndim() - 2], d = q.shape.back();
  const std::size_t Lk = k.shape[k.ndim() - 2], dv = v.shape.back();
  const double sc = scale ? *scale : 1.0 / std::sqrt(double(d));
  AttentionOut out;
  out.output = Tensor(two_d ? Shape{Lq, dv} : Shape{H, Lq, dv});
  out.weights = Tensor(two_d ? Shape{Lq, Lk} : Shape{H, Lq, Lk});
  std::vector<double> s(Lk);
  std::vector<bool> visible(Lk);
  for (std::size_t h = 0; h < H; ++h) {
    for (std::size_t i = 0; i < Lq; ++i) {
      double m = -INFINITY;
      for (std::size_t j = 0; j < Lk; ++j) {
        double dot = 0;
        for (std::size_t c = 0; c < d; ++c)
          dot += double(q.data[(h * Lq + i) * d + c]) * double(k.data[(h * Lk + j) * d + c]);
        double b = 0;
        if (bias)
          b = bias->ndim() == 3 ? bias->data[(h * Lq + i) * Lk + j] : bias->data[i * Lk + j];
        s[j] = dot * sc + b;
        visible[j] = !mask.hides(static_cast<long long>(i), static_cast<long long>(j)) &&
                     !(!key_padding.empty() && key_padding[j] != 0) && s[j] != -INFINITY;
        if (visible[j]) m = std::max(m, s[j]);
      }
      if (m == -INFINITY) continue;  // every key hidden: zero weights, zero output
      double z = 0;
      for (std::size_t j = 0; j < Lk; ++j) z += visible[j] ? std::exp(s[j] - m) : 0.0;
      for (std::size_t j = 0; j < Lk; ++j) {
        const double w = visible[j] ? std::exp(s[j] - m) / z : 0.0;
        out.weights[(h * Lq + i) * Lk + j] = w;
        for (std::size_t c = 0; c < dv; ++c)
          out.output[(h * Lq + i) * dv + c] += w * double(v.data[(h * Lk + j) * dv + c]);
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Norms over the last axis.

inline Tensor layer_norm(const poslab::TensorF& x, double eps, const poslab::TensorF* gamma,
                         const poslab::TensorF* beta) {
  Tensor out = widen(x);
  const std::size_t D = x.shape.back();
  for (std::size_t r = 0; r < x.data.size() / D; ++r) {
    double mean = 0;
    for (std::size_t c = 0; c < D; ++c) mean += x.data[r * D + c];
    mean /= double(D);
    double var = 0;
    for (std::size_t c = 0; c < D; ++c) {
      const double e = x.data[r * D + c] - mean;
      var += e * e;
    }
    var /= double(D);  // biased
    const double inv = 1.0 / std::sqrt(var + eps);
    for (std::size_t c = 0; c < D; ++c) {
      const double g = gamma ? gamma->data[c] : 1.0;
      const double b = beta ? beta->data[c] : 0.0;
      out[r * D + c] = (x.data[r * D + c] - mean) * inv * g + b;
    }
  }
  return out;
}

inline Tensor rms_norm(const poslab::TensorF& x, double eps, const poslab::TensorF* gamma) {
  Tensor out = widen(x);
  const std::size_t D = x.shape.back();
  for (std::size_t r = 0; r < x.data.size() / D; ++r) {
    double ms = 0;
    for (std::size_t c = 0; c < D; ++c) ms += double(x.data[r * D + c]) * x.data[r * D + c];
    ms /= double(D);
    const double inv = 1.0 / std::sqrt(ms + eps);
    for (std::size_t c = 0; c < D; ++c)
      out[r * D + c] = x.data[r * D + c] * inv * (gamma ? gamma->data[c] : 1.0);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Multi-head attention: project the full width (y = x·W + b, W (D, D)), split into H heads of
// d = D/H columns, optional RoPE per head at positions 0..L−1, optional bias, attend, merge
// the heads back into (L, D), project with Wo.

inline Tensor linear(const poslab::TensorF& x, const poslab::TensorF& w, const poslab::TensorF& b) {
  const std::size_t L = x.dim(0), Din = x.dim(1), Dout = w.dim(1);
  Tensor y({L, Dout});
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t o = 0; o < Dout; ++o) {
      double acc = b.data.empty() ? 0.0 : double(b.data[o]);
      for (std::size_t i = 0; i < Din; ++i)
        acc += double(x.data[l * Din + i]) * w.data[i * Dout + o];
      y[l * Dout + o] = acc;
    }
  return y;
}

struct MultiHeadOut {
  Tensor output;   // (L, D)
  Tensor weights;  // (H, L, L)
  Tensor q, k, v;  // (H, L, d)
};

// `bias` (H, L, L) or null. Rounds the projected heads to float32 between steps the way any
// float32 pipeline must (they are returned as float32), so the comparison stays at 1e-5.
inline MultiHeadOut multihead(const poslab::TensorF& x, const poslab::MultiHeadWeights& w,
                              std::size_t H, MaskSpec mask,
                              const std::vector<std::uint8_t>& key_padding,
                              const std::optional<poslab::RopeOptions>& rope,
                              const poslab::TensorF* bias, std::optional<double> scale) {
  const std::size_t L = x.dim(0), D = x.dim(1), d = D / H;
  const Tensor Q = linear(x, w.wq, w.bq), K = linear(x, w.wk, w.bk), V = linear(x, w.wv, w.bv);
  const auto split = [&](const Tensor& t) {
    poslab::TensorF heads(poslab::Shape{H, L, d});
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t l = 0; l < L; ++l)
        for (std::size_t c = 0; c < d; ++c)
          heads.data[(h * L + l) * d + c] = static_cast<float>(t[l * D + h * d + c]);
    return heads;
  };
  poslab::TensorF q = split(Q), k = split(K), v = split(V);
  MultiHeadOut out;
  if (rope && rope->scale_base > 0.0) {  // torchscale's XPOS: gptj pairs over the whole head
    const Tensor qx = xpos_apply(q, rope->base, rope->scale_base, false, 0);
    const Tensor kx = xpos_apply(k, rope->base, rope->scale_base, true, 0);
    for (std::size_t i = 0; i < q.data.size(); ++i) q.data[i] = static_cast<float>(qx[i]);
    for (std::size_t i = 0; i < k.data.size(); ++i) k.data[i] = static_cast<float>(kx[i]);
  } else if (rope) {
    const Freqs fr = rope_freqs(d, *rope, static_cast<long long>(L));
    const Tensor qr = rope_apply(q, fr, rope->style, 0), kr = rope_apply(k, fr, rope->style, 0);
    for (std::size_t i = 0; i < q.data.size(); ++i) q.data[i] = static_cast<float>(qr[i]);
    for (std::size_t i = 0; i < k.data.size(); ++i) k.data[i] = static_cast<float>(kr[i]);
  }
  out.q = widen(q);
  out.k = widen(k);
  out.v = widen(v);
  const AttentionOut a =
      attention(q, k, v, mask, key_padding, bias,
                scale ? scale : std::optional<double>(1.0 / std::sqrt(double(d))));
  out.weights = a.weights;
  poslab::TensorF merged(poslab::Shape{L, D});
  for (std::size_t h = 0; h < H; ++h)
    for (std::size_t l = 0; l < L; ++l)
      for (std::size_t c = 0; c < d; ++c)
        merged.data[l * D + h * d + c] = static_cast<float>(a.output[(h * L + l) * d + c]);
  out.output = linear(merged, w.wo, w.bo);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Analysis.

// S[i,j] = x_i·x_j (dot) or x_i·x_j / (|x_i||x_j|) (cosine; 0 if either row is zero).
inline Tensor similarity(const poslab::TensorF& x, bool cosine) {
  const std::size_t L = x.dim(0), D = x.dim(1);
  Tensor s({L, L});
  std::vector<double> norm(L);
  for (std::size_t i = 0; i < L; ++i) {
    double n2 = 0;
    for (std::size_t c = 0; c < D; ++c) n2 += double(x.data[i * D + c]) * x.data[i * D + c];
    norm[i] = std::sqrt(n2);
  }
  for (std::size_t i = 0; i < L; ++i)
    for (std::size_t j = 0; j < L; ++j) {
      double dot = 0;
      for (std::size_t c = 0; c < D; ++c) dot += double(x.data[i * D + c]) * x.data[j * D + c];
      if (cosine) dot = (norm[i] == 0 || norm[j] == 0) ? 0.0 : dot / (norm[i] * norm[j]);
      s[i * L + j] = dot;
    }
  return s;
}

// Mean of S[i,j] over the pairs with |i − j| = k, k in [0, L).
inline std::vector<double> similarity_by_offset(const poslab::TensorF& x, bool cosine) {
  const Tensor s = similarity(x, cosine);
  const std::size_t L = x.dim(0);
  std::vector<double> sum(L, 0.0), count(L, 0.0);
  for (std::size_t i = 0; i < L; ++i)
    for (std::size_t j = 0; j < L; ++j) {
      const std::size_t k = i > j ? i - j : j - i;
      sum[k] += s[i * L + j];
      count[k] += 1;
    }
  for (std::size_t k = 0; k < L; ++k) sum[k] /= count[k];
  return sum;
}

// M_k (D, D): block i = [[cos k w_i, sin k w_i], [−sin k w_i, cos k w_i]].
inline Tensor offset_matrix(std::size_t D, long long k, double base) {
  Tensor m({D, D});
  for (std::size_t i = 0; i < D / 2; ++i) {
    const double w = std::pow(base, -2.0 * double(i) / double(D));
    const double a = double(k) * w;
    m[(2 * i) * D + 2 * i] = std::cos(a);
    m[(2 * i) * D + 2 * i + 1] = std::sin(a);
    m[(2 * i + 1) * D + 2 * i] = -std::sin(a);
    m[(2 * i + 1) * D + 2 * i + 1] = std::cos(a);
  }
  return m;
}

// RoFormer §3.4.3: (1/(R/2)) Σ_{j=1}^{R/2} |Σ_{i=0}^{j−1} e^{i m θ_i}|, m = 0..max_distance.
inline std::vector<double> rope_decay(const std::vector<double>& theta, std::size_t max_distance) {
  std::vector<double> out;
  const std::size_t half = theta.size();
  for (std::size_t m = 0; m <= max_distance; ++m) {
    std::complex<double> partial = 0;
    double total = 0;
    for (std::size_t i = 0; i < half; ++i) {
      partial += std::polar(1.0, double(m) * theta[i]);
      total += std::abs(partial);
    }
    out.push_back(total / double(half));
  }
  return out;
}

}  // namespace ref

// EXPECT_ALLCLOSE(got, reference, ref::kTight): the one comparison of the suite.
#define EXPECT_ALLCLOSE(got, want, tol) EXPECT_TRUE(::ref::AllClose((got), (want), (tol)))
#define ASSERT_ALLCLOSE(got, want, tol) ASSERT_TRUE(::ref::AllClose((got), (want), (tol)))

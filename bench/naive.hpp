// Naive scalar baselines for the benchmarks: the same math as the core, written the obvious
// way (no tables, no SIMD, no blocking), so "naive time / core time" says what the core's
// work buys. They double as the references each timed core call is validated against.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "poslab/base/random.hpp"

namespace poslab::naive {

// PE (L, D), interleaved: PE[p,2i] = sin(p·w_i), PE[p,2i+1] = cos(p·w_i), w_i = base^(-2i/D).
// pow, sin and cos per element pair, in double.
inline std::vector<float> sinusoidal_table(std::size_t L, std::size_t D, double base = 10000.0) {
  std::vector<float> pe(L * D);
  for (std::size_t p = 0; p < L; ++p) {
    for (std::size_t i = 0; i < D / 2; ++i) {
      const double w = std::pow(base, -2.0 * double(i) / double(D));
      pe[p * D + 2 * i] = static_cast<float>(std::sin(double(p) * w));
      pe[p * D + 2 * i + 1] = static_cast<float>(std::cos(double(p) * w));
    }
  }
  return pe;
}

// RoPE, neox pairing (x[i], x[i + D/2]), on x (H, L, D) (H = 1 for an (L, D) input) at
// positions 0..L−1: θ_i = base^(-2i/D), pair rotated by p·θ_i. pow, sin and cos per pair.
inline std::vector<float> rope_neox(const std::vector<float>& x, std::size_t H, std::size_t L,
                                    std::size_t D, double base = 10000.0) {
  std::vector<float> out(x.size());
  const std::size_t half = D / 2;
  for (std::size_t h = 0; h < H; ++h) {
    for (std::size_t p = 0; p < L; ++p) {
      const float* in_row = x.data() + (h * L + p) * D;
      float* out_row = out.data() + (h * L + p) * D;
      for (std::size_t i = 0; i < half; ++i) {
        const double theta = std::pow(base, -2.0 * double(i) / double(D));
        const double c = std::cos(double(p) * theta);
        const double s = std::sin(double(p) * theta);
        const double x0 = in_row[i];
        const double x1 = in_row[i + half];
        out_row[i] = static_cast<float>(x0 * c - x1 * s);
        out_row[i + half] = static_cast<float>(x0 * s + x1 * c);
      }
    }
  }
  return out;
}

// softmax(Q Kᵀ / √d + mask) V for q (H, Lq, d), k (H, Lk, d), v (H, Lk, d); returns (H, Lq, d).
// One query row at a time: scores in double, stable softmax (subtract the row max), then the
// weighted sum of V rows in double. `causal` skips keys j > i (they would get weight 0).
inline std::vector<float> attention(const std::vector<float>& q, const std::vector<float>& k,
                                    const std::vector<float>& v, std::size_t H, std::size_t Lq,
                                    std::size_t Lk, std::size_t d, bool causal) {
  std::vector<float> out(H * Lq * d);
  std::vector<double> score(Lk);
  std::vector<double> acc(d);
  const double scale = 1.0 / std::sqrt(double(d));
  for (std::size_t h = 0; h < H; ++h) {
    for (std::size_t i = 0; i < Lq; ++i) {
      const float* qi = q.data() + (h * Lq + i) * d;
      const std::size_t keys = causal ? std::min(i + 1, Lk) : Lk;

      double max_score = -std::numeric_limits<double>::infinity();
      for (std::size_t j = 0; j < keys; ++j) {
        const float* kj = k.data() + (h * Lk + j) * d;
        double dot = 0.0;
        for (std::size_t c = 0; c < d; ++c) dot += double(qi[c]) * double(kj[c]);
        score[j] = dot * scale;
        if (score[j] > max_score) max_score = score[j];
      }

      double sum = 0.0;
      for (std::size_t j = 0; j < keys; ++j) {
        score[j] = std::exp(score[j] - max_score);
        sum += score[j];
      }

      for (std::size_t c = 0; c < d; ++c) acc[c] = 0.0;
      for (std::size_t j = 0; j < keys; ++j) {
        const float* vj = v.data() + (h * Lk + j) * d;
        const double weight = score[j] / sum;
        for (std::size_t c = 0; c < d; ++c) acc[c] += weight * double(vj[c]);
      }

      float* oi = out.data() + (h * Lq + i) * d;
      for (std::size_t c = 0; c < d; ++c) oi[c] = static_cast<float>(acc[c]);
    }
  }
  return out;
}

}  // namespace poslab::naive

// What the benchmarks share besides the baselines: inputs and the validation measure.
namespace poslab::bench {

// n standard-normal floats from a fixed seed (the same inputs on every run).
inline std::vector<float> random_normal(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<float> out(n);
  for (float& value : out) value = static_cast<float>(rng.normal());
  return out;
}

// Largest |got − want| / (abs_tol + rel_tol·|want|): <= 1 means within tolerance
// (llm.c's `tol + |ref|·eps` rule). Infinite if the sizes differ or a value is NaN.
inline double tolerance_ratio(const std::vector<float>& got, const std::vector<float>& want,
                              double abs_tol, double rel_tol) {
  if (got.size() != want.size()) return std::numeric_limits<double>::infinity();
  double worst = 0.0;
  for (std::size_t n = 0; n < got.size(); ++n) {
    const double err = std::fabs(double(got[n]) - double(want[n]));
    const double ratio = err / (abs_tol + rel_tol * std::fabs(double(want[n])));
    if (!(ratio <= worst))
      worst = std::isnan(ratio) ? std::numeric_limits<double>::infinity() : ratio;
  }
  return worst;
}

}  // namespace poslab::bench

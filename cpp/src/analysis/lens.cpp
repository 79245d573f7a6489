// The position lens's measures (poslab/analysis/lens.hpp): plain loops over (H, T, T), in double.
#include "poslab/analysis/lens.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "poslab/base/errors.hpp"

namespace poslab {

namespace {

struct Dims {
  std::size_t H, T;
};

Dims layer_dims(const TensorF& a, const char* field) {
  require(a.shape.size() == 3 && a.dim(1) == a.dim(2) && a.dim(1) > 0, field,
          std::string(field) + " must be (H, T, T) with T > 0");
  return {a.dim(0), a.dim(1)};
}

// The mean over rows i in [first, T) of f(i), 0 when there are none.
template <class F>
double row_mean(std::size_t first, std::size_t T, F f) {
  if (first >= T) return 0.0;
  double sum = 0.0;
  for (std::size_t i = first; i < T; ++i) sum += f(i);
  return sum / double(T - first);
}

}  // namespace

TensorF attention_by_distance(const TensorF& attention) {
  // Named, not structured bindings: C++17 lambdas cannot capture those.
  const Dims dims = layer_dims(attention, "attention");
  const std::size_t H = dims.H, T = dims.T;
  TensorF out({H, T}, "attention by distance (H, T)");
  for (std::size_t h = 0; h < H; ++h) {
    const float* a = attention.ptr() + h * T * T;
    for (std::size_t d = 0; d < T; ++d) {
      out.data[h * T + d] =
          float(row_mean(d, T, [&](std::size_t i) { return double(a[i * T + i - d]); }));
    }
  }
  return out;
}

std::vector<HeadScores> head_scores(const TensorF& attention, const TensorF& repeated,
                                    long long period, const HeadRoleThresholds& t) {
  // Named, not structured bindings: C++17 lambdas cannot capture those.
  const Dims dims = layer_dims(attention, "attention");
  const std::size_t H = dims.H, T = dims.T;
  require(t.local_window >= 1, "localWindow", "the local window W must be at least 1");
  std::size_t R = 0;
  if (!repeated.data.empty()) {
    const Dims r = layer_dims(repeated, "repeated");
    require(r.H == H, "repeated", "the repeated sequence's attention must have the text's heads");
    R = r.T;
    require(period >= 1 && 2 * std::size_t(period) <= R, "period",
            "the repeat period n must be in [1, T/2] of the repeated sequence (T = " +
                std::to_string(R) + ")");
  }
  const std::size_t W = std::size_t(t.local_window), n = std::size_t(period);
  std::vector<HeadScores> out(H);
  for (std::size_t h = 0; h < H; ++h) {
    const float* a = attention.ptr() + h * T * T;
    HeadScores& s = out[h];
    s.sink = row_mean(1, T, [&](std::size_t i) { return double(a[i * T]); });
    s.previous_token = row_mean(1, T, [&](std::size_t i) { return double(a[i * T + i - 1]); });
    s.local = row_mean(W, T, [&](std::size_t i) {
      double mass = 0.0;
      for (std::size_t j = i + 1 - W; j <= i; ++j) mass += a[i * T + j];
      return mass;
    });
    if (R > 0) {
      const float* r = repeated.ptr() + h * R * R;
      s.induction = row_mean(n, R, [&](std::size_t i) { return double(r[i * R + i - n + 1]); });
    }
  }
  return out;
}

TensorF rope_pair_energy(const TensorF& q, const TensorF& k, const TensorF& attention,
                         long long rotary_dim, RopeStyle style) {
  const Dims dims = layer_dims(attention, "attention");
  const std::size_t H = dims.H, T = dims.T;
  require(q.shape.size() == 3 && q.dim(0) == H && q.dim(1) == T && k.shape == q.shape, "q",
          "q and k must both be (H, T, d) with the attention's H and T");
  const std::size_t d = q.dim(2);
  require(rotary_dim >= 0 && rotary_dim % 2 == 0 && std::size_t(rotary_dim) <= d, "rotaryDim",
          "the rotary dim R must be even and at most the head width " + std::to_string(d) +
              " (got " + std::to_string(rotary_dim) + ")");
  const std::size_t P = std::size_t(rotary_dim) / 2;
  // Pair p's two dims: neox (p, p + R/2), gptj (2p, 2p + 1).
  std::vector<std::size_t> first(P), second(P);
  for (std::size_t p = 0; p < P; ++p) {
    first[p] = style == RopeStyle::kNeox ? p : 2 * p;
    second[p] = style == RopeStyle::kNeox ? p + P : 2 * p + 1;
  }
  TensorF out({H, P + 1}, "pair energy (H, R/2 + 1)");
  std::vector<double> energy(P + 1);
  for (std::size_t h = 0; h < H; ++h) {
    std::fill(energy.begin(), energy.end(), 0.0);
    const float* a = attention.ptr() + h * T * T;
    for (std::size_t i = 0; i < T; ++i) {
      const float* qi = q.ptr() + (h * T + i) * d;
      for (std::size_t j = 0; j <= i; ++j) {
        const double w = a[i * T + j];
        if (w == 0.0) continue;
        const float* kj = k.ptr() + (h * T + j) * d;
        for (std::size_t p = 0; p < P; ++p) {
          energy[p] += w * std::abs(double(qi[first[p]]) * kj[first[p]] +
                                    double(qi[second[p]]) * kj[second[p]]);
        }
        double rest = 0.0;
        for (std::size_t c = 2 * P; c < d; ++c) rest += double(qi[c]) * kj[c];
        energy[P] += w * std::abs(rest);
      }
    }
    double total = 0.0;
    for (double e : energy) total += e;
    for (std::size_t p = 0; p <= P; ++p) {
      out.data[h * (P + 1) + p] = total > 0.0 ? float(energy[p] / total) : 0.0f;
    }
  }
  return out;
}

double turning_pair_share(const float* energy, const std::vector<double>& inv_freq,
                          long long context) {
  constexpr double kTwoPi = 6.283185307179586;
  double share = 0.0;
  for (std::size_t p = 0; p < inv_freq.size(); ++p) {
    if (kTwoPi / inv_freq[p] <= double(context)) share += energy[p];
  }
  return share;
}

LogitChange logit_change(const TensorF& a, const TensorF& b) {
  require(a.shape == b.shape, "logits", "the two passes' logits differ in shape");
  LogitChange out;
  for (std::size_t i = 0; i < a.data.size(); ++i) {
    out.max_abs_change =
        std::max(out.max_abs_change, std::abs(double(b.data[i]) - double(a.data[i])));
    out.max_abs = std::max(out.max_abs, std::abs(double(a.data[i])));
  }
  return out;
}

HeadRole head_role(const HeadScores& s, const HeadRoleThresholds& t) {
  if (s.sink >= t.sink) return HeadRole::kSink;
  if (s.previous_token >= t.previous_token) return HeadRole::kPreviousToken;
  if (s.induction >= t.induction) return HeadRole::kInduction;
  if (s.local >= t.local) return HeadRole::kLocal;
  return HeadRole::kBroad;
}

}  // namespace poslab

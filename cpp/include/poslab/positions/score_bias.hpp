// Every score-bias method's term, defined once: the value b(h, p_q, p_k) a method adds to the
// attention score of head h (of H) between a query at position p_q and a key at p_k, and its
// gradient with respect to the method's parameters. Compiled for host and device: the core's
// bias tensor (score_bias_tensor.hpp), multi-head attention, the trainer's score-bias hook and the
// CUDA fused kernel's score functor all instantiate these terms, through `with_score_bias_term`.
//
// A term is built from (parameters, shape): `parameters` points at the method's learned values in
// its own layout (P = float or double), `shape` says H, the table's option values in the row's
// order (position_methods.hpp) and whether keys after the query are seen. Every term has
//   value(h, q, k)                    b for head h,
//   values(q, k, out)                 b for every head (out: H doubles),
//   add_gradients(q, k, ds, grad)     grad += Σ_h ds[h]·∂b_h/∂θ, grad in the parameters' layout,
//   kRelative                         b reads p_k − p_q only (the CUDA kernel stages it by
//                                     distance),
//   kTensors                          the tensors its parameters are, in that layout's order, with
//                                     how each starts and stays in its domain: the trainer's
//                                     layout, init and projection and the core's defaults read
//                                     them (train/model.cpp, score_bias_tensor.cpp).
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "poslab/base/errors.hpp"
#include "poslab/base/random.hpp"
#include "poslab/positions/formulas.hpp"
#include "poslab/positions/position_methods.hpp"

namespace poslab::score_bias {

struct TermShape {
  int heads = 1;
  double options[2] = {0, 0};  // the row's options (T5: numBuckets, maxDistance)
  bool bidirectional = false;  // keys after the query are seen (T5 buckets them apart)
};

// Terms whose values are looped over heads, for values() and add_gradients().
template <class Term>
struct PerHead {
  POSLAB_HD void values(std::int64_t q, std::int64_t k, double* out) const {
    const Term& t = static_cast<const Term&>(*this);
    for (int h = 0; h < t.heads; ++h) out[h] = t.value(h, q, k);
  }
  POSLAB_HD void add_gradients(std::int64_t q, std::int64_t k, const double* ds,
                               double* grad) const {
    const Term& t = static_cast<const Term&>(*this);
    for (int h = 0; h < t.heads; ++h) t.add_gradient(h, q, k, ds[h], grad);
  }
};

// One tensor of a term's parameters.
struct ParameterTensor {
  enum Size { kOne, kHeads, kHidden, kBuckets };  // kHidden: FIRE's K; kBuckets: option 0
  enum Init {
    kNormal,     // N(0, value²)
    kSymmetric,  // value·(2u − 1), u uniform in [0, 1): PyTorch's nn.Linear, bound value
    kScaled,     // value·u
    kConstant,   // value
  };
  const char* name;  // per layer: the trainer's h.{l}.attn.<name>; shared: <name>
  bool per_layer;
  Size rows, cols;
  bool matrix;  // shape (rows, cols); else (rows·cols,)
  Init init;
  double value;
  double least;  // kept at least this (the reference's clamp); −∞: unbounded
  int option;    // the row's option that, when > 0, sets every value instead (−1: none)
};
inline constexpr double kUnbounded = -std::numeric_limits<double>::infinity();

POSLAB_HD inline std::int64_t distance(std::int64_t q, std::int64_t k) {
  return q > k ? q - k : k - q;
}

// ALiBi (Press et al. 2022): −m_h·|p_q − p_k|, m_h = formulas::alibi_slope. No parameters.
template <class P>
struct Alibi : PerHead<Alibi<P>> {
  static constexpr bool kRelative = true;
  static constexpr std::array<ParameterTensor, 0> kTensors{};
  static constexpr int kCached = 64;  // slopes kept for the first heads: a pair costs no exp2
  int heads;
  double slopes[kCached];
  POSLAB_HD Alibi(const P*, const TermShape& shape) : heads(shape.heads) {
    for (int h = 0; h < kCached && h < heads; ++h) slopes[h] = formulas::alibi_slope(h, heads);
  }
  // The term at slope m (the GPU's bias-table kernels, which stage slopes, call it too).
  POSLAB_HD static double at_slope(double m, std::int64_t q, std::int64_t k) {
    const std::int64_t d = distance(q, k);
    // distance 0 gives +0, not −0, so text outputs read "0".
    return d == 0 ? 0.0 : -m * static_cast<double>(d);
  }
  POSLAB_HD double value(int h, std::int64_t q, std::int64_t k) const {
    return at_slope(h < kCached ? slopes[h] : formulas::alibi_slope(h, heads), q, k);
  }
  POSLAB_HD void add_gradient(int, std::int64_t, std::int64_t, double, double*) const {}
};

// T5 (Raffel et al. 2020): table[bucket(p_k − p_q), h] (formulas::t5_bucket; bidirectional
// buckets when later keys are seen), table (num_buckets, H). Options: numBuckets, maxDistance.
template <class P>
struct T5 : PerHead<T5<P>> {
  static constexpr bool kRelative = true;
  // The trainer's table, shared by every layer, starts N(0, 0.02) as its embeddings do.
  static constexpr std::array<ParameterTensor, 1> kTensors{
      {{"rel_bias.weight", false, ParameterTensor::kBuckets, ParameterTensor::kHeads, true,
        ParameterTensor::kNormal, 0.02, kUnbounded, -1}}};
  const P* table;
  int heads, num_buckets, max_distance;
  bool bidirectional;
  POSLAB_HD T5(const P* t, const TermShape& shape)
      : table(t),
        heads(shape.heads),
        num_buckets(static_cast<int>(shape.options[0])),
        max_distance(static_cast<int>(shape.options[1])),
        bidirectional(shape.bidirectional) {}
  POSLAB_HD int bucket(std::int64_t q, std::int64_t k) const {
    return formulas::t5_bucket(k - q, bidirectional, num_buckets, max_distance);
  }
  POSLAB_HD double value(int h, std::int64_t q, std::int64_t k) const {
    return static_cast<double>(table[static_cast<std::size_t>(bucket(q, k)) * heads + h]);
  }
  POSLAB_HD void add_gradient(int h, std::int64_t q, std::int64_t k, double ds,
                              double* grad) const {
    grad[static_cast<std::size_t>(bucket(q, k)) * heads + h] += ds;
  }
  // Every head at once: one bucket per pair.
  POSLAB_HD void values(std::int64_t q, std::int64_t k, double* out) const {
    const P* row = table + static_cast<std::size_t>(bucket(q, k)) * heads;
    for (int h = 0; h < heads; ++h) out[h] = static_cast<double>(row[h]);
  }
  POSLAB_HD void add_gradients(std::int64_t q, std::int64_t k, const double* ds,
                               double* grad) const {
    double* row = grad + static_cast<std::size_t>(bucket(q, k)) * heads;
    for (int h = 0; h < heads; ++h) row[h] += ds[h];
  }
};

// KERPLE, logarithmic (Chi et al. 2022; the authors' ParallelKerpleLog): −r1_h·log(1 + r2_h·
// |p_q − p_k|), parameters r1 (H) then r2 (H), both kept ≥ kKerpleMin (the reference clamps
// them before every forward pass) and drawn U(0, 2) and U(0, 1) at first (kerple_initial).
inline constexpr double kKerpleMin = 1e-2;
template <class P>
struct Kerple : PerHead<Kerple<P>> {
  static constexpr bool kRelative = true;
  // torch.rand(H)·2 and ·1, clamped at kKerpleMin; the options r1, r2 set every head's.
  static constexpr std::array<ParameterTensor, 2> kTensors{
      {{"kerple_r1", true, ParameterTensor::kHeads, ParameterTensor::kOne, false,
        ParameterTensor::kScaled, 2.0, kKerpleMin, 0},
       {"kerple_r2", true, ParameterTensor::kHeads, ParameterTensor::kOne, false,
        ParameterTensor::kScaled, 1.0, kKerpleMin, 1}}};
  const P* r;  // r1 (H) then r2 (H)
  int heads;
  POSLAB_HD Kerple(const P* parameters, const TermShape& shape)
      : r(parameters), heads(shape.heads) {}
  POSLAB_HD double value(int h, std::int64_t q, std::int64_t k) const {
    const double d = static_cast<double>(distance(q, k));
    return d == 0 ? 0.0 : -static_cast<double>(r[h]) * std::log1p(r[heads + h] * d);
  }
  POSLAB_HD void add_gradient(int h, std::int64_t q, std::int64_t k, double ds,
                              double* grad) const {
    const double d = static_cast<double>(distance(q, k)), r2 = r[heads + h];
    grad[h] -= ds * std::log1p(r2 * d);
    grad[heads + h] -= ds * static_cast<double>(r[h]) * d / (1 + r2 * d);
  }
};

// FIRE (Li et al. 2024), one layer: f(ψ(|p_q − p_k|) / (ψ(max(L, p_q + 1)) + eps)) with
// ψ(x) = log(|c|·x + 1), L = |s|·kFireThresholdUnit, f: 1 → kFireHidden (ReLU) → H, without
// fc2's bias (a constant per head shifts a whole row of scores, which the softmax ignores). As
// the paper's code: c starts at kFireInitC, the threshold is learned through its scale s
// (starting at 1), the MLP starts as nn.Linear does. Parameters: c, s, w1 (K), b1 (K), w2 (K, H).
inline constexpr std::size_t kFireHidden = 32;
inline constexpr double kFireInitC = 0.1;
inline constexpr double kFireThresholdUnit = 512;  // L = |threshold_scale|·512
inline constexpr double kFireEps = 1e-6;
template <class P>
struct Fire {
  static constexpr bool kRelative = false;
  // c and the threshold scale as the paper's code starts them; the MLP as nn.Linear does
  // (±1/√fan_in: fc1 reads one input, fc2 K).
  static constexpr std::array<ParameterTensor, 5> kTensors{
      {{"fire.c", true, ParameterTensor::kOne, ParameterTensor::kOne, false,
        ParameterTensor::kConstant, kFireInitC, kUnbounded, -1},
       {"fire.threshold_scale", true, ParameterTensor::kOne, ParameterTensor::kOne, false,
        ParameterTensor::kConstant, 1.0, kUnbounded, -1},
       {"fire.fc1.weight", true, ParameterTensor::kOne, ParameterTensor::kHidden, true,
        ParameterTensor::kSymmetric, 1.0, kUnbounded, -1},
       {"fire.fc1.bias", true, ParameterTensor::kHidden, ParameterTensor::kOne, false,
        ParameterTensor::kSymmetric, 1.0, kUnbounded, -1},
       {"fire.fc2.weight", true, ParameterTensor::kHidden, ParameterTensor::kHeads, true,
        ParameterTensor::kSymmetric, 0.17677669529663687, kUnbounded, -1}}};  // 1/√32
  static constexpr int K = static_cast<int>(kFireHidden);
  const P* p;
  int heads;
  POSLAB_HD Fire(const P* parameters, const TermShape& shape) : p(parameters), heads(shape.heads) {}

  struct Pair {
    double u, num, den, norm, r;  // u = num / den; norm = max(L, p_q + 1); r = |p_q − p_k|
    bool threshold;               // the normaliser is L (not p_q + 1): L gets the gradient
  };
  POSLAB_HD Pair pair(std::int64_t q, std::int64_t k) const {
    Pair f;
    const double ac = std::fabs(static_cast<double>(p[0]));
    const double threshold = std::fabs(static_cast<double>(p[1])) * kFireThresholdUnit;
    const double query = static_cast<double>(q) + 1;
    f.threshold = threshold > query;
    f.norm = f.threshold ? threshold : query;
    f.r = static_cast<double>(distance(q, k));
    f.num = std::log(ac * f.r + 1);
    f.den = std::log(ac * f.norm + 1) + kFireEps;
    f.u = f.num / f.den;
    return f;
  }
  POSLAB_HD void values(std::int64_t q, std::int64_t k, double* out) const {
    const P *w1 = p + 2, *b1 = w1 + K, *w2 = b1 + K;
    const double u = pair(q, k).u;
    for (int h = 0; h < heads; ++h) out[h] = 0;
    for (int j = 0; j < K; ++j) {
      const double a = w1[j] * u + b1[j];
      if (a <= 0) continue;
      for (int h = 0; h < heads; ++h) out[h] += a * w2[j * heads + h];
    }
  }
  POSLAB_HD double value(int h, std::int64_t q, std::int64_t k) const {
    const P *w1 = p + 2, *b1 = w1 + K, *w2 = b1 + K;
    const double u = pair(q, k).u;
    double out = 0;
    for (int j = 0; j < K; ++j) {
      const double a = w1[j] * u + b1[j];
      if (a > 0) out += a * w2[j * heads + h];
    }
    return out;
  }
  // A kink is taken as flat on its lower side: ReLU at 0, |c| and |s| at 0, and max(L, p_q + 1)
  // gives L the gradient only where L > p_q + 1.
  POSLAB_HD void add_gradients(std::int64_t q, std::int64_t k, const double* ds,
                               double* grad) const {
    const P *w1 = p + 2, *b1 = w1 + K, *w2 = b1 + K;
    double *gw1 = grad + 2, *gb1 = gw1 + K, *gw2 = gb1 + K;
    const double c = p[0], s = p[1], ac = std::fabs(c);
    const Pair f = pair(q, k);
    double du = 0;
    for (int j = 0; j < K; ++j) {
      const double a = w1[j] * f.u + b1[j];
      if (a <= 0) continue;
      double da = 0;
      for (int h = 0; h < heads; ++h) {
        gw2[j * heads + h] += a * ds[h];
        da += w2[j * heads + h] * ds[h];
      }
      gw1[j] += da * f.u;
      gb1[j] += da;
      du += da * w1[j];
    }
    // u = num / den: num = log(|c|·r + 1), den = log(|c|·norm + 1) + eps.
    const double dnum = du / f.den, dden = -du * f.num / (f.den * f.den);
    const double sign_c = c > 0 ? 1 : c < 0 ? -1 : 0, sign_s = s > 0 ? 1 : s < 0 ? -1 : 0;
    grad[0] += sign_c * (dnum * f.r / (ac * f.r + 1) + dden * f.norm / (ac * f.norm + 1));
    if (f.threshold) grad[1] += dden * ac / (ac * f.norm + 1) * sign_s * kFireThresholdUnit;
  }
};

// A term's type, handed to with_term_type's callable: typename T::template With<P> is the term
// over parameters of type P.
template <template <class> class Term>
struct TermType {
  template <class P>
  using With = Term<P>;
};

// Calls f(TermType<...>) for `term`: the one switch over the score biases. Error (field "bias")
// for kNone. Host only: the CUDA launcher picks its kernel here.
template <class F>
decltype(auto) with_term_type(BiasTerm term, F&& f) {
  switch (term) {
    case BiasTerm::kAlibi:
      return f(TermType<Alibi>{});
    case BiasTerm::kT5:
      return f(TermType<T5>{});
    case BiasTerm::kKerple:
      return f(TermType<Kerple>{});
    case BiasTerm::kFire:
      return f(TermType<Fire>{});
    case BiasTerm::kNone:
      break;
  }
  throw Error("not a score bias", "bias");
}

// Calls f(term) with `method`'s term over `parameters`; Error (field "bias") for a method that
// is not a score bias.
template <class P, class F>
decltype(auto) with_score_bias_term(PositionMethod method, const P* parameters,
                                    const TermShape& shape, F&& f) {
  const PositionMethodInfo& info = position_method_info(method);
  require(info.term != BiasTerm::kNone, "bias",
          std::string("position method '") + info.name + "' is not a score bias");
  return with_term_type(info.term, [&](auto type) {
    using Term = typename decltype(type)::template With<P>;
    return f(Term(parameters, shape));
  });
}

// The tensors of `method`'s term (none for a method without one).
struct ParameterTensors {
  const ParameterTensor* first = nullptr;
  std::size_t count = 0;
  const ParameterTensor* begin() const { return first; }
  const ParameterTensor* end() const { return first + count; }
};
inline ParameterTensors parameter_tensors(PositionMethod method) {
  const BiasTerm term = position_method_info(method).term;
  if (term == BiasTerm::kNone) return {};
  return with_term_type(term, [](auto type) {
    using Term = typename decltype(type)::template With<float>;
    return ParameterTensors{Term::kTensors.data(), Term::kTensors.size()};
  });
}

// The extent of one axis of a tensor for H heads and T5's `buckets`.
inline std::size_t tensor_size(ParameterTensor::Size size, std::size_t heads, std::size_t buckets) {
  return size == ParameterTensor::kHeads     ? heads
         : size == ParameterTensor::kHidden  ? kFireHidden
         : size == ParameterTensor::kBuckets ? buckets
                                             : 1;
}

// The number of values of tensor `t` for H heads and T5's `buckets`.
inline std::size_t tensor_numel(const ParameterTensor& t, std::size_t heads, std::size_t buckets) {
  return tensor_size(t.rows, heads, buckets) * tensor_size(t.cols, heads, buckets);
}

// Whether every layer reads the same parameters (none, or only shared tensors): its bias for a
// batch is then the same in every layer.
inline bool shared_by_layers(const ParameterTensors& tensors) {
  for (const ParameterTensor& t : tensors) {
    if (t.per_layer) return false;
  }
  return true;
}

// Fills the n values of tensor `t` as it starts, drawing from `rng` in order (host only).
template <class P>
void initialize(const ParameterTensor& t, Rng& rng, P* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    double x = t.value;
    if (t.init == ParameterTensor::kNormal) x = t.value * rng.normal();
    if (t.init == ParameterTensor::kSymmetric) x = t.value * (2 * rng.uniform() - 1);
    if (t.init == ParameterTensor::kScaled) x = t.value * rng.uniform();
    out[i] = static_cast<P>(x > t.least ? x : t.least);
  }
}

}  // namespace poslab::score_bias

// The trainer's ops, forward and backward side by side (llm.c style), as templates over the
// scalar type: float for training, double for the finite-difference tests
// (tests/cpp/train_ops_test.cpp), so every backward is checked against a derivative taken in
// double. Row-major throughout; N = B·T rows, C channels. Backward functions ACCUMULATE into
// their gradient outputs (the caller zeroes them once per step), as a gradient that several
// uses feed (wte: embedding and tied head) needs.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "poslab/layers/mask.hpp"
#include "poslab/positions/formulas.hpp"

namespace poslab::train::ops {

// Σ_c f(c) over c < n in four interleaved partial sums: a plain running sum is one chain of
// dependent adds the compiler may not reorder, so LayerNorm's reductions over the model width
// ran at add latency; four lanes vectorise (SSE natively, SIMD128 in wasm).
template <class T, class F>
T sum_of(std::size_t n, F f) {
  T s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::size_t c = 0;
  for (; c + 4 <= n; c += 4) {
    s0 += f(c);
    s1 += f(c + 1);
    s2 += f(c + 2);
    s3 += f(c + 3);
  }
  for (; c < n; ++c) s0 += f(c);
  return (s0 + s2) + (s1 + s3);
}

// C (M, N) (+)= op(A) · op(B); A is (M, K), or stored (K, M) when `ta`; B is (K, N), or
// stored (N, K) when `tb`. float runs on poslab::fast::gemm, double on plain loops.
void matmul(std::size_t M, std::size_t N, std::size_t K, const float* a, bool ta, const float* b,
            bool tb, float* c, bool accumulate);
void matmul(std::size_t M, std::size_t N, std::size_t K, const double* a, bool ta, const double* b,
            bool tb, double* c, bool accumulate);

// Softmax of row[0, n) in place, shifted by its maximum (float: a vectorised exp). With `sink`
// (an attention sink's logit σ), exp(σ) joins the denominator and the sink's weight
// exp(σ)/Z is returned (0 without one).
float softmax_row(float* row, std::size_t n, const float* sink = nullptr);
double softmax_row(double* row, std::size_t n, const double* sink = nullptr);

// GELU's tanh form over n values (float: the vectorised fast::gelu_tanh).
void gelu_tanh_forward(float* out, const float* in, std::size_t n);
void gelu_tanh_forward(double* out, const double* in, std::size_t n);

// out (N, OC) = in (N, C) · w (C, OC) + b (OC) (b may be null).
template <class T>
void linear_forward(T* out, const T* in, const T* w, const T* b, std::size_t n, std::size_t c,
                    std::size_t oc) {
  matmul(n, oc, c, in, false, w, false, out, false);
  if (b == nullptr) return;
  for (std::size_t r = 0; r < n; ++r) {
    T* row = out + r * oc;
    for (std::size_t o = 0; o < oc; ++o) row[o] += b[o];
  }
}

// din (N, C) += dout · wᵀ;  dw (C, OC) += inᵀ · dout;  db (OC) += Σ_rows dout.
// `din_fresh`: din = dout · wᵀ instead, for an input only this op feeds (saves zeroing it).
template <class T>
void linear_backward(T* din, T* dw, T* db, const T* dout, const T* in, const T* w, std::size_t n,
                     std::size_t c, std::size_t oc, bool din_fresh = false) {
  if (din != nullptr) matmul(n, c, oc, dout, false, w, true, din, !din_fresh);
  matmul(c, oc, n, in, true, dout, false, dw, true);
  if (db == nullptr) return;
  for (std::size_t r = 0; r < n; ++r) {
    const T* row = dout + r * oc;
    for (std::size_t o = 0; o < oc; ++o) db[o] += row[o];
  }
}

// out = (in − mean)·rstd·w + b per row, the biased variance; mean and rstd (N) are kept.
template <class T>
void layernorm_forward(T* out, T* mean, T* rstd, const T* in, const T* w, const T* b, std::size_t n,
                       std::size_t c, double eps) {
  const T inv_c = T(1) / static_cast<T>(c);
  for (std::size_t r = 0; r < n; ++r) {
    const T* x = in + r * c;
    const T m = sum_of<T>(c, [&](std::size_t i) { return x[i]; }) * inv_c;
    const T v = sum_of<T>(c, [&](std::size_t i) { return (x[i] - m) * (x[i] - m); }) * inv_c;
    const T s = static_cast<T>(1.0 / std::sqrt(static_cast<double>(v) + eps));
    T* y = out + r * c;
    for (std::size_t i = 0; i < c; ++i) y[i] = (x[i] - m) * s * w[i] + b[i];
    mean[r] = m;
    rstd[r] = s;
  }
}

// din += ((dŷ − mean(dŷ)) − x̂·mean(dŷ·x̂))·rstd with dŷ = dout·w;  dw += dout·x̂;  db += dout.
template <class T>
void layernorm_backward(T* din, T* dw, T* db, const T* dout, const T* in, const T* w, const T* mean,
                        const T* rstd, std::size_t n, std::size_t c) {
  const T inv_c = T(1) / static_cast<T>(c);
  for (std::size_t r = 0; r < n; ++r) {
    const T* x = in + r * c;
    const T* dy = dout + r * c;
    const T m = mean[r], s = rstd[r];
    const T mean_dn = sum_of<T>(c, [&](std::size_t i) { return dy[i] * w[i]; }) * inv_c;
    const T mean_dn_xhat =
        sum_of<T>(c, [&](std::size_t i) { return dy[i] * w[i] * ((x[i] - m) * s); }) * inv_c;
    T* dx = din + r * c;
    for (std::size_t i = 0; i < c; ++i) {
      const T xhat = (x[i] - m) * s;
      db[i] += dy[i];
      dw[i] += dy[i] * xhat;
      dx[i] += (dy[i] * w[i] - mean_dn - xhat * mean_dn_xhat) * s;
    }
  }
}

// din += dout · GELU'(in), GELU(x) = ½x(1 + tanh(u)), u = √(2/π)(x + 0.044715x³):
// GELU'(x) = ½(1 + t) + ½x(1 − t²)·√(2/π)(1 + 3·0.044715x²), t = tanh(u). `out` is the
// forward's GELU(in): in float, t = 2·out/in − 1 is read off it (absolute error about one
// rounding of out, also near x = 0) instead of a libm tanh per element, which cost a third of
// a training step; double (the finite-difference reference) calls tanh.
inline double gelu_tanh_slope(double x, double t) {
  const double k = 0.7978845608028654;  // √(2/π)
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * 0.044715 * x * x);
}

void gelu_tanh_backward(float* din, const float* dout, const float* in, const float* out,
                        std::size_t n);

inline void gelu_tanh_backward(double* din, const double* dout, const double* in,
                               const double* /*out*/, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const double x = in[i];
    din[i] +=
        dout[i] * gelu_tanh_slope(x, std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
  }
}

// The lab's decoder sees keys 0..i, by the one mask rule of every build (mask.hpp): causal,
// query i at position i (the batch's own positions only feed the rotations and score biases).
inline constexpr MaskRule<long long> kCausal{true, 0, 0};

// The number of keys query i of L sees: its range is [0, n).
inline std::size_t visible_keys(std::size_t i, std::size_t L) {
  return static_cast<std::size_t>(
      kCausal.keys(static_cast<long long>(i), static_cast<long long>(L)).last);
}

// How positions bias and rotate attention for one batch: filled once per step from the
// batch's positions, shared by every layer.
struct AttentionPlan {
  std::size_t batch = 0, length = 0, heads = 0, head_dim = 0;
  bool rope = false;         // q and k rotated (a rotation method)
  bool interleaved = false;  // gptj pairs (x[2i], x[2i+1]); else neox (x[i], x[i+d/2])
  std::vector<double> cos,
      sin;  // (B·T, d/2): cos and sin of position·θ_i, in double (a decay: ·ζ_i^e)
  std::vector<double> key_cos, key_sin;  // a decay: the keys' (·ζ_i^(−e)); empty: cos, sin
  // Position surgery's NoPE heads: (H,), 1 where head h's q and k are not rotated; empty: none.
  std::vector<char> unrotated;
  // Llama 4's attention temperature (a NoPE layer's): with `tempered`, query row r is scaled
  // by query_scale[r] (B·T) after any rotation.
  std::vector<double> query_scale;
  bool tempered = false;
  bool rotates(std::size_t h) const { return rope && (h >= unrotated.size() || !unrotated[h]); }
};

// Rotates the pairs of one head vector by the angles of `row`, a query's or a key's (a decay
// scales them apart; cos and sin carry the scale). Inverse: by −angle, the transpose of the
// scaled rotation, which is what the backward pass needs.
template <class T>
void rope_rotate(T* x, const AttentionPlan& plan, std::size_t row, bool inverse, bool key) {
  const std::size_t half = plan.head_dim / 2;
  const bool own = key && !plan.key_cos.empty();
  const double* cs = (own ? plan.key_cos : plan.cos).data() + row * half;
  const double* sn = (own ? plan.key_sin : plan.sin).data() + row * half;
  for (std::size_t i = 0; i < half; ++i) {
    const std::size_t a = plan.interleaved ? 2 * i : i;
    const std::size_t b = plan.interleaved ? 2 * i + 1 : i + half;
    double x1 = x[a], x2 = x[b];
    formulas::rotate_pair(x1, x2, cs[i], inverse ? -sn[i] : sn[i]);
    x[a] = static_cast<T>(x1);
    x[b] = static_cast<T>(x2);
  }
}

// What attention learns besides its projections and the position method's rotation or bias,
// each optional (null: none), with where its gradient goes:
//   sinks (H,): attention sinks as gpt-oss's, one logit σ_h per head in every softmax's
//   denominator, a_ij = exp(s_ij) / (exp(σ_h) + Σ_k exp(s_ik)); sink_weights (B, H, T) keeps
//   each row's exp(σ_h)/Z for the backward pass; dsinks (H,) accumulates their gradient.
//   cope (d, P): CoPE's position embeddings E, shared by the heads (cope_npos_max = P);
//   dcope (d, P) accumulates their gradient (cope_forward says what they do).
template <class T>
struct AttentionExtras {
  const T* sinks = nullptr;
  T* sink_weights = nullptr;
  T* dsinks = nullptr;
  const T* cope = nullptr;
  std::size_t cope_npos_max = 0;
  T* dcope = nullptr;
};

// CoPE (Golovneva et al. 2024, the authors' CoPE module), one query: z (P) = q·E, the query
// (d, unscaled) against every integer position's embedding (E (d, P)), in double.
template <class T>
void cope_logits(double* z, const T* q, const T* emb, std::size_t d, std::size_t P) {
  for (std::size_t m = 0; m < P; ++m) z[m] = 0;
  for (std::size_t c = 0; c < d; ++c) {
    const double qc = q[c];
    for (std::size_t m = 0; m < P; ++m) z[m] += qc * double(emb[c * P + m]);
  }
}

// CoPE over one query's n scaled scores s_j: gates g_j = σ(s_j), contextual positions
// p_j = min(Σ_{t=j..n−1} g_t, P − 1) (the keys from j to the query), and s_j += z at p_j
// interpolated between its integers: z[⌈p⌉]·w + z[⌊p⌋]·(1 − w), w = p − ⌊p⌋.
template <class T>
void cope_forward(T* row, std::size_t n, const double* z, std::size_t P) {
  const double top = static_cast<double>(P - 1);
  double sum = 0;
  for (std::size_t j = n; j-- > 0;) {
    sum += formulas::sigmoid(static_cast<double>(row[j]));
    const double p = std::min(sum, top), lo = std::floor(p), w = p - lo;
    const double term =
        z[static_cast<std::size_t>(std::ceil(p))] * w + z[static_cast<std::size_t>(lo)] * (1 - w);
    row[j] = static_cast<T>(static_cast<double>(row[j]) + term);
  }
}

// Its backward for one query: `s` the n scores cope_forward read, ds (n) the gradient of the
// scores it wrote, turned in place into that of the scores it read; dz (P) accumulates z's.
// The interpolation's weight takes p's gradient (⌊p⌋ and ⌈p⌉ are indices), z[⌈p⌉] − z[⌊p⌋]; a
// clipped p passes none (PyTorch's clamp, max included); p_j sums g_j..g_{n−1}, so g_t takes
// Σ_{j≤t} dp_j, and σ' = g(1 − g). g and dp: scratch (n).
template <class T>
void cope_backward(T* ds, const T* s, std::size_t n, const double* z, std::size_t P, double* dz,
                   double* g, double* dp) {
  const double top = static_cast<double>(P - 1);
  double sum = 0;
  for (std::size_t j = n; j-- > 0;) {
    g[j] = formulas::sigmoid(static_cast<double>(s[j]));
    sum += g[j];
    const double p = std::min(sum, top), lo = std::floor(p), w = p - lo;
    const std::size_t floor_index = static_cast<std::size_t>(lo);
    const std::size_t ceil_index = static_cast<std::size_t>(std::ceil(p));
    const double d = ds[j];
    dz[ceil_index] += d * w;
    dz[floor_index] += d * (1 - w);
    dp[j] = sum <= top ? d * (z[ceil_index] - z[floor_index]) : 0.0;
  }
  double below = 0;  // Σ_{j≤t} dp_j
  for (std::size_t t = 0; t < n; ++t) {
    below += dp[t];
    ds[t] = static_cast<T>(static_cast<double>(ds[t]) + below * g[t] * (1 - g[t]));
  }
}

// The two products of attention over one head, for the keys of one query: the head's rows
// are strided (B, H, T, d) tensors or (B·T, E) activations, read in place.
//
// out[j] = Σ_c a[c]·x[j·x_stride + c] for j < n, c < d: a query against each key (the scores)
// or a row of dout against each value (the weights' gradient), summed over c in order.
template <class T>
void dots(T* __restrict out, const T* __restrict a, const T* __restrict x, std::size_t x_stride,
          std::size_t n, std::size_t d) {
  for (std::size_t j = 0; j < n; ++j) {
    const T* xj = x + j * x_stride;
    T sum = 0;
    for (std::size_t c = 0; c < d; ++c) sum += a[c] * xj[c];
    out[j] = sum;
  }
}
// float: for d = 8, 16, 32, 64, a held in registers and four keys at a time, their four sums
// turned into one vector; the loop above otherwise. Summed in lanes, then across them: not in
// the loop's order (within the float tolerance of the double reference).
void dots(float* __restrict out, const float* __restrict a, const float* __restrict x,
          std::size_t x_stride, std::size_t n, std::size_t d);

// out[c] (+)= Σ_{i<n} w[i·w_stride]·x[i·x_stride + c] for c < d, summed in i order: a
// query's output from the values, or a key's or value's gradient from the queries that see it.
template <class T>
void weighted_rows(T* __restrict out, const T* __restrict w, std::size_t w_stride,
                   const T* __restrict x, std::size_t x_stride, std::size_t n, std::size_t d,
                   bool add) {
  if (!add) std::fill(out, out + d, T(0));
  for (std::size_t i = 0; i < n; ++i) {
    const T wi = w[i * w_stride];
    const T* xi = x + i * x_stride;
    for (std::size_t c = 0; c < d; ++c) out[c] += wi * xi[c];
  }
}
// float: for d = 8, 16, 32, 64, out accumulated in registers and written once (the same sums
// in the same order); the loop above otherwise. Before these two, attention loaded and stored
// out once per key and ran its scores through a transposed copy of the keys: 15 % of a
// training step at the lab's default model in wasm, against 9 % now.
void weighted_rows(float* __restrict out, const float* __restrict w, std::size_t w_stride,
                   const float* __restrict x, std::size_t x_stride, std::size_t n, std::size_t d,
                   bool add);

// Runs f(std::integral_constant<std::size_t, D>) with D = the head width when it is one of
// the common ones, else D = 0 (read at run time): with the width known, the per-key loops
// over it unroll into a few vector operations instead of a loop with a remainder.
template <class F>
void with_head_dim(std::size_t d, F&& f) {
  switch (d) {
    case 8:
      return f(std::integral_constant<std::size_t, 8>());
    case 16:
      return f(std::integral_constant<std::size_t, 16>());
    case 32:
      return f(std::integral_constant<std::size_t, 32>());
    case 64:
      return f(std::integral_constant<std::size_t, 64>());
    default:
      return f(std::integral_constant<std::size_t, 0>());
  }
}

// Causal multi-head attention over qkv (B·T, 3E), heads split as GPT-2's c_attn.
//   q, k, v (B, H, T, d): the split heads, q and k rotated (a rotation method); att (B, H, T, T):
//   the softmax weights (0 above the diagonal); out (B·T, E): merged heads.
// score_bias (B, H, T, T), a score-bias method's (the engine's hook), is added to the scores
// (null: none); `extras` as AttentionExtras says. D: the head width if fixed.
template <std::size_t D = 0, class T>
void attention_forward(T* out, T* q, T* k, T* v, T* att, const T* qkv, const AttentionPlan& plan,
                       const T* score_bias = nullptr,
                       const AttentionExtras<T>& extras = AttentionExtras<T>{}) {
  if constexpr (D == 0) {
    if (plan.head_dim == 8 || plan.head_dim == 16 || plan.head_dim == 32 || plan.head_dim == 64) {
      return with_head_dim(plan.head_dim, [&](auto width) {
        attention_forward<decltype(width)::value>(out, q, k, v, att, qkv, plan, score_bias, extras);
      });
    }
  }
  const std::size_t B = plan.batch, L = plan.length, H = plan.heads;
  const std::size_t d = D != 0 ? D : plan.head_dim;
  const std::size_t E = H * d;
  const T scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(d)));
  std::vector<T> qs(d);  // one query times the scale
  const std::size_t P = extras.cope != nullptr ? extras.cope_npos_max : 0;
  std::vector<double> z(P);  // CoPE: one query against each position's embedding
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t h = 0; h < H; ++h) {
      const std::size_t bh = (b * H + h) * L;
      for (std::size_t t = 0; t < L; ++t) {
        const T* src = qkv + (b * L + t) * 3 * E + h * d;
        for (std::size_t i = 0; i < d; ++i) {
          q[(bh + t) * d + i] = src[i];
          k[(bh + t) * d + i] = src[E + i];
          v[(bh + t) * d + i] = src[2 * E + i];
        }
        if (plan.rotates(h)) {
          rope_rotate(q + (bh + t) * d, plan, b * L + t, false, false);
          rope_rotate(k + (bh + t) * d, plan, b * L + t, false, true);
        }
        if (plan.tempered) {
          const T temperature = static_cast<T>(plan.query_scale[b * L + t]);
          for (std::size_t i = 0; i < d; ++i) q[(bh + t) * d + i] *= temperature;
        }
      }
      for (std::size_t i = 0; i < L; ++i) {
        const std::size_t n = visible_keys(i, L);
        const T* qi = q + (bh + i) * d;
        for (std::size_t c = 0; c < d; ++c) qs[c] = qi[c] * scale;
        T* row = att + (bh + i) * L;
        dots(row, qs.data(), k + bh * d, d, n, d);
        if (P > 0) {
          cope_logits(z.data(), qi, extras.cope, d, P);
          cope_forward(row, n, z.data(), P);
        }
        if (score_bias != nullptr) {
          const T* sb = score_bias + (bh + i) * L;
          for (std::size_t j = 0; j < n; ++j) row[j] += sb[j];
        }
        const T* sink = extras.sinks != nullptr ? extras.sinks + h : nullptr;
        const T sink_weight = softmax_row(row, n, sink);
        if (sink != nullptr) extras.sink_weights[bh + i] = sink_weight;
        for (std::size_t j = n; j < L; ++j) row[j] = 0;
        weighted_rows(out + (b * L + i) * E + h * d, row, 1, v + bh * d, d, n, d, false);
      }
    }
  }
}

// dqkv (B·T, 3E) = the gradient through attention of dout (B·T, E) (overwritten, not
// accumulated); dscore_bias (B, H, T, T), when not null, is set to the scores' gradient for
// j ≤ i (the score bias's hook reads it); `extras`' gradients are accumulated. dq, dk, dv
// (B, H, T, d) and datt (T) are scratch.
template <std::size_t D = 0, class T>
void attention_backward(T* dqkv, T* dq, T* dk, T* dv, T* datt, const T* dout, const T* q,
                        const T* k, const T* v, const T* att, const AttentionPlan& plan,
                        T* dscore_bias = nullptr,
                        const AttentionExtras<T>& extras = AttentionExtras<T>{}) {
  if constexpr (D == 0) {
    if (plan.head_dim == 8 || plan.head_dim == 16 || plan.head_dim == 32 || plan.head_dim == 64) {
      return with_head_dim(plan.head_dim, [&](auto width) {
        attention_backward<decltype(width)::value>(dqkv, dq, dk, dv, datt, dout, q, k, v, att, plan,
                                                   dscore_bias, extras);
      });
    }
  }
  const std::size_t B = plan.batch, L = plan.length, H = plan.heads;
  const std::size_t d = D != 0 ? D : plan.head_dim;
  const std::size_t E = H * d;
  const T scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(d)));
  std::vector<T> ds(L * L);  // the head's scores' gradient times the scale, row i's keys j < n
  // CoPE: one query's scaled scores again, z and its gradient, scratch, and the embeddings'
  // gradient over the batch.
  const std::size_t P = extras.cope != nullptr ? extras.cope_npos_max : 0;
  std::vector<T> qs(d), s(L);
  std::vector<double> z(P), dz(P), g(L), dp(L), dcope(d * P, 0.0);
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t h = 0; h < H; ++h) {
      const std::size_t bh = (b * H + h) * L;
      T* dqh = dq + bh * d;
      T* dkh = dk + bh * d;
      T* dvh = dv + bh * d;
      const T* douth = dout + b * L * E + h * d;  // row i at i·E
      double dsink = 0;  // Σ_i −a_sink,i·Σ_j a_ij·datt_j: the sink's column has no value
      for (std::size_t i = 0; i < L; ++i) {
        const std::size_t n = visible_keys(i, L);
        const T* doi = douth + i * E;
        const T* row = att + (bh + i) * L;
        // datt_j = dout_i · v_j
        dots(datt, doi, v + bh * d, d, n, d);
        T dot_sum = 0;
        for (std::size_t j = 0; j < n; ++j) dot_sum += datt[j] * row[j];
        if (extras.dsinks != nullptr) dsink -= double(extras.sink_weights[bh + i]) * dot_sum;
        // softmax: dscore_j = att_ij·(datt_j − Σ att·datt)
        const T* qi = q + (bh + i) * d;
        T* dqi = dqh + i * d;
        T* dsi = ds.data() + i * L;
        for (std::size_t j = 0; j < n; ++j) {
          dsi[j] = row[j] * (datt[j] - dot_sum);
          if (dscore_bias != nullptr) dscore_bias[(bh + i) * L + j] = dsi[j];
        }
        if (P > 0) {
          // CoPE's scores and z again, as the forward pass computed them.
          for (std::size_t c = 0; c < d; ++c) qs[c] = qi[c] * scale;
          dots(s.data(), qs.data(), k + bh * d, d, n, d);
          cope_logits(z.data(), qi, extras.cope, d, P);
          std::fill(dz.begin(), dz.end(), 0.0);
          cope_backward(dsi, s.data(), n, z.data(), P, dz.data(), g.data(), dp.data());
          // z = q·E: dq = E·dz (the scores' part is added below), dE += q ⊗ dz.
          for (std::size_t c = 0; c < d; ++c) {
            const T* e = extras.cope + c * P;
            double dq_c = 0;
            for (std::size_t m = 0; m < P; ++m) {
              dq_c += double(e[m]) * dz[m];
              dcope[c * P + m] += double(qi[c]) * dz[m];
            }
            dqi[c] = static_cast<T>(dq_c);
          }
        }
        for (std::size_t j = 0; j < n; ++j) dsi[j] *= scale;
        for (std::size_t j = n; j < L; ++j) dsi[j] = 0;
        // dq_i (+)= Σ_j ds_ij·k_j
        weighted_rows(dqi, dsi, 1, k + bh * d, d, n, d, P > 0);
      }
      // Causal: key j is seen by queries j..L−1 (ds and att are 0 past each row's keys).
      for (std::size_t j = 0; j < L; ++j) {
        // dv_j = Σ_i att_ij·dout_i;  dk_j = Σ_i ds_ij·q_i
        weighted_rows(dvh + j * d, att + (bh + j) * L + j, L, douth + j * E, E, L - j, d, false);
        weighted_rows(dkh + j * d, ds.data() + j * L + j, L, q + (bh + j) * d, d, L - j, d, false);
      }
      if (extras.dsinks != nullptr) extras.dsinks[h] += static_cast<T>(dsink);
      for (std::size_t t = 0; t < L; ++t) {
        if (plan.tempered) {
          const T temperature = static_cast<T>(plan.query_scale[b * L + t]);
          for (std::size_t i = 0; i < d; ++i) dqh[t * d + i] *= temperature;
        }
        if (plan.rotates(h)) {
          rope_rotate(dqh + t * d, plan, b * L + t, true, false);
          rope_rotate(dkh + t * d, plan, b * L + t, true, true);
        }
        T* dst = dqkv + (b * L + t) * 3 * E + h * d;
        for (std::size_t c = 0; c < d; ++c) {
          dst[c] = dqh[t * d + c];
          dst[E + c] = dkh[t * d + c];
          dst[2 * E + c] = dvh[t * d + c];
        }
      }
    }
  }
  if (P > 0) {
    for (std::size_t e = 0; e < d * P; ++e) extras.dcope[e] += static_cast<T>(dcope[e]);
  }
}

// Masked mean cross-entropy: loss = Σ_r mask_r·(logsumexp(logits_r) − logits_r[target_r]) /
// Σ mask. `logits` (N, V) is overwritten with dloss/dlogits. Returns the loss (0 when the mask
// is empty, with zero gradients). `total` > 0 replaces Σ mask (a shard of a batch divides by
// the whole batch's).
template <class T>
double cross_entropy_forward_backward(T* logits, const std::int32_t* targets, const float* mask,
                                      std::size_t n, std::size_t vocab, double total = 0) {
  if (total <= 0) {
    for (std::size_t r = 0; r < n; ++r) total += mask[r];
  }
  double loss = 0;
  for (std::size_t r = 0; r < n; ++r) {
    T* z = logits + r * vocab;
    if (mask[r] == 0.0f || total == 0) {
      for (std::size_t c = 0; c < vocab; ++c) z[c] = 0;
      continue;
    }
    double mx = z[0];
    for (std::size_t c = 1; c < vocab; ++c) mx = std::max(mx, static_cast<double>(z[c]));
    double sum = 0;
    for (std::size_t c = 0; c < vocab; ++c) sum += std::exp(z[c] - mx);
    const double lse = mx + std::log(sum);
    const std::size_t target = static_cast<std::size_t>(targets[r]);
    loss += mask[r] * (lse - z[target]);
    const double g = mask[r] / total;
    for (std::size_t c = 0; c < vocab; ++c) {
      const double p = std::exp(z[c] - lse);
      z[c] = static_cast<T>(g * (p - (c == target ? 1.0 : 0.0)));
    }
  }
  return total == 0 ? 0.0 : loss / total;
}

}  // namespace poslab::train::ops

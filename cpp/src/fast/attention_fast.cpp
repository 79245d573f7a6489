// Scaled dot-product attention, float32 SIMD fast path. Per head, K is packed into panels of
// W = 2 vectors of keys (d × W each, contiguous) and V into panels of W columns, so both
// products run as register-blocked outer products: 4 query rows × W columns accumulated in
// 8 vector registers, one broadcast of the left operand and two loads per step. Each block
// of 4 query rows goes QKᵀ → scale + bias + padding + mask → softmax (vectorised Exp) → PV
// through a 4-row score scratch, visiting only the keys its mask lets it see; the (H, Lq, Lk)
// weights exist only when asked for.
#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "base/validation.hpp"
#include "fast/madd.hpp"
#include "poslab/base/threads.hpp"
#include "poslab/fast/fast.hpp"

namespace poslab::fast {

namespace hn = hwy::HWY_NAMESPACE;

namespace {

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

constexpr std::size_t kRows = 4;  // query rows per block (4 × 2 vector accumulators)
constexpr float kNegInf = -std::numeric_limits<float>::infinity();
// Below Highway's Exp lower bound (−104): Exp returns exactly 0 there, and clamping to it
// keeps −∞ out of Exp's float→int conversion.
constexpr float kExpFloor = -105.0f;

// Scores or biases beyond this would risk ±∞ − ±∞ in float32: such inputs go to the
// reference, which accumulates in double.
constexpr double kFloatSafe = 1e30;

struct Sizes {
  std::size_t H, Lq, Lk, d, dv;
  std::size_t W;         // keys per K panel = columns per V panel (2 vectors)
  std::size_t k_panels;  // ceil(Lk / W)
  std::size_t v_panels;  // ceil(dv / W)
};

// K (Lk, d) of one head → panels (k_panels, d, W): panel t holds keys tW..tW+W−1, zero-padded.
void pack_k(const float* k, const Sizes& n, std::vector<float>& panels) {
  std::fill(panels.begin(), panels.end(), 0.0f);
  for (std::size_t j = 0; j < n.Lk; ++j) {
    float* dst = panels.data() + (j / n.W) * n.d * n.W + j % n.W;
    const float* src = k + j * n.d;
    for (std::size_t c = 0; c < n.d; ++c) dst[c * n.W] = src[c];
  }
}

// V (Lk, dv) of one head → panels (v_panels, Lk, W): panel t holds columns tW..tW+W−1.
void pack_v(const float* v, const Sizes& n, std::vector<float>& panels) {
  std::fill(panels.begin(), panels.end(), 0.0f);
  for (std::size_t j = 0; j < n.Lk; ++j) {
    for (std::size_t c = 0; c < n.dv; ++c) {
      panels[(c / n.W) * n.Lk * n.W + j * n.W + c % n.W] = v[j * n.dv + c];
    }
  }
}

// The register-blocked kernel of both products: for the 4 rows r,
//   out[r][0..W) = Σ_{c in [0, depth)} a_r[c] · panel[c][0..W),
// with panel rows W = 2 vectors apart and out rows `ld` apart. QKᵀ: a = query rows, panel =
// a K panel (depth d). PV: a = softmax numerator rows, panel = a V panel (depth = keys).
HWY_INLINE void block_product(const float* const a[kRows], const float* panel, std::size_t depth,
                              float* out, std::size_t ld) {
  const DF d;
  const std::size_t N = hn::Lanes(d);
  VF a00 = hn::Zero(d), a01 = hn::Zero(d), a10 = hn::Zero(d), a11 = hn::Zero(d);
  VF a20 = hn::Zero(d), a21 = hn::Zero(d), a30 = hn::Zero(d), a31 = hn::Zero(d);
  for (std::size_t c = 0; c < depth; ++c) {
    const VF p0 = hn::LoadU(d, panel + c * 2 * N);
    const VF p1 = hn::LoadU(d, panel + c * 2 * N + N);
    VF b = hn::Set(d, a[0][c]);
    a00 = madd(b, p0, a00);
    a01 = madd(b, p1, a01);
    b = hn::Set(d, a[1][c]);
    a10 = madd(b, p0, a10);
    a11 = madd(b, p1, a11);
    b = hn::Set(d, a[2][c]);
    a20 = madd(b, p0, a20);
    a21 = madd(b, p1, a21);
    b = hn::Set(d, a[3][c]);
    a30 = madd(b, p0, a30);
    a31 = madd(b, p1, a31);
  }
  hn::StoreU(a00, d, out);
  hn::StoreU(a01, d, out + N);
  hn::StoreU(a10, d, out + ld);
  hn::StoreU(a11, d, out + ld + N);
  hn::StoreU(a20, d, out + 2 * ld);
  hn::StoreU(a21, d, out + 2 * ld + N);
  hn::StoreU(a30, d, out + 3 * ld);
  hn::StoreU(a31, d, out + 3 * ld + N);
}

// Applies f(tag, j) over j in [begin, end): whole vectors, then one lane at a time.
template <class F>
HWY_INLINE void for_each_vector(std::size_t begin, std::size_t end, F&& f) {
  const DF d;
  const std::size_t N = hn::Lanes(d);
  std::size_t j = begin;
  for (; j + N <= end; j += N) f(d, j);
  const hn::CappedTag<float, 1> d1;
  for (; j < end; ++j) f(d1, j);
}

// One score row → unnormalised softmax numerators in place; returns 1/Σ, or 0 when every
// key is hidden (the row then holds zeros). s points at key `base`; keys [lo, hi) are the
// visible ones, [k0, k1) the block's range (outside [lo, hi) the row is zeroed).
// bias: the row of the (.., Lq, Lk) bias or null; pad: (Lk,) 0 / −∞ or null.
float softmax_row(float* s, std::size_t base, std::size_t k0, std::size_t k1, std::size_t lo,
                  std::size_t hi, float scale, const float* bias, const float* pad) {
  float* row = s - base;  // row[j] is key j
  std::fill(row + k0, row + std::max(k0, lo), 0.0f);
  std::fill(row + std::min(k1, std::max(hi, lo)), row + k1, 0.0f);
  if (lo >= hi) return 0.0f;

  const DF d;
  VF vmax = hn::Set(d, kNegInf);
  float smax = kNegInf;
  for_each_vector(lo, hi, [&](auto t, std::size_t j) {
    auto x = hn::Mul(hn::LoadU(t, row + j), hn::Set(t, scale));
    if (bias) x = hn::Add(x, hn::LoadU(t, bias + j));
    if (pad) x = hn::Add(x, hn::LoadU(t, pad + j));
    hn::StoreU(x, t, row + j);
    if constexpr (hn::MaxLanes(decltype(t)()) == 1) {
      smax = std::max(smax, hn::GetLane(x));
    } else {
      vmax = hn::Max(vmax, x);
    }
  });
  const float m = std::max(smax, hn::GetLane(hn::MaxOfLanes(d, vmax)));
  // Every visible key hidden by padding or a −∞ bias. Finite scores stay within ±kFloatSafe;
  // a reduction may report −FLT_MAX instead of −∞ (Highway's EMU128 MaxOfLanes starts there).
  if (m < -kFloatSafe) {
    std::fill(row + lo, row + hi, 0.0f);
    return 0.0f;
  }

  VF vsum = hn::Zero(d);
  float ssum = 0.0f;
  for_each_vector(lo, hi, [&](auto t, std::size_t j) {
    const auto x = hn::Max(hn::Sub(hn::LoadU(t, row + j), hn::Set(t, m)), hn::Set(t, kExpFloor));
    const auto e = hn::Exp(t, x);
    hn::StoreU(e, t, row + j);
    if constexpr (hn::MaxLanes(decltype(t)()) == 1) {
      ssum += hn::GetLane(e);
    } else {
      vsum = hn::Add(vsum, e);
    }
  });
  return 1.0f / (ssum + hn::GetLane(hn::SumOfLanes(d, vsum)));  // Σ >= 1: the max gives e^0
}

// Largest |x| over finite entries (−∞ in a bias hides a key and does not count).
double max_abs_finite(const std::vector<float>& data) {
  float m = 0.0f;
  for (float x : data) {
    if (std::isfinite(x)) m = std::max(m, std::fabs(x));
  }
  return m;
}

}  // namespace

// q (H, Lq, d), k (H, Lk, d), v (H, Lk, dv) → output (H, Lq, dv) [+ weights (H, Lq, Lk)];
// 2-D inputs are one head.
AttentionResult attention(const TensorF& q, const TensorF& k, const TensorF& v,
                          const AttentionOptions& options) {
  const poslab::detail::AttentionDims dims = poslab::detail::check_attention(q, k, v, options);
  if (options.return_scores) return poslab::attention(q, k, v, options);

  // Float32 scores are safe while |q|·|k|·d·|scale| + |bias| stays far from FLT_MAX.
  const double score_bound =
      max_abs_finite(q.data) * max_abs_finite(k.data) * double(dims.d) * std::fabs(dims.scale) +
      (options.bias ? max_abs_finite(options.bias->data) : 0.0);
  if (!(score_bound < kFloatSafe)) return poslab::attention(q, k, v, options);

  const DF df;
  Sizes n{dims.H, dims.Lq, dims.Lk, dims.d, dims.dv, 2 * hn::Lanes(df), 0, 0};
  n.k_panels = (n.Lk + n.W - 1) / n.W;
  n.v_panels = (n.dv + n.W - 1) / n.W;

  AttentionResult result = poslab::detail::attention_result_shapes(dims, q.ndim() == 2, options);
  if (n.H == 0 || n.Lq == 0) return result;

  const bool bias_per_head = options.bias && options.bias->ndim() == 3;
  const MaskRule<long long> rule = options.mask.rule();
  const long long Lk = static_cast<long long>(n.Lk);
  // Visible keys [first, last) of query i (mask.hpp); padding is added to the scores below.
  const auto keys = [&](std::size_t i) {
    const KeyRange<long long> r = rule.keys(static_cast<long long>(i), Lk);
    return std::pair<std::size_t, std::size_t>(std::size_t(r.first), std::size_t(r.last));
  };
  const float scale = static_cast<float>(dims.scale);

  std::vector<float> pad;  // (Lk,) additive: −∞ hides a padding key
  if (!options.key_padding.empty()) {
    pad.resize(n.Lk);
    for (std::size_t j = 0; j < n.Lk; ++j) pad[j] = options.key_padding[j] ? kNegInf : 0.0f;
  }

  const std::size_t ld = n.k_panels * n.W;  // score scratch row stride
  const std::vector<float> zero_row(std::max(n.d, n.Lk) + 1, 0.0f);
  // Heads are independent: threads take runs of them, each with its own scratch, when the
  // products (QKᵀ and PV, 4·Lq·Lk·d flops a head) are worth waking the pool for.
  const bool split =
      4.0 * double(n.H) * double(n.Lq) * double(n.Lk) * double(n.d) >= kParallelFlops;
  parallel_for(n.H, split ? 1 : n.H, [&](std::size_t h_begin, std::size_t h_end) {
    std::vector<float> k_panels(n.k_panels * n.d * n.W);   // (k_panels, d, W)
    std::vector<float> v_panels(n.v_panels * n.Lk * n.W);  // (v_panels, Lk, W)
    std::vector<float> scores(kRows * ld);                 // (4, ld)
    std::vector<float> out_block(kRows * n.W);             // (4, W)

    for (std::size_t h = h_begin; h < h_end; ++h) {
      pack_k(k.ptr() + h * n.Lk * n.d, n, k_panels);
      pack_v(v.ptr() + h * n.Lk * n.dv, n, v_panels);
      const float* bias =
          options.bias ? options.bias->ptr() + (bias_per_head ? h * n.Lq * n.Lk : 0) : nullptr;

      for (std::size_t r0 = 0; r0 < n.Lq; r0 += kRows) {
        const std::size_t rows = std::min(kRows, n.Lq - r0);
        // Keys [k0, k1) are the only ones any row of this block may see (as the reference).
        const std::size_t k0 = keys(r0).first, k1 = keys(r0 + rows - 1).second;
        const std::size_t t0 = k0 / n.W, t1 = (k1 + n.W - 1) / n.W;  // K panels [t0, t1)
        const std::size_t base = t0 * n.W;                           // key of scores[r][0]

        // Rows past Lq read a zero query and are never stored.
        const float* q_rows[kRows];
        for (std::size_t r = 0; r < kRows; ++r) {
          q_rows[r] = r < rows ? q.ptr() + (h * n.Lq + r0 + r) * n.d : zero_row.data();
        }
        for (std::size_t t = t0; t < t1; ++t) {
          block_product(q_rows, k_panels.data() + t * n.d * n.W, n.d,
                        scores.data() + (t - t0) * n.W, ld);
        }

        float inv_sum[kRows] = {0.0f, 0.0f, 0.0f, 0.0f};
        const float* p_rows[kRows];
        for (std::size_t r = 0; r < kRows; ++r) {
          float* s = scores.data() + r * ld;
          p_rows[r] = s + (k0 - base);
          if (r >= rows) {  // a zero row, so PV adds nothing for it
            std::fill(s + (k0 - base), s + (k1 - base), 0.0f);
            continue;
          }
          const std::size_t i = r0 + r;
          const auto [lo, hi] = keys(i);
          inv_sum[r] = softmax_row(s, base, k0, k1, lo, hi, scale, bias ? bias + i * n.Lk : nullptr,
                                   pad.empty() ? nullptr : pad.data());
          if (options.return_weights) {
            float* w = result.weights.ptr() + (h * n.Lq + i) * n.Lk;
            for (std::size_t j = k0; j < k1; ++j) w[j] = s[j - base] * inv_sum[r];
          }
        }

        for (std::size_t t = 0; t < n.v_panels; ++t) {
          block_product(p_rows, v_panels.data() + (t * n.Lk + k0) * n.W, k1 - k0, out_block.data(),
                        n.W);
          const std::size_t c0 = t * n.W, width = std::min(n.W, n.dv - c0);
          for (std::size_t r = 0; r < rows; ++r) {
            float* out = result.output.ptr() + (h * n.Lq + r0 + r) * n.dv + c0;
            for (std::size_t c = 0; c < width; ++c) out[c] = out_block[r * n.W + c] * inv_sum[r];
          }
        }
      }
    }
  });
  return result;
}

}  // namespace poslab::fast

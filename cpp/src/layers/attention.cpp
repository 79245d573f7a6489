// Scaled dot-product attention, the reference every fast path is checked against: scores,
// softmax and products in double (Eigen for the products), in blocks of query rows so the
// score block stays small and keys a causal or windowed block cannot see are skipped.
#include "poslab/layers/attention.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "base/validation.hpp"

namespace poslab {

Mask parse_mask(const std::string& text) {
  const std::string prefix = std::string(name_of(kMaskNames, MaskKind::kSlidingWindow)) + ":";
  if (text.compare(0, prefix.size(), prefix) == 0) {
    const std::string number = text.substr(prefix.size());
    const bool digits =
        !number.empty() && number.size() <= 12 &&
        std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; });
    require(digits, "window", "window size must be a positive integer (got '" + number + "')");
    const long long window = std::stoll(number);
    require(window >= 1, "window", "window size must be at least 1 (got 0)");
    return {MaskKind::kSlidingWindow, window};
  }
  const MaskKind kind = parse_name(kMaskNames, text, "mask", "mask");
  // A bare "window" lacks its size.
  require(kind != MaskKind::kSlidingWindow, "mask",
          "unknown mask '" + text + "' (expected " + name_list(kMaskNames) + ")");
  return {kind, 0};
}

std::string format_mask(const Mask& mask) {
  const std::string name = name_of(kMaskNames, mask.kind);
  return mask.kind == MaskKind::kSlidingWindow ? name + ":" + std::to_string(mask.window) : name;
}

void check_mask_offset(long long offset) {
  require(offset >= -kMaxMaskOffset && offset <= kMaxMaskOffset, "offset",
          "mask offset must be in [-2^30, 2^30] (got " + std::to_string(offset) + ")");
}

namespace {

void check_mask(const Mask& mask, std::size_t Lk, const std::vector<std::uint8_t>& key_padding) {
  if (mask.kind == MaskKind::kSlidingWindow) {
    require(mask.window >= 1, "window", "window size must be at least 1");
  }
  check_mask_offset(mask.offset);
  if (!key_padding.empty()) {
    require(key_padding.size() == Lk, "keyPadding",
            "key padding has " + std::to_string(key_padding.size()) + " entries, but there are " +
                std::to_string(Lk) + " keys");
  }
}

}  // namespace

// (Lq, Lk) bytes, 1 = hidden.
Tensor<std::uint8_t> attention_mask(long long query_length, long long key_length, const Mask& mask,
                                    const std::vector<std::uint8_t>& key_padding) {
  const std::size_t Lq = positive_size(query_length, "queries", true, "queries");
  const std::size_t Lk = positive_size(key_length, "keys", true, "keys");
  check_mask(mask, Lk, key_padding);
  Tensor<std::uint8_t> hidden({Lq, Lk}, "attention mask (Lq, Lk)");
  const MaskRule<long long> rule = mask.rule();
  const std::uint8_t* pad = key_padding.empty() ? nullptr : key_padding.data();
  for (std::size_t i = 0; i < Lq; ++i) {
    for (std::size_t j = 0; j < Lk; ++j) {
      hidden.data[i * Lk + j] = rule.hides(static_cast<long long>(i), static_cast<long long>(j),
                                           static_cast<long long>(Lk), pad);
    }
  }
  return hidden;
}

namespace {

using MatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMapF =
    Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

constexpr double kNegInf = -std::numeric_limits<double>::infinity();
constexpr std::size_t kRowBlock = 128;
constexpr double kFloatMax = std::numeric_limits<float>::max();

// A scaled score past float32's range cannot be stored by any build (the fast paths and the
// GPU compute scores in float32), and its softmax would be ∞ − ∞: refused, with where it is.
[[noreturn]] void throw_score_overflow(double score, double scale, std::size_t h, std::size_t i,
                                       std::size_t j) {
  // %g: six significant digits, as a stream prints a double (and no stream linked in).
  const auto g = [](double x) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", x);
    return std::string(text);
  };
  throw Error("attention scores overflow float32: q·k × scale = " + g(score) + " at head " +
              std::to_string(h) + ", query " + std::to_string(i) + ", key " + std::to_string(j) +
              " (scale " + g(scale) + "); use a smaller scale or smaller inputs");
}

struct Dims {
  std::size_t H, Lq, Lk, d, dv;
};

Dims check_shapes(const TensorF& q, const TensorF& k, const TensorF& v,
                  const AttentionOptions& options) {
  require(q.ndim() == k.ndim() && k.ndim() == v.ndim() && (q.ndim() == 2 || q.ndim() == 3),
          q.ndim() == 2 || q.ndim() == 3 ? (k.ndim() == q.ndim() ? "v" : "k") : "q",
          "q, k, v must all be (H, L, d) or all (L, d); got q " + shape_string(q.shape) + ", k " +
              shape_string(k.shape) + ", v " + shape_string(v.shape));
  const std::size_t o = q.ndim() - 2;  // axis offset: 1 for (H, L, d)
  Dims n{o ? q.dim(0) : 1, q.dim(o), k.dim(o), q.dim(o + 1), v.dim(o + 1)};
  require(!o || (k.dim(0) == n.H && v.dim(0) == n.H), k.dim(0) == n.H ? "v" : "k",
          "q, k, v have different head counts: " + shape_string(q.shape) + ", " +
              shape_string(k.shape) + ", " + shape_string(v.shape));
  require(k.dim(o + 1) == n.d, "k",
          "q and k widths differ: q " + shape_string(q.shape) + ", k " + shape_string(k.shape));
  require(v.dim(o) == n.Lk, "v",
          "k and v lengths differ: k " + shape_string(k.shape) + ", v " + shape_string(v.shape));
  require(n.d > 0, "q", "q and k have zero width");
  check_mask(options.mask, n.Lk, options.key_padding);
  if (options.bias) {
    const Shape& b = options.bias->shape;
    const bool per_head = b == Shape{n.H, n.Lq, n.Lk};
    const bool shared = b == Shape{n.Lq, n.Lk};
    require(per_head || shared, "bias",
            "bias must be (H, Lq, Lk) = " + shape_string({n.H, n.Lq, n.Lk}) + " or (Lq, Lk), got " +
                shape_string(b));
  }
  return n;
}

}  // namespace

namespace detail {

AttentionDims check_attention(const TensorF& q, const TensorF& k, const TensorF& v,
                              const AttentionOptions& options) {
  const Dims n = check_shapes(q, k, v, options);
  require_finite(q, "q");
  require_finite(k, "k");
  require_finite(v, "v");
  if (options.bias) require_finite(*options.bias, "bias", NonFinite::kAllowNegativeInfinity);
  const double scale = options.scale.value_or(1.0 / std::sqrt(double(n.d)));
  require(std::isfinite(scale), "scale", "scale must be finite");
  return {n.H, n.Lq, n.Lk, n.d, n.dv, scale};
}

AttentionResult attention_result_shapes(const AttentionDims& n, bool two_d,
                                        const AttentionOptions& options) {
  AttentionResult result;
  result.output = TensorF(two_d ? Shape{n.Lq, n.dv} : Shape{n.H, n.Lq, n.dv}, "attention output");
  if (options.return_weights) {
    result.weights = TensorF(two_d ? Shape{n.Lq, n.Lk} : Shape{n.H, n.Lq, n.Lk},
                             "attention weights (H, Lq, Lk)");
  }
  return result;
}

}  // namespace detail

AttentionResult attention(const TensorF& q, const TensorF& k, const TensorF& v,
                          const AttentionOptions& options) {
  const detail::AttentionDims n = detail::check_attention(q, k, v, options);
  const double scale = n.scale;

  const bool two_d = q.ndim() == 2;
  AttentionResult result = detail::attention_result_shapes(n, two_d, options);
  if (options.return_scores) {
    result.scores =
        TensorF(two_d ? Shape{n.Lq, n.Lk} : Shape{n.H, n.Lq, n.Lk}, "attention scores (H, Lq, Lk)");
    std::fill(result.scores.data.begin(), result.scores.data.end(),
              -std::numeric_limits<float>::infinity());
  }
  const bool bias_per_head = options.bias && options.bias->ndim() == 3;
  const MaskRule<long long> rule = options.mask.rule();
  const std::uint8_t* pad = options.key_padding.empty() ? nullptr : options.key_padding.data();
  const long long Lk = static_cast<long long>(n.Lk);

  for (std::size_t h = 0; h < n.H; ++h) {
    const MatrixD Q = ConstMapF(q.ptr() + h * n.Lq * n.d, n.Lq, n.d).cast<double>();
    const MatrixD K = ConstMapF(k.ptr() + h * n.Lk * n.d, n.Lk, n.d).cast<double>();
    const MatrixD V = ConstMapF(v.ptr() + h * n.Lk * n.dv, n.Lk, n.dv).cast<double>();
    const float* bias =
        options.bias ? options.bias->ptr() + (bias_per_head ? h * n.Lq * n.Lk : 0) : nullptr;

    for (std::size_t r0 = 0; r0 < n.Lq; r0 += kRowBlock) {
      const std::size_t r1 = std::min(n.Lq, r0 + kRowBlock);
      // Keys [k0, k1) are the only ones any row of this block may see: the union of the rows'
      // ranges, which only move right as i grows.
      const std::size_t k0 = std::size_t(rule.keys(static_cast<long long>(r0), Lk).first);
      const std::size_t k1 = std::size_t(rule.keys(static_cast<long long>(r1 - 1), Lk).last);
      MatrixD P = MatrixD::Zero(r1 - r0, n.Lk);
      if (k1 > k0) {
        P.middleCols(k0, k1 - k0).noalias() =
            scale * Q.middleRows(r0, r1 - r0) * K.middleRows(k0, k1 - k0).transpose();
      }

      // Columns outside [k0, k1) stay zero: those keys are hidden from the whole block.
      for (std::size_t i = r0; i < r1; ++i) {
        double* row = P.row(i - r0).data();
        double row_max = kNegInf;
        for (std::size_t j = k0; j < k1; ++j) {
          const bool hidden =
              rule.hides(static_cast<long long>(i), static_cast<long long>(j), Lk, pad);
          if (!hidden && !(std::fabs(row[j]) <= kFloatMax)) {
            throw_score_overflow(row[j], scale, h, i, j);
          }
          const double s = hidden ? kNegInf : row[j] + (bias ? bias[i * n.Lk + j] : 0.0);
          row[j] = s;
          row_max = std::max(row_max, s);
        }
        if (options.return_scores) {
          float* scores = result.scores.ptr() + (h * n.Lq + i) * n.Lk;
          for (std::size_t j = k0; j < k1; ++j) scores[j] = static_cast<float>(row[j]);
        }
        // A row with every key hidden attends to nothing: zero weights, zero output.
        if (row_max == kNegInf) {
          std::fill(row + k0, row + k1, 0.0);
          continue;
        }
        double sum = 0.0;
        for (std::size_t j = k0; j < k1; ++j) {
          row[j] = row[j] == kNegInf ? 0.0 : std::exp(row[j] - row_max);
          sum += row[j];
        }
        for (std::size_t j = k0; j < k1; ++j) row[j] /= sum;
      }

      const MatrixD O = P.middleCols(k0, k1 - k0) * V.middleRows(k0, k1 - k0);
      float* out = result.output.ptr() + (h * n.Lq + r0) * n.dv;
      Eigen::Map<Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
          out, r1 - r0, n.dv) = O.cast<float>();
      if (options.return_weights) {
        float* w = result.weights.ptr() + (h * n.Lq + r0) * n.Lk;
        Eigen::Map<Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
            w, r1 - r0, n.Lk) = P.cast<float>();
      }
    }
  }
  return result;
}

}  // namespace poslab

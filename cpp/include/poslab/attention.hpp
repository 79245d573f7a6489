// Scaled dot-product attention with masks and additive biases:
//   softmax(Q Kᵀ · scale + bias + mask) V.
// Query i and key j sit at positions i and j (top-left aligned when Lq != Lk).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "poslab/tensor.hpp"

namespace poslab {

enum class MaskKind {
  kNone,
  kCausal,         // removes j > i
  kSlidingWindow,  // causal, and keeps only i − j < W
};

struct Mask {
  MaskKind kind = MaskKind::kNone;
  long long window = 0;  // W >= 1 for kSlidingWindow

  // True when key j is hidden from query i.
  bool hides(long long i, long long j) const {
    if (kind == MaskKind::kNone) return false;
    if (j > i) return true;
    return kind == MaskKind::kSlidingWindow && i - j >= window;
  }
};

// "none" | "causal" | "window:W" (W a positive integer).
Mask parse_mask(const std::string& text);

struct AttentionOptions {
  Mask mask;
  std::optional<double> scale;            // default 1/√d
  std::vector<std::uint8_t> key_padding;  // (Lk,), nonzero = padding key (hidden); empty = none
  const TensorF* bias = nullptr;          // (H, Lq, Lk) or (Lq, Lk) added to the scores
  bool return_weights = true;
};

struct AttentionResult {
  TensorF output;   // (H, Lq, dv), or (Lq, dv) for 2-D inputs
  TensorF weights;  // (H, Lq, Lk), or (Lq, Lk); empty unless return_weights
};

// q (H, Lq, d), k (H, Lk, d), v (H, Lk, dv); 2-D inputs are one head. Numerically stable
// softmax accumulated in double. A query whose every key is hidden (by mask, padding or a
// −∞ bias) gets zero weights and a zero output, never NaN.
AttentionResult attention(const TensorF& q, const TensorF& k, const TensorF& v,
                          const AttentionOptions& options = {});

}  // namespace poslab

// Scaled dot-product attention with masks and additive biases:
//   softmax(Q Kᵀ · scale + bias + mask) V.
// Query i sits at position i + mask.offset, key j at j (offset 0: top-left aligned); which keys
// a query sees is the one rule of mask.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "poslab/base/names.hpp"
#include "poslab/base/tensor.hpp"
#include "poslab/layers/mask.hpp"

namespace poslab {

// The names of the masks (the CLI's --mask and the JS API's mask), "window" taking ":W".
inline constexpr Named<MaskKind> kMaskNames[] = {{MaskKind::kNone, "none"},
                                                 {MaskKind::kCausal, "causal"},
                                                 {MaskKind::kSlidingWindow, "window", ":W"}};

// "none" | "causal" | "window:W" (W a positive integer); offset 0. Errors name the field "mask"
// ("window" for a bad W).
Mask parse_mask(const std::string& text);
std::string format_mask(const Mask& mask);  // the inverse: "none", "causal", "window:8"

// Refuses |offset| > kMaxMaskOffset (field "offset").
void check_mask_offset(long long offset);

// The (Lq, Lk) mask as bytes, 1 = key j hidden from query i (mask, offset and key padding
// (Lk,) or empty): what attention applies, for display.
Tensor<std::uint8_t> attention_mask(long long query_length, long long key_length, const Mask& mask,
                                    const std::vector<std::uint8_t>& key_padding = {});

struct AttentionOptions {
  Mask mask;
  std::optional<double> scale;            // default 1/√d
  std::vector<std::uint8_t> key_padding;  // (Lk,), nonzero = padding key (hidden); empty = none
  const TensorF* bias = nullptr;          // (H, Lq, Lk) or (Lq, Lk) added to the scores
  bool return_weights = true;
  bool return_scores = false;  // the reference only; fast::attention hands such calls to it
};

struct AttentionResult {
  TensorF output;   // (H, Lq, dv), or (Lq, dv) for 2-D inputs
  TensorF weights;  // (H, Lq, Lk), or (Lq, Lk); empty unless return_weights
  // (H, Lq, Lk), or (Lq, Lk): q·k·scale + bias before the softmax, −∞ where a key is hidden
  // (mask, padding or a −∞ bias); empty unless return_scores.
  TensorF scores;
};

// q (H, Lq, d), k (H, Lk, d), v (H, Lk, dv); 2-D inputs are one head. Numerically stable
// softmax accumulated in double. A query whose every key is hidden (by mask, padding or a
// −∞ bias) gets zero weights and a zero output, never NaN.
AttentionResult attention(const TensorF& q, const TensorF& k, const TensorF& v,
                          const AttentionOptions& options = {});

}  // namespace poslab

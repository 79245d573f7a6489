// Argument checks shared by both attention launchers.
#include "attention_check.hpp"

#include <cmath>
#include <string>

#include "poslab/base/tensor.hpp"
#include "poslab/layers/attention.hpp"

namespace poslab::cuda::detail {

double check_attention(const AttentionDims& n, const AttentionConfig& config) {
  require(n.B >= 1 && n.H >= 1 && n.Lq >= 0 && n.Lk >= 0 && n.d >= 1,
          "attention sizes must be B, H, d >= 1 and Lq, Lk >= 0");
  require(n.H <= 65536, "heads must be at most 65536 (got " + std::to_string(n.H) + ")");
  for (long long L : {n.Lq, n.Lk}) {
    checked_numel({std::size_t(n.B), std::size_t(n.H), std::size_t(L), std::size_t(n.d)},
                  "attention input (B, H, L, d)");
  }
  if (config.mask.kind == MaskKind::kSlidingWindow) {
    require(config.mask.window >= 1, "window", "window size must be at least 1");
  }
  check_mask_offset(config.mask.offset);  // so i + offset fits the kernels' int
  const double scale = config.scale != 0.0 ? config.scale : 1.0 / std::sqrt(double(n.d));
  require(std::isfinite(scale), "scale must be finite");
  return scale;
}

}  // namespace poslab::cuda::detail

// config.json's rope_scaling as a RoPE model's config holds it: GptNeoxConfig and LlamaConfig
// derive from LmRopeScaling, so its fields, the RopeOptions they make and the reading and
// writing of the object (src/models/lm_config.hpp's read_rope_scaling, write_rope_scaling)
// are written once.
#pragma once

#include <cmath>
#include <vector>

#include "poslab/positions/rope.hpp"

namespace poslab {

struct LmRopeScaling {
  RopeScaling rope_scaling = RopeScaling::kNone;  // none when config.json has no rope_scaling
  double rope_factor = 1.0;                       // longrope: 0 when absent (then context / N)
  long long rope_original_length = 0;  // rope_scaling's original_max_position_embeddings; 0: none
  double rope_low_freq_factor = 1.0, rope_high_freq_factor = 4.0;  // llama3
  double rope_beta_fast = 32.0, rope_beta_slow = 1.0;              // yarn
  // longrope (rope_scaling none): one factor per rotary pair, the short list up to the original
  // length, the long one past it; its attention factor (0: the one transformers derives).
  LongropeFactors rope_longrope;
  double rope_attention_factor = 0.0;  // yarn's and longrope's; 0: the scaling's own

  bool longrope() const { return !rope_longrope.long_factor.empty(); }

  // The rotation with this scaling: neox pairs (rotate_half), base θ, the rotated fraction of
  // each head, the scaling's original length N and the trained context (max_position_embeddings,
  // from which longrope derives its factor when the config names none).
  RopeOptions rope_options(double base, double rotary_fraction, long long original_length,
                           long long context) const {
    RopeOptions o;
    o.base = base;
    o.style = RopeStyle::kNeox;
    o.rotary_fraction = rotary_fraction;
    o.scaling = rope_scaling;
    o.factor = rope_factor;
    o.original_length = original_length;
    o.low_freq_factor = rope_low_freq_factor;
    o.high_freq_factor = rope_high_freq_factor;
    o.beta_fast = rope_beta_fast;
    o.beta_slow = rope_beta_slow;
    o.attention_factor = rope_attention_factor;
    if (longrope()) o.longrope = &rope_longrope;  // valid while this config lives
    if (longrope() && rope_attention_factor <= 0.0) {
      // transformers' _compute_longrope_parameters: √(1 + ln f / ln N) for f > 1.
      const double f = rope_factor > 0.0 ? rope_factor : double(context) / double(original_length);
      o.attention_factor =
          f <= 1.0 ? 1.0 : std::sqrt(1.0 + std::log(f) / std::log(double(original_length)));
    }
    return o;
  }
};

}  // namespace poslab

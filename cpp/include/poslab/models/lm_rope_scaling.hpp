// config.json's rope_scaling as a RoPE model's config holds it: GptNeoxConfig and LlamaConfig
// derive from LmRopeScaling, so its fields, the RopeOptions they make and the reading and
// writing of the object (src/models/lm_config.hpp's read_rope_scaling, write_rope_scaling)
// are written once.
#pragma once

#include "poslab/positions/rope.hpp"

namespace poslab {

struct LmRopeScaling {
  RopeScaling rope_scaling = RopeScaling::kNone;  // none when config.json has no rope_scaling
  double rope_factor = 1.0;
  long long rope_original_length = 0;  // rope_scaling's original_max_position_embeddings; 0: none
  double rope_low_freq_factor = 1.0, rope_high_freq_factor = 4.0;  // llama3
  double rope_beta_fast = 32.0, rope_beta_slow = 1.0;              // yarn

  // The rotation with this scaling: neox pairs (rotate_half), base θ, the rotated fraction of
  // each head and the scaling's original length N.
  RopeOptions rope_options(double base, double rotary_fraction, long long original_length) const {
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
    return o;
  }
};

}  // namespace poslab

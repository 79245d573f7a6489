// The --rope-* options of the RoPE model commands (`poslab lm`, `poslab lens`): a scaling in
// place of config.json's rope_scaling.
#pragma once

#include <string>
#include <vector>

#include "options.hpp"
#include "poslab/positions/rope.hpp"

namespace poslab::cli {

// The --rope-* options as they arrive: RoPE scaling of a RoPE model, replacing the
// config's rope_scaling when --rope-scaling is given.
struct RopeScalingFlags {
  std::string scaling;
  RopeOptions scaled;               // the scaling parameters; original_length 0: the config's
  std::vector<CLI::Option*> given;  // every --rope-* option, to tell whether any was used

  bool any() const {
    for (const CLI::Option* o : given) {
      if (o->count() > 0) return true;
    }
    return false;
  }
  // A rotation (`trained`, of a model trained at `context`) with this scaling in place of its
  // own.
  RopeOptions apply(RopeOptions trained, long long context) const {
    trained.scaling = parse_rope_scaling(scaling);
    trained.factor = scaled.factor;
    trained.original_length = scaled.original_length > 0 ? scaled.original_length : context;
    trained.low_freq_factor = scaled.low_freq_factor;
    trained.high_freq_factor = scaled.high_freq_factor;
    trained.beta_fast = scaled.beta_fast;
    trained.beta_slow = scaled.beta_slow;
    trained.attention_factor = scaled.attention_factor;
    trained.longrope = nullptr;  // a config's longrope is replaced too
    return trained;
  }
  // A config's rotation with this scaling in place of its own.
  template <class Config>
  RopeOptions apply(const Config& config) const {
    return apply(config.rope(), config.dims.context);
  }
};

// The scaling options of the RoPE commands (options.hpp's helper) under a --rope- prefix; each
// parameter needs --rope-scaling, and --rope-original-len defaults to max_position_embeddings.
inline void add_rope_scaling_flags(CLI::App* cmd, RopeScalingFlags& f) {
  f.given =
      add_rope_scaling_options(cmd, "rope-", f.scaling, f.scaled,
                               "RoPE models (GPT-NeoX, Llama): long-context scaling, replacing "
                               "config.json's rope_scaling (dynamic scales by the whole "
                               "sequence length)");
  for (std::size_t i = 1; i < f.given.size(); ++i) f.given[i]->needs(f.given[0]);
}

}  // namespace poslab::cli

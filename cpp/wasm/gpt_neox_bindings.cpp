// The embind surface of GPT-NeoX (Pythia) in the language-model module, beside GPT-2's: a
// config with its parameter count, a model handle (random init or a checkpoint streamed in
// chunks by a loader handle) and its forward pass (logits and/or next-token losses, trace,
// top-k, a RoPE scaling in place of the config's). No math: JS types checked, the core
// called, owned typed arrays returned. The handles are lm_bindings.hpp's, over GPT-NeoX's
// description (GptNeoxArch); what the RoPE models share is rope_lm_bindings.hpp's.
// Every exception becomes { error, field } (guard.hpp); the idiomatic API is
// web/src/core/gpt-neox.js.
#include <emscripten/bind.h>

#include <memory>
#include <string>

#include "guard.hpp"
#include "js_convert.hpp"
#include "js_object.hpp"
#include "lm_bindings.hpp"
#include "poslab/models/gpt_neox.hpp"
#include "rope_lm_bindings.hpp"

namespace poslab::wasm {
namespace {

using Num = val;
using Str = val;

// { preset } or config.json's text (preset_or_json_config). A GPT-NeoX checkpoint does not say
// its head count or rotary settings, so there is no "read it off the checkpoint": the config
// is required.
GptNeoxConfig to_config(const val& js) { return preset_or_json_config<GptNeoxConfig>(js); }

// GPT-NeoX for lm_bindings.hpp's handles and module functions.
struct GptNeoxArch {
  using Weights = GptNeoxWeights;
  static val config_js(const GptNeoxConfig& c) {
    val out = dims_js(c.dims, GptNeoxConfig::kDimKeys);
    js_set(out, {{"intermediate_size", double(c.intermediate_size)},
                 {"rotary_pct", c.rotary_pct},
                 {"rotary_emb_base", c.rotary_emb_base},
                 {"layer_norm_eps", c.layer_norm_eps},
                 {"use_parallel_residual", c.use_parallel_residual},
                 {"rope", rope_config_js(c)},
                 {"parameters", double(c.parameter_count())},
                 {"json", c.to_json()}});
    return out;
  }
  static val forward(const GptNeoxWeights& weights, const val& tokens, const val& options) {
    return rope_lm_forward_js(weights, tokens, options, gpt_neox_forward);
  }
  // Required: the checkpoint does not say the head count or rotary settings.
  static GptNeoxConfig loader_config(const val& config, const SafetensorsHeader&,
                                     const std::string&) {
    return to_config(config);
  }
  static GptNeoxConfig config_argument(const val& config) { return to_config(config); }
  static val random_js(val config, Num seed, Str dtype) {
    return rope_lm_random_js<GptNeoxArch>(config, seed, dtype, to_config);
  }
};

}  // namespace
}  // namespace poslab::wasm

// The RoPE scalings forward's rope.scaling accepts ('none' first): ropeScalings.
EMSCRIPTEN_BINDINGS(poslab_gpt_neox) {
  using namespace poslab::wasm;
  register_lm_module<GptNeoxArch, poslab::kRopeScalingNames>("GptNeox", "ropeScalings");
}

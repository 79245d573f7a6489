// The embind surface of GPT-NeoX (Pythia) in the language-model module, beside GPT-2's: a
// config with its parameter count, a model handle (random init or a checkpoint streamed in
// chunks by a loader handle) and its forward pass (logits and/or next-token losses, trace,
// top-k, a RoPE scaling in place of the config's). No math: JS types checked, the core
// called, owned typed arrays returned. The handles are lm_bindings.hpp's, over GPT-NeoX's
// description (GptNeoxArch).
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

namespace poslab::wasm {
namespace {

using Num = val;
using Str = val;

// { preset } or config.json's text (preset_or_json_config). A GPT-NeoX checkpoint does not say
// its head count or rotary settings, so there is no "read it off the checkpoint": the config
// is required.
GptNeoxConfig to_config(const val& js) { return preset_or_json_config<GptNeoxConfig>(js); }

// The rope's scaling, factor and original length: in the config object and in a forward
// result (the rotation it ran with).
val rope_scaling_js(const RopeOptions& rope) {
  return js_object({{"scaling", to_string(rope.scaling)},
                    {"factor", rope.factor},
                    {"originalLength", double(rope.original_length)}});
}

// forward's rope: { scaling, factor, originalLength, lowFreqFactor, highFreqFactor, betaFast,
// betaSlow } in place of the config's rope_scaling, as `poslab lm --rope-*` does: the base,
// pairs and rotated fraction stay the config's, originalLength defaults to
// max_position_embeddings.
RopeOptions to_scaled_rope(const val& options, const GptNeoxConfig& config) {
  const val js = to_options(options, "rope",
                            {"scaling", "factor", "originalLength", "lowFreqFactor",
                             "highFreqFactor", "betaFast", "betaSlow"});
  require(!field(js, "scaling").isUndefined(), "scaling",
          "rope.scaling is required (none, linear, ntk, dynamic, yarn or llama3)");
  const RopeOptions defaults;
  RopeOptions o = config.rope();
  o.scaling = parse_rope_scaling(string_field(js, "scaling", ""));
  o.factor = number_field(js, "factor", defaults.factor);
  o.original_length = integer_field(js, "originalLength", config.dims.context);
  o.low_freq_factor = number_field(js, "lowFreqFactor", defaults.low_freq_factor);
  o.high_freq_factor = number_field(js, "highFreqFactor", defaults.high_freq_factor);
  o.beta_fast = number_field(js, "betaFast", defaults.beta_fast);
  o.beta_slow = number_field(js, "betaSlow", defaults.beta_slow);
  return o;
}

// GPT-NeoX for lm_bindings.hpp's handles and module functions.
struct GptNeoxArch {
  using Weights = GptNeoxWeights;
  static val config_js(const GptNeoxConfig& c) {
    const RopeOptions rope = c.rope();
    val rope_js = rope_scaling_js(rope);
    rope_js.set("rotaryDim", double(rope_frequencies(c.head_dim(), rope).rotary_dim));
    rope_js.set("base", rope.base);
    val out = dims_js(c.dims, GptNeoxConfig::kDimKeys);
    js_set(out, {{"intermediate_size", double(c.intermediate_size)},
                 {"rotary_pct", c.rotary_pct},
                 {"rotary_emb_base", c.rotary_emb_base},
                 {"layer_norm_eps", c.layer_norm_eps},
                 {"use_parallel_residual", c.use_parallel_residual},
                 {"rope", rope_js},
                 {"parameters", double(c.parameter_count())},
                 {"json", c.to_json()}});
    return out;
  }
  // options: { precision, trace, topK, logits, lossByPosition, rope }
  static val forward(const GptNeoxWeights& weights, const val& tokens, const val& forward_options) {
    GptNeoxOptions o;
    const ForwardCall call =
        forward_call(tokens, forward_options,
                     {"precision", "trace", "topK", "logits", "lossByPosition", "rope"}, o);
    o.logits = bool_field(call.options, "logits", o.logits);
    o.loss_by_position = bool_field(call.options, "lossByPosition", o.loss_by_position);
    const val rope = field(call.options, "rope");
    if (!rope.isUndefined()) o.rope = to_scaled_rope(rope, weights.config);
    const GptNeoxResult r = gpt_neox_forward(weights, call.ids, o);
    val out = forward_result_js(r, o.precision);
    if (o.logits) out.set("logits", to_js(r.logits));
    if (o.loss_by_position) out.set("losses", to_js(r.losses));
    out.set("rope", rope_scaling_js(o.rope ? *o.rope : weights.config.rope()));
    return out;
  }
  // Required: the checkpoint does not say the head count or rotary settings.
  static GptNeoxConfig loader_config(const val& config, const SafetensorsHeader&,
                                     const std::string&) {
    return to_config(config);
  }
  static GptNeoxConfig config_argument(const val& config) { return to_config(config); }
  // dtype 'F16' re-stores every weight as half (rounded to nearest even), as
  // `poslab lm-random --dtype F16` writes it.
  static val random_js(val config, Num seed, Str dtype) {
    return guarded([&] {
      const std::string d = to_string(dtype, "dtype");
      require(d == "F32" || d == "F16", "dtype", "dtype must be F32 or F16 (got '" + d + "')");
      GptNeoxWeights weights = lm_random_weights(to_config(config), to_seed(seed));
      if (d == "F16") {
        for (const auto& entry : lm_named_tensors(weights)) {
          // The pointers are into `weights`, which this function owns.
          auto* tensor = const_cast<StoredTensor*>(entry.second);
          *tensor = StoredTensor::from(tensor->to_float(), StoredDType::kF16);
        }
      }
      return model_result<GptNeoxArch>(std::move(weights));
    });
  }
};

}  // namespace
}  // namespace poslab::wasm

// The RoPE scalings forward's rope.scaling accepts ('none' first): ropeScalings.
EMSCRIPTEN_BINDINGS(poslab_gpt_neox) {
  using namespace poslab::wasm;
  register_lm_module<GptNeoxArch, poslab::kRopeScalingNames>("GptNeox", "ropeScalings");
}

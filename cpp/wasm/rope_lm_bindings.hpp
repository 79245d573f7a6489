// What the RoPE language models' embind surfaces share (gpt_neox_bindings.cpp,
// llama_bindings.cpp): their configs' rotation as JS, forward's `rope` option (a scaling in
// place of the config's, as `poslab lm --rope-*`) and `surgery` option (position surgery inside
// the pass, as `poslab lm --nope-heads …`), the forward pass over lm.hpp's RopeLmOptions /
// RopeLmResult, the surgery sweep (surgery_js.hpp) and random weights in F32 or F16.
#pragma once

#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "guard.hpp"
#include "js_convert.hpp"
#include "js_object.hpp"
#include "lm_bindings.hpp"
#include "poslab/models/lm.hpp"
#include "poslab/models/lm_surgery.hpp"
#include "poslab/positions/rope.hpp"
#include "surgery_js.hpp"

namespace poslab::wasm {

// The rope's scaling ("longrope" for Phi-3's per-pair lists), factor and original length: in
// the config object and in a forward result (the rotation it ran with).
inline val rope_scaling_js(const RopeOptions& rope) {
  const bool longrope = rope.longrope != nullptr;
  return js_object({{"scaling", longrope ? std::string("longrope") : to_string(rope.scaling)},
                    {"factor", rope.factor},
                    {"originalLength", double(rope.original_length)}});
}

// A config's rotation: its scaling, rotary dim and base.
template <class Config>
val rope_config_js(const Config& c) {
  const RopeOptions rope = c.rope();
  val out = rope_scaling_js(rope);
  out.set("rotaryDim", double(rope_frequencies(c.head_dim(), rope).rotary_dim));
  out.set("base", rope.base);
  return out;
}

// forward's rope: { scaling, factor, originalLength, lowFreqFactor, highFreqFactor, betaFast,
// betaSlow } in place of the config's rope_scaling, as `poslab lm --rope-*` does: the base,
// pairs and rotated fraction stay the config's, originalLength defaults to
// max_position_embeddings.
template <class Config>
RopeOptions to_scaled_rope(const val& options, const Config& config) {
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

// forward(tokens, { precision, trace, topK, logits, lossByPosition, rope, surgery }) of a RoPE
// model: `run` is the architecture's forward (gpt_neox_forward, llama_forward).
template <class Weights, class Run>
val rope_lm_forward_js(const Weights& weights, const val& tokens, const val& forward_options,
                       Run run) {
  RopeLmOptions o;
  const ForwardCall call = forward_call(
      tokens, forward_options,
      {"precision", "trace", "topK", "logits", "lossByPosition", "rope", "surgery"}, o);
  o.logits = bool_field(call.options, "logits", o.logits);
  o.loss_by_position = bool_field(call.options, "lossByPosition", o.loss_by_position);
  const val rope = field(call.options, "rope");
  if (!rope.isUndefined()) o.rope = to_scaled_rope(rope, weights.config);
  o.surgery = to_surgery(field(call.options, "surgery"));
  const RopeLmResult r = run(weights, call.ids, o);
  val out = forward_result_js(r, o.precision);
  if (o.logits) out.set("logits", to_js(r.logits));
  if (o.loss_by_position) out.set("losses", to_js(r.losses));
  out.set("rope", rope_scaling_js(o.rope ? *o.rope : weights.config.rope()));
  return out;
}

// { model } with seeded random weights; dtype 'F16' re-stores every weight as half (rounded to
// nearest even), as `poslab lm-random --dtype F16` writes it.
// `to_config` reads the config argument inside the guard, so a bad one comes back as an error.
template <class Arch, class ToConfig>
val rope_lm_random_js(const val& config, const val& seed, const val& dtype, ToConfig to_config) {
  return guarded([&] {
    const std::string d = to_string(dtype, "dtype");
    require(d == "F32" || d == "F16", "dtype", "dtype must be F32 or F16 (got '" + d + "')");
    typename Arch::Weights weights = lm_random_weights(to_config(config), to_seed(seed));
    if (d == "F16") {
      for (const auto& entry : lm_held_tensors(weights)) {
        // The pointers are into `weights`, which this function owns.
        auto* tensor = const_cast<StoredTensor*>(entry.second);
        *tensor = StoredTensor::from(tensor->to_float(), StoredDType::kF16);
      }
    }
    return model_result<Arch>(std::move(weights));
  });
}

// What a RoPE architecture's description for lm_bindings.hpp shares; the description itself
// (`Derived`) adds only its config's own keys (config_keys_js). Its config is required, a preset or
// config.json's text: the checkpoint does not say the head counts or the rotation. `Forward` is the
// architecture's forward pass (gpt_neox_forward, llama_forward).
template <class Derived, class WeightsType, auto Forward>
struct RopeLmArch {
  using Weights = WeightsType;
  using Config = std::decay_t<decltype(std::declval<Weights>().config)>;
  static Config to_config(const val& js) { return preset_or_json_config<Config>(js); }
  static val config_js(const Config& c) {
    val out = dims_js(c.dims, Config::kDimKeys);
    Derived::config_keys_js(out, c);
    js_set(out, {{"rope", rope_config_js(c)},
                 {"parameters", double(c.parameter_count())},
                 {"json", c.to_json()}});
    return out;
  }
  static val forward(const Weights& weights, const val& tokens, const val& options) {
    return rope_lm_forward_js(weights, tokens, options, Forward);
  }
  static LensModel lens_model(const Weights& weights, const LensCall& call) {
    std::optional<RopeOptions> rope;
    if (!call.rope.isUndefined()) rope = to_scaled_rope(call.rope, weights.config);
    return poslab::lens_model(weights, call.precision, rope, call.surgery);
  }
  // surgery(tokens, options): the sweep's report as surgery.json's text (surgery_js.hpp).
  static val surgery(const Weights& weights, const val& tokens, const val& options) {
    const SurgeryCall call = surgery_call(options, "surgery");
    std::optional<RopeOptions> rope;
    if (!call.rope.isUndefined()) rope = to_scaled_rope(call.rope, weights.config);
    const std::vector<long long> ids = token_ids(tokens);
    return val(surgery_text(surgery_model(weights, call.precision, rope), ids, call,
                            "the model in memory",
                            [&] { return poslab::lens_model(weights, call.precision, rope); }));
  }
  static Config loader_config(const val& config, const SafetensorsHeader&, const std::string&) {
    return to_config(config);
  }
  static Config config_argument(const val& config) { return to_config(config); }
  static val random_js(val config, val seed, val dtype) {
    return rope_lm_random_js<Derived>(config, seed, dtype, to_config);
  }
};

}  // namespace poslab::wasm

// The embind surface of GPT-2: a config with its parameter counts, a model handle (random
// init or a checkpoint streamed in chunks by a loader handle) and its traced forward pass.
// The handles are lm_bindings.hpp's, over GPT-2's description (Gpt2Arch): its config, its
// forward options and result. Every exception becomes { error } at the boundary (guard.hpp);
// the idiomatic API is web/src/core/gpt2.js.
#include <emscripten/bind.h>

#include <memory>
#include <optional>
#include <string>

#include "guard.hpp"
#include "js_convert.hpp"
#include "js_object.hpp"
#include "lm_bindings.hpp"
#include "poslab/models/gpt2.hpp"

namespace poslab::wasm {
namespace {

// Every argument arrives as a val and is type-checked by js_convert (the rule is there).
using Num = val;

// undefined → none (read off the checkpoint); else { preset } or config.json's text
// (preset_or_json_config).
std::optional<Gpt2Config> to_config(const val& js) {
  if (js.isUndefined()) return std::nullopt;
  return preset_or_json_config<Gpt2Config>(js);
}

// GPT-2 for lm_bindings.hpp's handles and module functions (register_lm_module).
struct Gpt2Arch {
  using Weights = Gpt2Weights;
  static val config_js(const Gpt2Config& c) {
    const Gpt2ParameterCounts n = gpt2_parameter_counts(c);
    const val per_block = js_object({{"ln_1", double(n.ln_1)},
                                     {"attn_c_attn", double(n.attn_c_attn)},
                                     {"attn_c_proj", double(n.attn_c_proj)},
                                     {"ln_2", double(n.ln_2)},
                                     {"mlp_c_fc", double(n.mlp_c_fc)},
                                     {"mlp_c_proj", double(n.mlp_c_proj)}});
    val out = dims_js(c.dims, Gpt2Config::kDimKeys);
    js_set(out, {{"layer_norm_epsilon", c.layer_norm_epsilon},
                 {"parameters", js_object({{"wte", double(n.wte)},
                                           {"wpe", double(n.wpe)},
                                           {"perBlock", per_block},
                                           {"block", double(n.block)},
                                           {"blocks", double(n.blocks)},
                                           {"ln_f", double(n.ln_f)},
                                           {"total", double(n.total)}})}});
    return out;
  }
  static LensModel lens_model(const Gpt2Weights& weights, const LensCall& call) {
    refuse_rope(call.rope, "GPT-2");
    refuse_surgery(call.surgery, "GPT-2");
    return poslab::lens_model(weights, call.precision);
  }
  // options: { position, topK, trace, precision }
  static val forward(const Gpt2Weights& weights, const val& tokens, const val& forward_options) {
    Gpt2Options o;
    const ForwardCall call =
        forward_call(tokens, forward_options, {"position", "topK", "trace", "precision"}, o);
    o.position = parse_gpt2_position(
        string_field(call.options, "position", name_of(kGpt2PositionNames, o.position)));
    const Gpt2Result r = gpt2_forward(weights, call.ids, o);
    val out = forward_result_js(r, o.precision);
    js_set(out, {{"logits", to_js(r.logits)},
                 {"position", std::string(to_string(o.position))},
                 {"positionNote", std::string(gpt2_position_note(o.position))}});
    return out;
  }
  // Without a config, read off the checkpoint.
  static Gpt2Config loader_config(const val& config, const SafetensorsHeader& header,
                                  const std::string& name) {
    const std::optional<Gpt2Config> given = to_config(config);
    return given ? *given : Gpt2Config::from_header(header, name);
  }
  // Without a config, GPT-2 small.
  static Gpt2Config config_argument(const val& config) {
    const std::optional<Gpt2Config> given = to_config(config);
    return given ? *given : Gpt2Config::small();
  }
  static val random_js(val config, Num seed) {
    return guarded([&] {
      return model_result<Gpt2Arch>(lm_random_weights(config_argument(config), to_seed(seed)));
    });
  }
};

}  // namespace
}  // namespace poslab::wasm

// forward()'s position methods: gpt2Positions.
EMSCRIPTEN_BINDINGS(poslab_gpt2) {
  using namespace poslab::wasm;
  // GPT-2 checkpoints ship whole (and the CLI reads shards for the RoPE families only).
  register_lm_module<Gpt2Arch, poslab::kGpt2PositionNames, false>("Gpt2", "gpt2Positions");
}

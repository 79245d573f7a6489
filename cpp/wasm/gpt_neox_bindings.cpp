// The embind surface of GPT-NeoX (Pythia) in the language-model module, beside GPT-2's: a
// config with its parameter count, a model handle (random init or a checkpoint streamed in
// chunks by a loader handle) and its forward pass (logits and/or next-token losses, trace,
// top-k, a RoPE scaling in place of the config's). No math: JS types checked, the core
// called, owned typed arrays returned. The handles are lm_bindings.hpp's, over GPT-NeoX's
// description (GptNeoxArch); what the RoPE models share is rope_lm_bindings.hpp's.
// Every exception becomes { error, field } (guard.hpp); the idiomatic API is
// web/src/core/gpt-neox.js.
#include <emscripten/bind.h>

#include <string>

#include "js_object.hpp"
#include "lm_bindings.hpp"
#include "poslab/models/gpt_neox.hpp"
#include "rope_lm_bindings.hpp"

namespace poslab::wasm {
namespace {

// GPT-NeoX for lm_bindings.hpp's handles and module functions; its config is { preset:
// 'pythia-70m' } or config.json's text.
struct GptNeoxArch : RopeLmArch<GptNeoxArch, GptNeoxWeights, gpt_neox_forward> {
  static void config_keys_js(val& out, const GptNeoxConfig& c) {
    js_set(out, {{"intermediate_size", double(c.intermediate_size)},
                 {"rotary_pct", c.rotary_pct},
                 {"rotary_emb_base", c.rotary_emb_base},
                 {"layer_norm_eps", c.layer_norm_eps},
                 {"use_parallel_residual", c.use_parallel_residual}});
  }
};

}  // namespace
}  // namespace poslab::wasm

// The RoPE scalings forward's rope.scaling accepts ('none' first): ropeScalings.
EMSCRIPTEN_BINDINGS(poslab_gpt_neox) {
  using namespace poslab::wasm;
  register_lm_module<GptNeoxArch, poslab::kRopeScalingNames>("GptNeox", "ropeScalings");
}

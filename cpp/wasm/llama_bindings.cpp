// The embind surface of the Llama family (llama, mistral, qwen2, qwen3, gemma3_text, smollm3)
// in the language-model module, beside GPT-2's and GPT-NeoX's: a config with its parameter
// count, a model handle (random init or a checkpoint streamed in chunks, F32, F16 or BF16) and
// its forward pass, as GPT-NeoX's (rope_lm_bindings.hpp); smollm3's config says its
// no_rope_layers. No math: JS types checked, the core called, owned typed arrays returned.
// Every exception becomes { error, field } (guard.hpp); the idiomatic API is
// web/src/core/llama.js.
#include <emscripten/bind.h>

#include <string>

#include "js_object.hpp"
#include "lm_bindings.hpp"
#include "poslab/models/llama.hpp"
#include "rope_lm_bindings.hpp"

namespace poslab::wasm {
namespace {

// The Llama family for lm_bindings.hpp's handles and module functions; its config is
// { preset: 'smollm2-135m' | 'qwen2.5-0.5b' | 'smollm3-3b' } or config.json's text.
struct LlamaArch : RopeLmArch<LlamaArch, LlamaWeights, llama_forward> {
  static void config_keys_js(val& out, const LlamaConfig& c) {
    js_set(out, {{"model_type", std::string(to_string(c.model_type))},
                 {"num_key_value_heads", double(c.num_key_value_heads)},
                 {"head_dim", double(c.head_dim())},
                 {"intermediate_size", double(c.intermediate_size)},
                 {"rope_theta", c.rope_theta},
                 {"rms_norm_eps", c.rms_norm_eps},
                 {"tie_word_embeddings", c.tie_word_embeddings},
                 {"sliding_window", double(c.sliding_window)}});
    if (c.gemma()) {
      std::size_t sliding = 0;
      for (const bool s : c.sliding_layers) sliding += s ? 1 : 0;
      js_set(out, {{"query_pre_attn_scalar", c.query_pre_attn_scalar},
                   {"rope_local_base_freq", c.rope_local_base_freq},
                   {"sliding_layers", double(sliding)}});
    }
    if (c.smollm3()) {  // no_rope_layers as config.json spells it: 1 rotates, 0 is NoPE
      val rope_layers = val::array();
      for (std::size_t i = 0; i < std::size_t(c.dims.layers); ++i) {
        rope_layers.call<void>("push", c.nope(i) ? 0 : 1);
      }
      js_set(out, {{"no_rope_layers", rope_layers}});
    }
  }
};

}  // namespace
}  // namespace poslab::wasm

// Its forward's rope.scaling takes GPT-NeoX's names (ropeScalings, registered there).
EMSCRIPTEN_BINDINGS(poslab_llama) {
  using namespace poslab::wasm;
  register_lm_module<LlamaArch, poslab::kRopeScalingNames>("Llama", nullptr);
}

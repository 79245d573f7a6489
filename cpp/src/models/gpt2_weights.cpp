// GPT-2 weights: the standard tensor names and shapes (the architecture's description for the
// shared loader of lm_weights.hpp), seeded random init, and checkpoints checked name by name
// against the config.
#include <algorithm>

#include "base/strings.hpp"
#include "poslab/models/gpt2.hpp"
#include "poslab/models/lm_weights.hpp"

namespace poslab {
namespace {

// Buffers some checkpoints carry that are not weights: the causal-mask buffers of older
// transformers versions, and lm_head.weight (GPT-2 ties it to wte).
bool ignored_name(const std::string& name) {
  if (name == "lm_head.weight") return true;
  using detail::ends_with;
  return detail::starts_with(name, "h.") &&
         (ends_with(name, ".attn.bias") || ends_with(name, ".attn.masked_bias"));
}

}  // namespace

// Every tensor in checkpoint order. Sizes are validated by config.validate() first. Hugging
// Face's GPT2LMHeadModel saves "transformer.wte.weight" (and a bare lm_head.weight);
// GPT2Model saves "wte.weight".
LmTensorLayout lm_tensor_layout(Gpt2Weights& w, LmLayers layers) {
  const Gpt2Config& c = w.config;
  const std::size_t V = std::size_t(c.dims.vocab_size), P = std::size_t(c.dims.context);
  const std::size_t E = std::size_t(c.dims.width);
  LmTensorLayout layout{"GPT-2", "n_layer", c.dims.layers, "transformer.", {}, ignored_name};
  layout.linear = LmTensorLayout::kInOut;  // Hugging Face's Conv1D
  lm_layer_list(w.blocks, layout, layers, "blocks");
  add_matrix(layout, "wte.weight", w.wte, {V, E});
  add_matrix(layout, "wpe.weight", w.wpe, {P, E});
  for (std::size_t i = 0; i < w.blocks.size(); ++i) {
    Gpt2Block& b = w.blocks[i];
    const std::string h = "h." + std::to_string(i) + ".";
    add_norm(layout, h + "ln_1", b.ln_1_weight, b.ln_1_bias, E);
    add_linear(layout, h + "attn.c_attn", b.attn_c_attn_weight, b.attn_c_attn_bias, E, 3 * E);
    add_linear(layout, h + "attn.c_proj", b.attn_c_proj_weight, b.attn_c_proj_bias, E, E);
    add_norm(layout, h + "ln_2", b.ln_2_weight, b.ln_2_bias, E);
    add_linear(layout, h + "mlp.c_fc", b.mlp_c_fc_weight, b.mlp_c_fc_bias, E, 4 * E);
    add_linear(layout, h + "mlp.c_proj", b.mlp_c_proj_weight, b.mlp_c_proj_bias, 4 * E, E);
  }
  add_norm(layout, "ln_f", w.ln_f_weight, w.ln_f_bias, E);
  return layout;
}

Gpt2Weights gpt2_weights_from_bytes(const std::string& bytes,
                                    const std::optional<Gpt2Config>& config,
                                    const std::string& name) {
  return lm_weights_from_bytes<Gpt2Weights>(
      bytes,
      [&](const SafetensorsHeader& header) {
        return config ? *config : Gpt2Config::from_header(header, name);
      },
      name);
}

std::uint64_t Gpt2Weights::bytes() const { return lm_weight_bytes(*this); }

Gpt2Weights load_gpt2_weights(const std::string& path, const std::optional<Gpt2Config>& config) {
  if (config) config->validate();
  return load_lm_weights<Gpt2Weights>(path, [&](const SafetensorsHeader& header) {
    return config ? *config : Gpt2Config::from_header(header, path);
  });
}

}  // namespace poslab

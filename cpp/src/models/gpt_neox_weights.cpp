// GPT-NeoX weights: Hugging Face's tensor names and shapes (the architecture's description for
// the shared loader of lm_weights.hpp), seeded random init, and checkpoints checked name by
// name against the config.
#include "poslab/models/gpt_neox.hpp"
#include "poslab/models/lm_weights.hpp"

namespace poslab {
namespace {

// Buffers older transformers versions saved with the weights: the rotary frequencies (the
// config's rotary_emb_base and rotary_pct say them) and the causal-mask buffers. Only for a
// layer the config has: a buffer of layer 7 in a 6-layer model is a wrong checkpoint.
bool ignored_name(const std::string& name, long long layers) {
  if (name == "gpt_neox.rotary_emb.inv_freq") return true;
  const std::string prefix = "gpt_neox.layers.";
  if (name.compare(0, prefix.size(), prefix) != 0) return false;
  std::size_t end = prefix.size();
  while (end < name.size() && end - prefix.size() < 9 && name[end] >= '0' && name[end] <= '9') {
    ++end;
  }
  const std::string digits = name.substr(prefix.size(), end - prefix.size());
  if (digits.empty() || (digits.size() > 1 && digits[0] == '0')) return false;
  if (std::stoll(digits) >= layers) return false;
  const std::string rest = name.substr(end);
  return rest == ".attention.rotary_emb.inv_freq" || rest == ".attention.bias" ||
         rest == ".attention.masked_bias";
}

}  // namespace

// Every tensor in checkpoint order. Sizes are validated by config.validate() first.
LmTensorLayout lm_tensor_layout(GptNeoxWeights& w, LmLayers layers) {
  const GptNeoxConfig& c = w.config;
  const std::size_t V = std::size_t(c.dims.vocab_size), E = std::size_t(c.dims.width);
  const std::size_t I = std::size_t(c.intermediate_size);
  const long long n = c.dims.layers;
  LmTensorLayout layout{"GPT-NeoX", "num_hidden_layers",
                        n,          "",
                        {},         [n](const std::string& name) { return ignored_name(name, n); }};
  lm_layer_list(w.layers, layout, layers, "layers");
  add_matrix(layout, "gpt_neox.embed_in.weight", w.embed_in, {V, E});
  for (std::size_t i = 0; i < w.layers.size(); ++i) {
    GptNeoxLayer& l = w.layers[i];
    const std::string p = "gpt_neox.layers." + std::to_string(i) + ".";
    add_norm(layout, p + "input_layernorm", l.input_layernorm_weight, l.input_layernorm_bias, E);
    add_norm(layout, p + "post_attention_layernorm", l.post_attention_layernorm_weight,
             l.post_attention_layernorm_bias, E);
    add_linear(layout, p + "attention.query_key_value", l.query_key_value_weight,
               l.query_key_value_bias, E, 3 * E);
    add_linear(layout, p + "attention.dense", l.dense_weight, l.dense_bias, E, E);
    add_linear(layout, p + "mlp.dense_h_to_4h", l.dense_h_to_4h_weight, l.dense_h_to_4h_bias, E, I);
    add_linear(layout, p + "mlp.dense_4h_to_h", l.dense_4h_to_h_weight, l.dense_4h_to_h_bias, I, E);
  }
  add_norm(layout, "gpt_neox.final_layer_norm", w.final_layer_norm_weight, w.final_layer_norm_bias,
           E);
  add_matrix(layout, "embed_out.weight", w.embed_out, {V, E});
  return layout;
}

std::uint64_t GptNeoxWeights::bytes() const { return lm_weight_bytes(*this); }

}  // namespace poslab

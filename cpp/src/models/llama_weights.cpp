// Llama-family weights: Hugging Face's tensor names and shapes (the architecture's description for
// the shared loader of lm_weights.hpp), seeded random init, and checkpoints checked name by
// name against the config.
#include "poslab/models/llama.hpp"
#include "poslab/models/lm_weights.hpp"

namespace poslab {
namespace {

// Names a checkpoint may carry that are not weights: the rotary frequencies older
// transformers versions saved per layer (rope_theta says them), only for a layer the config
// has, and when tied the lm_head.weight some files duplicate (transformers ties it to
// embed_tokens, whatever the file holds).
bool ignored_name(const std::string& name, long long layers, bool tied) {
  if (tied && name == "lm_head.weight") return true;
  const std::string prefix = "model.layers.", suffix = ".self_attn.rotary_emb.inv_freq";
  if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return false;
  }
  const std::string digits =
      name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (digits.size() > 9 || (digits.size() > 1 && digits[0] == '0')) return false;
  for (const char ch : digits) {
    if (ch < '0' || ch > '9') return false;
  }
  return std::stoll(digits) < layers;
}

}  // namespace

// Every tensor in checkpoint order. Sizes are validated by config.validate() first.
LmTensorLayout lm_tensor_layout(LlamaWeights& w, LmLayers layers) {
  const LlamaConfig& c = w.config;
  const std::size_t V = std::size_t(c.dims.vocab_size), E = std::size_t(c.dims.width);
  const std::size_t I = std::size_t(c.intermediate_size), d = std::size_t(c.head_dim());
  const std::size_t Q = std::size_t(c.dims.heads) * d, KV = std::size_t(c.num_key_value_heads) * d;
  const long long n = c.dims.layers;
  const bool tied = c.tie_word_embeddings;
  LmTensorLayout layout{
      "Llama", "num_hidden_layers",
      n,       "",
      {},      [n, tied](const std::string& name) { return ignored_name(name, n, tied); }};
  layout.sizes = "hidden_size " + std::to_string(E) + ", num_attention_heads " +
                 std::to_string(c.dims.heads) + ", num_key_value_heads " +
                 std::to_string(c.num_key_value_heads) + ", head_dim " + std::to_string(d) +
                 (c.explicit_head_dim > 0 ? "" : " (hidden_size / num_attention_heads)") +
                 ", intermediate_size " + std::to_string(I);
  lm_layer_list(w.layers, layout, layers, "layers");
  add_matrix(layout, "model.embed_tokens.weight", w.embed_tokens, {V, E});
  for (std::size_t i = 0; i < w.layers.size(); ++i) {
    LlamaLayer& l = w.layers[i];
    const std::string p = "model.layers." + std::to_string(i) + ".";
    add_gain(layout, p + "input_layernorm", l.input_layernorm_weight, E);
    const auto projection = [&](const char* name, StoredTensor& weight, StoredTensor& bias,
                                std::size_t in, std::size_t out, bool biased) {
      if (biased) {
        add_linear(layout, p + "self_attn." + name, weight, bias, in, out);
      } else {
        add_linear(layout, p + "self_attn." + name, weight, in, out);
      }
    };
    projection("q_proj", l.q_proj_weight, l.q_proj_bias, E, Q, c.qkv_bias());
    projection("k_proj", l.k_proj_weight, l.k_proj_bias, E, KV, c.qkv_bias());
    projection("v_proj", l.v_proj_weight, l.v_proj_bias, E, KV, c.qkv_bias());
    projection("o_proj", l.o_proj_weight, l.o_proj_bias, Q, E, c.o_bias());
    if (c.qk_norm()) {
      add_gain(layout, p + "self_attn.q_norm", l.q_norm_weight, d);
      add_gain(layout, p + "self_attn.k_norm", l.k_norm_weight, d);
    }
    add_linear(layout, p + "mlp.gate_proj", l.gate_proj_weight, E, I);
    add_linear(layout, p + "mlp.up_proj", l.up_proj_weight, E, I);
    add_linear(layout, p + "mlp.down_proj", l.down_proj_weight, I, E);
    add_gain(layout, p + "post_attention_layernorm", l.post_attention_layernorm_weight, E);
    if (c.gemma()) {
      add_gain(layout, p + "pre_feedforward_layernorm", l.pre_feedforward_layernorm_weight, E);
      add_gain(layout, p + "post_feedforward_layernorm", l.post_feedforward_layernorm_weight, E);
    }
  }
  add_gain(layout, "model.norm", w.norm_weight, E);
  if (!tied) add_matrix(layout, "lm_head.weight", w.lm_head, {V, E});
  return layout;
}

std::uint64_t LlamaWeights::bytes() const { return lm_weight_bytes(*this); }

}  // namespace poslab

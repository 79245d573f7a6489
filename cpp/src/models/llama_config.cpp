// Llama configurations: the SmolLM2 preset, Hugging Face config.json (read and written), and
// the size checks that run before any weight is allocated.
#include <cstdint>
#include <nlohmann/json.hpp>

#include "models/lm_config.hpp"
#include "poslab/models/llama.hpp"

namespace poslab {

LlamaConfig LlamaConfig::smollm2_135m() { return LlamaConfig{}; }

LlamaConfig LlamaConfig::preset(const std::string& name) {
  if (name == "smollm2-135m") return smollm2_135m();
  throw Error("unknown Llama preset '" + name + "' (expected smollm2-135m)", "preset");
}

namespace {

using Json = nlohmann::json;
using lm_config::integer_key;
using lm_config::number_key;

long long required_size(const Json& json, const char* key, const std::string& name) {
  require(json.contains(key), name + ": missing \"" + key + "\" (a Llama config needs it)");
  return integer_key(json, key, name);
}

bool flag(const Json& json, const char* key, bool value, const std::string& name) {
  if (!json.contains(key)) return value;
  require(json[key].is_boolean(), name + ": \"" + key + "\" must be true or false");
  return json[key].get<bool>();
}

}  // namespace

LlamaConfig LlamaConfig::from_json(const std::string& text, const std::string& name) {
  const Json json = lm_config::parse_object(text, name, "a Llama config");
  if (json.contains("model_type")) {
    require(json["model_type"] == "llama",
            name + ": \"model_type\" is " + json["model_type"].dump() + ", not \"llama\"");
  }
  // transformers' LlamaConfig defaults, which differ from the SmolLM2 preset's.
  LlamaConfig c;
  c.dims.context = 2048;
  c.rope_theta = 10000.0;
  c.rms_norm_eps = 1e-6;
  c.tie_word_embeddings = false;
  c.dims.vocab_size = required_size(json, "vocab_size", name);
  c.dims.width = required_size(json, "hidden_size", name);
  c.dims.layers = required_size(json, "num_hidden_layers", name);
  c.dims.heads = required_size(json, "num_attention_heads", name);
  c.intermediate_size = required_size(json, "intermediate_size", name);
  c.num_key_value_heads = c.dims.heads;
  // null is transformers' "absent" for these two.
  if (json.contains("num_key_value_heads") && !json["num_key_value_heads"].is_null()) {
    c.num_key_value_heads = integer_key(json, "num_key_value_heads", name);
  }
  if (json.contains("head_dim") && !json["head_dim"].is_null()) {
    c.explicit_head_dim = integer_key(json, "head_dim", name);
    positive_size(c.explicit_head_dim, "head_dim");
  }
  if (json.contains("max_position_embeddings")) {
    c.dims.context = integer_key(json, "max_position_embeddings", name);
  }
  if (json.contains("original_max_position_embeddings")) {
    c.original_max_position_embeddings =
        integer_key(json, "original_max_position_embeddings", name);
    require(c.original_max_position_embeddings > 0,
            name + ": \"original_max_position_embeddings\" must be positive");
  }
  if (json.contains("rope_theta")) c.rope_theta = number_key(json, "rope_theta", name);
  if (json.contains("rms_norm_eps")) c.rms_norm_eps = number_key(json, "rms_norm_eps", name);
  c.tie_word_embeddings = flag(json, "tie_word_embeddings", false, name);
  c.attention_bias = flag(json, "attention_bias", false, name);
  // Variants this forward pass does not compute: refused rather than silently computed wrong.
  if (json.contains("hidden_act")) {
    require(json["hidden_act"] == "silu", name + ": \"hidden_act\" " + json["hidden_act"].dump() +
                                              " is not supported (only \"silu\", SwiGLU)");
  }
  require(!flag(json, "mlp_bias", false, name),
          name + ": \"mlp_bias\": true is not supported (gate, up and down carry no bias)");
  if (json.contains("pretraining_tp")) {
    require(json["pretraining_tp"] == 1,
            name + ": \"pretraining_tp\" other than 1 is not supported (got " +
                json["pretraining_tp"].dump() + ")");
  }
  if (json.contains("partial_rotary_factor")) {
    require(json["partial_rotary_factor"] == 1 || json["partial_rotary_factor"] == 1.0,
            name + ": \"partial_rotary_factor\" other than 1 is not supported");
  }
  lm_config::read_rope_scaling(json, c, name);
  lm_config::validate_named(c, name);
  return c;
}

std::string LlamaConfig::to_json() const {
  Json json = lm_config::dims_json(dims, kDimKeys);
  json.update({{"model_type", "llama"},
               {"architectures", {"LlamaForCausalLM"}},
               {"num_key_value_heads", num_key_value_heads},
               {"intermediate_size", intermediate_size},
               {"rope_theta", rope_theta},
               {"rms_norm_eps", rms_norm_eps},
               {"hidden_act", "silu"},
               {"tie_word_embeddings", tie_word_embeddings},
               {"attention_bias", attention_bias}});
  if (explicit_head_dim > 0) json["head_dim"] = explicit_head_dim;
  if (original_max_position_embeddings > 0) {
    json["original_max_position_embeddings"] = original_max_position_embeddings;
  }
  lm_config::write_rope_scaling(*this, json);
  return json.dump(2) + "\n";
}

RopeOptions LlamaConfig::rope() const {
  RopeOptions o;
  o.base = rope_theta;
  o.style = RopeStyle::kNeox;
  o.rotary_fraction = 1.0;
  o.scaling = rope_scaling;
  o.factor = rope_factor;
  o.original_length = rope_scaling == RopeScaling::kDynamic  ? dims.context
                      : rope_original_length > 0             ? rope_original_length
                      : original_max_position_embeddings > 0 ? original_max_position_embeddings
                                                             : dims.context;
  o.low_freq_factor = rope_low_freq_factor;
  o.high_freq_factor = rope_high_freq_factor;
  o.beta_fast = rope_beta_fast;
  o.beta_slow = rope_beta_slow;
  return o;
}

void LlamaConfig::validate() const {
  lm_config::require_dims(dims, kDimKeys);
  positive_size(num_key_value_heads, "num_key_value_heads");
  require(dims.heads % num_key_value_heads == 0,
          std::string("num_attention_heads ") + std::to_string(dims.heads) +
              " is not divisible by num_key_value_heads " + std::to_string(num_key_value_heads));
  require(explicit_head_dim >= 0, "head_dim must be positive");
  positive_size(intermediate_size, "intermediate_size");
  lm_config::require_eps(rms_norm_eps, "rms_norm_eps");
  require(rope_original_length >= 0 && original_max_position_embeddings >= 0,
          "original_max_position_embeddings must be > 0");
  lm_config::require_parameter_cap(parameter_count(), kMaxLlamaParameters);
  // rope_theta, the head's evenness and the scaling, by the one check RoPE itself applies.
  try {
    rope_frequencies(head_dim(), rope());
  } catch (const Error& e) {
    throw Error(std::string("rotary settings (head_dim, rope_theta, rope_scaling): ") + e.what(),
                e.field());
  }
}

std::uint64_t LlamaConfig::parameter_count() const {
  using lm_config::add, lm_config::mul;  // saturating (lm_config.hpp)
  const auto u = lm_config::count;
  const std::uint64_t V = u(dims.vocab_size), E = u(dims.width), N = u(dims.layers),
                      I = u(intermediate_size), H = u(dims.heads), K = u(num_key_value_heads);
  const std::uint64_t d = u(head_dim());
  // q_proj and o_proj (2·E·H·d), k_proj and v_proj (2·E·K·d), gate, up and down (3·E·I), two
  // RMSNorm gains (2E); with attention_bias H·d + 2·K·d + E more.
  std::uint64_t layer = add(add(mul(2, mul(E, mul(H, d))), mul(2, mul(E, mul(K, d)))),
                            add(mul(3, mul(E, I)), mul(2, E)));
  if (attention_bias) layer = add(layer, add(add(mul(H, d), mul(2, mul(K, d))), E));
  const std::uint64_t embeddings = mul(tie_word_embeddings ? 1 : 2, mul(V, E));
  return add(add(embeddings, mul(N, layer)), E);
}

}  // namespace poslab

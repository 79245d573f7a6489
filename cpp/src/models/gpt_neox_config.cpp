// GPT-NeoX configurations: the Pythia presets, Hugging Face config.json (read and written),
// and the size checks that run before any weight is allocated.
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "models/lm_config.hpp"
#include "poslab/models/gpt_neox.hpp"

namespace poslab {

namespace {

using Json = nlohmann::json;

using lm_config::number_key;

// A setting transformers spells two ways (rotary_pct / partial_rotary_factor): either, or
// both when they agree.
void optional_number(const Json& json, const char* key, const char* alias, double& out,
                     const std::string& name) {
  const bool has_key = json.contains(key), has_alias = json.contains(alias);
  if (has_key) out = number_key(json, key, name);
  if (has_alias) {
    const double other = number_key(json, alias, name);
    // The message is built only when they disagree: json.at(key) exists then (json[key] on a
    // const object without the key is undefined behaviour).
    if (has_key && other != out) {
      throw Error(name + ": \"" + key + "\" and \"" + alias + "\" disagree (" +
                  json.at(key).dump() + " vs " + json.at(alias).dump() + ")");
    }
    out = other;
  }
}

// A boolean key that must hold `required` when present.
void fixed_flag(const Json& json, const char* key, bool required, const std::string& why,
                const std::string& name) {
  require(lm_config::flag(json, key, required, name) == required,
          name + ": \"" + key + "\": " + (required ? "false" : "true") + " is not supported (" +
              why + ")");
}

}  // namespace

GptNeoxConfig GptNeoxConfig::from_json(const std::string& text, const std::string& name) {
  const std::string what = "a GPT-NeoX config";
  const Json json = lm_config::parse_object(text, name, what);
  if (json.contains("model_type")) {
    require(json["model_type"] == "gpt_neox",
            name + ": \"model_type\" is " + json["model_type"].dump() + ", not \"gpt_neox\"");
  }
  GptNeoxConfig c;
  lm_config::read_required_dims(json, c.dims, name, what);
  c.intermediate_size = lm_config::required_size(json, "intermediate_size", name, what);
  optional_number(json, "rotary_pct", "partial_rotary_factor", c.rotary_pct, name);
  optional_number(json, "rotary_emb_base", "rope_theta", c.rotary_emb_base, name);
  if (json.contains("layer_norm_eps")) c.layer_norm_eps = number_key(json, "layer_norm_eps", name);
  c.use_parallel_residual = lm_config::flag(json, "use_parallel_residual", true, name);
  // Variants this forward pass does not compute: refused rather than silently computed wrong.
  if (json.contains("hidden_act")) {
    require(json["hidden_act"] == "gelu", name + ": \"hidden_act\" " + json["hidden_act"].dump() +
                                              " is not supported (only \"gelu\", the exact erf "
                                              "form Pythia uses)");
  }
  fixed_flag(json, "tie_word_embeddings", false, "GPT-NeoX's embed_out is its own matrix", name);
  fixed_flag(json, "attention_bias", true, "query_key_value and dense carry biases", name);
  const lm_config::RopeParameterKeys rope = lm_config::read_rope_scaling(json, c, name);
  if (rope.theta) c.rotary_emb_base = *rope.theta;
  if (rope.partial_rotary_factor) c.rotary_pct = *rope.partial_rotary_factor;
  lm_config::validate_named(c, name);
  return c;
}

std::string GptNeoxConfig::to_json() const {
  Json json = lm_config::dims_json(dims, kDimKeys);
  json.update({{"model_type", "gpt_neox"},
               {"architectures", {"GPTNeoXForCausalLM"}},
               {"intermediate_size", intermediate_size},
               {"rotary_pct", rotary_pct},
               {"rotary_emb_base", rotary_emb_base},
               {"layer_norm_eps", layer_norm_eps},
               {"use_parallel_residual", use_parallel_residual},
               {"hidden_act", "gelu"},
               {"tie_word_embeddings", false},
               {"attention_bias", true}});
  lm_config::write_rope_scaling(*this, json);
  return json.dump(2) + "\n";
}

RopeOptions GptNeoxConfig::rope() const {
  return rope_options(rotary_emb_base, rotary_pct,
                      rope_original_length > 0 ? rope_original_length : dims.context, dims.context);
}

void GptNeoxConfig::validate() const {
  lm_config::require_dims(dims, kDimKeys);
  positive_size(intermediate_size, "intermediate_size");
  lm_config::require_eps(layer_norm_eps, "layer_norm_eps");
  require(rope_original_length >= 0, "rope_scaling original_max_position_embeddings must be > 0");
  // The size first: RoPE's check below allocates head_dim / 2 frequencies.
  lm_config::require_parameter_cap(parameter_count(), kMaxGptNeoxParameters);
  // rotary_pct, rotary_emb_base and the scaling, by the one check RoPE itself applies.
  try {
    rope_frequencies(head_dim(), rope());
  } catch (const Error& e) {
    throw Error(
        std::string("rotary settings (rotary_pct, rotary_emb_base, rope_scaling): ") + e.what(),
        e.field());
  }
}

std::uint64_t GptNeoxConfig::parameter_count() const {
  using lm_config::add, lm_config::mul;  // saturating (lm_config.hpp)
  const auto u = lm_config::count;
  const std::uint64_t V = u(dims.vocab_size), E = u(dims.width), N = u(dims.layers),
                      I = u(intermediate_size);
  // Two LayerNorms (4E), query_key_value (3E² + 3E), dense (E² + E), dense_h_to_4h (IE + I),
  // dense_4h_to_h (EI + E): 4E² + 2IE + 9E + I per layer.
  const std::uint64_t layer = add(add(mul(4, mul(E, E)), mul(2, mul(I, E))), add(mul(9, E), I));
  return add(add(mul(2, mul(V, E)), mul(N, layer)), mul(2, E));
}

GptNeoxConfig GptNeoxConfig::pythia_70m() { return GptNeoxConfig{}; }

GptNeoxConfig GptNeoxConfig::pythia_160m() {
  GptNeoxConfig c;
  c.dims = {50304, 2048, 768, 12, 12};
  c.intermediate_size = 3072;
  return c;
}

GptNeoxConfig GptNeoxConfig::preset(const std::string& name) {
  return lm_config::preset_named<GptNeoxConfig>(
      name, {{"pythia-70m", pythia_70m}, {"pythia-160m", pythia_160m}}, "GPT-NeoX");
}

}  // namespace poslab

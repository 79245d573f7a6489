// GPT-2 configurations: the released presets, Hugging Face config.json, and the size checks
// that run before any weight is allocated.
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_map>

#include "models/lm_config.hpp"
#include "poslab/models/gpt2.hpp"

namespace poslab {

Gpt2Config Gpt2Config::small() { return Gpt2Config{{50257, 1024, 768, 12, 12}, 1e-5}; }

Gpt2Config Gpt2Config::medium() { return Gpt2Config{{50257, 1024, 1024, 24, 16}, 1e-5}; }

Gpt2Config Gpt2Config::preset(const std::string& name) {
  return lm_config::preset_named<Gpt2Config>(name, {{"small", small}, {"medium", medium}}, "GPT-2");
}

namespace {

long long size_key(const nlohmann::json& json, const char* key, long long fallback,
                   const std::string& name) {
  return json.contains(key) ? lm_config::integer_key(json, key, name) : fallback;
}

}  // namespace

Gpt2Config Gpt2Config::from_json(const std::string& text, const std::string& name) {
  const nlohmann::json json = lm_config::parse_object(text, name, "a GPT-2 config");
  const Gpt2Config defaults = small();
  Gpt2Config config;
  config.dims.vocab_size = size_key(json, "vocab_size", defaults.dims.vocab_size, name);
  config.dims.context = size_key(json, "n_positions", defaults.dims.context, name);
  config.dims.width = size_key(json, "n_embd", defaults.dims.width, name);
  config.dims.layers = size_key(json, "n_layer", defaults.dims.layers, name);
  config.dims.heads = size_key(json, "n_head", defaults.dims.heads, name);
  if (json.contains("layer_norm_epsilon")) {
    const nlohmann::json& eps = json["layer_norm_epsilon"];
    require(eps.is_number(), name + ": \"layer_norm_epsilon\" must be a number");
    config.layer_norm_epsilon = eps.get<double>();
  }
  // Variants of the architecture this forward pass does not compute: refuse rather than
  // silently give other numbers than the model would.
  if (json.contains("activation_function")) {
    const nlohmann::json& act = json["activation_function"];
    require(act == "gelu_new" || act == "gelu_pytorch_tanh",
            name + ": activation_function " + act.dump() +
                " is not supported (GPT-2's gelu_new, the tanh approximation)");
  }
  for (const char* key : {"scale_attn_by_inverse_layer_idx", "reorder_and_upcast_attn"}) {
    require(!json.contains(key) || json[key] == false,
            name + ": \"" + key + "\": true is not supported");
  }
  require(!json.contains("scale_attn_weights") || json["scale_attn_weights"] == true,
          name + ": \"scale_attn_weights\": false is not supported");
  lm_config::validate_named(config, name);
  return config;
}

Gpt2Config Gpt2Config::from_header(const SafetensorsHeader& header, const std::string& name) {
  // One pass over the header (a crafted one may hold tens of thousands of entries), then
  // lookups by name: scanning it once per layer was quadratic.
  std::unordered_map<std::string_view, const SafetensorsEntry*> by_name;
  by_name.reserve(header.entries.size());
  for (const SafetensorsEntry& e : header.entries) {
    std::string_view bare = e.name;
    if (bare.substr(0, 12) == "transformer.") bare.remove_prefix(12);
    by_name.emplace(bare, &e);  // the first of two spellings of one name wins, as before
  }
  const auto find = [&](const std::string& bare) -> const SafetensorsEntry* {
    const auto it = by_name.find(bare);
    return it == by_name.end() ? nullptr : it->second;
  };
  const auto matrix = [&](const std::string& bare) {
    const SafetensorsEntry* e = find(bare);
    require(e != nullptr, name + ": no tensor '" + bare + "' to read the config from");
    require(e->shape.size() == 2, name + ": tensor '" + e->name + "' has shape " +
                                      shape_string(e->shape) + ", expected a matrix");
    return e->shape;
  };
  const Shape wte = matrix("wte.weight"), wpe = matrix("wpe.weight");
  Gpt2Config config;
  config.dims.vocab_size = static_cast<long long>(wte[0]);
  config.dims.width = static_cast<long long>(wte[1]);
  config.dims.context = static_cast<long long>(wpe[0]);
  long long layers = 0;
  while (find("h." + std::to_string(layers) + ".ln_1.weight")) ++layers;
  config.dims.layers = layers;
  require(layers > 0, name + ": no blocks (h.0.ln_1.weight) to count layers from");
  require(config.dims.width % 64 == 0,
          name + ": n_embd " + std::to_string(config.dims.width) +
              " is not a multiple of GPT-2's head width 64, so the number of heads cannot be "
              "inferred: give the config.json that came with the weights");
  config.dims.heads = config.dims.width / 64;
  lm_config::validate_named(config, name);
  return config;
}

std::string Gpt2Config::to_json() const {
  validate();
  nlohmann::json json = lm_config::dims_json(dims, kDimKeys);
  json.update({{"model_type", "gpt2"},
               {"architectures", {"GPT2LMHeadModel"}},
               {"n_ctx", dims.context},
               {"layer_norm_epsilon", layer_norm_epsilon},
               {"activation_function", "gelu_new"}});
  return json.dump(2) + "\n";
}

void Gpt2Config::validate() const {
  lm_config::require_dims(dims, kDimKeys);
  lm_config::require_eps(layer_norm_epsilon, "layer_norm_epsilon");
  lm_config::require_parameter_cap(parameter_count(), kMaxGpt2Parameters);
}

std::uint64_t Gpt2Config::parameter_count() const {
  using lm_config::add, lm_config::mul;  // saturating (lm_config.hpp)
  const auto u = lm_config::count;
  const std::uint64_t V = u(dims.vocab_size), P = u(dims.context), E = u(dims.width),
                      N = u(dims.layers);
  const std::uint64_t E2 = mul(E, E);
  // ln_1, ln_2 (2E each), c_attn (3E² + 3E), attn c_proj (E² + E), c_fc (4E² + 4E),
  // mlp c_proj (4E² + E): 12E² + 13E per block.
  const std::uint64_t block = add(mul(12, E2), mul(13, E));
  return add(add(mul(V, E), mul(P, E)), add(mul(N, block), mul(2, E)));
}

}  // namespace poslab

namespace poslab {

Gpt2ParameterCounts gpt2_parameter_counts(const Gpt2Config& config) {
  config.validate();  // so no product below can overflow
  const std::uint64_t V = std::uint64_t(config.dims.vocab_size),
                      P = std::uint64_t(config.dims.context);
  const std::uint64_t E = std::uint64_t(config.dims.width), N = std::uint64_t(config.dims.layers);
  Gpt2ParameterCounts c{};
  c.wte = V * E;
  c.wpe = P * E;
  c.ln_1 = c.ln_2 = c.ln_f = 2 * E;
  c.attn_c_attn = E * 3 * E + 3 * E;
  c.attn_c_proj = E * E + E;
  c.mlp_c_fc = E * 4 * E + 4 * E;
  c.mlp_c_proj = 4 * E * E + E;
  c.block = c.ln_1 + c.attn_c_attn + c.attn_c_proj + c.ln_2 + c.mlp_c_fc + c.mlp_c_proj;
  c.blocks = N * c.block;
  c.total = c.wte + c.wpe + c.blocks + c.ln_f;
  return c;
}

}  // namespace poslab

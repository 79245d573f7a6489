// Llama-family configurations (llama, mistral, qwen2, qwen3, gemma3_text, smollm3): the
// SmolLM2, Qwen2.5 and SmolLM3 presets, Hugging Face config.json (read and written), and the size
// checks that run before any weight is allocated.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "models/lm_config.hpp"
#include "models/model_type_reader.hpp"
#include "poslab/models/llama.hpp"
#include "poslab/models/model_types.hpp"

namespace poslab {

LlamaConfig LlamaConfig::smollm2_135m() { return LlamaConfig{}; }

LlamaConfig LlamaConfig::qwen2_5_0_5b() {
  LlamaConfig c;
  c.model_type = LmArchitecture::kQwen2;
  c.dims = {151936, 32768, 896, 24, 14};
  c.num_key_value_heads = 2;
  c.intermediate_size = 4864;
  c.rope_theta = 1000000.0;
  c.rms_norm_eps = 1e-6;
  c.tie_word_embeddings = true;
  return c;
}

LlamaConfig LlamaConfig::smollm3_3b() {
  LlamaConfig c;
  c.model_type = LmArchitecture::kSmolLm3;
  c.dims = {128256, 65536, 2048, 36, 16};
  c.num_key_value_heads = 4;
  c.intermediate_size = 11008;
  c.rope_theta = 5000000.0;
  c.rms_norm_eps = 1e-6;
  c.tie_word_embeddings = true;
  std::vector<bool> nope(36);
  for (std::size_t i = 0; i < 36; ++i) nope[i] = (i + 1) % 4 == 0;
  c.nope_layers = std::move(nope);
  return c;
}

LlamaConfig LlamaConfig::preset(const std::string& name) {
  return lm_config::preset_named<LlamaConfig>(
      name,
      {{"smollm2-135m", smollm2_135m}, {"qwen2.5-0.5b", qwen2_5_0_5b}, {"smollm3-3b", smollm3_3b}},
      "Llama");
}

namespace {

using Json = nlohmann::json;
using lm_config::flag;
using lm_config::integer_key;
using lm_config::number_key;

bool is_qwen(LmArchitecture type) {
  return type == LmArchitecture::kQwen2 || type == LmArchitecture::kQwen3;
}

// Which layers attend in a window and its width, and which do not rotate (smollm3's NoPE
// layers), by the model type's rules (model_types.cpp); this forward pass computes full and
// sliding layers.
void read_layer_plan(ModelTypeReader& reader, LlamaConfig& c, const std::string& name) {
  LayerPlan plan = reader.layers(std::size_t(std::max(0LL, c.dims.layers)));
  std::vector<bool> nope(plan.rope.size());
  bool any = false;
  for (std::size_t i = 0; i < nope.size(); ++i) {
    nope[i] = !plan.rope[i];
    any = any || nope[i];
  }
  if (any) c.nope_layers = std::move(nope);
  for (std::size_t i = 0; i < plan.kinds.size(); ++i) {
    require(plan.kinds[i] == "full_attention" || plan.kinds[i] == "sliding_attention",
            name + ": \"layer_types\"[" + std::to_string(i) + "] \"" + plan.kinds[i] +
                "\" is not \"full_attention\" or \"sliding_attention\"");
  }
  if (plan.window == 0) return;
  std::vector<bool> layers(plan.kinds.size());
  for (std::size_t i = 0; i < layers.size(); ++i) layers[i] = plan.kinds[i] == "sliding_attention";
  c.sliding_window = plan.window;
  c.sliding_layers = std::move(layers);
}

// A null or absent key, or one whose value is `allowed`; else refused, saying why.
void require_absent_or(const Json& json, const char* key, const Json& allowed, const char* why,
                       const std::string& name) {
  if (!json.contains(key) || json[key].is_null() || json[key] == allowed) return;
  throw Error(name + ": \"" + key + "\" " + json[key].dump() + " is not supported (" + why + ")");
}

// Gemma 3's own keys. Its rope_parameters per layer type (transformers 5) give the sliding
// layers' base (sliding_attention, unscaled) and the full layers' rotation (full_attention),
// which the caller reads as any config's: the returned config.json has that one in its place.
Json read_gemma3(Json json, ModelTypeReader& reader, LlamaConfig& c, const std::string& name) {
  if (json.contains("query_pre_attn_scalar")) {
    c.query_pre_attn_scalar = number_key(json, "query_pre_attn_scalar", name);
  }
  c.rope_local_base_freq = reader.local_base();
  if (json.contains("hidden_activation")) {
    require(json["hidden_activation"] == "gelu_pytorch_tanh",
            name + ": \"hidden_activation\" " + json["hidden_activation"].dump() +
                " is not supported (only \"gelu_pytorch_tanh\", the gated GELU-tanh MLP)");
  }
  require_absent_or(json, "final_logit_softcapping", nullptr, "Gemma 3 caps no logits", name);
  require_absent_or(json, "attn_logit_softcapping", nullptr, "Gemma 3 caps no scores", name);
  require_absent_or(json, "use_bidirectional_attention", false, "a decoder attends causally", name);
  Json& rope = json["rope_parameters"];
  if (rope.is_object() && rope.contains("sliding_attention")) {
    const std::string where = name + ": rope_parameters.sliding_attention";
    const Json& local = rope["sliding_attention"];
    require(local.is_object(), where + " must be an object");
    const std::string type = lm_config::rope_type_of(local, where);
    require(
        type.empty() || type == "default",
        where + ": the sliding layers turn unscaled (rope_type \"default\"), got \"" + type + "\"");
    if (local.contains("rope_theta")) {
      c.rope_local_base_freq = number_key(local, "rope_theta", where);
    }
    const Json full = rope.contains("full_attention") ? rope["full_attention"] : Json(nullptr);
    rope = full;
  } else if (rope.is_null()) {
    json.erase("rope_parameters");
  }
  return json;
}

}  // namespace

LlamaConfig LlamaConfig::from_json(const std::string& text, const std::string& name) {
  const std::string what = "a Llama config";
  const Json json = lm_config::parse_object(text, name, what);
  LlamaConfig c;
  if (json.contains("model_type")) {
    const Json& type = json["model_type"];
    const bool known = type == "llama" || type == "mistral" || type == "qwen2" || type == "qwen3" ||
                       type == "gemma3_text" || type == "smollm3";
    require(known, name + ": \"model_type\" is " + type.dump() +
                       ", not one of \"llama\", \"mistral\", \"qwen2\", \"qwen3\", "
                       "\"gemma3_text\", \"smollm3\"");
    c.model_type = parse_lm_architecture(type.get<std::string>());
  }
  // The member's transformers defaults (model_types.cpp), which differ from the SmolLM2
  // preset's.
  const ModelType& row = model_type_row(to_string(c.model_type));
  ModelTypeReader reader(row, json, name);
  const bool gemma = c.gemma();
  lm_config::read_required_dims(json, c.dims, name, what);
  c.dims.context = reader.context();
  c.intermediate_size = lm_config::required_size(json, "intermediate_size", name, what);
  c.num_key_value_heads = reader.kv_heads(c.dims.heads);
  c.explicit_head_dim = reader.explicit_head_dim();
  if (json.contains("original_max_position_embeddings")) {
    c.original_max_position_embeddings =
        integer_key(json, "original_max_position_embeddings", name);
    require(c.original_max_position_embeddings > 0,
            name + ": \"original_max_position_embeddings\" must be positive");
  }
  c.rope_theta = reader.rope_theta();
  c.rms_norm_eps =
      json.contains("rms_norm_eps") ? number_key(json, "rms_norm_eps", name) : row.sizes.norm_eps;
  c.tie_word_embeddings = flag(json, "tie_word_embeddings", row.sizes.tie_word_embeddings, name);
  // Mistral and Qwen2 read no attention_bias: their biases are fixed (none; q, k and v).
  if (c.model_type == LmArchitecture::kLlama || c.model_type == LmArchitecture::kQwen3 || gemma ||
      c.smollm3()) {
    c.attention_bias = flag(json, "attention_bias", false, name);
  }
  // Variants this forward pass does not compute: refused rather than silently computed wrong.
  if (json.contains("hidden_act") && !gemma) {  // Gemma's is hidden_activation
    require(json["hidden_act"] == "silu", name + ": \"hidden_act\" " + json["hidden_act"].dump() +
                                              " is not supported (only \"silu\", SwiGLU)");
  }
  require(!flag(json, "mlp_bias", false, name),
          name + ": \"mlp_bias\": true is not supported (gate, up and down carry no bias)");
  // SmolLM3's modeling never reads pretraining_tp (SmolLM3-3B's config.json says 2).
  if (json.contains("pretraining_tp") && !c.smollm3()) {
    require(json["pretraining_tp"] == 1,
            name + ": \"pretraining_tp\" other than 1 is not supported (got " +
                json["pretraining_tp"].dump() + ")");
  }
  const Json rope_json = gemma ? read_gemma3(json, reader, c, name) : json;
  const lm_config::RopeParameterKeys rope = lm_config::read_rope_scaling(rope_json, c, name);
  if (rope.theta) c.rope_theta = *rope.theta;
  const double partial = json.contains("partial_rotary_factor")
                             ? reader.rotary_fraction()
                             : rope.partial_rotary_factor.value_or(row.rotation.fraction);
  require(partial == 1.0, name + ": \"partial_rotary_factor\" other than 1 is not supported");
  read_layer_plan(reader, c, name);
  lm_config::validate_named(c, name);
  return c;
}

std::string LlamaConfig::to_json() const {
  Json json = lm_config::dims_json(dims, kDimKeys);
  const char* architectures[] = {"LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM",
                                 "Qwen3ForCausalLM", "Gemma3ForCausalLM",  "SmolLM3ForCausalLM"};
  const std::size_t member = std::size_t(model_type) - std::size_t(LmArchitecture::kLlama);
  json.update({{"model_type", to_string(model_type)},
               {"architectures", {architectures[member]}},
               {"num_key_value_heads", num_key_value_heads},
               {"intermediate_size", intermediate_size},
               {"rope_theta", rope_theta},
               {"rms_norm_eps", rms_norm_eps},
               {"tie_word_embeddings", tie_word_embeddings},
               {"attention_bias", attention_bias}});
  json["head_dim"] = explicit_head_dim > 0 ? Json(explicit_head_dim) : Json(nullptr);
  json[gemma() ? "hidden_activation" : "hidden_act"] = gemma() ? "gelu_pytorch_tanh" : "silu";
  // Each layer's kind as layer_types spells it.
  const auto layer_types = [this] {
    Json types = Json::array();
    for (std::size_t i = 0; i < std::size_t(dims.layers); ++i) {
      types.push_back(window_of(i) > 0 ? "sliding_attention" : "full_attention");
    }
    return types;
  };
  const Json window = sliding_window > 0 ? Json(sliding_window) : Json(nullptr);
  if (gemma()) {
    json["query_pre_attn_scalar"] = query_pre_attn_scalar;
    json["rope_local_base_freq"] = rope_local_base_freq;
    json["sliding_window"] = window;
    json["layer_types"] = layer_types();
  }
  if (model_type == LmArchitecture::kMistral) json["sliding_window"] = window;
  if (is_qwen(model_type) || smollm3()) {
    json["use_sliding_window"] = !sliding_layers.empty();
    if (!sliding_layers.empty()) {
      json["sliding_window"] = window;
      json["layer_types"] = layer_types();
    }
  }
  if (smollm3()) {  // every layer's rotation spelt out, as SmolLM3-3B's config.json
    Json rope_layers = Json::array();
    for (std::size_t i = 0; i < std::size_t(dims.layers); ++i)
      rope_layers.push_back(nope(i) ? 0 : 1);
    json["no_rope_layers"] = rope_layers;
  }
  if (original_max_position_embeddings > 0) {
    json["original_max_position_embeddings"] = original_max_position_embeddings;
  }
  lm_config::write_rope_scaling(*this, json);
  return json.dump(2) + "\n";
}

double LlamaConfig::embedding_scale() const {
  return gemma() ? std::sqrt(double(dims.width)) : 1.0;
}

double LlamaConfig::attention_scale() const {
  return 1.0 / std::sqrt(gemma() ? query_pre_attn_scalar : double(head_dim()));
}

RopeOptions LlamaConfig::layer_rope(std::size_t layer, const RopeOptions& full) const {
  if (!local_rotation(layer)) return full;
  RopeOptions local;
  local.base = rope_local_base_freq;
  local.style = RopeStyle::kNeox;
  local.zero_pairs = full.zero_pairs;
  return local;
}

bool LlamaConfig::has_nope_layers() const {
  for (std::size_t i = 0; i < nope_layers.size(); ++i) {
    if (nope_layers[i]) return true;
  }
  return false;
}

bool LlamaConfig::has_local_rotation() const {
  for (std::size_t i = 0; i < std::size_t(dims.layers); ++i) {
    if (local_rotation(i)) return true;
  }
  return false;
}

RopeOptions LlamaConfig::rope() const {
  return rope_options(rope_theta, 1.0,
                      rope_scaling == RopeScaling::kDynamic  ? dims.context
                      : rope_original_length > 0             ? rope_original_length
                      : original_max_position_embeddings > 0 ? original_max_position_embeddings
                                                             : dims.context,
                      dims.context);
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
  require(lm_checkpoint_family(model_type) == LmArchitecture::kLlama,
          "model_type must be llama, mistral, qwen2, qwen3, gemma3_text or smollm3");
  require(std::isfinite(query_pre_attn_scalar) && query_pre_attn_scalar > 0.0,
          "query_pre_attn_scalar must be positive");
  require(sliding_layers.empty() ||
              (sliding_layers.size() == std::size_t(dims.layers) && sliding_window > 0),
          "sliding_window must be positive, with one layer type per layer");
  require(nope_layers.empty() || (nope_layers.size() == std::size_t(dims.layers) && smollm3()),
          "NoPE layers (no_rope_layers) are smollm3's, one entry per layer");
  require(rope_original_length >= 0 && original_max_position_embeddings >= 0,
          "original_max_position_embeddings must be > 0");
  lm_config::require_parameter_cap(parameter_count(), kMaxLlamaParameters);
  // rope_theta, the head's evenness and the scaling, by the one check RoPE itself applies.
  try {
    rope_frequencies(head_dim(), rope());
    for (std::size_t i = 0; i < sliding_layers.size() && gemma(); ++i) {
      if (sliding_layers[i]) {  // Gemma's local base
        rope_frequencies(head_dim(), layer_rope(i, rope()));
        break;
      }
    }
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
  // RMSNorm gains (2E).
  std::uint64_t layer = add(add(mul(2, mul(E, mul(H, d))), mul(2, mul(E, mul(K, d)))),
                            add(mul(3, mul(E, I)), mul(2, E)));
  // Biases: q, k and v (H·d + 2·K·d), o (E); qwen3's q_norm and k_norm gains (2d).
  if (qkv_bias()) layer = add(layer, add(mul(H, d), mul(2, mul(K, d))));
  if (o_bias()) layer = add(layer, E);
  if (qk_norm()) layer = add(layer, mul(2, d));
  if (gemma()) layer = add(layer, mul(2, E));  // the norms before and after the MLP
  const std::uint64_t embeddings = mul(tie_word_embeddings ? 1 : 2, mul(V, E));
  return add(add(embeddings, mul(N, layer)), E);
}

}  // namespace poslab

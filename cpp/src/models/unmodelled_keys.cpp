// Keys that change position or attention math, and which runtimes read them
// (poslab/models/unmodelled_keys.hpp).
#include "poslab/models/unmodelled_keys.hpp"

#include <nlohmann/json.hpp>

#include "poslab/io/json_text.hpp"

namespace poslab {
namespace {

using A = LmArchitecture;

// One key and the runtimes that read it (the rest ignore it). Where each comes from: SmolLM3
// and Llama 4 (NoPE layers, chunked attention, attention temperature), Qwen2-VL (M-RoPE),
// gpt-oss (sinks), Gemma 2/3 (soft-capping, the query scalar, local layers), Mistral / Qwen
// (windows), Granite (multipliers), OLMo (clip_qkv), Mixtral and the MoE models (experts),
// DeepSeek (MLA's rotary split), BLOOM / MPT (ALiBi).
struct MathKey {
  const char* key;
  std::vector<A> read_by;
};
const std::vector<MathKey>& math_keys() {
  static const std::vector<MathKey> keys = {
      {"no_rope_layers", {A::kSmolLm3}},
      {"no_rope_layer_interval", {A::kSmolLm3}},
      {"attention_chunk_size", {}},
      {"attn_temperature_tuning", {}},
      {"floor_scale", {}},
      {"attn_scale", {}},
      {"use_qk_norm", {}},
      {"mrope_section", {}},
      {"mrope_interleaved", {}},
      {"sinks", {}},
      {"attention_sink", {}},
      {"attn_logit_softcapping", {A::kGemma3}},
      {"final_logit_softcapping", {A::kGemma3}},
      {"query_pre_attn_scalar", {A::kGemma3}},
      {"rope_local_base_freq", {A::kGemma3}},
      {"sliding_window_pattern", {A::kGemma3}},
      {"layer_types", {A::kQwen2, A::kQwen3, A::kGemma3, A::kSmolLm3}},
      {"sliding_window", {A::kMistral, A::kQwen2, A::kQwen3, A::kGemma3, A::kSmolLm3}},
      {"use_sliding_window", {A::kQwen2, A::kQwen3, A::kSmolLm3}},
      {"max_window_layers", {A::kQwen2, A::kQwen3}},
      {"logits_scaling", {}},
      {"embedding_multiplier", {}},
      {"residual_multiplier", {}},
      {"attention_multiplier", {}},
      {"clip_qkv", {}},
      {"num_experts", {}},
      {"num_local_experts", {}},
      {"num_experts_per_tok", {}},
      {"qk_rope_head_dim", {}},
      {"qk_nope_head_dim", {}},
      {"kv_lora_rank", {}},
      {"q_lora_rank", {}},
      {"alibi", {}},
      {"use_alibi", {}},
      {"position_embedding_type", {}},
  };
  return keys;
}

// A value that does something: not null, false, 0, "" or empty.
bool acts(const nlohmann::json& v) {
  if (v.is_null()) return false;
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number()) return v.get<double>() != 0.0;
  if (v.is_string() || v.is_array() || v.is_object()) return !v.empty();
  return true;
}

}  // namespace

std::vector<std::string> unmodelled_keys(const std::string& config_text,
                                         LmArchitecture architecture) {
  std::vector<std::string> out;
  if (config_text.empty()) return out;
  const nlohmann::json json = parse_json_text(config_text, "config.json");
  if (!json.is_object()) return out;
  for (const MathKey& k : math_keys()) {
    bool read = false;
    for (const A a : k.read_by) read = read || a == architecture;
    if (read) continue;
    if (json.contains(k.key) && acts(json[k.key])) out.push_back(k.key);
  }
  return out;
}

std::string unmodelled_keys_note(const std::vector<std::string>& keys, const std::string& name,
                                 LmArchitecture architecture) {
  if (keys.empty()) return "";
  std::string list;
  for (const std::string& k : keys) list += (list.empty() ? "" : ", ") + k;
  const std::string type = to_string(architecture);
  return name + ": not read by the " + type + " runtime (Hugging Face's " + type +
         " ignores them too), though they change position or attention math in other "
         "architectures: " +
         list;
}

}  // namespace poslab

// One row per config.json model_type: the defaults Hugging Face's configuration class gives the
// keys that shape positions and attention (sizes, bases, windows, chunks, NoPE layers), the keys
// it spells its own way, and which layers slide. The language-model runtime
// (LlamaConfig::from_json) and the RoPE inspector (inspect_rope_config) both read config.json
// through it (src/models/model_type_reader.hpp); the inspector adds its leniency on top (an
// unknown model_type reads as generic_model_type(), keys it does not read are listed). The page
// gets the same rows as web/src/state/model-types.js (`npm run generate`, model_types_json).
#pragma once

#include <cstddef>
#include <string>

namespace poslab {

// Which layers attend in a sliding window when config.json has no layer_types.
enum class SlidingLayers {
  kNone,     // none, and sliding_window is not read (llama, gpt_neox, llama4_text)
  kEvery,    // every layer once a window is set (mistral; an unknown type)
  kFrom,     // the layers from max_window_layers on, once a window is set (qwen2, qwen3)
  kPattern,  // every layer but each sliding_window_pattern-th (gemma3_text 6, gpt_oss 2)
  kNope,     // the NoPE layers, once a window is set (smollm3)
};

// Whether use_sliding_window gates the window: not read, default false (qwen2, qwen3,
// smollm3), default true (an unknown type). Off, the window is null (transformers sets
// sliding_window = None).
enum class SlidingSwitch { kNotRead, kOffByDefault, kOnByDefault };

// Sizes and the other defaults when a key is absent. 0: required (context) or computed
// (kv_heads: H; head_dim: E/H); -1: the key is not read, always computed (gpt_neox).
struct ModelTypeSizes {
  long long context = 0;   // max_position_embeddings
  long long kv_heads = 0;  // num_key_value_heads (null: H, as transformers)
  long long head_dim = 0;  // head_dim (null: E/H)
  // hidden_size, num_attention_heads, num_hidden_layers, for the inspector only (a multimodal
  // config's text_config may leave them out; a model run requires them). 0: required.
  long long hidden_size = 0, heads = 0, layers = 0;
  bool tie_word_embeddings = false;
  double norm_eps = 1e-6;  // rms_norm_eps (gpt_neox: layer_norm_eps)
};

// The rotation: its base, the sliding layers' own base, the rotated fraction of each head; each
// key as spelled here and the other spelling read too ("": none; both given must agree).
struct ModelTypeRotation {
  double theta = 10000.0;
  double local_base = 0.0;  // rope_local_base_freq; 0: one base for every layer
  double fraction = 1.0;
  const char* theta_key = "rope_theta";
  const char* theta_alias = "";
  const char* fraction_key = "partial_rotary_factor";
  const char* fraction_alias = "";
};

// Each layer's attention span and whether it rotates.
struct ModelTypeLayers {
  long long sliding_window = 0;  // W when absent (null: none); 0: none
  SlidingLayers sliding = SlidingLayers::kNone;
  // kFrom: max_window_layers; kPattern: the pattern; when absent. Its key ("": fixed) and the
  // other spelling (gemma3_text's "_sliding_window_pattern", as transformers 5 saves it).
  long long sliding_count = 0;
  const char* sliding_count_key = "";
  const char* sliding_count_alias = "";
  SlidingSwitch use_sliding_window = SlidingSwitch::kNotRead;
  bool layer_types = false;       // reads layer_types (it then decides every layer's kind)
  bool no_rope_layers = false;    // reads no_rope_layers: 1 for a RoPE layer, 0 for NoPE
  long long nope_interval = 0;    // without it, every nope_interval-th layer NoPE; 0: none
  long long attention_chunk = 0;  // RoPE layers attend in chunks of attention_chunk_size; 0: none
};

// What the RoPE inspector reads beyond the rotation and the layers (the runtime runs none of
// these types). Another type's config with the keys is read alike, without the type's defaults.
enum class ModelTypeExtra {
  kNone,
  kMla,               // DeepSeek's latent attention: qk_rope_head_dim of each head rotates
  kTemperature,       // Llama 4: attn_temperature_tuning scales the NoPE layers' queries
  kMrope,             // Qwen2-VL, Qwen2.5-VL: mrope_section's pairs in blocks t, h, w
  kMropeInterleaved,  // Qwen3-VL: interleaved t h w t h w … (mrope_section [24, 20, 20])
};

struct ModelType {
  const char* name = "";     // config.json's model_type
  const char* wrapper = "";  // the multimodal model_type whose text_config this is ("": none)
  ModelTypeSizes sizes;
  ModelTypeRotation rotation;
  ModelTypeLayers layers;
  const char* note = "";  // said by the inspector for every config of this type
  ModelTypeExtra extra = ModelTypeExtra::kNone;
};

// The rows, in one table (model_types.cpp).
struct ModelTypeTable {
  const ModelType* rows;
  std::size_t count;
  const ModelType* begin() const { return rows; }
  const ModelType* end() const { return rows + count; }
};
ModelTypeTable model_types();

// The row whose name or wrapper is `model_type`; nullptr for any other.
const ModelType* find_model_type(const std::string& model_type);
// What the inspector assumes of a model_type not in the table: transformers' generic defaults
// (base 10000, no default context), a window on every layer when sliding_window is set and
// use_sliding_window is not false, layer_types read, partial_rotary_factor or rotary_pct.
const ModelType& generic_model_type();
// find_model_type's row, else the generic one.
const ModelType& model_type_row(const std::string& model_type);

// The table as JSON: an array of objects, one per row, snake_case keys as the fields above
// (sliding and use_sliding_window as strings: "none", "every", "from", "pattern", "nope";
// "not_read", "off", "on"; extra: "none", "mla", "temperature", "mrope", "mrope_interleaved");
// what web/src/state/model-types.js is generated from.
std::string model_types_json();

}  // namespace poslab

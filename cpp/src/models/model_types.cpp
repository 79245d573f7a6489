// The model-type table (poslab/models/model_types.hpp) and config.json read against it
// (model_type_reader.hpp). Each row is transformers' configuration_<type>.py: the defaults of
// its __init__ / dataclass fields and what its __post_init__ derives from them.
#include "poslab/models/model_types.hpp"

#include <algorithm>
#include <iterator>

#include "models/lm_config.hpp"
#include "models/model_type_reader.hpp"
#include "poslab/base/errors.hpp"
#include "poslab/base/format.hpp"

namespace poslab {

namespace {

using Json = nlohmann::json;

using L = SlidingLayers;
using S = SlidingSwitch;
using X = ModelTypeExtra;

// One row per model_type, each as its configuration_<type>.py says. Columns:
//   sizes: context, kv heads, head_dim, [hidden, heads, layers], [tied, norm eps];
//   rotation: base, local base, fraction, [keys];
//   layers: window, which slide, count, count key and alias, use_sliding_window, layer_types,
//   no_rope_layers, NoPE interval, chunk;
//   note; what else the inspector reads (extra).
// clang-format off
constexpr ModelType kModelTypes[] = {
    // LlamaConfig: num_key_value_heads None → H, head_dim None → E/H; no window.
    {"llama", "", {2048}, {}, {}},
    // MistralConfig: 8 kv heads (None → H); every layer slides once sliding_window is set
    // (4096); layer_types only draws a warning.
    {"mistral", "", {131072, 8}, {}, {4096, L::kEvery}},
    // Qwen2Config: 32 kv heads; sliding_window only with use_sliding_window, on the layers
    // from max_window_layers (28) on, unless layer_types says. Qwen3Config: head_dim 128.
    {"qwen2", "", {32768, 32}, {},
     {4096, L::kFrom, 28, "max_window_layers", "", S::kOffByDefault, true}},
    {"qwen3", "", {32768, 32, 128}, {},
     {4096, L::kFrom, 28, "max_window_layers", "", S::kOffByDefault, true}},
    // Gemma3TextConfig: every layer but each sliding_window_pattern-th (6) slides, at 4096,
    // turning at rope_local_base_freq (1e4) while the full ones turn at rope_theta (1e6); tied.
    {"gemma3_text", "gemma3", {131072, 4, 256, 2304, 8, 26, true}, {1e6, 1e4},
     {4096, L::kPattern, 6, "sliding_window_pattern", "_sliding_window_pattern", S::kNotRead, true}},
    // GPTNeoXConfig: rotary_emb_base and rotary_pct (0.25), which transformers 5 reads as
    // rope_theta and partial_rotary_factor; one kv head per head, head width E/H.
    {"gpt_neox", "", {2048, -1, -1, 0, 0, 0, false, 1e-5},
     {1e4, 0, 0.25, "rotary_emb_base", "rope_theta", "rotary_pct", "partial_rotary_factor"}, {}},
    // SmolLM3Config: every no_rope_layer_interval-th layer (4) NoPE unless no_rope_layers; with
    // use_sliding_window and a sliding_window (none by default) the NoPE layers slide; tied.
    {"smollm3", "", {32768, 4, 0, 0, 0, 0, true}, {2e6},
     {0, L::kNope, 0, "", "", S::kOffByDefault, true, true, 4}},
    // Llama4TextConfig: NoPE every 4th layer (an empty no_rope_layers too); the RoPE layers
    // attend in chunks of attention_chunk_size (8192); the NoPE layers' queries scaled by
    // position (attn_temperature_tuning true, floor_scale 8192, attn_scale 0.1).
    {"llama4_text", "llama4", {131072, 8, 128, 0, 0, 0, false, 1e-5}, {5e5},
     {0, L::kNone, 0, "", "", S::kNotRead, true, true, 4, 8192}, "", X::kTemperature},
    // GptOssConfig: the 1st, 3rd, ... layers slide at 128. Its default rope_parameters (YaRN,
    // factor 32 from 4096) are not filled in: a config without rope_scaling reads unscaled.
    {"gpt_oss", "", {131072, 8, 64, 0, 0, 0, false, 1e-5}, {150000},
     {128, L::kPattern, 2, "", "", S::kNotRead, true},
     "gpt_oss: every softmax also has a learned sink logit per head, which takes attention mass "
     "without a value"},
    // DeepseekV2Config (DeepSeek-V2-Lite's shape) and DeepseekV3Config: latent attention whose
    // heads rotate qk_rope_head_dim (64) of their dims; kv heads None → H (V2), 128 (V3).
    {"deepseek_v2", "", {2048, 0, 0, 4096, 32, 32}, {}, {},
     "deepseek_v2: transformers' DeepseekV2Attention scales scores by qk_head_dim^-1/2 alone; "
     "DeepSeek's own modeling_deepseek.py, whose softmax scale this report gives, also multiplies "
     "by mscale(factor, mscale_all_dim)^2",
     X::kMla},
    {"deepseek_v3", "", {4096, 128, 0, 7168, 128, 61}, {}, {}, "", X::kMla},
    // Qwen2VLConfig, Qwen2_5_VLConfig (flat, or the text_config of later saves): Qwen2's window
    // rules with max_window_layers 80, base 1e6; M-RoPE in blocks. Qwen3VLTextConfig: head_dim
    // 128, base 5e6, M-RoPE interleaved, no window.
    {"qwen2_vl_text", "qwen2_vl", {32768, 8, 0, 8192, 64, 80, false, 1e-5}, {1e6},
     {4096, L::kFrom, 80, "max_window_layers", "", S::kOffByDefault, true}, "", X::kMrope},
    {"qwen2_5_vl_text", "qwen2_5_vl", {32768, 8, 0, 8192, 64, 80, false, 1e-5}, {1e6},
     {4096, L::kFrom, 80, "max_window_layers", "", S::kOffByDefault, true}, "", X::kMrope},
    {"qwen3_vl_text", "qwen3_vl", {128000, 32, 128, 4096, 32, 32}, {5e6}, {}, "",
     X::kMropeInterleaved},
};
// clang-format on

// transformers' PreTrainedConfig: no default context, base 10000; a window on every layer once
// sliding_window is set, unless use_sliding_window is false; layer_types and no_rope_layers
// read; partial_rotary_factor or rotary_pct.
constexpr ModelType kGeneric = {
    "",
    "",
    {},
    {1e4, 0, 1.0, "rope_theta", "", "partial_rotary_factor", "rotary_pct"},
    {0, L::kEvery, 0, "", "", S::kOnByDefault, true, true}};

const char* const kSlidingNames[] = {"none", "every", "from", "pattern", "nope"};
const char* const kSwitchNames[] = {"not_read", "off", "on"};
const char* const kExtraNames[] = {"none", "mla", "temperature", "mrope", "mrope_interleaved"};

}  // namespace

ModelTypeTable model_types() { return {kModelTypes, std::size(kModelTypes)}; }

const ModelType* find_model_type(const std::string& model_type) {
  for (const ModelType& t : kModelTypes) {
    if (model_type == t.name || (*t.wrapper && model_type == t.wrapper)) return &t;
  }
  return nullptr;
}

const ModelType& generic_model_type() { return kGeneric; }

const ModelType& model_type_row(const std::string& model_type) {
  const ModelType* t = find_model_type(model_type);
  return t ? *t : kGeneric;
}

// One out-of-line call per field: as nested initializer lists of Json, inlined, this was 11 KB
// of the SIMD language-model module (4.6 KB gzipped), whose modelTypes() only the page's
// generator calls.
template <class T>
void put(Json& object, const char* key, const T& value) {
  object[key] = value;
}

std::string model_types_json() {
  Json rows = Json::array();
  for (const ModelType& t : kModelTypes) {
    const ModelTypeSizes& z = t.sizes;
    const ModelTypeRotation& r = t.rotation;
    const ModelTypeLayers& l = t.layers;
    Json row, sizes, rotation, layers;
    // clang-format off
    put(row, "name", t.name); put(row, "wrapper", t.wrapper); put(row, "note", t.note);
    put(row, "extra", kExtraNames[int(t.extra)]);
    put(sizes, "context", z.context); put(sizes, "kv_heads", z.kv_heads);
    put(sizes, "head_dim", z.head_dim); put(sizes, "hidden_size", z.hidden_size);
    put(sizes, "heads", z.heads); put(sizes, "layers", z.layers);
    put(sizes, "tie_word_embeddings", z.tie_word_embeddings); put(sizes, "norm_eps", z.norm_eps);
    put(rotation, "theta", r.theta); put(rotation, "local_base", r.local_base);
    put(rotation, "fraction", r.fraction);
    put(rotation, "theta_key", r.theta_key); put(rotation, "theta_alias", r.theta_alias);
    put(rotation, "fraction_key", r.fraction_key); put(rotation, "fraction_alias", r.fraction_alias);
    put(layers, "sliding_window", l.sliding_window);
    put(layers, "sliding", kSlidingNames[int(l.sliding)]);
    put(layers, "sliding_count", l.sliding_count);
    put(layers, "sliding_count_key", l.sliding_count_key);
    put(layers, "sliding_count_alias", l.sliding_count_alias);
    put(layers, "use_sliding_window", kSwitchNames[int(l.use_sliding_window)]);
    put(layers, "layer_types", l.layer_types); put(layers, "no_rope_layers", l.no_rope_layers);
    put(layers, "nope_interval", l.nope_interval); put(layers, "attention_chunk", l.attention_chunk);
    // clang-format on
    put(row, "sizes", sizes);
    put(row, "rotation", rotation);
    put(row, "layers", layers);
    rows.push_back(std::move(row));
  }
  return rows.dump();
}

ModelTypeReader::ModelTypeReader(const ModelType& type, const Json& json, std::string where)
    : type_(type), json_(json), where_(std::move(where)) {}

const Json* ModelTypeReader::value(const char* key, bool null_absent) {
  read_.push_back(key);
  const auto it = json_.find(key);
  if (it == json_.end()) return nullptr;
  return null_absent && it->is_null() ? nullptr : &*it;
}

long long ModelTypeReader::positive(const char* key) {
  const long long v = lm_config::integer_key(json_, key, where_);
  require(v > 0, where_ + ": \"" + key + "\" must be positive, got " + std::to_string(v));
  return v;
}

void ModelTypeReader::defaulted(const std::string& key, std::string value) {
  defaulted_.emplace_back(key, std::move(value));
}

long long ModelTypeReader::size(const char* key, long long fallback) {
  if (value(key)) return positive(key);
  require(fallback > 0, where_ + ": missing \"" + key + "\"");
  defaulted(key, std::to_string(fallback));
  return fallback;
}

long long ModelTypeReader::kv_heads(long long heads) {
  if (type_.sizes.kv_heads < 0) return heads;
  const Json* v = value("num_key_value_heads", false);
  if (!v) {
    const long long k = type_.sizes.kv_heads > 0 ? type_.sizes.kv_heads : heads;
    defaulted("num_key_value_heads", std::to_string(k));
    return k;
  }
  return v->is_null() ? heads : lm_config::integer_key(json_, "num_key_value_heads", where_);
}

long long ModelTypeReader::explicit_head_dim() {
  if (type_.sizes.head_dim < 0) return 0;
  const Json* v = value("head_dim", false);
  if (!v) {
    if (type_.sizes.head_dim > 0) defaulted("head_dim", std::to_string(type_.sizes.head_dim));
    return type_.sizes.head_dim;
  }
  return v->is_null() ? 0 : positive("head_dim");
}

long long ModelTypeReader::context() {
  if (value("max_position_embeddings", false)) {
    return lm_config::integer_key(json_, "max_position_embeddings", where_);
  }
  if (type_.sizes.context > 0)
    defaulted("max_position_embeddings", std::to_string(type_.sizes.context));
  return type_.sizes.context;
}

double ModelTypeReader::aliased_number(const char* key, const char* alias, double fallback,
                                       double given, bool say) {
  const bool has_key = value(key, false) != nullptr;
  const bool has_alias = *alias && value(alias, false) != nullptr;
  double v = fallback;
  if (has_key || has_alias) v = lm_config::number_key(json_, has_key ? key : alias, where_);
  if (has_key && has_alias && lm_config::number_key(json_, alias, where_) != v) {
    throw Error(where_ + ": \"" + key + "\" and \"" + alias + "\" disagree");
  }
  if (given > 0.0) return given;
  if (!has_key && !has_alias && say) defaulted(key, format_number(fallback));
  return v;
}

double ModelTypeReader::rope_theta(double given) {
  const ModelTypeRotation& r = type_.rotation;
  return aliased_number(r.theta_key, r.theta_alias, r.theta, given, true);
}

double ModelTypeReader::rotary_fraction(double given) {
  // The whole head, the common case, goes unsaid.
  const ModelTypeRotation& r = type_.rotation;
  return aliased_number(r.fraction_key, r.fraction_alias, r.fraction, given, r.fraction != 1.0);
}

double ModelTypeReader::local_base() {
  return aliased_number("rope_local_base_freq", "", type_.rotation.local_base, 0.0, true);
}

LayerPlan ModelTypeReader::layers(std::size_t n) {
  const ModelType& t = type_;
  LayerPlan plan;
  plan.kinds.assign(n, "full_attention");
  plan.rope = std::vector<bool>(n, true);
  const std::string count = std::to_string(n);
  auto list_of = [&](const char* key) -> const Json* {
    const Json* v = value(key);
    if (!v || v->empty()) return nullptr;  // transformers: an empty list is the default one
    require(v->is_array() && v->size() == n,
            where_ + ": \"" + key + "\" must list num_hidden_layers " + count + " entries");
    return v;
  };

  // NoPE layers: no_rope_layers says 1 for a RoPE layer and 0 for NoPE.
  if (t.layers.no_rope_layers) {
    if (const Json* list = list_of("no_rope_layers")) {
      for (std::size_t i = 0; i < n; ++i) {
        require((*list)[i] == 0 || (*list)[i] == 1,
                where_ + ": \"no_rope_layers\" holds only 0 and 1");
        plan.rope[i] = (*list)[i] == 1;
      }
    } else if (t.layers.nope_interval > 0) {
      long long interval = t.layers.nope_interval;
      if (value("no_rope_layer_interval")) {
        interval = positive("no_rope_layer_interval");
      } else {
        defaulted("no_rope_layers", "every " + std::to_string(interval) + "th layer NoPE");
      }
      for (std::size_t i = 0; i < n; ++i) plan.rope[i] = (long long)(i + 1) % interval != 0;
    }
  }

  // Chunks: absent, the row's; null, none.
  bool chunk_defaulted = false;
  if (t.layers.attention_chunk > 0 || t.layers.layer_types) {
    const Json* v = value("attention_chunk_size", false);
    if (v && !v->is_null()) {
      plan.chunk = positive("attention_chunk_size");
    } else if (!v) {
      plan.chunk = t.layers.attention_chunk;
      chunk_defaulted = plan.chunk > 0;
    }
    if (t.layers.attention_chunk > 0 && plan.chunk > 0) {
      for (std::size_t i = 0; i < n; ++i) {
        if (plan.rope[i]) plan.kinds[i] = "chunked_attention";
      }
    }
  }

  // Windows: absent, the row's; null, none; switched off, none.
  bool window_defaulted = false;
  if (t.layers.sliding != SlidingLayers::kNone) {
    const Json* v = value("sliding_window", false);
    if (v && !v->is_null()) {
      plan.window = lm_config::integer_key(json_, "sliding_window", where_);
      require(plan.window > 0, where_ + ": \"sliding_window\" must be positive or null, got " +
                                   std::to_string(plan.window));
    } else if (!v) {
      plan.window = t.layers.sliding_window;
      window_defaulted = true;
    }
    if (t.layers.use_sliding_window != SlidingSwitch::kNotRead) {
      read_.push_back("use_sliding_window");
      const bool on =
          lm_config::flag(json_, "use_sliding_window",
                          t.layers.use_sliding_window == SlidingSwitch::kOnByDefault, where_);
      if (!on) plan.window = 0;
    }
    long long from = t.layers.sliding_count;
    bool count_given = false;
    for (const char* key : {t.layers.sliding_count_key, t.layers.sliding_count_alias}) {
      if (*key && value(key)) {
        from = lm_config::integer_key(json_, key, where_);
        count_given = true;
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      bool slides = false;
      switch (t.layers.sliding) {
        case SlidingLayers::kNone:
          break;
        case SlidingLayers::kEvery:
          slides = plan.window > 0;
          break;
        case SlidingLayers::kFrom:
          slides = plan.window > 0 && (long long)i >= from;
          break;
        case SlidingLayers::kPattern:
          require(from > 0, where_ + ": \"" + t.layers.sliding_count_key + "\" must be positive");
          slides = (long long)(i + 1) % from != 0;
          break;
        case SlidingLayers::kNope:
          slides = plan.window > 0 && !plan.rope[i];
          break;
      }
      if (slides) plan.kinds[i] = "sliding_attention";
    }
    const auto types = json_.find("layer_types");
    const bool types_given = t.layers.layer_types && types != json_.end() && !types->is_null();
    if (t.layers.sliding == SlidingLayers::kPattern && !count_given &&
        *t.layers.sliding_count_key && !types_given) {
      defaulted(t.layers.sliding_count_key, std::to_string(t.layers.sliding_count));
    }
  }

  // layer_types, when the type reads it, names every layer's kind.
  if (t.layers.layer_types) {
    if (const Json* list = list_of("layer_types")) {
      for (std::size_t i = 0; i < n; ++i) {
        require((*list)[i].is_string(), where_ + ": \"layer_types\" holds only strings");
        plan.kinds[i] = (*list)[i].get<std::string>();
      }
    }
  }

  const auto has = [&](const char* kind) {
    return std::find(plan.kinds.begin(), plan.kinds.end(), kind) - plan.kinds.begin();
  };
  const std::size_t sliding = std::size_t(has("sliding_attention"));
  const std::size_t chunked = std::size_t(has("chunked_attention"));
  require(sliding == n || plan.window > 0,
          where_ + ": layer " + std::to_string(sliding) +
              " is a sliding layer but \"sliding_window\" is null");
  require(chunked == n || plan.chunk > 0, where_ + ": layer " + std::to_string(chunked) +
                                              " is chunked but \"attention_chunk_size\" is absent");
  if (sliding < n && window_defaulted) defaulted("sliding_window", std::to_string(plan.window));
  if (chunked < n && chunk_defaulted) defaulted("attention_chunk_size", std::to_string(plan.chunk));
  if (sliding == n) plan.window = 0;
  if (chunked == n) plan.chunk = 0;
  return plan;
}

}  // namespace poslab

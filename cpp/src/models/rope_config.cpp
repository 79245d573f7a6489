// The RoPE inspector (poslab/models/rope_config.hpp): config.json → per-layer position scheme
// and per-pair frequencies, through the core's rope_frequencies for every scaling but longrope,
// which runs on lists the core's options do not carry and is computed here as transformers'
// _compute_longrope_parameters does.
#include "poslab/models/rope_config.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "models/lm_config.hpp"
#include "poslab/base/errors.hpp"
#include "poslab/base/format.hpp"
#include "poslab/positions/formulas.hpp"
#include "poslab/positions/rope.hpp"

namespace poslab {

namespace {

using Json = nlohmann::json;

constexpr long long kMaxInspectedLayers = 4096;
constexpr long long kMaxInspectedHeadDim = 65536;

// transformers' config defaults for the keys that shape positions, per model_type. Only keys
// whose default is stated in the model's configuration class are listed.
struct TypeDefaults {
  const char* model_type;
  double rope_theta;
  long long max_position_embeddings;
  long long head_dim;        // 0: hidden_size / num_attention_heads
  long long sliding_window;  // 0: none by default
};
constexpr TypeDefaults kTypeDefaults[] = {
    {"llama", 10000.0, 2048, 0, 0},
    {"mistral", 10000.0, 131072, 0, 4096},
    {"qwen2", 10000.0, 32768, 0, 4096},
    {"qwen3", 10000.0, 32768, 128, 4096},
    {"gemma3_text", 1000000.0, 131072, 256, 4096},
};
constexpr TypeDefaults kGenericDefaults = {"", 10000.0, 0, 0, 0};

const TypeDefaults& defaults_for(const std::string& model_type) {
  for (const TypeDefaults& d : kTypeDefaults) {
    if (model_type == d.model_type) return d;
  }
  return kGenericDefaults;
}

// config.json's keys as the inspector reads them: every key looked at is remembered, so the
// rest can be listed as ignored.
class Keys {
 public:
  Keys(const Json& json, std::string where) : json_(json), where_(std::move(where)) {}

  bool has(const char* key) {
    read_.insert(key);
    return json_.contains(key) && !json_[key].is_null();
  }
  const Json& at(const char* key) const { return json_.at(key); }
  long long integer(const char* key) { return lm_config::integer_key(json_, key, where_); }
  double number(const char* key) { return lm_config::number_key(json_, key, where_); }
  long long positive(const char* key) {
    const long long v = integer(key);
    require(v > 0, where_ + ": \"" + key + "\" must be positive, got " + std::to_string(v));
    return v;
  }
  bool flag(const char* key, bool fallback) {
    read_.insert(key);
    return lm_config::flag(json_, key, fallback, where_);
  }
  std::vector<std::string> unread(const std::string& prefix) const {
    std::vector<std::string> out;
    for (const auto& [key, value] : json_.items()) {
      if (!read_.count(key)) out.push_back(prefix + key);
    }
    return out;
  }
  const std::string& where() const { return where_; }

 private:
  const Json& json_;
  std::string where_;
  std::set<std::string> read_;
};

// One rope_scaling (or rope_parameters) object, as transformers reads it.
struct Scaling {
  std::string type = "none";
  double factor = 0.0;  // 0: absent
  long long original = 0;
  double low_freq_factor = 1.0, high_freq_factor = 4.0;
  double beta_fast = 32.0, beta_slow = 1.0;
  bool truncate = true;
  double attention_factor = 0.0, mscale = 0.0, mscale_all_dim = 0.0;
  std::vector<double> short_factor, long_factor;
  double theta = 0.0;    // rope_parameters' rope_theta; 0: the config's
  double partial = 0.0;  // rope_parameters' partial_rotary_factor; 0: the config's
};

// The shared reading (lm_config::read_rope_scaling_keys), with the inspector's leniency on
// top: keys no scaling reads are listed as ignored, "su" and "mrope" explained in notes.
Scaling read_scaling(const Json& s, const std::string& where, std::vector<std::string>& ignored,
                     std::vector<std::string>& notes, const std::string& prefix) {
  const lm_config::RopeScalingKeys k = lm_config::read_rope_scaling_keys(s, where);
  if (k.written == "su") notes.push_back(where + ": type \"su\" is longrope's former name");
  std::string type = k.type;
  if (type == "mrope") {
    notes.push_back(where +
                    ": mrope splits the pairs between time, height and width; each "
                    "pair's frequency is the default one, shown here");
    type = "none";
  }
  const bool known = type == "none" || type == "linear" || type == "dynamic" || type == "yarn" ||
                     type == "llama3" || type == "longrope";
  require(known, where + ": rope type \"" + type +
                     "\" is not one the inspector computes (default, linear, dynamic, yarn, "
                     "llama3, longrope)");
  for (const std::string& key : k.unknown) ignored.push_back(prefix + key);
  Scaling out;
  out.type = type;
  out.factor = k.factor;
  out.original = k.original;
  out.low_freq_factor = k.low_freq_factor.value_or(out.low_freq_factor);
  out.high_freq_factor = k.high_freq_factor.value_or(out.high_freq_factor);
  out.beta_fast = k.beta_fast.value_or(out.beta_fast);
  out.beta_slow = k.beta_slow.value_or(out.beta_slow);
  out.truncate = k.truncate.value_or(out.truncate);
  out.attention_factor = k.attention_factor.value_or(0.0);
  out.mscale = k.mscale.value_or(0.0);
  out.mscale_all_dim = k.mscale_all_dim.value_or(0.0);
  out.short_factor = k.short_factor;
  out.long_factor = k.long_factor;
  out.theta = k.theta.value_or(0.0);
  out.partial = k.partial_rotary_factor.value_or(0.0);
  return out;
}

// The core's frequencies; its refusal named after the config (`where`).
RopeFrequencies frequencies(long long head_dim, const RopeOptions& o, long long total,
                            const std::string& where) {
  try {
    return rope_frequencies(head_dim, o, total);
  } catch (const Error& e) {
    throw Error(where + ": " + e.what(), "config");
  }
}

double yarn_mscale(double factor, double mscale) {
  return factor <= 1.0 ? 1.0 : 0.1 * mscale * std::log(factor) + 1.0;
}

// What scheme `name` computes from `base`, the scaling `s`, the head's rotary dim and the
// config's context keys.
RopeScheme make_scheme(const std::string& name, double base, const Scaling& s, long long head_dim,
                       double partial, long long max_position, long long top_original,
                       const std::string& where) {
  RopeScheme out;
  out.name = name;
  out.base = base;
  out.scaling = s.type;
  // N: the original context the config names, else max_position_embeddings (transformers'
  // fallback for dynamic and yarn). Linear scaling never reads N: when the config names none,
  // N is the declared context divided by the factor, the length the scaling stretches to it.
  if (s.original > 0) {
    out.trained_context = s.original;
    out.trained_context_from = "rope_scaling.original_max_position_embeddings";
  } else if (top_original > 0) {
    out.trained_context = top_original;
    out.trained_context_from = "original_max_position_embeddings";
  } else if (s.type == "linear") {
    out.trained_context = std::max(1LL, (long long)std::llround(double(max_position) / s.factor));
    out.trained_context_from = "max_position_embeddings / factor";
  } else {
    out.trained_context = max_position;
    out.trained_context_from = "max_position_embeddings";
  }
  const long long N = out.trained_context;

  RopeOptions plain;
  plain.base = base;
  plain.rotary_fraction = partial;
  const RopeFrequencies unscaled = frequencies(head_dim, plain, 0, where);
  out.rotary_dim = unscaled.rotary_dim;
  out.inv_freq = unscaled.inv_freq;
  for (double theta : out.inv_freq) {
    if (2.0 * formulas::kPi / theta <= double(N)) ++out.rotating_pairs;
  }

  if (s.type == "longrope") {
    const std::size_t pairs = out.inv_freq.size();
    for (const auto* list : {&s.short_factor, &s.long_factor}) {
      require(list->size() == pairs,
              where + ": longrope's " + (list == &s.short_factor ? "short" : "long") +
                  "_factor has " + std::to_string(list->size()) +
                  " entries; it needs one per rotary pair, " + std::to_string(pairs));
    }
    // transformers: a top-level original_max_position_embeddings (Phi-3) makes the factor the
    // context ratio; else rope_scaling's factor, else that ratio.
    out.factor = top_original > 0 || s.factor <= 0.0 ? double(max_position) / double(N) : s.factor;
    out.attention_factor = s.attention_factor > 0.0 ? s.attention_factor
                           : out.factor <= 1.0
                               ? 1.0
                               : std::sqrt(1.0 + std::log(out.factor) / std::log(double(N)));
    for (std::size_t i = 0; i < pairs; ++i) {
      out.inv_freq_scaled.push_back(out.inv_freq[i] / s.short_factor[i]);
      out.inv_freq_long.push_back(out.inv_freq[i] / s.long_factor[i]);
    }
    out.reaches = max_position;
    return out;
  }

  RopeOptions o = plain;
  if (s.type != "none") {
    o.scaling = parse_rope_scaling(s.type);
    o.factor = s.factor;
    o.original_length = N;
    o.low_freq_factor = s.low_freq_factor;
    o.high_freq_factor = s.high_freq_factor;
    o.beta_fast = s.beta_fast;
    o.beta_slow = s.beta_slow;
    o.yarn_truncate = s.truncate;
    o.attention_factor = s.attention_factor;
    if (s.type == "yarn" && s.attention_factor <= 0.0 && s.mscale > 0.0 && s.mscale_all_dim > 0.0) {
      o.attention_factor =
          yarn_mscale(s.factor, s.mscale) / yarn_mscale(s.factor, s.mscale_all_dim);
    }
    out.factor = s.factor;
  }
  // Dynamic NTK changes with the sequence: shown at its nominal reach N·f, a position count.
  require(double(N) * out.factor < 0x1p62,
          where + ": rope_scaling \"factor\" " + format_number(out.factor) +
              " times the trained context " + std::to_string(N) +
              " overflows a position count (the reach N x factor must stay below 2^62)");
  const long long reach = (long long)std::llround(double(N) * out.factor);
  const RopeFrequencies scaled = frequencies(head_dim, o, reach, where);
  out.inv_freq_scaled = scaled.inv_freq;
  out.attention_factor = scaled.attention_factor;
  out.reaches = reach;
  return out;
}

RopeConfigReport inspect(const std::string& text, const std::string& name) {
  const Json root = lm_config::parse_object(text, name, "a model config");
  RopeConfigReport report;
  const bool nested = root.contains("text_config") && root["text_config"].is_object();
  const Json& json = nested ? root["text_config"] : root;
  report.text_config = nested;
  Keys keys(json, nested ? name + ": text_config" : name);
  const std::string& where = keys.where();
  const std::string prefix = nested ? "text_config." : "";

  if (keys.has("model_type")) {
    require(keys.at("model_type").is_string(), where + ": \"model_type\" must be a string");
    report.model_type = keys.at("model_type").get<std::string>();
  } else if (nested && root.contains("model_type") && root["model_type"].is_string()) {
    report.model_type = root["model_type"].get<std::string>();
  }
  const std::string& type = report.model_type;
  require(type != "gpt2", where +
                              ": gpt2 learns absolute positions (wpe, n_positions): it has "
                              "no rotation to inspect");
  const TypeDefaults& d = defaults_for(type);
  const std::string default_source =
      type.empty() || &d == &kGenericDefaults ? "a common default" : type + "'s default";
  auto defaulted = [&](const std::string& key, const std::string& value) {
    report.notes.push_back("\"" + key + "\" absent: " + value + " (" + default_source + ")");
  };

  // GPT-NeoX spells the rotation's keys its own way.
  const bool neox = type == "gpt_neox";
  auto size = [&](const char* key, long long fallback) {
    if (keys.has(key)) return keys.positive(key);
    require(fallback > 0, where + ": missing \"" + std::string(key) + "\"");
    defaulted(key, std::to_string(fallback));
    return fallback;
  };
  const bool gemma3 = type == "gemma3_text" || type == "gemma3";
  const long long hidden = size("hidden_size", gemma3 ? 2304 : 0);
  report.heads = size("num_attention_heads", gemma3 ? 8 : 0);
  const long long layers = size("num_hidden_layers", gemma3 ? 26 : 0);
  report.kv_heads = size("num_key_value_heads", gemma3 ? 4 : report.heads);
  require(report.heads % report.kv_heads == 0,
          where + ": num_key_value_heads " + std::to_string(report.kv_heads) +
              " does not divide num_attention_heads " + std::to_string(report.heads));
  if (keys.has("head_dim")) {
    report.head_dim = keys.positive("head_dim");
  } else if (d.head_dim > 0) {
    report.head_dim = d.head_dim;
    defaulted("head_dim", std::to_string(d.head_dim));
  } else {
    report.head_dim = hidden / report.heads;
  }
  // Caps far above any model's, so a report stays small: per-layer and per-pair lists.
  require(layers <= kMaxInspectedLayers, where + ": num_hidden_layers " + std::to_string(layers) +
                                             " is more than the inspector reads (" +
                                             std::to_string(kMaxInspectedLayers) + ")");
  require(report.head_dim <= kMaxInspectedHeadDim,
          where + ": a head width of " + std::to_string(report.head_dim) +
              " is more than the inspector reads (" + std::to_string(kMaxInspectedHeadDim) + ")");
  report.max_position_embeddings = size("max_position_embeddings", d.max_position_embeddings);
  const long long top_original = keys.has("original_max_position_embeddings")
                                     ? keys.positive("original_max_position_embeddings")
                                     : 0;

  double partial = 1.0;
  for (const char* key : {"partial_rotary_factor", "rotary_pct"}) {
    if (keys.has(key)) partial = keys.number(key);
  }
  double theta = d.rope_theta;
  const char* theta_key = neox ? "rotary_emb_base" : "rope_theta";
  if (keys.has(theta_key)) {
    theta = keys.number(theta_key);
  }

  // rope_scaling (transformers 4) or rope_parameters (5): one object, or one per layer type.
  std::map<std::string, Scaling> by_layer_type;
  Scaling scaling;
  bool theta_given = json.contains(theta_key) && !json[theta_key].is_null();
  lm_config::rope_scaling_object(json, where);  // refuses the two forms disagreeing
  for (const char* key : {"rope_scaling", "rope_parameters"}) {
    if (!keys.has(key)) continue;
    const Json& s = keys.at(key);
    const std::string w = where + ": " + key;
    const bool per_type =
        s.is_object() && (s.contains("full_attention") || s.contains("sliding_attention"));
    if (per_type) {
      for (const auto& [layer_type, value] : s.items()) {
        by_layer_type[layer_type] =
            read_scaling(value, w + "." + layer_type, report.ignored_keys, report.notes,
                         prefix + key + "." + layer_type + ".");
      }
    } else {
      scaling = read_scaling(s, w, report.ignored_keys, report.notes, prefix + key + ".");
      if (scaling.theta > 0.0) {
        theta = scaling.theta;
        theta_given = true;
      }
      if (scaling.partial > 0.0) partial = scaling.partial;
    }
  }
  if (!theta_given) defaulted(theta_key, format_number(theta));

  // Layer kinds: layer_types when given, else each family's rule.
  const std::size_t n = std::size_t(layers);
  std::vector<std::string> kinds(n, "full_attention");
  const long long window = keys.has("sliding_window") ? keys.positive("sliding_window") : 0;
  const bool window_null = json.contains("sliding_window") && json["sliding_window"].is_null();
  const long long chunk =
      keys.has("attention_chunk_size") ? keys.positive("attention_chunk_size") : 0;
  const bool use_sliding = keys.flag("use_sliding_window", true);

  // NoPE layers: no_rope_layers lists 1 for a RoPE layer and 0 for NoPE (SmolLM3, Llama 4).
  std::vector<bool> rope(n, true);
  const bool nope_family = type == "smollm3" || type == "llama4_text" || type == "llama4";
  if (keys.has("no_rope_layers") && !keys.at("no_rope_layers").empty()) {
    const Json& list = keys.at("no_rope_layers");
    require(list.is_array() && list.size() == n,
            where + ": \"no_rope_layers\" must list num_hidden_layers " + std::to_string(n) +
                " entries");
    for (std::size_t i = 0; i < n; ++i) {
      require(list[i] == 0 || list[i] == 1,
              where + ": \"no_rope_layers\"[" + std::to_string(i) + "] must be 0 or 1");
      rope[i] = list[i] == 1;
    }
  } else if (nope_family) {
    long long interval = 4;
    if (keys.has("no_rope_layer_interval"))
      interval = keys.positive("no_rope_layer_interval");
    else
      defaulted("no_rope_layers", "every " + std::to_string(interval) + "th layer NoPE");
    for (std::size_t i = 0; i < n; ++i) rope[i] = (long long)(i + 1) % interval != 0;
  }

  if (keys.has("layer_types")) {
    const Json& list = keys.at("layer_types");
    require(
        list.is_array() && list.size() == n,
        where + ": \"layer_types\" must list num_hidden_layers " + std::to_string(n) + " entries");
    for (std::size_t i = 0; i < n; ++i) {
      require(list[i].is_string(),
              where + ": \"layer_types\"[" + std::to_string(i) + "] must be a string");
      kinds[i] = list[i].get<std::string>();
    }
  } else if (gemma3) {
    long long pattern = 6;
    bool given = false;
    for (const char* key : {"sliding_window_pattern", "_sliding_window_pattern"}) {
      if (keys.has(key)) {
        pattern = keys.positive(key);
        given = true;
      }
    }
    if (!given) defaulted("sliding_window_pattern", "6");
    for (std::size_t i = 0; i < n; ++i) {
      if ((long long)(i + 1) % pattern != 0) kinds[i] = "sliding_attention";
    }
  } else if (nope_family && chunk > 0) {
    for (std::size_t i = 0; i < n; ++i) kinds[i] = rope[i] ? "chunked_attention" : "full_attention";
  } else if (type == "qwen2" || type == "qwen3") {
    const long long from = keys.has("max_window_layers") ? keys.integer("max_window_layers") : 28;
    if (keys.flag("use_sliding_window", false)) {
      for (std::size_t i = 0; i < n; ++i) {
        if ((long long)i >= from) kinds[i] = "sliding_attention";
      }
    }
  } else if (use_sliding && !window_null && (window > 0 || d.sliding_window > 0)) {
    kinds.assign(n, "sliding_attention");
  }
  const long long sliding = window > 0 ? window : window_null ? 0 : d.sliding_window;
  const bool any_sliding =
      std::find(kinds.begin(), kinds.end(), "sliding_attention") != kinds.end();
  if (any_sliding && window == 0 && sliding > 0) {
    defaulted("sliding_window", std::to_string(sliding));
  }

  // Schemes: one per RoPE base. Gemma 3's local layers turn at rope_local_base_freq, unscaled.
  const long long head = report.head_dim;
  const long long maxp = report.max_position_embeddings;
  auto scheme_for = [&](const std::string& kind) -> int {
    std::string name = "rope";
    double base = theta;
    Scaling s = scaling;
    if (!by_layer_type.empty()) {
      const auto it = by_layer_type.find(kind);
      require(it != by_layer_type.end(),
              where + ": rope_parameters has no entry for layer type \"" + kind + "\"");
      name = kind;
      s = it->second;
      if (s.theta > 0.0) base = s.theta;
    } else if (gemma3) {
      name = kind == "sliding_attention" ? "local" : "global";
    }
    for (std::size_t k = 0; k < report.schemes.size(); ++k) {
      if (report.schemes[k].name == name) return int(k);
    }
    if (gemma3 && by_layer_type.empty()) {
      if (name == "local") {
        base = 10000.0;
        if (keys.has("rope_local_base_freq"))
          base = keys.number("rope_local_base_freq");
        else
          defaulted("rope_local_base_freq", "10000");
        s = Scaling{};
      }
    }
    report.schemes.push_back(make_scheme(name, base, s, head, partial, maxp, top_original, where));
    return int(report.schemes.size()) - 1;
  };
  for (std::size_t i = 0; i < n; ++i) {
    RopeLayer layer;
    const std::string& kind = kinds[i];
    if (kind == "sliding_attention") {
      layer.attention = "sliding";
      layer.window = sliding;
      require(sliding > 0, where + ": layer " + std::to_string(i) +
                               " is a sliding layer but \"sliding_window\" is null");
    } else if (kind == "chunked_attention") {
      layer.attention = "chunked";
      layer.window = chunk;
      require(chunk > 0, where + ": layer " + std::to_string(i) +
                             " is chunked but \"attention_chunk_size\" is absent");
    } else {
      layer.attention = kind == "full_attention" ? "full" : kind;
    }
    layer.scheme = rope[i] ? scheme_for(kind) : -1;
    if (layer.scheme >= 0) {
      RopeScheme& scheme = report.schemes[std::size_t(layer.scheme)];
      const long long span = layer.window > 0 ? layer.window : scheme.reaches;
      scheme.max_distance = std::max(scheme.max_distance, span - 1);
    }
    report.layers.push_back(layer);
  }
  if (type == "gpt_oss") {
    report.notes.push_back(
        "gpt_oss: every softmax also has a learned sink logit per head, which "
        "takes attention mass without a value");
  }
  // The keys no rule read, and with text_config the wrapper's other keys.
  for (const std::string& key : keys.unread(prefix)) report.ignored_keys.push_back(key);
  if (nested) {
    for (const auto& [key, value] : root.items()) {
      if (key != "text_config" && key != "model_type") report.ignored_keys.push_back(key);
    }
  }
  return report;
}

Json doubles(const std::vector<double>& v) { return Json(v); }

Json wavelengths(const std::vector<double>& inv_freq) {
  Json out = Json::array();
  for (double theta : inv_freq) out.push_back(2.0 * formulas::kPi / theta);
  return out;
}

}  // namespace

RopeConfigReport inspect_rope_config(const std::string& json_text, const std::string& name) {
  try {
    return inspect(json_text, name);
  } catch (const Error& e) {
    throw Error(e.what(), "config");
  }
}

std::string rope_config_report_json(const RopeConfigReport& r) {
  Json schemes = Json::array();
  for (const RopeScheme& s : r.schemes) {
    Json j = {{"name", s.name},
              {"base", s.base},
              {"scaling", s.scaling},
              {"factor", s.factor},
              {"rotary_dim", s.rotary_dim},
              {"trained_context", s.trained_context},
              {"trained_context_from", s.trained_context_from},
              {"reaches", s.reaches},
              {"max_distance", s.max_distance},
              {"attention_factor", s.attention_factor},
              {"rotating_pairs", s.rotating_pairs},
              {"inv_freq", doubles(s.inv_freq)},
              {"inv_freq_scaled", doubles(s.inv_freq_scaled)},
              {"wavelength", wavelengths(s.inv_freq)},
              {"wavelength_scaled", wavelengths(s.inv_freq_scaled)}};
    if (!s.inv_freq_long.empty()) {
      j["inv_freq_long"] = doubles(s.inv_freq_long);
      j["wavelength_long"] = wavelengths(s.inv_freq_long);
    }
    schemes.push_back(std::move(j));
  }
  Json layers = Json::array();
  for (const RopeLayer& l : r.layers) {
    layers.push_back({{"attention", l.attention},
                      {"window", l.window},
                      {"scheme", l.scheme < 0 ? Json(nullptr) : Json(l.scheme)}});
  }
  const Json out = {
      {"model_type", r.model_type}, {"text_config", r.text_config},
      {"head_dim", r.head_dim},     {"heads", r.heads},
      {"kv_heads", r.kv_heads},     {"max_position_embeddings", r.max_position_embeddings},
      {"schemes", schemes},         {"layers", layers},
      {"notes", r.notes},           {"ignored_keys", r.ignored_keys}};
  return out.dump(1);
}

}  // namespace poslab

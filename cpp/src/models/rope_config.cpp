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
#include "models/model_type_reader.hpp"
#include "poslab/base/errors.hpp"
#include "poslab/base/format.hpp"
#include "poslab/models/model_types.hpp"
#include "poslab/positions/formulas.hpp"
#include "poslab/positions/rope.hpp"

namespace poslab {

namespace {

using Json = nlohmann::json;

constexpr long long kMaxInspectedLayers = 4096;
constexpr long long kMaxInspectedHeadDim = 65536;

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
  long long positive(const char* key) {
    const long long v = lm_config::integer_key(json_, key, where_);
    require(v > 0, where_ + ": \"" + key + "\" must be positive, got " + std::to_string(v));
    return v;
  }
  // The keys neither this nor the model type's reading (`also`) looked at.
  std::vector<std::string> unread(const std::string& prefix,
                                  const std::vector<const char*>& also) const {
    std::vector<std::string> out;
    for (const auto& item : json_.items()) {
      const std::string& key = item.key();
      bool read = read_.count(key) > 0;
      for (const char* k : also) read = read || key == k;
      if (!read) out.push_back(prefix + key);
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
  // The model type's defaults and rules; an unknown type reads as transformers' generic one.
  const ModelType& row = model_type_row(type);
  ModelTypeReader reader(row, json, where);

  const long long hidden = reader.size("hidden_size", row.sizes.hidden_size);
  report.heads = reader.size("num_attention_heads", row.sizes.heads);
  const long long layers = reader.size("num_hidden_layers", row.sizes.layers);
  report.kv_heads = reader.kv_heads(report.heads);
  require(report.kv_heads > 0, where + ": \"num_key_value_heads\" must be positive, got " +
                                   std::to_string(report.kv_heads));
  // A given count must divide the heads; a type's default that does not (Qwen3's 32 under a
  // small pasted config) is what transformers would read too, but the rotation does not depend
  // on it, so the inspector reports it rather than refuse the config.
  require(!json.contains("num_key_value_heads") || report.heads % report.kv_heads == 0,
          where + ": num_key_value_heads " + std::to_string(report.kv_heads) +
              " does not divide num_attention_heads " + std::to_string(report.heads));
  report.head_dim = reader.explicit_head_dim();
  if (report.head_dim == 0) report.head_dim = hidden / report.heads;
  // Caps far above any model's, so a report stays small: per-layer and per-pair lists.
  require(layers <= kMaxInspectedLayers, where + ": num_hidden_layers " + std::to_string(layers) +
                                             " is more than the inspector reads (" +
                                             std::to_string(kMaxInspectedLayers) + ")");
  require(report.head_dim <= kMaxInspectedHeadDim,
          where + ": a head width of " + std::to_string(report.head_dim) +
              " is more than the inspector reads (" + std::to_string(kMaxInspectedHeadDim) + ")");
  report.max_position_embeddings = reader.context();
  require(
      report.max_position_embeddings > 0,
      where + ": " +
          (json.contains("max_position_embeddings") ? "\"max_position_embeddings\" must be positive"
                                                    : "missing \"max_position_embeddings\""));
  const long long top_original = keys.has("original_max_position_embeddings")
                                     ? keys.positive("original_max_position_embeddings")
                                     : 0;

  // rope_scaling (transformers 4) or rope_parameters (5): one object, or one per layer type.
  std::map<std::string, Scaling> by_layer_type;
  Scaling scaling;
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
    }
  }
  const double partial = reader.rotary_fraction(scaling.partial);
  const double theta = reader.rope_theta(scaling.theta);

  // Each layer's attention and rotation, by the model type's rules.
  const LayerPlan plan = reader.layers(std::size_t(layers));

  // Schemes: one per RoPE base. A model type with a local base (Gemma 3) turns its sliding
  // layers at it, unscaled; rope_parameters per layer type name each kind's own.
  const long long head = report.head_dim;
  const long long maxp = report.max_position_embeddings;
  const bool two_bases = row.rotation.local_base > 0.0 && by_layer_type.empty();
  auto scheme_for = [&](const std::string& kind) -> int {
    std::string scheme = "rope";
    double base = theta;
    Scaling s = scaling;
    if (!by_layer_type.empty()) {
      const auto it = by_layer_type.find(kind);
      require(it != by_layer_type.end(),
              where + ": rope_parameters has no entry for layer type \"" + kind + "\"");
      scheme = kind;
      s = it->second;
      if (s.theta > 0.0) base = s.theta;
    } else if (two_bases) {
      scheme = kind == "sliding_attention" ? "local" : "global";
    }
    for (std::size_t k = 0; k < report.schemes.size(); ++k) {
      if (report.schemes[k].name == scheme) return int(k);
    }
    if (scheme == "local") {
      base = reader.local_base();
      s = Scaling{};
    }
    report.schemes.push_back(
        make_scheme(scheme, base, s, head, partial, maxp, top_original, where));
    return int(report.schemes.size()) - 1;
  };
  for (std::size_t i = 0; i < plan.kinds.size(); ++i) {
    RopeLayer layer;
    const std::string& kind = plan.kinds[i];
    if (kind == "sliding_attention") {
      layer.attention = "sliding";
      layer.window = plan.window;
    } else if (kind == "chunked_attention") {
      layer.attention = "chunked";
      layer.window = plan.chunk;
    } else {
      layer.attention = kind == "full_attention" ? "full" : kind;
    }
    layer.scheme = plan.rope[i] ? scheme_for(kind) : -1;
    if (layer.scheme >= 0) {
      RopeScheme& scheme = report.schemes[std::size_t(layer.scheme)];
      const long long span = layer.window > 0 ? layer.window : scheme.reaches;
      scheme.max_distance = std::max(scheme.max_distance, span - 1);
    }
    report.layers.push_back(layer);
  }
  const std::string source =
      &row == &generic_model_type() ? "a common default" : type + "'s default";
  for (const auto& [key, value] : reader.defaulted()) {
    report.notes.push_back("\"" + key + "\" absent: " + value + " (" + source + ")");
  }
  if (*row.note) report.notes.push_back(row.note);
  // The keys no rule read, and with text_config the wrapper's other keys.
  for (const std::string& key : keys.unread(prefix, reader.read())) {
    report.ignored_keys.push_back(key);
  }
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

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
  bool present(const char* key) {  // null included
    read_.insert(key);
    return json_.contains(key);
  }
  const Json& json() const { return json_; }
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
  double theta = 0.0;                    // rope_parameters' rope_theta; 0: the config's
  double partial = 0.0;                  // rope_parameters' partial_rotary_factor; 0: the config's
  std::vector<long long> mrope_section;  // M-RoPE's pairs per axis; empty: none
  std::optional<bool> mrope_interleaved;
};

// The keys that change position or attention math somewhere (transformers' configs): one the
// report reads none of is named in its notes as not modelled, not only among the ignored.
constexpr const char* kMathKeys[] = {"use_qk_norm",
                                     "qk_layernorm",
                                     "sinks",
                                     "attention_sink",
                                     "clip_qkv",
                                     "query_pre_attn_scalar",
                                     "attn_logit_softcapping",
                                     "attention_multiplier",
                                     "alibi",
                                     "use_alibi",
                                     "position_embedding_type",
                                     "rope_interleave",
                                     "rotary_dim",
                                     "rope_local_base_freq",
                                     "sliding_window",
                                     "use_sliding_window",
                                     "max_window_layers",
                                     "layer_types",
                                     "sliding_window_pattern",
                                     "no_rope_layers",
                                     "no_rope_layer_interval",
                                     "attention_chunk_size",
                                     "attn_temperature_tuning",
                                     "floor_scale",
                                     "attn_scale",
                                     "qk_rope_head_dim",
                                     "qk_nope_head_dim",
                                     "kv_lora_rank",
                                     "q_lora_rank",
                                     "use_bidirectional_attention"};

constexpr const char* kNotModelled = "it changes position or attention math this report leaves out";

// A value that does something: not null, false, 0, "" or empty.
bool acts(const Json& v) {
  if (v.is_null()) return false;
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number()) return v.get<double>() != 0.0;
  return !(v.is_string() || v.is_array() || v.is_object()) || !v.empty();
}

// The shared reading (lm_config::read_rope_scaling_keys), with the inspector's leniency on
// top: keys no scaling reads are listed as ignored, "su" and "mrope" explained in notes.
Scaling read_scaling(const Json& s, const std::string& where, std::vector<std::string>& ignored,
                     std::vector<std::string>& notes, const std::string& prefix) {
  const lm_config::RopeScalingKeys k = lm_config::read_rope_scaling_keys(s, where);
  if (k.written == "su") notes.push_back(where + ": type \"su\" is longrope's former name");
  Scaling out;
  std::string type = k.type == "mrope" ? "none" : k.type;  // M-RoPE turns each pair as default
  const bool known = type == "none" || type == "linear" || type == "dynamic" || type == "yarn" ||
                     type == "llama3" || type == "longrope";
  require(known, where + ": rope type \"" + type +
                     "\" is not one the inspector computes (default, linear, dynamic, yarn, "
                     "llama3, longrope)");
  for (const std::string& key : k.unknown) {
    const Json& v = s[key];
    if (key == "mrope_section") {
      require(v.is_array() && v.size() == 3, where + ": \"mrope_section\" must list 3 counts");
      for (const Json& x : v) {
        require(x.is_number_integer() && x.get<long long>() >= 0 && x.get<long long>() < 65536,
                where + ": \"mrope_section\" holds pair counts, got " + x.dump());
        out.mrope_section.push_back(x.get<long long>());
      }
    } else if (key == "mrope_interleaved" && v.is_boolean()) {
      out.mrope_interleaved = v.get<bool>();
    } else {
      ignored.push_back(prefix + key);
      if (acts(v)) notes.push_back("\"" + prefix + key + "\" not modelled: " + kNotModelled);
    }
  }
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

// "\"key\" absent: value (source)", the notes for a default applied.
std::string absent(const std::string& key, const std::string& value, const std::string& source) {
  return "\"" + key + "\" absent: " + value + " (" + source + ")";
}

// DeepSeek's latent attention (configuration_deepseek_v3.py's defaults, said when applied).
RopeMla read_mla(Keys& keys, std::vector<std::string>& notes, const std::string& source) {
  RopeMla m;
  const auto dim = [&](const char* key, long long fallback, bool nullable) -> long long {
    if (keys.has(key)) return keys.positive(key);
    if (nullable && keys.present(key)) return 0;  // null: no LoRA (DeepSeek-V2-Lite's queries)
    notes.push_back(absent(key, std::to_string(fallback), source));
    return fallback;
  };
  m.qk_nope_head_dim = dim("qk_nope_head_dim", 128, false);
  m.qk_rope_head_dim = dim("qk_rope_head_dim", 64, false);
  m.v_head_dim = dim("v_head_dim", 128, false);
  m.kv_lora_rank = dim("kv_lora_rank", 512, false);
  m.q_lora_rank = dim("q_lora_rank", 1536, true);
  m.qk_head_dim = m.qk_nope_head_dim + m.qk_rope_head_dim;
  if (keys.has("rope_interleave")) {
    require(keys.at("rope_interleave").is_boolean(),
            keys.where() + ": \"rope_interleave\" must be true or false");
    m.interleaved = keys.at("rope_interleave").get<bool>();
  } else {
    notes.push_back(absent("rope_interleave", "true", source));
  }
  return m;
}

// Llama 4's query temperature on NoPE layers (modeling_llama4.py), or nullopt when it is off.
std::optional<RopeTemperature> read_temperature(Keys& keys, std::vector<std::string>& notes,
                                                const std::string& source, long long max_position) {
  const std::string& where = keys.where();
  if (keys.present("attn_temperature_tuning") && !keys.has("attn_temperature_tuning")) {
    return std::nullopt;  // null: off, as transformers' truth test reads it
  }
  if (keys.has("attn_temperature_tuning")) {
    const Json& v = keys.at("attn_temperature_tuning");
    require(v.is_boolean() || v.is_number(),
            where + ": \"attn_temperature_tuning\" must be true, false or a number");
    if (!acts(v)) return std::nullopt;
    if (v.is_number()) {
      notes.push_back("\"attn_temperature_tuning\" " + v.dump() +
                      " read as true, as transformers 4 and vLLM read any value other than 0 "
                      "(transformers 5's typed config takes only true or false)");
    }
  } else {
    notes.push_back(absent("attn_temperature_tuning", "true", source));
  }
  // floor_scale counts tokens (at least 1); attn_scale any finite number.
  const auto number = [&](const char* key, double fallback, bool tokens) {
    if (!keys.has(key)) {
      notes.push_back(absent(key, format_number(fallback), source));
      return fallback;
    }
    const double v = lm_config::number_key(keys.json(), key, where);
    require(std::isfinite(v) && (!tokens || v >= 1.0),
            where + ": \"" + key + "\" must be " + (tokens ? "at least 1" : "finite"));
    return v;
  };
  RopeTemperature t;
  t.floor_scale = number("floor_scale", 8192.0, true);
  t.attn_scale = number("attn_scale", 0.1, false);
  const double F = t.floor_scale;
  const auto add = [&](double p) {
    if (!(p >= 0.0 && p < double(max_position)) ||
        (!t.positions.empty() && p <= double(t.positions.back()))) {
      return;
    }
    t.positions.push_back((long long)p);
    t.scales.push_back(1.0 + t.attn_scale * std::log1p(std::floor((p + 1.0) / F)));
  };
  // The first position of each step k (floor((p + 1) / F) = k): p = ceil(k F) − 1; past 255
  // steps, 255 of them spread evenly on a log scale.
  add(0);
  const double steps = std::floor(double(max_position) / F);
  for (int j = 0; j < 255 && j < steps; ++j) {
    const double k = steps <= 255 ? j + 1 : std::round(std::pow(steps, j / 254.0));
    add(std::ceil(k * F) - 1.0);
  }
  add(double(max_position - 1));
  return t;
}

// M-RoPE: which pairs take t, h and w, and the sample prompt's positions as get_rope_index
// gives them (Qwen2-VL, 2.5-VL and 3-VL alike for an image: t = 0 across it).
RopeMrope mrope_of(const std::vector<long long>& section, bool interleaved, long long pairs,
                   long long merge, const RopeSample& sample, const std::string& where) {
  RopeMrope m;
  m.section = section;
  m.interleaved = interleaved;
  m.merge = merge;
  m.sample = sample;
  const long long sum = section[0] + section[1] + section[2];
  require(interleaved || sum == pairs, where + ": mrope_section sums to " + std::to_string(sum) +
                                           " pairs; the rotary dim has " + std::to_string(pairs) +
                                           " (cos and sin split into the 3 sections twice)");
  for (long long i = 0; i < pairs; ++i) {
    char axis = 't';
    if (interleaved) {  // apply_interleaved_mrope: h at 1, 4, … < 3 s_h; w at 2, 5, … < 3 s_w
      if (i % 3 == 1 && i < 3 * section[1]) axis = 'h';
      if (i % 3 == 2 && i < 3 * section[2]) axis = 'w';
    } else {  // apply_multimodal_rotary_pos_emb: the sections in order
      axis = i < section[0] ? 't' : i < section[0] + section[1] ? 'h' : 'w';
    }
    m.axes += axis;
  }
  const long long rows = sample.image_h / merge, cols = sample.image_w / merge;
  require(rows > 0 && cols > 0, "sample",
          "the sample image of " + std::to_string(sample.image_h) + " x " +
              std::to_string(sample.image_w) + " patches is under one " + std::to_string(merge) +
              " x " + std::to_string(merge) + " merged token");
  const auto text = [&](long long n, long long from) {
    for (long long i = 0; i < n; ++i) {
      m.tokens += 'T';
      for (auto* ids : {&m.t, &m.h, &m.w}) ids->push_back(from + i);
    }
  };
  text(sample.text_before, 0);
  const long long at = sample.text_before;  // st_idx + text_len
  for (long long r = 0; r < rows; ++r) {
    for (long long c = 0; c < cols; ++c) {
      m.tokens += 'I';
      m.t.push_back(at);
      m.h.push_back(at + r);
      m.w.push_back(at + c);
    }
  }
  text(sample.text_after, at + std::max(rows, cols));  // the image's largest id + 1
  // t never exceeds h (text: equal; image: the first id), so the largest id is h's or w's.
  const long long largest = std::max(*std::max_element(m.h.begin(), m.h.end()),
                                     *std::max_element(m.w.begin(), m.w.end()));
  m.delta = largest + 1 - (long long)m.tokens.size();
  return m;
}

RopeConfigReport inspect(const std::string& text, const std::string& name,
                         const RopeSample& sample) {
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
  const std::string source =
      &row == &generic_model_type() ? "a common default" : type + "'s default";
  using X = ModelTypeExtra;

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
  // MLA: each head rotates qk_rope_head_dim of its qk_head_dim dims (transformers sets head_dim
  // to qk_rope_head_dim, which its rotary embedding reads).
  long long rotated_head = report.head_dim;
  if (row.extra == X::kMla || keys.present("qk_rope_head_dim")) {
    report.mla =
        read_mla(keys, report.notes, row.extra == X::kMla ? source : "deepseek_v3's default");
    report.head_dim = report.mla->qk_head_dim;
    rotated_head = report.mla->qk_rope_head_dim;
  }
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
        make_scheme(scheme, base, s, rotated_head, partial, maxp, top_original, where));
    return int(report.schemes.size()) - 1;
  };
  bool nope = false;
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
    nope = nope || layer.scheme < 0;
    if (layer.scheme >= 0) {
      RopeScheme& scheme = report.schemes[std::size_t(layer.scheme)];
      const long long span = layer.window > 0 ? layer.window : scheme.reaches;
      scheme.max_distance = std::max(scheme.max_distance, span - 1);
    }
    report.layers.push_back(layer);
  }

  // DeepSeek's softmax scale: qk_head_dim^(-1/2) times mscale(factor, mscale_all_dim)², apart
  // from the cos and sin's attention factor mscale(f, mscale) / mscale(f, mscale_all_dim).
  if (report.mla) {
    RopeMla& m = *report.mla;
    m.mscale_all_dim = scaling.mscale_all_dim;
    if (scaling.type != "none" && scaling.mscale_all_dim > 0.0) {
      m.softmax_mscale = yarn_mscale(scaling.factor, scaling.mscale_all_dim);
    }
    m.softmax_scale = m.softmax_mscale * m.softmax_mscale / std::sqrt(double(m.qk_head_dim));
  }
  // Llama 4's temperature, on its NoPE layers only.
  if (row.extra == X::kTemperature || keys.present("attn_temperature_tuning")) {
    const std::string from = row.extra == X::kTemperature ? source : "llama4_text's default";
    report.temperature = read_temperature(keys, report.notes, from, maxp);
    if (report.temperature && !nope) {
      report.notes.push_back(
          "attn_temperature_tuning scales the queries of NoPE layers, and this config has none");
      report.temperature.reset();
    }
  }
  // M-RoPE: the type's layout (Qwen3-VL's interleaved, Qwen2-VL's and 2.5-VL's in blocks, which
  // neither reads mrope_interleaved), else mrope_interleaved's; the type's section by default.
  std::vector<long long> section = scaling.mrope_section;
  if (section.empty() && row.extra == X::kMropeInterleaved) {
    section = {24, 20, 20};
    report.notes.push_back(absent("rope_scaling.mrope_section", "[24, 20, 20]", source));
  }
  if (row.extra == X::kMrope && section.empty()) {
    report.notes.push_back(type +
                           " without rope_scaling.mrope_section: transformers' attention reads "
                           "it, and fails");
  }
  if (!section.empty() && !report.schemes.empty()) {
    const bool interleaved = row.extra == X::kMropeInterleaved ||
                             (row.extra != X::kMrope && scaling.mrope_interleaved.value_or(false));
    long long merge = 2;
    const auto vision = root.find("vision_config");
    if (vision != root.end() && vision->is_object() && vision->contains("spatial_merge_size")) {
      merge = lm_config::integer_key(*vision, "spatial_merge_size", name + ": vision_config");
      require(merge > 0, name + ": vision_config: \"spatial_merge_size\" must be positive");
    } else {
      report.notes.push_back(absent("vision_config.spatial_merge_size", "2", "a common default"));
    }
    if (!nested) keys.present("vision_config");
    report.mrope =
        mrope_of(section, interleaved, report.schemes[0].rotary_dim / 2, merge, sample, where);
  }

  for (const auto& [key, value] : reader.defaulted()) {
    report.notes.push_back(absent(key, value, source));
  }
  if (*row.note) report.notes.push_back(row.note);
  // The keys no rule read, and with text_config the wrapper's other keys; those that change
  // position or attention math somewhere are said not modelled.
  for (const std::string& key : keys.unread(prefix, reader.read())) {
    report.ignored_keys.push_back(key);
    const std::string bare = key.substr(prefix.size());
    for (const char* math : kMathKeys) {
      if (bare == math && acts(json[bare])) {
        report.notes.push_back("\"" + key + "\" not modelled: " + kNotModelled);
      }
    }
  }
  if (nested) {
    for (const auto& [key, value] : root.items()) {
      const bool read =
          key == "text_config" || key == "model_type" || (report.mrope && key == "vision_config");
      if (!read) report.ignored_keys.push_back(key);
    }
  }
  return report;
}

template <class T>
void put(Json& object, const char* key, const T& value) {
  object[key] = value;
}

Json wavelengths(const std::vector<double>& inv_freq) {
  Json out = Json::array();
  for (double theta : inv_freq) out.push_back(2.0 * formulas::kPi / theta);
  return out;
}

}  // namespace

RopeConfigReport inspect_rope_config(const std::string& json_text, const std::string& name,
                                     const RopeSample& sample) {
  for (const long long n : {sample.text_before, sample.text_after}) {
    require(
        n >= 0 && n <= 4096, "sample",
        "the sample's text before and after the image: 0 to 4096 tokens, got " + std::to_string(n));
  }
  for (const long long n : {sample.image_h, sample.image_w}) {
    require(n >= 1 && n <= 1024, "sample",
            "the sample image: 1 to 1024 patches a side, got " + std::to_string(n));
  }
  try {
    return inspect(json_text, name, sample);
  } catch (const Error& e) {
    throw Error(e.what(), e.field() == "sample" ? "sample" : "config");
  }
}

std::string rope_config_report_json(const RopeConfigReport& r) {
  // One field per out-of-line call: nested initializer lists of Json, inlined, cost the
  // language-model module kilobytes (as model_types_json's did). Keys come out sorted.
  Json out;
  Json& schemes = out["schemes"] = Json::array();
  for (const RopeScheme& s : r.schemes) {
    Json& j = schemes.emplace_back();
    put(j, "name", s.name);
    put(j, "base", s.base);
    put(j, "scaling", s.scaling);
    put(j, "factor", s.factor);
    put(j, "rotary_dim", s.rotary_dim);
    put(j, "trained_context", s.trained_context);
    put(j, "trained_context_from", s.trained_context_from);
    put(j, "reaches", s.reaches);
    put(j, "max_distance", s.max_distance);
    put(j, "attention_factor", s.attention_factor);
    put(j, "rotating_pairs", s.rotating_pairs);
    put(j, "inv_freq", s.inv_freq);
    put(j, "inv_freq_scaled", s.inv_freq_scaled);
    put(j, "wavelength", wavelengths(s.inv_freq));
    put(j, "wavelength_scaled", wavelengths(s.inv_freq_scaled));
    if (!s.inv_freq_long.empty()) {
      put(j, "inv_freq_long", s.inv_freq_long);
      put(j, "wavelength_long", wavelengths(s.inv_freq_long));
    }
  }
  Json& layers = out["layers"] = Json::array();
  for (const RopeLayer& l : r.layers) {
    Json& j = layers.emplace_back();
    put(j, "attention", l.attention);
    put(j, "window", l.window);
    j["scheme"] = l.scheme < 0 ? Json(nullptr) : Json(l.scheme);
  }
  put(out, "model_type", r.model_type);
  put(out, "text_config", r.text_config);
  put(out, "head_dim", r.head_dim);
  put(out, "heads", r.heads);
  put(out, "kv_heads", r.kv_heads);
  put(out, "max_position_embeddings", r.max_position_embeddings);
  put(out, "notes", r.notes);
  put(out, "ignored_keys", r.ignored_keys);
  for (const char* extra : {"mla", "temperature", "mrope"}) out[extra] = nullptr;
  if (const auto& m = r.mla) {
    Json& o = out["mla"];
    put(o, "q_lora_rank", m->q_lora_rank);
    put(o, "kv_lora_rank", m->kv_lora_rank);
    put(o, "qk_nope_head_dim", m->qk_nope_head_dim);
    put(o, "qk_rope_head_dim", m->qk_rope_head_dim);
    put(o, "v_head_dim", m->v_head_dim);
    put(o, "qk_head_dim", m->qk_head_dim);
    put(o, "interleaved", m->interleaved);
    put(o, "mscale_all_dim", m->mscale_all_dim);
    put(o, "softmax_mscale", m->softmax_mscale);
    put(o, "softmax_scale", m->softmax_scale);
  }
  if (const auto& t = r.temperature) {
    Json& o = out["temperature"];
    put(o, "floor_scale", t->floor_scale);
    put(o, "attn_scale", t->attn_scale);
    put(o, "positions", t->positions);
    put(o, "scales", t->scales);
  }
  if (const auto& m = r.mrope) {
    Json& o = out["mrope"];
    put(o, "section", m->section);
    put(o, "interleaved", m->interleaved);
    put(o, "axes", m->axes);
    put(o, "spatial_merge_size", m->merge);
    Json& s = o["sample"];
    put(s, "text_before", m->sample.text_before);
    put(s, "image_patches", std::vector<long long>{m->sample.image_h, m->sample.image_w});
    put(s, "text_after", m->sample.text_after);
    put(s, "tokens", m->tokens);
    put(s, "t", m->t);
    put(s, "h", m->h);
    put(s, "w", m->w);
    put(s, "rope_delta", m->delta);
  }
  return out.dump(1);
}

}  // namespace poslab

// What every language-model config (GPT-2's, GPT-NeoX's, Llama's) shares: the preset lookup,
// reading config.json (the object, its integer, number and boolean keys, the required sizes,
// the checks' messages prefixed by the file's name), writing its
// sizes (LmDims) under the architecture's keys, and the checks that run before any weight is
// allocated: the sizes, the norm epsilon, and the parameter count, counted
// with saturating arithmetic (it is compared with a cap, so "huge" is all it must say) and
// held under the cap.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "poslab/base/errors.hpp"
#include "poslab/base/tensor.hpp"
#include "poslab/io/json_text.hpp"
#include "poslab/models/lm_dims.hpp"
#include "poslab/positions/rope.hpp"

namespace poslab::lm_config {

// The preset called `name` among `presets` (name, maker); else Error with field "preset",
// "unknown GPT-2 preset 'x' (expected small or medium)", `model` naming the architecture.
template <class Config>
Config preset_named(const std::string& name,
                    std::initializer_list<std::pair<const char*, Config (*)()>> presets,
                    const std::string& model) {
  std::string expected;
  std::size_t i = 0;
  for (const auto& [preset, make] : presets) {
    if (name == preset) return make();
    if (i > 0) expected += i + 1 == presets.size() ? " or " : ", ";
    expected += preset;
    ++i;
  }
  throw Error("unknown " + model + " preset '" + name + "' (expected " + expected + ")", "preset");
}

// config.json's text as a JSON object; `what` ("a GPT-2 config") words the refusal. `name`
// labels errors.
inline nlohmann::json parse_object(const std::string& text, const std::string& name,
                                   const std::string& what) {
  const nlohmann::json json = parse_json_text(text, name);
  require(json.is_object(), name + ": " + what + " must be a JSON object");
  return json;
}

// An integer key that is there: refused when not an integer, or beyond the element cap.
inline long long integer_key(const nlohmann::json& json, const char* key, const std::string& name) {
  const nlohmann::json& value = json.at(key);
  require(value.is_number_integer(),
          name + ": \"" + key + "\" must be an integer, got " + value.dump());
  if (value.is_number_unsigned() && value.get<std::uint64_t>() > std::uint64_t(kMaxElements)) {
    throw Error(name + ": \"" + key + "\" " + value.dump() + " is too large");
  }
  return value.get<long long>();
}

// A number key that is there: refused when not a number.
inline double number_key(const nlohmann::json& json, const char* key, const std::string& name) {
  const nlohmann::json& value = json.at(key);
  require(value.is_number(), name + ": \"" + key + "\" must be a number, got " + value.dump());
  return value.get<double>();
}

// An integer key the config cannot do without; `what` ("a Llama config") words the refusal.
inline long long required_size(const nlohmann::json& json, const char* key, const std::string& name,
                               const std::string& what) {
  require(json.contains(key), name + ": missing \"" + key + "\" (" + what + " needs it)");
  return integer_key(json, key, name);
}

// A boolean key, `fallback` when absent.
inline bool flag(const nlohmann::json& json, const char* key, bool fallback,
                 const std::string& name) {
  if (!json.contains(key)) return fallback;
  require(json[key].is_boolean(), name + ": \"" + key + "\" must be true or false");
  return json[key].get<bool>();
}

// The sizes transformers' GPT-NeoX and Llama configs require (vocabulary, width, layers,
// heads: kHiddenSizeDimKeys) and the trained context when given (else `dims` keeps its own).
inline void read_required_dims(const nlohmann::json& json, LmDims& dims, const std::string& name,
                               const std::string& what) {
  const LmDimKeys& keys = kHiddenSizeDimKeys;
  dims.vocab_size = required_size(json, keys.vocab_size, name, what);
  dims.width = required_size(json, keys.width, name, what);
  dims.layers = required_size(json, keys.layers, name, what);
  dims.heads = required_size(json, keys.heads, name, what);
  if (json.contains(keys.context)) dims.context = integer_key(json, keys.context, name);
}

// A rope_scaling object's type: "rope_type", or the legacy "type" (both, when given, must
// agree); "" when it names none. `where` labels errors.
inline std::string rope_type_of(const nlohmann::json& s, const std::string& where) {
  std::string type;
  for (const char* key : {"rope_type", "type"}) {
    if (!s.contains(key)) continue;
    require(s[key].is_string(), where + ": \"" + key + "\" must be a string");
    require(type.empty() || type == s[key].get<std::string>(),
            where + ": \"rope_type\" and \"type\" disagree");
    type = s[key].get<std::string>();
  }
  return type;
}

// The keys of transformers 5's rope_parameters that are not a scaling's: the base and the
// rotated fraction, which transformers 4 kept at the top level (rope_theta, and
// partial_rotary_factor or GPT-NeoX's rotary_pct). Absent: the config's own keys decide.
struct RopeParameterKeys {
  std::optional<double> theta, partial_rotary_factor;
};

// One rope_scaling (transformers 4) or rope_parameters (5) object's keys, each checked once
// here for the runtime and the RoPE inspector alike, as transformers' rope validation reads
// them: a key that is present must hold a valid value (never a default in its place), and a
// type names what it needs (every scaling but longrope its factor; llama3 its
// original_max_position_embeddings, low_freq_factor and high_freq_factor; longrope its
// short_factor and long_factor). Null values count as absent.
struct RopeScalingKeys {
  std::string type = "none";  // "default" or none named: "none"; "su": "longrope"
  std::string written;        // the type as the config spells it
  double factor = 0.0;        // 0: absent
  long long original = 0;     // original_max_position_embeddings; 0: absent
  std::optional<double> low_freq_factor, high_freq_factor, beta_fast, beta_slow;
  std::optional<double> attention_factor, mscale, mscale_all_dim;
  std::optional<bool> truncate;
  std::vector<double> short_factor, long_factor;
  std::optional<double> theta, partial_rotary_factor;  // rope_parameters' own (transformers 5)
  std::vector<std::string> unknown;                    // keys no scaling reads
};

inline RopeScalingKeys read_rope_scaling_keys(const nlohmann::json& s, const std::string& where) {
  require(s.is_object(), where + " must be an object or null");
  RopeScalingKeys out;
  out.written = rope_type_of(s, where);
  out.type = out.written.empty() || out.written == "default" ? "none"
             : out.written == "su"                           ? "longrope"
                                                             : out.written;
  // The number keys: each positive (the mscales may be 0), finite.
  using Number = std::optional<double> RopeScalingKeys::*;
  static const std::pair<const char*, Number> numbers[] = {
      {"low_freq_factor", &RopeScalingKeys::low_freq_factor},
      {"high_freq_factor", &RopeScalingKeys::high_freq_factor},
      {"beta_fast", &RopeScalingKeys::beta_fast},
      {"beta_slow", &RopeScalingKeys::beta_slow},
      {"attention_factor", &RopeScalingKeys::attention_factor},
      {"mscale", &RopeScalingKeys::mscale},
      {"mscale_all_dim", &RopeScalingKeys::mscale_all_dim},
      {"rope_theta", &RopeScalingKeys::theta},
      {"partial_rotary_factor", &RopeScalingKeys::partial_rotary_factor}};
  for (const auto& item : s.items()) {
    const std::string& key = item.key();
    const nlohmann::json& value = item.value();
    if (key == "rope_type" || key == "type" || value.is_null()) continue;
    const std::string w = where + ": \"" + key + "\"";
    const auto number = [&](bool zero_ok) {
      require(value.is_number(), w + " must be a number, got " + value.dump());
      const double v = value.get<double>();
      require(std::isfinite(v) && (v > 0.0 || (zero_ok && v == 0.0)),
              w + " must be " + (zero_ok ? "non-negative" : "positive") + " and finite, got " +
                  value.dump());
      return v;
    };
    const auto list = [&] {
      require(value.is_array(), w + " must be a list of numbers");
      std::vector<double> v;
      for (const nlohmann::json& x : value) {
        require(x.is_number() && x.get<double>() > 0.0 && std::isfinite(x.get<double>()),
                w + " must hold positive numbers, got " + x.dump());
        v.push_back(x.get<double>());
      }
      return v;
    };
    const auto named = std::find_if(std::begin(numbers), std::end(numbers),
                                    [&](const auto& n) { return key == n.first; });
    if (named != std::end(numbers)) {
      out.*(named->second) = number(key == "mscale" || key == "mscale_all_dim");
    } else if (key == "factor") {
      out.factor = number(false);
    } else if (key == "original_max_position_embeddings") {
      require(value.is_number_integer() && value.get<long long>() > 0,
              w + " must be a positive integer, got " + value.dump());
      out.original = integer_key(s, "original_max_position_embeddings", where);
    } else if (key == "truncate") {
      require(value.is_boolean(), w + " must be true or false");
      out.truncate = value.get<bool>();
    } else if (key == "short_factor" || key == "long_factor") {
      (key == "short_factor" ? out.short_factor : out.long_factor) = list();
    } else {
      out.unknown.push_back(key);
    }
  }
  const std::string& type = out.type;
  const bool needs_factor =
      type == "linear" || type == "ntk" || type == "dynamic" || type == "yarn" || type == "llama3";
  require(!needs_factor || out.factor > 0.0,
          where + ": \"factor\" is required for " + type + " scaling");
  if (type == "llama3") {
    require(out.original > 0,
            where + ": \"original_max_position_embeddings\" is required for llama3 scaling");
    require(out.low_freq_factor && out.high_freq_factor,
            where + ": \"" + (out.low_freq_factor ? "high" : "low") +
                "_freq_factor\" is required for llama3 scaling");
  }
  if (type == "longrope") {
    require(!out.short_factor.empty() && !out.long_factor.empty(),
            where + ": longrope needs \"short_factor\" and \"long_factor\"");
  }
  return out;
}

// The one rotation object of `json` (rope_scaling, or rope_parameters when that is absent or
// null; nullptr when both are), refused when both are given and differ in any key they share
// the meaning of: transformers 5 reads rope_parameters and 4 rope_scaling, so a config whose
// two disagree means one thing to one and another to the other. `layer_type` picks the entry
// of a per-layer-type rope_parameters to compare.
inline const nlohmann::json* rope_scaling_object(const nlohmann::json& json,
                                                 const std::string& name,
                                                 const char* layer_type = "full_attention") {
  const auto given = [&](const char* key) { return json.contains(key) && !json[key].is_null(); };
  if (!given("rope_scaling")) return given("rope_parameters") ? &json["rope_parameters"] : nullptr;
  const nlohmann::json& scaling = json["rope_scaling"];
  if (!given("rope_parameters")) return &scaling;
  const nlohmann::json* parameters = &json["rope_parameters"];
  if (parameters->is_object() && parameters->contains(layer_type)) {
    parameters = &(*parameters)[layer_type];
  }
  // The scaling's keys, its type under one spelling; rope_parameters' base and fraction are
  // the config's top-level keys in transformers 4, not rope_scaling's.
  const auto normal = [&](const nlohmann::json& o, const std::string& where) {
    const RopeScalingKeys keys = read_rope_scaling_keys(o, where);
    nlohmann::json n = nlohmann::json::object();
    for (const auto& [k, v] : o.items()) {
      if (k != "type" && k != "rope_type" && k != "rope_theta" && k != "partial_rotary_factor" &&
          !v.is_null()) {
        n[k] = v;
      }
    }
    n["rope_type"] = keys.type;
    return n;
  };
  const nlohmann::json a = normal(scaling, name + ": rope_scaling");
  const nlohmann::json b = normal(*parameters, name + ": rope_parameters");
  for (const nlohmann::json* one : {&a, &b}) {
    const nlohmann::json& other = one == &a ? b : a;
    for (const auto& [k, v] : one->items()) {
      if (other.contains(k) && other[k] == v) continue;
      throw Error(name + ": rope_scaling and rope_parameters disagree on \"" + k + "\" (" +
                  (a.contains(k) ? a[k].dump() : "absent") + " and " +
                  (b.contains(k) ? b[k].dump() : "absent") +
                  "): transformers 4 reads the first, 5 the second; give one");
    }
  }
  return &scaling;
}

// config.json's rotation settings into a RoPE config's fields (GptNeoxConfig's, LlamaConfig's:
// rope_scaling, rope_factor, rope_original_length, rope_low/high_freq_factor,
// rope_beta_fast/slow, rope_attention_factor, rope_short/long_factor), from rope_scaling
// ({"type" | "rope_type": ..., "factor": f, ...}: transformers 4) or rope_parameters
// (transformers 5: the same keys plus rope_theta and partial_rotary_factor, returned; one
// object, or one per layer type, which must then agree: only Gemma 3 turns its layer types at
// different bases). Null or absent: none. The keys are read_rope_scaling_keys'; those this
// forward pass does not compute (mscale, truncate, ...) are refused.
template <class Config>
RopeParameterKeys read_rope_scaling(const nlohmann::json& json, Config& c,
                                    const std::string& name) {
  const nlohmann::json* found = rope_scaling_object(json, name);
  if (found == nullptr) return {};
  const bool v5 = json.contains("rope_parameters") && found == &json["rope_parameters"];
  const char* key = v5 ? "rope_parameters" : "rope_scaling";
  const nlohmann::json* object = found;
  std::string where = name + ": " + key;
  require(object->is_object(), where + " must be an object or null");
  if (object->contains("full_attention") || object->contains("sliding_attention")) {
    const auto first = object->begin();
    for (const auto& [layer_type, value] : object->items()) {
      require(value == first.value(), where + ": \"" + layer_type + "\" differs from \"" +
                                          first.key() +
                                          "\"; this model runs one rotation on every layer");
    }
    where += "." + first.key();
    object = &first.value();
    require(object->is_object(), where + " must be an object");
  }
  const nlohmann::json& s = *object;
  require(!rope_type_of(s, where).empty() || v5, where + " has no \"rope_type\" (or \"type\")");
  const RopeScalingKeys k = read_rope_scaling_keys(s, where);
  const std::string& type = k.type;
  const bool longrope = type == "longrope";
  const auto unsupported_type = [&] {
    throw Error(where + ": rope type \"" + k.written +
                "\" is not supported (expected default, linear, ntk, dynamic, yarn, llama3 or "
                "longrope)");
  };
  if (k.written == "su" || type == "mrope") unsupported_type();  // the inspector's leniency
  try {
    c.rope_scaling = longrope ? RopeScaling::kNone : parse_rope_scaling(type);
  } catch (const Error&) {
    unsupported_type();
  }
  // Keys this forward pass does not compute, or that belong to another scaling.
  const auto refuse = [&](const std::string& key) {
    throw Error(where + ": \"" + key + "\" is not supported");
  };
  if (!k.unknown.empty()) refuse(k.unknown.front());
  if (k.mscale) refuse("mscale");
  if (k.mscale_all_dim) refuse("mscale_all_dim");
  if (k.truncate) refuse("truncate");
  if (k.attention_factor && !longrope && type != "yarn") refuse("attention_factor");
  if (!k.short_factor.empty() && !longrope) refuse("short_factor");
  if (!k.long_factor.empty() && !longrope) refuse("long_factor");
  if (k.theta && !v5) refuse("rope_theta");
  if (k.partial_rotary_factor && !v5) refuse("partial_rotary_factor");
  if (k.factor > 0.0 || longrope) c.rope_factor = k.factor;  // longrope without one: 0, derived
  if (k.original > 0) c.rope_original_length = k.original;
  if (k.low_freq_factor) c.rope_low_freq_factor = *k.low_freq_factor;
  if (k.high_freq_factor) c.rope_high_freq_factor = *k.high_freq_factor;
  if (k.beta_fast) c.rope_beta_fast = *k.beta_fast;
  if (k.beta_slow) c.rope_beta_slow = *k.beta_slow;
  if (k.attention_factor) c.rope_attention_factor = *k.attention_factor;
  if (longrope) {
    c.rope_longrope.short_factor = k.short_factor;
    c.rope_longrope.long_factor = k.long_factor;
  }
  return {k.theta, k.partial_rotary_factor};
}

// The rope_scaling object read_rope_scaling reads back to the same fields, into `json`
// (nothing when there is no scaling).
template <class Config>
void write_rope_scaling(const Config& c, nlohmann::json& json) {
  if (c.rope_scaling == RopeScaling::kNone && !c.longrope()) return;
  nlohmann::json s = {{"rope_type", c.longrope() ? "longrope" : to_string(c.rope_scaling)}};
  if (c.rope_scaling != RopeScaling::kNone || c.rope_factor > 0.0) s["factor"] = c.rope_factor;
  if (c.rope_original_length > 0) s["original_max_position_embeddings"] = c.rope_original_length;
  if (c.rope_scaling == RopeScaling::kLlama3) {
    s["low_freq_factor"] = c.rope_low_freq_factor;
    s["high_freq_factor"] = c.rope_high_freq_factor;
  }
  if (c.rope_scaling == RopeScaling::kYarn) {
    s["beta_fast"] = c.rope_beta_fast;
    s["beta_slow"] = c.rope_beta_slow;
  }
  if (c.rope_attention_factor > 0.0) s["attention_factor"] = c.rope_attention_factor;
  if (c.longrope()) {
    s["short_factor"] = c.rope_longrope.short_factor;
    s["long_factor"] = c.rope_longrope.long_factor;
  }
  json["rope_scaling"] = s;
}

// config.validate(), its message prefixed by `name`, its field kept.
template <class Config>
void validate_named(const Config& config, const std::string& name) {
  try {
    config.validate();
  } catch (const Error& e) {
    throw Error(name + ": " + e.what(), e.field());
  }
}

inline std::uint64_t mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}
inline std::uint64_t add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}
// A config's size as a count: 0 for a size validate() refuses.
inline std::uint64_t count(long long v) { return v > 0 ? std::uint64_t(v) : 0; }

// Every size positive and H dividing E, the messages naming the architecture's keys.
inline void require_dims(const LmDims& dims, const LmDimKeys& keys) {
  positive_size(dims.vocab_size, keys.vocab_size);
  positive_size(dims.context, keys.context);
  positive_size(dims.width, keys.width);
  positive_size(dims.layers, keys.layers);
  positive_size(dims.heads, keys.heads);
  require(dims.width % dims.heads == 0, std::string(keys.width) + " " + std::to_string(dims.width) +
                                            " is not divisible by " + keys.heads + " " +
                                            std::to_string(dims.heads));
}

// The sizes under the architecture's keys, for its to_json.
inline nlohmann::json dims_json(const LmDims& dims, const LmDimKeys& keys) {
  return {{keys.vocab_size, dims.vocab_size},
          {keys.context, dims.context},
          {keys.width, dims.width},
          {keys.layers, dims.layers},
          {keys.heads, dims.heads}};
}

// `key` (layer_norm_epsilon, layer_norm_eps) must be finite and >= 0.
inline void require_eps(double eps, const char* key) {
  require(std::isfinite(eps) && eps >= 0.0,
          std::string(key) + " must be a non-negative finite number");
}

inline void require_parameter_cap(std::uint64_t parameters, std::uint64_t cap) {
  require(parameters <= cap, "the model would have " + std::to_string(parameters) +
                                 " parameters; the limit is " + std::to_string(cap));
}

}  // namespace poslab::lm_config

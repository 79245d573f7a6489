// What every language-model config (GPT-2's, GPT-NeoX's, Llama's) shares: the preset lookup,
// reading config.json (the object, its integer, number and boolean keys, the required sizes,
// the checks' messages prefixed by the file's name), writing its
// sizes (LmDims) under the architecture's keys, and the checks that run before any weight is
// allocated: the sizes, the norm epsilon, and the parameter count, counted
// with saturating arithmetic (it is compared with a cap, so "huge" is all it must say) and
// held under the cap.
#pragma once

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
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(name + ": not valid JSON: " + e.what());
  }
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

// longrope's short_factor or long_factor: positive numbers, one per rotary pair (which
// rope_frequencies checks against the head).
inline std::vector<double> factor_list(const nlohmann::json& value, const std::string& where) {
  require(value.is_array(), where + " must be a list of numbers");
  std::vector<double> out;
  for (const nlohmann::json& v : value) {
    require(v.is_number() && v.get<double>() > 0.0 && std::isfinite(v.get<double>()),
            where + " must hold positive numbers, got " + v.dump());
    out.push_back(v.get<double>());
  }
  return out;
}

// config.json's rotation settings into a RoPE config's fields (GptNeoxConfig's, LlamaConfig's:
// rope_scaling, rope_factor, rope_original_length, rope_low/high_freq_factor,
// rope_beta_fast/slow, rope_attention_factor, rope_short/long_factor), from rope_scaling
// ({"type" | "rope_type": ..., "factor": f, ...}: transformers 4) or rope_parameters
// (transformers 5: the same keys plus rope_theta and partial_rotary_factor, returned; one
// object, or one per layer type, which must then agree: only Gemma 3 turns its layer types at
// different bases). Null or absent: none. As transformers' rope validation: every scaling but
// longrope names its factor, llama3 its original_max_position_embeddings, low_freq_factor and
// high_freq_factor, longrope its short_factor and long_factor; other keys (mscale, truncate,
// ...) are refused.
template <class Config>
RopeParameterKeys read_rope_scaling(const nlohmann::json& json, Config& c,
                                    const std::string& name) {
  const char* key = "rope_scaling";
  if (!json.contains(key) || json[key].is_null()) key = "rope_parameters";
  if (!json.contains(key) || json[key].is_null()) return {};
  const bool v5 = key == std::string("rope_parameters");
  const nlohmann::json* object = &json[key];
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
  std::string type = rope_type_of(s, where);
  require(!type.empty() || v5, where + " has no \"rope_type\" (or \"type\")");
  if (type.empty() || type == "default") type = "none";
  const bool longrope = type == "longrope";
  try {
    c.rope_scaling = longrope ? RopeScaling::kNone : parse_rope_scaling(type);
  } catch (const Error&) {
    throw Error(where + ": rope type \"" + type +
                "\" is not supported (expected default, linear, ntk, dynamic, yarn, llama3 or "
                "longrope)");
  }
  RopeParameterKeys extra;
  for (const auto& [k, value] : s.items()) {
    if (k == "rope_type" || k == "type") continue;
    if (k == "factor") {
      c.rope_factor = number_key(s, "factor", where);
    } else if (k == "original_max_position_embeddings") {
      c.rope_original_length = integer_key(s, "original_max_position_embeddings", where);
      require(c.rope_original_length > 0,
              where + ": \"original_max_position_embeddings\" must be positive, got " +
                  std::to_string(c.rope_original_length));
    } else if (k == "low_freq_factor") {
      c.rope_low_freq_factor = number_key(s, "low_freq_factor", where);
    } else if (k == "high_freq_factor") {
      c.rope_high_freq_factor = number_key(s, "high_freq_factor", where);
    } else if (k == "beta_fast") {
      c.rope_beta_fast = number_key(s, "beta_fast", where);
    } else if (k == "beta_slow") {
      c.rope_beta_slow = number_key(s, "beta_slow", where);
    } else if (k == "attention_factor" && (longrope || type == "yarn")) {
      c.rope_attention_factor = number_key(s, "attention_factor", where);
    } else if ((k == "short_factor" || k == "long_factor") && longrope) {
      (k == "short_factor" ? c.rope_longrope.short_factor : c.rope_longrope.long_factor) =
          factor_list(value, where + ": \"" + k + "\"");
    } else if (k == "rope_theta" && v5) {
      extra.theta = number_key(s, "rope_theta", where);
    } else if (k == "partial_rotary_factor" && v5) {
      extra.partial_rotary_factor = number_key(s, "partial_rotary_factor", where);
    } else {
      throw Error(where + ": \"" + k + "\" is not supported");
    }
  }
  const bool needs_factor = c.rope_scaling != RopeScaling::kNone;
  require(!needs_factor || s.contains("factor"),
          where + ": \"factor\" is required for " + type + " scaling");
  if (c.rope_scaling == RopeScaling::kLlama3) {
    for (const char* k :
         {"original_max_position_embeddings", "low_freq_factor", "high_freq_factor"}) {
      require(s.contains(k), where + ": \"" + k + "\" is required for llama3 scaling");
    }
  }
  if (longrope) {
    require(!c.rope_longrope.short_factor.empty() && !c.rope_longrope.long_factor.empty(),
            where + ": longrope needs \"short_factor\" and \"long_factor\"");
    if (!s.contains("factor")) c.rope_factor = 0.0;
  }
  return extra;
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

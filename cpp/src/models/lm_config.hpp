// What every language-model config (GPT-2's, GPT-NeoX's) shares: reading config.json (the
// object, its integer keys, the checks' messages prefixed by the file's name), writing its
// sizes (LmDims) under the architecture's keys, and the checks that run before any weight is
// allocated: the sizes, the norm epsilon, and the parameter count, counted
// with saturating arithmetic (it is compared with a cap, so "huge" is all it must say) and
// held under the cap.
#pragma once

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "poslab/base/errors.hpp"
#include "poslab/base/tensor.hpp"
#include "poslab/models/lm_dims.hpp"

namespace poslab::lm_config {

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

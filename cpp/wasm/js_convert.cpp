// JS values ↔ core types for the embind layer (see js_convert.hpp).
#include "js_convert.hpp"

#include <cmath>
#include <cstdio>

#include "poslab/base/errors.hpp"
#include "poslab/positions/position_methods.hpp"

namespace poslab::wasm {

namespace {

constexpr double kMaxSafeInteger = 9007199254740991.0;  // 2^53 − 1, JS's exact integers

// A number as JS writes it (NaN, Infinity), for messages.
std::string format(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  // %g: six significant digits, as a stream prints a double (and no stream linked in).
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

// What a JS value is, for messages: '4', null, an array, a Float32Array, ...
std::string describe(const val& js) {
  if (js.isNumber()) return format(js.as<double>());
  if (js.isString()) {
    const std::string text = js.as<std::string>();
    return "'" + (text.size() > 40 ? text.substr(0, 40) + "…" : text) + "'";
  }
  if (js.isNull()) return "null";
  if (js.isUndefined()) return "undefined";
  if (js.isTrue() || js.isFalse()) return js.isTrue() ? "true" : "false";
  if (js.isArray()) return "an array";
  const std::string type = js.typeOf().as<std::string>();
  if (type == "object") {
    const val constructor = js["constructor"];
    if (constructor.typeOf().as<std::string>() == "function") {
      return "a " + constructor["name"].as<std::string>();
    }
  }
  return "a " + type;
}

bool is_object(const val& js) { return !js.isNull() && js.typeOf().as<std::string>() == "object"; }

// Errors name `field`: the option or argument `what` belongs to ("x" for "x.shape[1]").
double number(const val& js, const std::string& what, const char* field) {
  require(js.isNumber(), field, what + " must be a number (got " + describe(js) + ")");
  return js.as<double>();
}

long long integer(double value, const std::string& what, const char* field) {
  require(std::isfinite(value) && std::trunc(value) == value, field,
          what + " must be an integer (got " + format(value) + ")");
  require(std::fabs(value) <= kMaxSafeInteger, field, what + " " + format(value) + " is too large");
  return static_cast<long long>(value);
}

// Copies `n` elements at `data` into a new JS typed array: slice() of a heap view is a
// memcpy, where `new Float32Array(view)` was measured 15x slower in Node 20.
template <class T>
val copy_out(const T* data, std::size_t n) {
  return val(emscripten::typed_memory_view(n, data)).call<val>("slice");
}

val shape_to_js(const Shape& shape) {
  val out = val::array();
  for (std::size_t d : shape) out.call<void>("push", double(d));
  return out;
}

template <class T>
val tensor_to_js(const Tensor<T>& tensor) {
  val out = val::object();
  out.set("data", copy_out(tensor.ptr(), tensor.size()));
  out.set("shape", shape_to_js(tensor.shape));
  return out;
}

}  // namespace

val field(const val& object, const char* name) {
  if (!is_object(object)) return val::undefined();
  return object[name];
}

double to_number(const val& js, const char* what) { return number(js, what, what); }

long long to_integer(const val& js, const char* what) {
  return integer(number(js, what, what), what, what);
}

std::uint64_t to_seed(const val& js, const char* what) {
  const long long seed = to_integer(js, what);
  require(seed >= 0, what,
          std::string(what) + " must be non-negative (got " + std::to_string(seed) + ")");
  return static_cast<std::uint64_t>(seed);
}

std::string to_string(const val& js, const char* what) {
  require(js.isString(), what, std::string(what) + " must be a string (got " + describe(js) + ")");
  return js.as<std::string>();
}

val to_options(const val& js, const char* what, std::initializer_list<const char*> allowed) {
  static const std::vector<std::string> none;
  return to_options(js, what, allowed, none);
}

val to_options(const val& js, const char* what, std::initializer_list<const char*> allowed,
               const std::vector<std::string>& more) {
  if (js.isUndefined()) return val::object();
  require(is_object(js) && !js.isArray(),
          std::string(what) + " options must be an object (got " + describe(js) + ")");
  const val keys = val::global("Object").call<val>("keys", js);
  const std::size_t n = keys["length"].as<std::size_t>();
  for (std::size_t i = 0; i < n; ++i) {
    const std::string key = keys[i].as<std::string>();
    bool known = false;
    std::string expected;
    for (const char* name : allowed) {
      known = known || key == name;
      expected += (expected.empty() ? "" : ", ") + std::string(name);
    }
    for (const std::string& name : more) {
      known = known || key == name;
      expected += ", " + name;
    }
    require(known, key.c_str(),
            "unknown option '" + key + "' for " + what + " (expected " + expected + ")");
  }
  return js;
}

TensorF to_tensor(const val& js, const char* what) {
  const std::string name(what);
  require(is_object(js), what,
          name + " must be a tensor { data, shape } (got " + describe(js) + ")");
  const val data = js["data"];
  const val shape = js["shape"];
  require(data.instanceof (val::global("Float32Array")), what,
                          name + ".data must be a Float32Array");
  require(shape.isArray(), what, name + ".shape must be an array of sizes");

  Shape dims;
  const std::size_t rank = shape["length"].as<std::size_t>();
  for (std::size_t i = 0; i < rank; ++i) {
    const std::string entry = name + ".shape[" + std::to_string(i) + "]";
    const long long d = integer(number(shape[i], entry, what), entry, what);
    dims.push_back(positive_size(d, entry.c_str(), /*allow_zero=*/true, what));
  }
  const std::size_t n = with_field(what, [&] { return checked_numel(dims, name); });
  const std::size_t length = data["length"].as<std::size_t>();
  require(length == n, what,
          name + ".data has " + std::to_string(length) + " elements but its shape " +
              shape_string(dims) + " needs " + std::to_string(n));
  return TensorF(std::move(dims), emscripten::convertJSArrayToNumberVector<float>(data));
}

std::vector<std::uint8_t> to_bytes(const val& js, const char* what) {
  require(js.instanceof (val::global("Uint8Array")), what,
                        std::string(what) + " must be a Uint8Array (got " + describe(js) + ")");
  with_field(what, [&] { return checked_numel({js["length"].as<std::size_t>()}, what); });
  return emscripten::convertJSArrayToNumberVector<std::uint8_t>(js);
}

double number_field(const val& object, const char* name, double fallback) {
  const val value = field(object, name);
  return value.isUndefined() ? fallback : number(value, name, name);
}

long long integer_field(const val& object, const char* name, long long fallback) {
  const val value = field(object, name);
  return value.isUndefined() ? fallback : to_integer(value, name);
}

std::uint64_t seed_field(const val& object, const char* name) {
  const val value = field(object, name);
  return value.isUndefined() ? 0 : to_seed(value, name);
}

bool to_bool(const val& js, const char* what) {
  require(js.isTrue() || js.isFalse(), what,
          std::string(what) + " must be true or false (got " + describe(js) + ")");
  return js.isTrue();
}

bool bool_field(const val& object, const char* name, bool fallback) {
  const val value = field(object, name);
  return value.isUndefined() ? fallback : to_bool(value, name);
}

std::string string_field(const val& object, const char* name, const std::string& fallback) {
  const val value = field(object, name);
  return value.isUndefined() ? fallback : to_string(value, name);
}

RopeOptions to_rope_options(const val& options) {
  const val js = to_options(
      options, "rope",
      {"method", "style", "scaling", "base", "rotaryFraction", "factor", "originalLength",
       "lowFreqFactor", "highFreqFactor", "betaFast", "betaSlow", "scaleBase", "keepFraction"});
  RopeOptions o;
  if (!field(js, "method").isUndefined()) {
    o = rotation_defaults(string_field(js, "method", ""));
  }
  if (!field(js, "style").isUndefined()) o.style = parse_rope_style(string_field(js, "style", ""));
  if (!field(js, "scaling").isUndefined()) {
    o.scaling = parse_rope_scaling(string_field(js, "scaling", ""));
  }
  o.base = number_field(js, "base", o.base);
  o.rotary_fraction = number_field(js, "rotaryFraction", o.rotary_fraction);
  o.factor = number_field(js, "factor", o.factor);
  o.original_length = integer_field(js, "originalLength", o.original_length);
  o.low_freq_factor = number_field(js, "lowFreqFactor", o.low_freq_factor);
  o.high_freq_factor = number_field(js, "highFreqFactor", o.high_freq_factor);
  o.beta_fast = number_field(js, "betaFast", o.beta_fast);
  o.beta_slow = number_field(js, "betaSlow", o.beta_slow);
  o.scale_base = number_field(js, "scaleBase", o.scale_base);
  o.keep_fraction = number_field(js, "keepFraction", o.keep_fraction);
  return o;
}

T5BucketOptions to_t5_options(const val& options) {
  const val js = to_options(options, "t5", {"bidirectional", "numBuckets", "maxDistance"});
  T5BucketOptions o;
  o.bidirectional = bool_field(js, "bidirectional", o.bidirectional);
  o.num_buckets = integer_field(js, "numBuckets", o.num_buckets);
  o.max_distance = integer_field(js, "maxDistance", o.max_distance);
  return o;
}

void copy_bytes(const val& js, const char* what, std::string& out) {
  require(js.instanceof (val::global("Uint8Array")), what,
                        std::string(what) + " must be a Uint8Array (got " + describe(js) + ")");
  out.resize(js["length"].as<std::size_t>());
  if (out.empty()) return;
  // No allocation between making the view and filling it, so heap growth cannot detach it.
  val(emscripten::typed_memory_view(out.size(), reinterpret_cast<unsigned char*>(&out[0])))
      .call<void>("set", js);
}

val to_js(const TensorF& tensor) { return tensor_to_js(tensor); }
val to_js(const TensorI& tensor) { return tensor_to_js(tensor); }
val to_js(const Tensor<std::uint8_t>& tensor) { return tensor_to_js(tensor); }

val to_js(const std::vector<double>& values) {
  val out = val::object();
  out.set("data", copy_out(values.data(), values.size()));
  out.set("shape", shape_to_js({values.size()}));
  return out;
}

}  // namespace poslab::wasm

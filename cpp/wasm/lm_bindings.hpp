// What the language models' embind surfaces share (gpt2_bindings.cpp, gpt_neox_bindings.cpp,
// llama_bindings.cpp),
// parametrised by an architecture description `Arch`:
//   using Weights = ...;                       the core's weights (an lm_tensor_layout overload)
//   static val config_js(const Config&);       the config as JS: its config.json keys, and what
//                                              is derived from them
//   static val forward(const Weights&, const val& tokens, const val& options);  (forward_call)
//   static Config loader_config(const val& config, const SafetensorsHeader&, const std::string&);
//   static Config config_argument(const val& config);  a config function's argument
//   static val random_js(...);                  a model with random weights
//   static LensModel lens_model(const Weights&, const LensCall&);  the position lens's view
//   static val surgery(const Weights&, const val& tokens, const val& options);  (RoPE models
//                                              only) the position-surgery sweep
// From it: the model handle (config, bytes, dtype, forward, lens, and surgery where the
// architecture has it), the streamed loader's
// handle (received, expected, append, finish), the loader function ({ loader, tensors, config }),
// the config, random and forward-choices functions, registered by register_lm_module. Handles own
// the weights in the wasm heap until JS calls .delete(); every exception becomes { error, field }
// at the boundary (guard.hpp).
#pragma once

#include <emscripten/bind.h>

#include <cctype>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "guard.hpp"
#include "js_convert.hpp"
#include "js_object.hpp"
#include "lens_js.hpp"
#include "poslab/base/precision.hpp"
#include "poslab/io/safetensors.hpp"
#include "poslab/models/lm_dims.hpp"
#include "poslab/models/lm_lens.hpp"
#include "poslab/models/lm_weights.hpp"

namespace poslab::wasm {

// A file size: a non-negative integer (a negative one would wrap to a huge unsigned size).
inline std::uint64_t file_size_of(const val& js) {
  const long long size = to_integer(js, "fileSize");
  require(size >= 0, "fileSize",
          "fileSize must be non-negative (got " + std::to_string(size) + ")");
  return std::uint64_t(size);
}

// A checkpoint's header from its first 8 + N bytes, checked as parse_safetensors_header does.
inline SafetensorsHeader header_of(const val& header_bytes, const val& file_size,
                                   const std::string& name) {
  std::string prefix;
  copy_bytes(header_bytes, "header", prefix);
  return parse_safetensors_header(prefix, file_size_of(file_size), name);
}

// The header's entries as JS: [{ name, dtype, shape, begin, end }].
inline val tensors_js(const SafetensorsHeader& header) {
  val tensors = val::array();
  for (const SafetensorsEntry& e : header.entries) {
    val shape = val::array();
    for (std::size_t dim : e.shape) shape.call<void>("push", double(dim));
    tensors.call<void>("push", js_object({{"name", e.name},
                                          {"dtype", e.dtype_text},
                                          {"shape", shape},
                                          {"begin", double(e.begin)},
                                          {"end", double(e.end)}}));
  }
  return tensors;
}

// A config argument: { preset } → Config::preset; a string → a Hugging Face config.json's text,
// which the core checks as the CLI does. Anything else (null too, as for every options
// argument: js_convert.hpp) is refused, saying what came.
template <class Config>
Config preset_or_json_config(const val& js) {
  if (js.isString()) return Config::from_json(js.as<std::string>(), "config");
  const bool object = !js.isUndefined() && !js.isNull() &&
                      js.typeOf().as<std::string>() == "object" && !js.isArray();
  require(object, "config",
          "config must be { preset } or config.json's text (got " +
              std::string(js.isUndefined() ? "undefined"
                          : js.isNull()    ? "null"
                          : js.isArray()   ? "an array"
                                           : "a non-object") +
              ")");
  const val preset = field(to_options(js, "config", {"preset"}), "preset");
  require(!preset.isUndefined(), "config", "config must be { preset } or config.json's text");
  return Config::preset(to_string(preset, "preset"));
}

// forward's tokens: an Int32Array (field "tokens").
inline std::vector<long long> token_ids(const val& tokens) {
  require(tokens.instanceof (val::global("Int32Array")), "tokens", "tokens must be an Int32Array");
  const std::vector<int> ids = emscripten::convertJSArrayToNumberVector<int>(tokens);
  return std::vector<long long>(ids.begin(), ids.end());
}

// forward's options object (its keys `allowed`) and tokens, with the options every
// architecture takes (precision, trace, topK) read into `o`; the caller reads the others.
struct ForwardCall {
  val options;
  std::vector<long long> ids;
};
template <class Options>
ForwardCall forward_call(const val& tokens, const val& options,
                         std::initializer_list<const char*> allowed, Options& o) {
  ForwardCall call{to_options(options, "forward", allowed), {}};
  call.ids = token_ids(tokens);
  o.precision = parse_precision(
      string_field(call.options, "precision", name_of(kPrecisionNames, o.precision)));
  o.trace = bool_field(call.options, "trace", o.trace);
  o.top_k = integer_field(call.options, "topK", o.top_k);
  return call;
}

// The config's sizes under its architecture's config.json keys (LmDimKeys), which the JS side
// reads.
inline val dims_js(const LmDims& dims, const LmDimKeys& keys) {
  return js_object({{keys.vocab_size, double(dims.vocab_size)},
                    {keys.context, double(dims.context)},
                    {keys.width, double(dims.width)},
                    {keys.layers, double(dims.layers)},
                    {keys.heads, double(dims.heads)}});
}

// What every forward result has: layers [{ attention, ln1Mean, ln1Variance, ln2Mean,
// ln2Variance, residAttnNorm, residMlpNorm }] (empty unless traced), topIds, topProbs and the
// precision it ran in; the caller adds its architecture's outputs.
template <class Result>
val forward_result_js(const Result& r, Precision precision) {
  val layers = val::array();
  for (const auto& layer : r.layers) {
    layers.call<void>("push", js_object({{"attention", to_js(layer.attention)},
                                         {"ln1Mean", to_js(layer.ln_1_mean)},
                                         {"ln1Variance", to_js(layer.ln_1_variance)},
                                         {"ln2Mean", to_js(layer.ln_2_mean)},
                                         {"ln2Variance", to_js(layer.ln_2_variance)},
                                         {"residAttnNorm", to_js(layer.resid_attn_norm)},
                                         {"residMlpNorm", to_js(layer.resid_mlp_norm)}}));
  }
  const std::size_t k = r.top_ids.size();
  return js_object({{"layers", layers},
                    {"topIds", to_js(TensorI({k}, r.top_ids))["data"]},
                    {"topProbs", to_js(TensorF({k}, r.top_probs))["data"]},
                    {"precision", std::string(to_string(precision))}});
}

// A model in the wasm heap. Copies share the weights (embind copies handles by value).
template <class Arch>
class LmModel {
 public:
  using Weights = typename Arch::Weights;
  explicit LmModel(Weights weights)
      : weights_(std::make_shared<const Weights>(std::move(weights))) {}

  val config() const { return Arch::config_js(weights_->config); }
  double bytes() const { return double(weights_->bytes()); }
  // 'F32' | 'F16' | 'BF16' (as the checkpoint stored it, and as it is held) | 'mixed'
  std::string dtype() const {
    std::string held;
    for (const auto& entry : lm_held_tensors(*weights_)) {
      const std::string name = dtype_name(entry.second->dtype);
      if (!held.empty() && held != name) return "mixed";
      held = name;
    }
    return held.empty() ? "F32" : held;
  }
  // tokens: Int32Array; options: the architecture's.
  val forward(val tokens, val options) const {
    return guarded([&] { return Arch::forward(*weights_, tokens, options); });
  }
  // The position lens on tokens (Int32Array): lens.json's report as an object (docs/lens.md).
  // options: { period, seed, shift, localWindow, precision, rope }.
  val lens(val tokens, val options) const {
    return guarded([&] {
      const LensCall call = lens_call(options, "lens", "the model in memory");
      return lens_js(Arch::lens_model(*weights_, call), token_ids(tokens), call.settings);
    });
  }
  // The position-surgery sweep on tokens (Int32Array), architectures with Arch::surgery only:
  // surgery.json's text (docs/surgery.md). options: surgery_js.hpp's SurgeryCall.
  val surgery(val tokens, val options) const {
    return guarded([&] { return Arch::surgery(*weights_, tokens, options); });
  }

 private:
  std::shared_ptr<const Weights> weights_;
};

// { model } for a model's weights.
template <class Arch>
val model_result(typename Arch::Weights weights) {
  return js_object({{"model", LmModel<Arch>(std::move(weights))}});
}

// A checkpoint arriving in chunks: the header (every shard's header) was checked against the
// config, and the weights allocated, when this was made; append() takes the bytes after the
// header in order, and nextFile() moves on to the next shard's.
template <class Arch>
class LmLoading {
 public:
  using Weights = typename Arch::Weights;
  explicit LmLoading(std::shared_ptr<LmLoader<Weights>> loader) : loader_(std::move(loader)) {}

  double received() const { return double(loader_->received()); }
  double expected() const { return double(loader_->expected()); }

  val append(val chunk) {
    return guarded([&] {
      copy_bytes(chunk, "chunk", staging_);
      loader_->append(staging_.data(), staging_.size());
      return val::undefined();
    });
  }

  val next_file() {
    return guarded([&] {
      loader_->next_file();
      return val::undefined();
    });
  }

  val finish() {
    return guarded([&] { return model_result<Arch>(loader_->finish()); });
  }

 private:
  std::shared_ptr<LmLoader<Weights>> loader_;
  std::string staging_;
};

// header: the file's first 8 + N bytes. Returns { loader, tensors: [{ name, dtype, shape,
// begin, end }], config }.
template <class Arch>
val loader_js(val header_bytes, val file_size, val file_name, val config) {
  return guarded([&] {
    const std::string name = to_string(file_name, "name");
    const SafetensorsHeader header = header_of(header_bytes, file_size, name);
    const auto c = Arch::loader_config(config, header, name);
    return js_object({{"loader", LmLoading<Arch>(std::make_shared<LmLoader<typename Arch::Weights>>(
                                     header, c, name))},
                      {"tensors", tensors_js(header)},
                      {"config", Arch::config_js(c)}});
  });
}

// A sharded checkpoint: index, the text of model.safetensors.index.json named `index_name`;
// shards, [{ name, header, fileSize }] for every shard the index names (header: the file's
// first 8 + N bytes). Every shard is checked before the weights are allocated. Returns
// { loader, shards: the shard names in the order their bytes are appended, config }.
template <class Arch>
val sharded_loader_js(val index, val index_name, val shards, val config) {
  return guarded([&] {
    const std::string name = to_string(index_name, "name");
    const SafetensorsIndex parsed = parse_safetensors_index(to_string(index, "index"), name);
    require(shards.isArray(), "shards",
            "shards must be an array of { name, header, fileSize } (one per shard file)");
    const auto shard_header = [&](const std::string& file) {
      const unsigned count = shards["length"].as<unsigned>();
      for (unsigned i = 0; i < count; ++i) {
        const val shard = shards[i];
        if (to_string(shard["name"], "shards[].name") == file) {
          return std::make_pair(file, header_of(shard["header"], shard["fileSize"], file));
        }
      }
      throw Error(name + " names " + file + ", which is not among the shards given", "shards");
    };
    const auto c = Arch::loader_config(config, shard_header(parsed.shards.front()).second, name);
    auto loader = std::make_shared<LmLoader<typename Arch::Weights>>(parsed, name, shard_header, c);
    val order = val::array();
    for (const std::string& file : parsed.shards) order.call<void>("push", file);
    return js_object({{"loader", LmLoading<Arch>(std::move(loader))},
                      {"shards", order},
                      {"config", Arch::config_js(c)}});
  });
}

// { ...config } for a config argument: Arch::config_argument's (its default, when the
// architecture has one), checked.
template <class Arch>
val lm_config_js(val config) {
  return guarded([&] {
    const auto c = Arch::config_argument(config);
    c.validate();
    return Arch::config_js(c);
  });
}

// The names forward's one named choice accepts (GPT-2's position, GPT-NeoX's rope.scaling).
template <const auto& kChoices>
val forward_choices_js() {
  return names_js(kChoices);
}

// Whether an architecture description has the surgery sweep (Arch::surgery).
template <class Arch, class = void>
struct HasSurgery : std::false_type {};
template <class Arch>
struct HasSurgery<Arch, std::void_t<decltype(&Arch::surgery)>> : std::true_type {};

// Everything an architecture adds to the language-model module, its JS names from one prefix:
// classes <Prefix>Model and <Prefix>Loading, functions <prefix>Loader, <prefix>ShardedLoader
// (kSharded), <prefix>Config and <prefix>Random (the prefix's first letter in lower case), and
// forward's choices under `choices_name` (nullptr: another architecture registers the same
// list).
template <class Arch, const auto& kForwardChoices, bool kSharded = true>
void register_lm_module(const std::string& prefix, const char* choices_name) {
  const std::string function_prefix = char(std::tolower(prefix[0])) + prefix.substr(1);
  // embind copies each name when it registers it.
  const auto model = emscripten::class_<LmModel<Arch>>((prefix + "Model").c_str())
                         .function("config", &LmModel<Arch>::config)
                         .function("bytes", &LmModel<Arch>::bytes)
                         .function("dtype", &LmModel<Arch>::dtype)
                         .function("forward", &LmModel<Arch>::forward)
                         .function("lens", &LmModel<Arch>::lens);
  if constexpr (HasSurgery<Arch>::value) model.function("surgery", &LmModel<Arch>::surgery);
  emscripten::class_<LmLoading<Arch>>((prefix + "Loading").c_str())
      .function("received", &LmLoading<Arch>::received)
      .function("expected", &LmLoading<Arch>::expected)
      .function("append", &LmLoading<Arch>::append)
      .function("nextFile", &LmLoading<Arch>::next_file)
      .function("finish", &LmLoading<Arch>::finish);
  emscripten::function((function_prefix + "Loader").c_str(), &loader_js<Arch>);
  if constexpr (kSharded) {
    emscripten::function((function_prefix + "ShardedLoader").c_str(), &sharded_loader_js<Arch>);
  }
  emscripten::function((function_prefix + "Config").c_str(), &lm_config_js<Arch>);
  emscripten::function((function_prefix + "Random").c_str(), &Arch::random_js);
  if (choices_name) emscripten::function(choices_name, &forward_choices_js<kForwardChoices>);
}

}  // namespace poslab::wasm

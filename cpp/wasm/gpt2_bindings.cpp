// The embind surface of GPT-2: a config with its parameter counts, a model handle (random
// init or a checkpoint streamed in chunks by a loader handle) and its traced forward pass.
// Handles own the weights in the wasm heap until JS calls .delete(). Every exception becomes
// { error } at the boundary (guard.hpp); the idiomatic API is web/src/core/gpt2.js.
#include <emscripten/bind.h>

#include <memory>
#include <optional>
#include <string>

#include "guard.hpp"
#include "heap.hpp"
#include "js_convert.hpp"
#include "poslab/gpt2.hpp"

namespace poslab::wasm {
namespace {

// Every argument arrives as a val and is type-checked by js_convert (the rule is there).
using Num = val;
using Str = val;

// undefined → none (read off the checkpoint); { preset } → a preset; a string is a Hugging
// Face config.json's text, which the core checks as the CLI does. Anything else (null too, as
// for every options argument: js_convert.hpp) is refused.
std::optional<Gpt2Config> to_config(const val& js) {
  if (js.isUndefined()) return std::nullopt;
  if (js.isString()) return Gpt2Config::from_json(js.as<std::string>(), "config");
  require(!js.isNull() && js.typeOf().as<std::string>() == "object" && !js.isArray(), "config",
          "config must be { preset } or config.json's text (got " +
              std::string(js.isNull()    ? "null"
                          : js.isArray() ? "an array"
                                         : "a non-object") +
              ")");
  const val preset = field(to_options(js, "config", {"preset"}), "preset");
  require(!preset.isUndefined(), "config", "config must be { preset } or config.json's text");
  return Gpt2Config::preset(to_string(preset, "preset"));
}

val config_to_js(const Gpt2Config& c) {
  const Gpt2ParameterCounts n = gpt2_parameter_counts(c);
  val out = val::object();
  out.set("vocab_size", double(c.vocab_size));
  out.set("n_positions", double(c.n_positions));
  out.set("n_embd", double(c.n_embd));
  out.set("n_layer", double(c.n_layer));
  out.set("n_head", double(c.n_head));
  out.set("layer_norm_epsilon", c.layer_norm_epsilon);
  val block = val::object();
  block.set("ln_1", double(n.ln_1));
  block.set("attn_c_attn", double(n.attn_c_attn));
  block.set("attn_c_proj", double(n.attn_c_proj));
  block.set("ln_2", double(n.ln_2));
  block.set("mlp_c_fc", double(n.mlp_c_fc));
  block.set("mlp_c_proj", double(n.mlp_c_proj));
  val parameters = val::object();
  parameters.set("wte", double(n.wte));
  parameters.set("wpe", double(n.wpe));
  parameters.set("perBlock", block);
  parameters.set("block", double(n.block));
  parameters.set("blocks", double(n.blocks));
  parameters.set("ln_f", double(n.ln_f));
  parameters.set("total", double(n.total));
  out.set("parameters", parameters);
  return out;
}

// A model in the wasm heap. Copies share the weights (embind copies handles by value).
class Gpt2Model {
 public:
  explicit Gpt2Model(Gpt2Weights weights)
      : weights_(std::make_shared<const Gpt2Weights>(std::move(weights))) {}

  val config() const { return config_to_js(weights_->config); }
  double bytes() const { return double(weights_->bytes()); }
  // 'F32' | 'F16' | 'mixed'
  std::string dtype() const {
    bool f16 = false, f32 = false;
    for (const auto& entry : gpt2_named_tensors(*weights_)) {
      (entry.second->dtype == StoredDType::kF16 ? f16 : f32) = true;
    }
    return f16 && f32 ? "mixed" : f16 ? "F16" : "F32";
  }

  // tokens: Int32Array; options: { position, topK, trace, precision }
  val forward(val tokens, val forward_options) const {
    return guarded([&] {
      const val options =
          to_options(forward_options, "forward", {"position", "topK", "trace", "precision"});
      require(tokens.instanceof (val::global("Int32Array")), "tokens",
                                "tokens must be an Int32Array");
      const std::vector<int> ids = emscripten::convertJSArrayToNumberVector<int>(tokens);
      Gpt2Options o;
      o.position = parse_gpt2_position(
          string_field(options, "position", name_of(kGpt2PositionNames, o.position)));
      o.top_k = integer_field(options, "topK", o.top_k);
      o.trace = bool_field(options, "trace", o.trace);
      o.precision = parse_precision(
          string_field(options, "precision", name_of(kPrecisionNames, o.precision)));
      const Gpt2Result r =
          gpt2_forward(*weights_, std::vector<long long>(ids.begin(), ids.end()), o);
      val out = val::object();
      out.set("logits", to_js(r.logits));
      val layers = val::array();
      for (const Gpt2LayerTrace& layer : r.layers) {
        val l = val::object();
        l.set("attention", to_js(layer.attention));
        l.set("ln1Mean", to_js(layer.ln_1_mean));
        l.set("ln1Variance", to_js(layer.ln_1_variance));
        l.set("ln2Mean", to_js(layer.ln_2_mean));
        l.set("ln2Variance", to_js(layer.ln_2_variance));
        l.set("residAttnNorm", to_js(layer.resid_attn_norm));
        l.set("residMlpNorm", to_js(layer.resid_mlp_norm));
        layers.call<void>("push", l);
      }
      out.set("layers", layers);
      const std::size_t k = r.top_ids.size();
      out.set("topIds", to_js(TensorI({k}, r.top_ids))["data"]);
      out.set("topProbs", to_js(TensorF({k}, r.top_probs))["data"]);
      out.set("position", std::string(to_string(o.position)));
      out.set("positionNote", std::string(gpt2_position_note(o.position)));
      out.set("precision", std::string(to_string(o.precision)));
      return out;
    });
  }

 private:
  std::shared_ptr<const Gpt2Weights> weights_;
};

val model_result(Gpt2Weights weights) {
  val out = val::object();
  out.set("model", val(Gpt2Model(std::move(weights))));
  return out;
}

// A checkpoint arriving in chunks: the header was checked (and the weights allocated) when
// this was made; append() takes the bytes after the header in order.
class Gpt2Loading {
 public:
  Gpt2Loading(const SafetensorsHeader& header, const Gpt2Config& config, const std::string& name)
      : loader_(std::make_shared<Gpt2Loader>(header, config, name)) {}

  double received() const { return double(loader_->received()); }
  double expected() const { return double(loader_->expected()); }

  val append(val chunk) {
    return guarded([&] {
      copy_bytes(chunk, "chunk", staging_);
      loader_->append(staging_.data(), staging_.size());
      return val::undefined();
    });
  }

  val finish() {
    return guarded([&] { return model_result(loader_->finish()); });
  }

 private:
  std::shared_ptr<Gpt2Loader> loader_;
  std::string staging_;
};

// A file size: a non-negative integer (a negative one would wrap to a huge unsigned size).
std::uint64_t file_size_of(const val& js) {
  const long long size = to_integer(js, "fileSize");
  require(size >= 0, "fileSize",
          "fileSize must be non-negative (got " + std::to_string(size) + ")");
  return std::uint64_t(size);
}

val gpt2_config_js(val config) {
  return guarded([&] {
    const std::optional<Gpt2Config> c = to_config(config);
    return config_to_js(c ? *c : Gpt2Config::small());
  });
}

val gpt2_random_js(val config, Num seed) {
  return guarded([&] {
    const std::optional<Gpt2Config> c = to_config(config);
    return model_result(gpt2_random_weights(c ? *c : Gpt2Config::small(), to_seed(seed)));
  });
}

val safetensors_header_length_js(val first_8_bytes, Num file_size, Str name) {
  return guarded([&] {
    std::string bytes;
    copy_bytes(first_8_bytes, "first8", bytes);
    return val(
        double(safetensors_header_length(bytes, file_size_of(file_size), to_string(name, "name"))));
  });
}

// header: the file's first 8 + N bytes. Returns { loader, tensors: [{ name, dtype, shape,
// begin, end }], config }.
val gpt2_loader_js(val header_bytes, Num file_size, Str file_name, val config) {
  return guarded([&] {
    std::string prefix;
    copy_bytes(header_bytes, "header", prefix);
    const std::string name = to_string(file_name, "name");
    const SafetensorsHeader header =
        parse_safetensors_header(prefix, file_size_of(file_size), name);
    const std::optional<Gpt2Config> given = to_config(config);
    const Gpt2Config c = given ? *given : Gpt2Config::from_header(header, name);
    val out = val::object();
    out.set("loader", val(Gpt2Loading(header, c, name)));
    val tensors = val::array();
    for (const SafetensorsEntry& e : header.entries) {
      val t = val::object();
      t.set("name", e.name);
      t.set("dtype", e.dtype_text);
      val shape = val::array();
      for (std::size_t dim : e.shape) shape.call<void>("push", double(dim));
      t.set("shape", shape);
      t.set("begin", double(e.begin));
      t.set("end", double(e.end));
      tensors.call<void>("push", t);
    }
    out.set("tensors", tensors);
    out.set("config", config_to_js(c));
    return out;
  });
}

// The position methods forward() accepts (kGpt2PositionNames).
val gpt2_positions_js() { return names_js(kGpt2PositionNames); }

}  // namespace
}  // namespace poslab::wasm

EMSCRIPTEN_BINDINGS(poslab_gpt2) {
  using namespace emscripten;
  using namespace poslab::wasm;
  class_<Gpt2Model>("Gpt2Model")
      .function("config", &Gpt2Model::config)
      .function("bytes", &Gpt2Model::bytes)
      .function("dtype", &Gpt2Model::dtype)
      .function("forward", &Gpt2Model::forward);
  class_<Gpt2Loading>("Gpt2Loading")
      .function("received", &Gpt2Loading::received)
      .function("expected", &Gpt2Loading::expected)
      .function("append", &Gpt2Loading::append)
      .function("finish", &Gpt2Loading::finish);
  function("gpt2Config", &gpt2_config_js);
  function("gpt2Positions", &gpt2_positions_js);
  function("liveHeapBytes", &live_heap_bytes);
  function("gpt2Random", &gpt2_random_js);
  function("safetensorsHeaderLength", &safetensors_header_length_js);
  function("gpt2Loader", &gpt2_loader_js);
}

// The embind surface of GPT-NeoX (Pythia) in the language-model module, beside GPT-2's: a
// config with its parameter count, a model handle (random init or a checkpoint streamed in
// chunks by a loader handle) and its forward pass (logits and/or next-token losses, trace,
// top-k, a RoPE scaling in place of the config's), and which architecture a checkpoint's
// header holds. No math: JS types checked, the core called, owned typed arrays returned.
// Every exception becomes { error, field } (guard.hpp); the idiomatic API is
// web/src/core/gpt-neox.js.
#include <emscripten/bind.h>
#include <emscripten/heap.h>

#include <memory>
#include <string>

#include "guard.hpp"
#include "js_convert.hpp"
#include "poslab/gpt_neox.hpp"
#include "poslab/lm.hpp"

namespace poslab::wasm {
namespace {

using Num = val;
using Str = val;

// { preset } → a preset; a string is a Hugging Face config.json's text, which the core checks
// as the CLI does. A GPT-NeoX checkpoint does not say its head count or rotary settings, so
// there is no "read it off the checkpoint": the config is required.
GptNeoxConfig to_config(const val& js) {
  if (js.isString()) return GptNeoxConfig::from_json(js.as<std::string>(), "config");
  require(!js.isUndefined() && !js.isNull() && js.typeOf().as<std::string>() == "object" &&
              !js.isArray(),
          "config", "config must be { preset } or config.json's text");
  const val preset = field(to_options(js, "config", {"preset"}), "preset");
  require(!preset.isUndefined(), "config", "config must be { preset } or config.json's text");
  return GptNeoxConfig::preset(to_string(preset, "preset"));
}

val config_to_js(const GptNeoxConfig& c) {
  val out = val::object();
  out.set("vocab_size", double(c.vocab_size));
  out.set("hidden_size", double(c.hidden_size));
  out.set("num_hidden_layers", double(c.num_hidden_layers));
  out.set("num_attention_heads", double(c.num_attention_heads));
  out.set("intermediate_size", double(c.intermediate_size));
  out.set("max_position_embeddings", double(c.max_position_embeddings));
  out.set("rotary_pct", c.rotary_pct);
  out.set("rotary_emb_base", c.rotary_emb_base);
  out.set("layer_norm_eps", c.layer_norm_eps);
  out.set("use_parallel_residual", c.use_parallel_residual);
  const RopeOptions rope = c.rope();
  val r = val::object();
  r.set("scaling", to_string(rope.scaling));
  r.set("factor", rope.factor);
  r.set("originalLength", double(rope.original_length));
  r.set("rotaryDim", double(rope_frequencies(c.head_dim(), rope).rotary_dim));
  r.set("base", rope.base);
  out.set("rope", r);
  out.set("parameters", double(c.parameter_count()));
  out.set("json", c.to_json());
  return out;
}

// forward's rope: { scaling, factor, originalLength, lowFreqFactor, highFreqFactor, betaFast,
// betaSlow } in place of the config's rope_scaling, as `poslab lm --rope-*` does: the base,
// pairs and rotated fraction stay the config's, originalLength defaults to
// max_position_embeddings.
RopeOptions to_scaled_rope(const val& options, const GptNeoxConfig& config) {
  const val js = to_options(options, "rope",
                            {"scaling", "factor", "originalLength", "lowFreqFactor",
                             "highFreqFactor", "betaFast", "betaSlow"});
  require(!field(js, "scaling").isUndefined(), "scaling",
          "rope.scaling is required (none, linear, ntk, dynamic, yarn or llama3)");
  const RopeOptions defaults;
  RopeOptions o = config.rope();
  o.scaling = parse_rope_scaling(string_field(js, "scaling", ""));
  o.factor = number_field(js, "factor", defaults.factor);
  o.original_length = integer_field(js, "originalLength", config.max_position_embeddings);
  o.low_freq_factor = number_field(js, "lowFreqFactor", defaults.low_freq_factor);
  o.high_freq_factor = number_field(js, "highFreqFactor", defaults.high_freq_factor);
  o.beta_fast = number_field(js, "betaFast", defaults.beta_fast);
  o.beta_slow = number_field(js, "betaSlow", defaults.beta_slow);
  return o;
}

// A model in the wasm heap. Copies share the weights (embind copies handles by value).
class GptNeoxModel {
 public:
  explicit GptNeoxModel(GptNeoxWeights weights)
      : weights_(std::make_shared<const GptNeoxWeights>(std::move(weights))) {}

  val config() const { return config_to_js(weights_->config); }
  double bytes() const { return double(weights_->bytes()); }
  // 'F32' | 'F16' | 'mixed'
  std::string dtype() const {
    bool f16 = false, f32 = false;
    for (const auto& entry : gpt_neox_named_tensors(*weights_)) {
      (entry.second->dtype == StoredDType::kF16 ? f16 : f32) = true;
    }
    return f16 && f32 ? "mixed" : f16 ? "F16" : "F32";
  }

  // tokens: Int32Array; options: { precision, trace, topK, logits, lossByPosition, rope }
  val forward(val tokens, val forward_options) const {
    return guarded([&] {
      const val options =
          to_options(forward_options, "forward",
                     {"precision", "trace", "topK", "logits", "lossByPosition", "rope"});
      require(tokens.instanceof (val::global("Int32Array")), "tokens",
                                "tokens must be an Int32Array");
      const std::vector<int> ids = emscripten::convertJSArrayToNumberVector<int>(tokens);
      GptNeoxOptions o;
      o.precision = parse_precision(
          string_field(options, "precision", name_of(kPrecisionNames, o.precision)));
      o.trace = bool_field(options, "trace", o.trace);
      o.top_k = integer_field(options, "topK", o.top_k);
      o.logits = bool_field(options, "logits", o.logits);
      o.loss_by_position = bool_field(options, "lossByPosition", o.loss_by_position);
      const val rope = field(options, "rope");
      if (!rope.isUndefined()) o.rope = to_scaled_rope(rope, weights_->config);
      const GptNeoxResult r =
          gpt_neox_forward(*weights_, std::vector<long long>(ids.begin(), ids.end()), o);
      val out = val::object();
      if (o.logits) out.set("logits", to_js(r.logits));
      if (o.loss_by_position) out.set("losses", to_js(r.losses));
      val layers = val::array();
      for (const GptNeoxLayerTrace& layer : r.layers) {
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
      out.set("precision", std::string(to_string(o.precision)));
      const RopeOptions used = o.rope ? *o.rope : weights_->config.rope();
      val scaling = val::object();
      scaling.set("scaling", to_string(used.scaling));
      scaling.set("factor", used.factor);
      scaling.set("originalLength", double(used.original_length));
      out.set("rope", scaling);
      return out;
    });
  }

 private:
  std::shared_ptr<const GptNeoxWeights> weights_;
};

val model_result(GptNeoxWeights weights) {
  val out = val::object();
  out.set("model", val(GptNeoxModel(std::move(weights))));
  return out;
}

// A checkpoint arriving in chunks: the header was checked against the config (and the weights
// allocated) when this was made; append() takes the bytes after the header in order.
class GptNeoxLoading {
 public:
  GptNeoxLoading(const SafetensorsHeader& header, const GptNeoxConfig& config,
                 const std::string& name)
      : loader_(std::make_shared<GptNeoxLoader>(header, config, name)) {}

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
  std::shared_ptr<GptNeoxLoader> loader_;
  std::string staging_;
};

std::uint64_t file_size_of(const val& js) {
  const long long size = to_integer(js, "fileSize");
  require(size >= 0, "fileSize",
          "fileSize must be non-negative (got " + std::to_string(size) + ")");
  return std::uint64_t(size);
}

// The header's entries as JS: [{ name, dtype, shape, begin, end }].
val tensors_js(const SafetensorsHeader& header) {
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
  return tensors;
}

val gpt_neox_config_js(val config) {
  return guarded([&] {
    const GptNeoxConfig c = to_config(config);
    c.validate();
    return config_to_js(c);
  });
}

// dtype 'F16' re-stores every weight as half (rounded to nearest even), as
// `poslab lm-random --dtype F16` writes it.
val gpt_neox_random_js(val config, Num seed, Str dtype) {
  return guarded([&] {
    const std::string d = to_string(dtype, "dtype");
    require(d == "F32" || d == "F16", "dtype", "dtype must be F32 or F16 (got '" + d + "')");
    GptNeoxWeights weights = gpt_neox_random_weights(to_config(config), to_seed(seed));
    if (d == "F16") {
      for (const auto& entry : gpt_neox_named_tensors(weights)) {
        // The pointers are into `weights`, which this function owns.
        auto* tensor = const_cast<StoredTensor*>(entry.second);
        *tensor = StoredTensor::from(tensor->to_float(), StoredDType::kF16);
      }
    }
    return model_result(std::move(weights));
  });
}

// header: the file's first 8 + N bytes. Returns { loader, tensors, config }.
val gpt_neox_loader_js(val header_bytes, Num file_size, Str file_name, val config) {
  return guarded([&] {
    std::string prefix;
    copy_bytes(header_bytes, "header", prefix);
    const std::string name = to_string(file_name, "name");
    const SafetensorsHeader header =
        parse_safetensors_header(prefix, file_size_of(file_size), name);
    const GptNeoxConfig c = to_config(config);
    val out = val::object();
    out.set("loader", val(GptNeoxLoading(header, c, name)));
    out.set("tensors", tensors_js(header));
    out.set("config", config_to_js(c));
    return out;
  });
}

// 'gpt2' | 'gpt_neox' from a checkpoint's first 8 + N bytes (its tensor names).
val lm_architecture_of_checkpoint_js(val header_bytes, Num file_size, Str file_name) {
  return guarded([&] {
    std::string prefix;
    copy_bytes(header_bytes, "header", prefix);
    const std::string name = to_string(file_name, "name");
    const SafetensorsHeader header =
        parse_safetensors_header(prefix, file_size_of(file_size), name);
    return val(std::string(to_string(lm_architecture_of_checkpoint(header, name))));
  });
}

// config.json's model_type: 'gpt2' | 'gpt_neox', or null when the key is absent.
val lm_architecture_of_config_js(Str text, Str file_name) {
  return guarded([&] {
    const auto arch =
        lm_architecture_of_config(to_string(text, "config"), to_string(file_name, "name"));
    return arch ? val(std::string(to_string(*arch))) : val::null();
  });
}

// The RoPE scalings forward's rope.scaling accepts (kRopeScalingNames), 'none' first.
val rope_scalings_js() { return names_js(kRopeScalingNames); }

// The size of the wasm heap (it only grows): the high-water mark a benchmark reports.
double wasm_heap_bytes() { return double(emscripten_get_heap_size()); }

}  // namespace
}  // namespace poslab::wasm

EMSCRIPTEN_BINDINGS(poslab_gpt_neox) {
  using namespace emscripten;
  using namespace poslab::wasm;
  class_<GptNeoxModel>("GptNeoxModel")
      .function("config", &GptNeoxModel::config)
      .function("bytes", &GptNeoxModel::bytes)
      .function("dtype", &GptNeoxModel::dtype)
      .function("forward", &GptNeoxModel::forward);
  class_<GptNeoxLoading>("GptNeoxLoading")
      .function("received", &GptNeoxLoading::received)
      .function("expected", &GptNeoxLoading::expected)
      .function("append", &GptNeoxLoading::append)
      .function("finish", &GptNeoxLoading::finish);
  function("gptNeoxConfig", &gpt_neox_config_js);
  function("gptNeoxRandom", &gpt_neox_random_js);
  function("gptNeoxLoader", &gpt_neox_loader_js);
  function("lmArchitectureOfCheckpoint", &lm_architecture_of_checkpoint_js);
  function("lmArchitectureOfConfig", &lm_architecture_of_config_js);
  function("ropeScalings", &rope_scalings_js);
  function("wasmHeapBytes", &wasm_heap_bytes);
}

// libFuzzer harness for the config.json readers: the same bytes as GPT-2's and as GPT-NeoX's
// config.json, and through the RoPE inspector. Each reader refuses them with a poslab::Error whose
// message starts with the file's name, or returns a config that keeps its header's promises (sizes
// positive and capped, heads dividing the width, eps finite, parameters under the cap; for GPT-NeoX
// a rotation RoPE accepts at every length the forward pass takes, and to_json reading back to the
// same config) and holds the values the text gave. Any other exception is a bug. Run by
// scripts/fuzz.sh (seeds in config_corpus/, tokens in config.dict).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>

#include "poslab/base/errors.hpp"
#include "poslab/models/gpt2.hpp"
#include "poslab/models/gpt_neox.hpp"
#include "poslab/models/rope_config.hpp"
#include "poslab/positions/rope.hpp"

namespace {

using Json = nlohmann::json;
const std::string kName = "fuzz/config.json";

// A broken promise aborts, so libFuzzer keeps the input as a crash artifact; `what` says which.
void check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "config_fuzz: broken property: %s\n", what);
  std::abort();
}

// `name` labels errors: a front-end shows the message alone, so it must say which file.
void check_refusal(const poslab::Error& e) {
  const std::string message = e.what();
  check(
      message.size() > kName.size() + 2 && message.compare(0, kName.size() + 2, kName + ": ") == 0,
      "the error message does not start with the file's name");
}

bool size_ok(long long v) { return v > 0 && std::uint64_t(v) <= poslab::kMaxElements; }

// What the text says for `key` (the reader accepted it, so it has the type the reader wants), or
// `fallback` when the key is absent.
template <class T>
T value_or(const Json& json, const char* key, T fallback) {
  return json.contains(key) ? json.at(key).get<T>() : fallback;
}

void check_gpt2(const poslab::Gpt2Config& c, const Json& json) {
  try {
    c.validate();
  } catch (const poslab::Error&) {
    check(false, "GPT-2: an accepted config fails validate()");
  }
  check(size_ok(c.dims.vocab_size) && size_ok(c.dims.context) && size_ok(c.dims.width) &&
            size_ok(c.dims.layers) && size_ok(c.dims.heads),
        "GPT-2: a size is not positive or past the element cap");
  check(c.dims.width % c.dims.heads == 0, "GPT-2: n_head does not divide n_embd");
  check(std::isfinite(c.layer_norm_epsilon) && c.layer_norm_epsilon >= 0.0,
        "GPT-2: layer_norm_epsilon is not finite and >= 0");
  check(c.parameter_count() <= poslab::kMaxGpt2Parameters, "GPT-2: parameters past the cap");
  check(poslab::gpt2_parameter_counts(c).total == c.parameter_count(),
        "GPT-2: the per-component counts do not add up to parameter_count()");

  // Missing keys take GPT-2 small's values, as transformers does.
  const poslab::Gpt2Config small = poslab::Gpt2Config::small();
  check(c.dims.vocab_size == value_or(json, "vocab_size", small.dims.vocab_size) &&
            c.dims.context == value_or(json, "n_positions", small.dims.context) &&
            c.dims.width == value_or(json, "n_embd", small.dims.width) &&
            c.dims.layers == value_or(json, "n_layer", small.dims.layers) &&
            c.dims.heads == value_or(json, "n_head", small.dims.heads) &&
            c.layer_norm_epsilon == value_or(json, "layer_norm_epsilon", small.layer_norm_epsilon),
        "GPT-2: the config differs from the text");
  // Settings the forward pass does not compute were refused, not ignored.
  check(!json.contains("activation_function") || json.at("activation_function") == "gelu_new" ||
            json.at("activation_function") == "gelu_pytorch_tanh",
        "GPT-2: another activation_function was accepted");
  for (const char* key : {"scale_attn_by_inverse_layer_idx", "reorder_and_upcast_attn"}) {
    check(!json.contains(key) || json.at(key) == false, "GPT-2: an attention variant was accepted");
  }
  check(!json.contains("scale_attn_weights") || json.at("scale_attn_weights") == true,
        "GPT-2: scale_attn_weights false was accepted");
}

void check_gpt_neox(const poslab::GptNeoxConfig& c, const Json& json) {
  try {
    c.validate();
  } catch (const poslab::Error&) {
    check(false, "GPT-NeoX: an accepted config fails validate()");
  }
  check(size_ok(c.dims.vocab_size) && size_ok(c.dims.width) && size_ok(c.dims.layers) &&
            size_ok(c.dims.heads) && size_ok(c.intermediate_size) && size_ok(c.dims.context),
        "GPT-NeoX: a size is not positive or past the element cap");
  check(c.dims.width % c.dims.heads == 0,
        "GPT-NeoX: num_attention_heads does not divide hidden_size");
  check(std::isfinite(c.layer_norm_eps) && c.layer_norm_eps >= 0.0,
        "GPT-NeoX: layer_norm_eps is not finite and >= 0");
  check(c.parameter_count() <= poslab::kMaxGptNeoxParameters, "GPT-NeoX: parameters past the cap");

  // The rotation must hold at every length the forward pass takes (dynamic reads S), not only
  // at the length validate() tries.
  for (const long long total : {0LL, c.dims.context, (long long)poslab::kMaxRopeLmTokens}) {
    poslab::RopeFrequencies f;
    try {
      f = poslab::rope_frequencies(c.head_dim(), c.rope(), total);
    } catch (const poslab::Error&) {
      check(false, "GPT-NeoX: RoPE refuses the accepted config at a length the model takes");
    }
    check(f.rotary_dim >= 2 && f.rotary_dim % 2 == 0 && f.rotary_dim <= c.head_dim() &&
              f.inv_freq.size() == std::size_t(f.rotary_dim / 2),
          "GPT-NeoX: the rotary dim is not even, >= 2 and <= the head width");
    for (const double theta : f.inv_freq) {
      check(std::isfinite(theta) && theta >= 0.0, "GPT-NeoX: a RoPE frequency is not finite");
    }
    check(std::isfinite(f.attention_factor) && f.attention_factor > 0.0,
          "GPT-NeoX: the RoPE attention factor is not finite and positive");
  }

  check(c.dims.vocab_size == json.at("vocab_size").get<long long>() &&
            c.dims.width == json.at("hidden_size").get<long long>() &&
            c.dims.layers == json.at("num_hidden_layers").get<long long>() &&
            c.dims.heads == json.at("num_attention_heads").get<long long>() &&
            c.intermediate_size == json.at("intermediate_size").get<long long>() &&
            c.dims.context == value_or(json, "max_position_embeddings", 2048LL) &&
            c.layer_norm_eps == value_or(json, "layer_norm_eps", 1e-5) &&
            c.use_parallel_residual == value_or(json, "use_parallel_residual", true),
        "GPT-NeoX: the config differs from the text");
  // Either spelling, or the default.
  check(c.rotary_pct == value_or(json, "partial_rotary_factor", value_or(json, "rotary_pct", 0.25)),
        "GPT-NeoX: rotary_pct differs from the text");
  check(c.rotary_emb_base == value_or(json, "rope_theta", value_or(json, "rotary_emb_base", 1e4)),
        "GPT-NeoX: rotary_emb_base differs from the text");

  // to_json is documented to read back to this config.
  const std::string written = c.to_json();
  try {
    check(poslab::GptNeoxConfig::from_json(written, "written").to_json() == written,
          "GPT-NeoX: to_json does not read back to the same config");
  } catch (const poslab::Error&) {
    check(false, "GPT-NeoX: from_json refuses what to_json wrote");
  }
}

// The RoPE inspector: every layer names a scheme it has (or NoPE), every scheme holds R/2
// finite positive frequencies before and after its scaling, a finite attention factor, and the
// report writes as JSON that parses.
void check_rope_report(const poslab::RopeConfigReport& r, const Json&) {
  check(!r.layers.empty(), "inspector: no layers");
  for (const poslab::RopeLayer& l : r.layers) {
    check(l.scheme >= -1 && l.scheme < int(r.schemes.size()),
          "inspector: a layer's scheme is out of range");
  }
  for (const poslab::RopeScheme& s : r.schemes) {
    const std::size_t pairs = s.inv_freq.size();
    check(pairs > 0 && s.rotary_dim == 2 * (long long)pairs && s.inv_freq_scaled.size() == pairs,
          "inspector: frequency lists and the rotary dim disagree");
    for (double theta : s.inv_freq_scaled) {
      check(std::isfinite(theta) && theta > 0.0,
            "inspector: a frequency is not finite and positive");
    }
    check(std::isfinite(s.attention_factor) && s.attention_factor > 0.0,
          "inspector: the attention factor is not finite and positive");
    check(s.rotating_pairs >= 0 && s.rotating_pairs <= (long long)pairs,
          "inspector: more rotating pairs than pairs");
  }
  if (r.mla) {
    check(r.mla->qk_head_dim == r.head_dim && std::isfinite(r.mla->softmax_scale) &&
              r.mla->softmax_scale > 0.0,
          "inspector: MLA's widths or softmax scale are off");
  }
  if (r.temperature) {
    for (double scale : r.temperature->scales) {
      check(std::isfinite(scale), "inspector: a NoPE query scale is not finite");
    }
  }
  if (r.mrope) {
    check(r.mrope->tokens.size() == r.mrope->t.size() && r.mrope->t.size() == r.mrope->w.size(),
          "inspector: M-RoPE's sample lists disagree");
  }
  check(Json::parse(poslab::rope_config_report_json(r)).is_object(),
        "inspector: the report's JSON does not parse");
}

// Runs one reader: a refusal must be a poslab::Error naming the file, an acceptance must keep
// the promises `properties` checks. Anything else escaping the reader is reported, then aborts.
template <class Config>
void read(Config (*read_config)(const std::string&, const std::string&),
          void (*properties)(const Config&, const Json&), const std::string& text) {
  Config config;
  try {
    config = read_config(text, kName);
  } catch (const poslab::Error& e) {
    check_refusal(e);
    return;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "config_fuzz: a reader let a non-poslab exception escape: %s\n", e.what());
    std::abort();
  }
  properties(config, Json::parse(text));  // the text the reader accepted, parsed again
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  read(poslab::Gpt2Config::from_json, check_gpt2, text);
  read(poslab::GptNeoxConfig::from_json, check_gpt_neox, text);
  read(
      +[](const std::string& t, const std::string& name) {
        return poslab::inspect_rope_config(t, name);
      },
      check_rope_report, text);
  return 0;
}

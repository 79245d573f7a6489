// The embind surface of the core: one function per capability, each converting its JS
// arguments (js_convert.hpp), calling the core and returning fresh JS results, with every
// exception turned into { error } at the boundary (guard.hpp). No math lives here. The
// idiomatic API (option objects, defaults, validation, PosLabError) is web/src/core/poslab.js.
#include <emscripten/bind.h>
#include <emscripten/heap.h>

#include <string>

#include "guard.hpp"
#include "heap.hpp"
#include "js_convert.hpp"
#include "js_object.hpp"
#include "poslab/fast/fast.hpp"
#include "poslab/positions/position_methods.hpp"
#include "poslab/positions/score_bias_tensor.hpp"
#include "poslab/poslab.hpp"

namespace poslab::wasm {
namespace {

// Every argument arrives as a val, numbers too: embind's number conversion accepts "4", null
// and true, truncates 3.7 and zeroes NaN, so js_convert checks the JS value itself (the rule
// is in js_convert.hpp).
using Num = val;
using Str = val;

// ---- Absolute and relative position tables ----

val sinusoidal_js(Num length, Num dim, Num base, Str layout, Num offset) {
  return guarded([&] {
    return to_js(fast::sinusoidal_table(
        to_integer(length, "length"), to_integer(dim, "dim"), to_number(base, "base"),
        parse_sinusoidal_layout(to_string(layout, "layout")), to_integer(offset, "offset")));
  });
}

val learned_js(Num length, Num dim, Num seed, Num std) {
  return guarded([&] {
    return to_js(learned_table(to_integer(length, "length"), to_integer(dim, "dim"), to_seed(seed),
                               to_number(std, "std")));
  });
}

val shaw_indices_js(Num query_length, Num key_length, Num max_distance) {
  return guarded([&] {
    return to_js(shaw_indices(to_integer(query_length, "queryLength"),
                              to_integer(key_length, "keyLength"),
                              to_integer(max_distance, "maxDistance")));
  });
}

val shaw_js(Num query_length, Num key_length, Num max_distance, Num dim, Num seed, Num std) {
  return guarded([&] {
    return to_js(shaw_embeddings(to_integer(query_length, "queryLength"),
                                 to_integer(key_length, "keyLength"),
                                 to_integer(max_distance, "maxDistance"), to_integer(dim, "dim"),
                                 to_seed(seed), to_number(std, "std")));
  });
}

val t5_buckets_js(Num query_length, Num key_length, val options) {
  return guarded([&] {
    return to_js(t5_buckets(to_integer(query_length, "queryLength"),
                            to_integer(key_length, "keyLength"), to_t5_options(options)));
  });
}

val t5_bias_js(Num heads, Num query_length, Num key_length, val options, Num seed) {
  return guarded([&] {
    return to_js(t5_bias(to_integer(heads, "heads"), to_integer(query_length, "queryLength"),
                         to_integer(key_length, "keyLength"), to_t5_options(options),
                         to_seed(seed)));
  });
}

// multiHeadAttention's keys of the score biases: each one's name (its options) and <name>Seed.
std::vector<std::string> bias_option_keys() {
  std::vector<std::string> keys;
  for (const PositionMethodInfo& m : kPositionMethods) {
    if (m.term == BiasTerm::kNone || !supports(m.method, kSupportBias)) continue;
    keys.push_back(m.name);
    keys.push_back(std::string(m.name) + "Seed");
  }
  return keys;
}

// A score-bias method's options object: the row's option names (position_methods.hpp) and
// bidirectional, each optional; an absent field keeps the row's default.
ScoreBias to_score_bias(PositionMethod method, const val& options, std::uint64_t seed) {
  ScoreBias bias = score_bias_defaults(method);
  bias.seed = seed;
  const PositionMethodInfo& info = position_method_info(method);
  std::vector<std::string> names;
  for (std::size_t k = 0; k < info.option_count; ++k) names.push_back(info.options[k].name);
  const val js = to_options(options, info.name, {"bidirectional"}, names);
  for (std::size_t k = 0; k < info.option_count; ++k) {
    bias.options[k] = number_field(js, info.options[k].name, bias.options[k]);
  }
  bias.bidirectional = bool_field(js, "bidirectional", false);
  return bias;
}

// Any score bias of the table (H, Lq, Lk): its options under the row's names (to_score_bias).
val score_bias_js(Str method, Num heads, Num query_length, Num key_length, Num offset, val options,
                  Num seed) {
  return guarded([&] {
    const ScoreBias bias =
        to_score_bias(parse_position_bias(to_string(method, "method")), options, to_seed(seed));
    return to_js(
        score_bias_tensor(bias, to_integer(heads, "heads"), to_integer(query_length, "queryLength"),
                          to_integer(key_length, "keyLength"), to_integer(offset, "offset")));
  });
}

val alibi_slopes_js(Num heads) {
  return guarded([&] { return to_js(alibi_slopes(to_integer(heads, "heads"))); });
}

val alibi_js(Num heads, Num query_length, Num key_length) {
  return guarded([&] {
    return to_js(alibi_bias(to_integer(heads, "heads"), to_integer(query_length, "queryLength"),
                            to_integer(key_length, "keyLength")));
  });
}

// ---- RoPE ----

val rope_frequencies_js(Num head_dim, Num total_length, val rope) {
  return guarded([&] {
    const RopeFrequencies f =
        rope_frequencies(to_integer(head_dim, "headDim"), to_rope_options(rope),
                         to_integer(total_length, "totalLength"));
    return js_object({{"invFreq", to_js(f.inv_freq)},
                      {"attentionFactor", f.attention_factor},
                      {"rotaryDim", double(f.rotary_dim)}});
  });
}

// A decaying rotation scales x as queries (ζ^e) or, with key, as keys (ζ^−e).
val rope_js(val x, Num offset, val key, val rope) {
  return guarded([&] {
    const RotationSide side = to_bool(key, "key") ? RotationSide::kKey : RotationSide::kQuery;
    return to_js(fast::rope_apply(to_tensor(x, "x"), to_rope_options(rope),
                                  to_integer(offset, "offset"), side));
  });
}

val rope_decay_js(Num head_dim, Num max_distance, val rope) {
  return guarded([&] {
    return to_js(rope_decay(to_integer(head_dim, "headDim"),
                            to_integer(max_distance, "maxDistance"), to_rope_options(rope)));
  });
}

val rope_wavelengths_js(Num head_dim, Num total_length, val rope) {
  return guarded([&] {
    return to_js(rope_wavelengths(to_integer(head_dim, "headDim"), to_rope_options(rope),
                                  to_integer(total_length, "totalLength")));
  });
}

val wavelengths_js(Num dim, Num base) {
  return guarded([&] {
    return to_js(sinusoidal_wavelengths(to_integer(dim, "dim"), to_number(base, "base")));
  });
}

// ---- Attention ----

// The mask of an options object: { mask: string, offset? }.
Mask mask_field(const val& options) {
  Mask mask = parse_mask(string_field(options, "mask", "none"));
  mask.offset = integer_field(options, "offset", 0);
  return mask;
}

// options: { queries, keys, mask: string, keyPadding?: Uint8Array, offset? } → (Lq, Lk) Uint8Array
val attention_mask_js(val mask_options) {
  return guarded([&] {
    const val options = to_options(mask_options, "attentionMask",
                                   {"queries", "keys", "mask", "keyPadding", "offset"});
    std::vector<std::uint8_t> padding;
    if (!field(options, "keyPadding").isUndefined()) {
      padding = to_bytes(field(options, "keyPadding"), "keyPadding");
    }
    return to_js(attention_mask(integer_field(options, "queries", -1),
                                integer_field(options, "keys", -1), mask_field(options), padding));
  });
}

// options: { mask: string, offset?, scale?, keyPadding?: Uint8Array, bias?: tensor,
// returnWeights }
val attention_js(val q, val k, val v, val attention_options) {
  return guarded([&] {
    const val options =
        to_options(attention_options, "attention",
                   {"mask", "offset", "scale", "keyPadding", "bias", "returnWeights"});
    AttentionOptions o;
    o.mask = mask_field(options);
    if (!field(options, "scale").isUndefined()) o.scale = number_field(options, "scale", 0.0);
    if (!field(options, "keyPadding").isUndefined()) {
      o.key_padding = to_bytes(field(options, "keyPadding"), "keyPadding");
    }
    TensorF bias;
    if (!field(options, "bias").isUndefined()) {
      bias = to_tensor(field(options, "bias"), "bias");
      o.bias = &bias;
    }
    o.return_weights = bool_field(options, "returnWeights", true);
    const AttentionResult r =
        fast::attention(to_tensor(q, "q"), to_tensor(k, "k"), to_tensor(v, "v"), o);
    val out = js_object({{"output", to_js(r.output)}});
    if (o.return_weights) out.set("weights", to_js(r.weights));
    return out;
  });
}

// options: { heads, seed, mask, keyPadding?, customMask?: Uint8Array (L·L), rope?: object,
// bias: 'none'|'alibi'|'t5', t5?, t5Seed, scale? }
val multi_head_attention_js(val x, val mha_options) {
  return guarded([&] {
    const val options =
        to_options(mha_options, "multiHeadAttention",
                   {"heads", "seed", "mask", "keyPadding", "customMask", "rope", "bias", "scale"},
                   bias_option_keys());
    const TensorF input = to_tensor(x, "x");
    require(input.ndim() == 2, "x", "x must be (L, D), got " + shape_string(input.shape));
    MultiHeadOptions o;
    o.num_heads = integer_field(options, "heads", o.num_heads);
    o.mask = parse_mask(string_field(options, "mask", "none"));
    if (!field(options, "keyPadding").isUndefined()) {
      o.key_padding = to_bytes(field(options, "keyPadding"), "keyPadding");
    }
    if (!field(options, "customMask").isUndefined()) {
      o.custom_mask = to_bytes(field(options, "customMask"), "customMask");
    }
    if (!field(options, "rope").isUndefined()) o.rope = to_rope_options(field(options, "rope"));
    // Each bias's options sit under its name ({ t5: { numBuckets } }), its seed under
    // <name>Seed (t5Seed); every one given is checked, the chosen one used.
    const PositionBias method = parse_position_bias(string_field(options, "bias", "none"));
    o.bias = score_bias_defaults(method);
    for (const PositionMethodInfo& m : kPositionMethods) {
      if (m.term == BiasTerm::kNone || !supports(m.method, kSupportBias)) continue;
      const std::string name = m.name;
      const ScoreBias bias = to_score_bias(m.method, field(options, name.c_str()),
                                           seed_field(options, (name + "Seed").c_str()));
      if (m.method == method) o.bias = bias;
    }
    if (!field(options, "scale").isUndefined()) o.scale = number_field(options, "scale", 0.0);
    const MultiHeadWeights w =
        random_multihead_weights(static_cast<long long>(input.dim(1)), seed_field(options, "seed"));
    const MultiHeadResult r = multihead_attention(input, w, o);
    val out = js_object({{"output", to_js(r.output)},
                         {"weights", to_js(r.weights)},
                         {"scores", to_js(r.scores)},
                         {"q", to_js(r.q)},
                         {"k", to_js(r.k)},
                         {"v", to_js(r.v)},
                         {"heads", to_js(r.heads)}});
    if (o.bias.method != PositionBias::kNone) out.set("bias", to_js(r.bias));
    return out;
  });
}

// ---- Norms and analysis ----

// gamma, beta: tensors (D,) or undefined.
val layer_norm_js(val x, Num eps, val gamma, val beta) {
  return guarded([&] {
    const TensorF g = gamma.isUndefined() ? TensorF() : to_tensor(gamma, "gamma");
    const TensorF b = beta.isUndefined() ? TensorF() : to_tensor(beta, "beta");
    return to_js(layer_norm(to_tensor(x, "x"), to_number(eps, "eps"),
                            gamma.isUndefined() ? nullptr : &g, beta.isUndefined() ? nullptr : &b));
  });
}

val rms_norm_js(val x, Num eps, val gamma) {
  return guarded([&] {
    const TensorF g = gamma.isUndefined() ? TensorF() : to_tensor(gamma, "gamma");
    return to_js(
        rms_norm(to_tensor(x, "x"), to_number(eps, "eps"), gamma.isUndefined() ? nullptr : &g));
  });
}

val similarity_js(val x, Str metric) {
  return guarded([&] {
    return to_js(
        similarity_matrix(to_tensor(x, "x"), parse_similarity_metric(to_string(metric, "metric"))));
  });
}

val similarity_by_offset_js(val x, Str metric) {
  return guarded([&] {
    return to_js(similarity_by_offset(to_tensor(x, "x"),
                                      parse_similarity_metric(to_string(metric, "metric"))));
  });
}

val offset_matrix_js(Num dim, Num k, Num base) {
  return guarded([&] {
    return to_js(
        offset_matrix(to_integer(dim, "dim"), to_integer(k, "k"), to_number(base, "base")));
  });
}

// ---- Names and defaults of the core ----

// The table of position methods (position_methods.hpp), one object a row, for the page's
// method lists: name, aliases, kind, where it runs, its options and a one-line summary.
val position_methods_js() {
  val out = val::array();
  for (const PositionMethodInfo& m : kPositionMethods) {
    val aliases = val::array();
    if (*m.alias != '\0') aliases.call<void>("push", std::string(m.alias));
    val support = val::object();
    for (const auto& bit : kPositionSupportNames)
      support.set(bit.name, (m.support & bit.value) != 0);
    val options = val::array();
    for (std::size_t k = 0; k < m.option_count; ++k) {
      const PositionOption& o = m.options[k];
      options.call<void>("push", js_object({{"name", std::string(o.name)},
                                            {"default", o.default_value},
                                            {"min", o.min},
                                            {"max", o.max},
                                            {"about", std::string(o.about)}}));
    }
    val row = js_object({{"name", std::string(m.name)},
                         {"aliases", aliases},
                         {"kind", std::string(name_of(kPositionKindNames, m.kind))},
                         {"support", support},
                         {"options", options},
                         {"summary", std::string(m.summary)}});
    if (m.kind == PositionKind::kRotation)
      row.set("pairs", std::string(name_of(kRopeStyleNames, m.pairs)));
    out.call<void>("push", row);
  }
  return out;
}

// Every name list of the core (names.hpp tables), by the JS option it fills.
val names_all_js() {
  return js_object({{"ropeStyles", names_js(kRopeStyleNames)},
                    {"ropeScalings", names_js(kRopeScalingNames)},
                    {"masks", names_js(kMaskNames)},
                    {"metrics", names_js(kSimilarityMetricNames)},
                    {"layouts", names_js(kSinusoidalLayoutNames)},
                    {"positionBiases", names_js(kPositionBiasNames)},
                    {"gpt2Positions", names_js(kGpt2PositionNames)},
                    {"positionMethods", position_methods_js()}});
}

// The core's defaults, under the JS option names they fill.
val defaults_js() {
  const RopeOptions rope;
  const T5BucketOptions t5;
  const MultiHeadOptions mha;
  return js_object(
      {{"base", defaults::kBase},
       {"layout", std::string(name_of(kSinusoidalLayoutNames, SinusoidalLayout::kInterleaved))},
       {"std", defaults::kLearnedStd},
       {"eps", defaults::kNormEps},
       {"metric", std::string(name_of(kSimilarityMetricNames, SimilarityMetric::kCosine))},
       {"mask", format_mask(Mask{})},
       {"offset", double(Mask{}.offset)},
       {"heads", double(mha.num_heads)},
       {"bias", std::string(name_of(kPositionBiasNames, mha.bias.method))},
       {"seed", 0.0},
       {"rope", js_object({{"style", std::string(name_of(kRopeStyleNames, rope.style))},
                           {"scaling", std::string(name_of(kRopeScalingNames, rope.scaling))},
                           {"base", rope.base},
                           {"rotaryFraction", rope.rotary_fraction},
                           {"factor", rope.factor},
                           {"originalLength", double(rope.original_length)},
                           {"lowFreqFactor", rope.low_freq_factor},
                           {"highFreqFactor", rope.high_freq_factor},
                           {"betaFast", rope.beta_fast},
                           {"betaSlow", rope.beta_slow}})},
       {"t5", js_object({{"bidirectional", t5.bidirectional},
                         {"numBuckets", double(t5.num_buckets)},
                         {"maxDistance", double(t5.max_distance)}})}});
}

// ---- About this build ----

std::string simd_target_js() { return fast::simd_target(); }
double heap_bytes_js() { return double(emscripten_get_heap_size()); }
double max_elements_js() { return double(kMaxElements); }

}  // namespace
}  // namespace poslab::wasm

EMSCRIPTEN_BINDINGS(poslab) {
  using namespace emscripten;
  using namespace poslab::wasm;
  function("sinusoidal", &sinusoidal_js);
  function("learned", &learned_js);
  function("shawIndices", &shaw_indices_js);
  function("shaw", &shaw_js);
  function("t5Buckets", &t5_buckets_js);
  function("t5Bias", &t5_bias_js);
  function("alibiSlopes", &alibi_slopes_js);
  function("alibi", &alibi_js);
  function("scoreBias", &score_bias_js);
  function("ropeFrequencies", &rope_frequencies_js);
  function("rope", &rope_js);
  function("ropeDecay", &rope_decay_js);
  function("ropeWavelengths", &rope_wavelengths_js);
  function("wavelengths", &wavelengths_js);
  function("attention", &attention_js);
  function("multiHeadAttention", &multi_head_attention_js);
  function("attentionMask", &attention_mask_js);
  function("names", &names_all_js);
  function("defaults", &defaults_js);
  function("layerNorm", &layer_norm_js);
  function("rmsNorm", &rms_norm_js);
  function("similarity", &similarity_js);
  function("similarityByOffset", &similarity_by_offset_js);
  function("offsetMatrix", &offset_matrix_js);
  function("simdTarget", &simd_target_js);
  function("heapBytes", &heap_bytes_js);
  function("liveHeapBytes", &live_heap_bytes);
  function("maxElements", &max_elements_js);
}

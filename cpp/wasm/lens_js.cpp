// The position lens at the JS boundary (lens_js.hpp). Glue run once per call: built for
// size (-Oz, cpp/wasm/CMakeLists.txt) in both modules that carry it.
#include "lens_js.hpp"

#include "js_object.hpp"
#include "poslab/base/errors.hpp"
#include "poslab/base/names.hpp"
#include "surgery_js.hpp"

namespace poslab::wasm {
namespace {

val float_array(const std::vector<float>& v) { return to_js(TensorF({v.size()}, v))["data"]; }

val lens_head_js(const LensHead& h) {
  val out = js_object({{"layer", double(h.layer)},
                       {"head", double(h.head)},
                       {"role", std::string(name_of(kHeadRoleNames, h.role))},
                       {"scores", js_object({{"sink", h.scores.sink},
                                             {"previous_token", h.scores.previous_token},
                                             {"induction", h.scores.induction},
                                             {"local", h.scores.local}})},
                       {"distance_profile", float_array(h.distance_profile)}});
  if (!h.pair_energy.empty()) {
    js_set(out, {{"pair_energy", float_array(h.pair_energy)},
                 {"turning_share", h.turning_share},
                 {"bands", std::string(h.positional ? "positional" : "semantic")}});
  }
  return out;
}

val report_js(const LensReport& r) {
  const HeadRoleThresholds& t = r.thresholds;
  val counts = val::object();
  for (const auto& role : kHeadRoleNames) counts.set(role.name, r.count(role.value));
  val heads = val::array();
  for (const LensHead& h : r.heads) heads.call<void>("push", lens_head_js(h));
  val shift = val::null(), shuffle = val::null(), bands = val::null();
  if (r.shift) {
    shift = js_object({{"k", double(r.shift->k)},
                       {"max_abs_logit_change", r.shift->change.max_abs_change},
                       {"max_abs_logit", r.shift->change.max_abs},
                       {"relative_change", r.shift->change.relative()},
                       {"invariant_expected", r.shift->invariant_expected}});
  }
  if (r.shuffle) {
    const LensShuffle& s = *r.shuffle;
    shuffle = js_object({{"loss_by_position", js_object({{"index", to_js(s.index)["data"]},
                                                         {"shuffled", to_js(s.shuffled)["data"]},
                                                         {"constant", to_js(s.constant)["data"]}})},
                         {"mean_loss", js_object({{"index", LensShuffle::mean(s.index)},
                                                  {"shuffled", LensShuffle::mean(s.shuffled)},
                                                  {"constant", LensShuffle::mean(s.constant)}})},
                         {"seed", double(r.seed)}});
  }
  if (r.bands) {
    const LensBands& b = *r.bands;
    val layers = val::null();
    if (!b.layers.empty()) layers = val::array();
    for (const LensPairs& p : b.layers) {
      layers.call<void>("push", js_object({{"inv_freq", to_js(p.inv_freq)["data"]},
                                           {"wavelength", to_js(p.wavelength)["data"]},
                                           {"uniform_share", p.uniform_share},
                                           {"positional_share", p.positional_share}}));
    }
    bands = js_object({{"inv_freq", to_js(b.inv_freq)["data"]},
                       {"wavelength", to_js(b.wavelength)["data"]},
                       {"layers", layers},
                       {"trained_context", double(b.trained_context)},
                       {"uniform_share", b.uniform_share},
                       {"positional_threshold", t.positional},
                       {"positional_share", b.positional_share},
                       {"positional_heads", b.positional_heads},
                       {"semantic_heads", int(r.heads.size()) - b.positional_heads}});
  }
  return js_object(
      {{"weights", r.weights},
       {"tokens", double(r.tokens)},
       {"precision", r.precision},
       {"induction", js_object({{"period", double(r.period)}, {"seed", double(r.seed)}})},
       {"thresholds", js_object({{"sink", t.sink},
                                 {"previous_token", t.previous_token},
                                 {"induction", t.induction},
                                 {"local", t.local},
                                 {"local_window", double(t.local_window)}})},
       {"role_counts", counts},
       {"shift", shift},
       {"shuffle", shuffle},
       {"rope_bands", bands},
       {"heads", heads}});
}

}  // namespace

// For a model with no rotation to scale (GPT-2, the lab's): refuses `rope`.
void refuse_rope(const val& rope, const char* model) {
  require(rope.isUndefined(), "rope",
          std::string(model) + " has no rotation to scale: rope is for RoPE language models");
}

void refuse_surgery(const PositionSurgery& surgery, const char* model) {
  require(surgery.empty(), "surgery",
          std::string(model) +
              " learns its positions: position surgery is for the RoPE models (GPT-NeoX, the "
              "Llama family) and the lab's checkpoints");
}

LensCall lens_call(const val& options, const char* function, const std::string& weights) {
  const val o =
      to_options(options, function,
                 {"period", "seed", "shift", "localWindow", "precision", "rope", "surgery"});
  LensSettings s;
  s.period = integer_field(o, "period", 0);
  s.seed = integer_field(o, "seed", 0);
  s.shift = integer_field(o, "shift", -1);
  s.thresholds.local_window = integer_field(o, "localWindow", s.thresholds.local_window);
  require(s.period >= 0, "period", "period must be at least 1 (or 0: half the text)");
  require(s.seed >= 0, "seed", "seed must be non-negative");
  require(s.shift >= -1, "shift", "shift must be non-negative (or -1: the text's length)");
  require(s.thresholds.local_window >= 1, "localWindow", "localWindow must be at least 1");
  s.weights = weights;
  return {s, parse_precision(string_field(o, "precision", to_string(Precision::kFloat))),
          field(o, "rope"), to_surgery(field(o, "surgery"))};
}

LensMapCall lens_map_call(const val& options, const char* function) {
  const val o = to_options(options, function, {"layer", "head", "rope", "surgery"});
  return {integer_field(o, "layer", 0), integer_field(o, "head", 0), field(o, "rope"),
          to_surgery(field(o, "surgery"))};
}

val lens_js(const LensModel& model, const std::vector<long long>& tokens,
            const LensSettings& settings) {
  return report_js(lens_report(model, tokens, settings));
}

val lens_map_js(const LensModel& model, const std::vector<long long>& tokens,
                const LensMapCall& call) {
  const TensorF map = lens_attention(model, tokens, call.layer, call.head);
  return js_object({{"size", double(map.dim(0))}, {"attention", to_js(map)["data"]}});
}

}  // namespace poslab::wasm

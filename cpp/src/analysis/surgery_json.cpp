// surgery.json (poslab/analysis/surgery_sweep.hpp): the report's fields, documented in
// docs/surgery.md. The wasm bindings hand the same text to JS.
#include <nlohmann/json.hpp>

#include "poslab/analysis/surgery_sweep.hpp"

namespace poslab {
namespace {

nlohmann::json optional_number(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json params_json(const Intervention& i) {
  const PositionSurgery& s = i.surgery;
  nlohmann::json p = nlohmann::json::object();
  if (!s.rope_zero_pairs.empty()) {
    nlohmann::json ranges = nlohmann::json::array();
    for (const PairRange& r : s.rope_zero_pairs) ranges.push_back({r.first, r.last});
    p["rope_zero_pairs"] = ranges;
  }
  const auto heads = [](const std::vector<HeadRef>& refs) {
    nlohmann::json list = nlohmann::json::array();
    for (const HeadRef& h : refs) list.push_back({h.layer, h.head});
    return list;
  };
  if (!s.nope_layers.empty()) p["nope_layers"] = s.nope_layers;
  if (!s.nope_heads.empty()) p["nope_heads"] = heads(s.nope_heads);
  if (s.rope_base != 0.0) p["rope_base"] = s.rope_base;
  if (s.rope_local_base != 0.0) p["rope_local_base"] = s.rope_local_base;
  if (!s.ablate_heads.empty()) p["ablate_heads"] = heads(s.ablate_heads);
  if (i.fraction >= 0.0) p["fraction"] = i.fraction;
  if (i.head) {
    p["layer"] = i.head->layer;
    p["head"] = i.head->head;
  }
  if (i.layer >= 0) p["layer"] = i.layer;
  return p;
}

nlohmann::json intervention_json(const InterventionResult& r) {
  nlohmann::json j = {{"name", r.intervention.name},
                      {"kind", r.intervention.kind},
                      {"params", params_json(r.intervention)},
                      {"loss_mean", r.loss_mean},
                      {"delta_mean", r.delta_mean},
                      {"delta_ci", {r.delta_ci_low, r.delta_ci_high}},
                      {"delta_within_context", optional_number(r.delta_within_context)},
                      {"delta_past_context", optional_number(r.delta_past_context)},
                      {"loss_by_position", r.loss_by_position}};
  if (r.lens) {
    const LensHead& h = *r.lens;
    j["lens"] = {
        {"role", name_of(kHeadRoleNames, h.role)},
        {"scores",
         {{"sink", h.scores.sink},
          {"previous_token", h.scores.previous_token},
          {"induction", h.scores.induction},
          {"local", h.scores.local}}},
        {"bands", h.pair_energy.empty() ? nlohmann::json(nullptr)
                                        : nlohmann::json(h.positional ? "positional" : "semantic")},
        {"turning_share",
         h.pair_energy.empty() ? nlohmann::json(nullptr) : nlohmann::json(h.turning_share)}};
  }
  return j;
}

}  // namespace

std::string surgery_json(const SurgeryReport& r) {
  nlohmann::json interventions = nlohmann::json::array();
  for (const InterventionResult& i : r.interventions) interventions.push_back(intervention_json(i));
  const nlohmann::json j = {
      {"format", "poslab-surgery/1"},
      {"weights", r.weights},
      {"precision", r.precision},
      {"sweep", r.sweep},
      {"tokens", r.tokens},
      {"window", r.window},
      {"windows", r.windows},
      {"group", r.group == 0 ? nlohmann::json(nullptr) : nlohmann::json(r.group)},
      {"trained_context",
       r.trained_context == 0 ? nlohmann::json(nullptr) : nlohmann::json(r.trained_context)},
      {"bootstrap", {{"unit", r.ci_unit}, {"resamples", r.resamples}, {"seed", r.seed}}},
      {"forwards", r.forwards},
      {"forward_equivalents", r.forward_equivalents},
      {"prefix_reused", r.prefix_reused},
      {"baseline", {{"loss_mean", r.loss_mean}, {"loss_by_position", r.loss_by_position}}},
      {"interventions", interventions},
      {"notes", r.notes}};
  return j.dump(1);
}

}  // namespace poslab

// lens.json (poslab/analysis/lens_report.hpp): the report's fields, documented in docs/lens.md.
// The wasm bindings write the same keys as a JS object (cpp/wasm/lens_js.hpp).
#include <nlohmann/json.hpp>

#include "poslab/analysis/lens_report.hpp"
#include "poslab/base/names.hpp"

namespace poslab {
namespace {

nlohmann::json head_json(const LensHead& h) {
  nlohmann::json j = {{"layer", h.layer},
                      {"head", h.head},
                      {"role", name_of(kHeadRoleNames, h.role)},
                      {"scores",
                       {{"sink", h.scores.sink},
                        {"previous_token", h.scores.previous_token},
                        {"induction", h.scores.induction},
                        {"local", h.scores.local}}},
                      {"distance_profile", h.distance_profile}};
  if (!h.pair_energy.empty()) {
    j["pair_energy"] = h.pair_energy;
    j["turning_share"] = h.turning_share;
    j["bands"] = h.positional ? "positional" : "semantic";
  }
  return j;
}

}  // namespace

std::string lens_json(const LensReport& r) {
  const HeadRoleThresholds& t = r.thresholds;
  nlohmann::json counts = nlohmann::json::object();
  for (const auto& role : kHeadRoleNames) counts[role.name] = r.count(role.value);
  nlohmann::json heads = nlohmann::json::array();
  for (const LensHead& h : r.heads) heads.push_back(head_json(h));
  nlohmann::json shift = nullptr, shuffle = nullptr, bands = nullptr;
  if (r.shift) {
    shift = {{"k", r.shift->k},
             {"max_abs_logit_change", r.shift->change.max_abs_change},
             {"max_abs_logit", r.shift->change.max_abs},
             {"relative_change", r.shift->change.relative()},
             {"invariant_expected", r.shift->invariant_expected}};
  }
  if (r.shuffle) {
    const LensShuffle& s = *r.shuffle;
    shuffle = {{"loss_by_position",
                {{"index", s.index}, {"shuffled", s.shuffled}, {"constant", s.constant}}},
               {"mean_loss",
                {{"index", LensShuffle::mean(s.index)},
                 {"shuffled", LensShuffle::mean(s.shuffled)},
                 {"constant", LensShuffle::mean(s.constant)}}},
               {"seed", r.seed}};
  }
  if (r.bands) {
    const LensBands& b = *r.bands;
    nlohmann::json layers = nullptr;
    for (const LensPairs& p : b.layers) {
      layers.push_back({{"inv_freq", p.inv_freq},
                        {"wavelength", p.wavelength},
                        {"uniform_share", p.uniform_share},
                        {"positional_share", p.positional_share}});
    }
    bands = {{"inv_freq", b.inv_freq},
             {"wavelength", b.wavelength},
             {"layers", layers},
             {"trained_context", b.trained_context},
             {"uniform_share", b.uniform_share},
             {"positional_threshold", t.positional},
             {"positional_share", b.positional_share},
             {"positional_heads", b.positional_heads},
             {"semantic_heads", int(r.heads.size()) - b.positional_heads}};
  }
  const nlohmann::json report = {{"weights", r.weights},
                                 {"tokens", r.tokens},
                                 {"precision", r.precision},
                                 {"induction", {{"period", r.period}, {"seed", r.seed}}},
                                 {"thresholds",
                                  {{"sink", t.sink},
                                   {"previous_token", t.previous_token},
                                   {"induction", t.induction},
                                   {"local", t.local},
                                   {"local_window", t.local_window}}},
                                 {"role_counts", counts},
                                 {"shift", shift},
                                 {"shuffle", shuffle},
                                 {"rope_bands", bands},
                                 {"notes", r.notes},
                                 {"heads", heads}};
  return report.dump(1) + "\n";
}

}  // namespace poslab

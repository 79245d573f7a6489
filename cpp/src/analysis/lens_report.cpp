// The position lens as one call (poslab/analysis/lens_report.hpp): the passes, in the order
// that keeps one layer's (H, T, T) at a time, and the report's JSON.
#include "poslab/analysis/lens_report.hpp"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "poslab/base/errors.hpp"
#include "poslab/base/names.hpp"
#include "poslab/base/random.hpp"

namespace poslab {
namespace {

nlohmann::json scores_json(const HeadScores& s) {
  return {{"sink", s.sink},
          {"previous_token", s.previous_token},
          {"induction", s.induction},
          {"local", s.local}};
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0.0 : s / double(v.size());
}

// The induction score of every head, layer by layer, from the repeated sequence.
std::vector<std::vector<double>> induction_scores(const LensModel& model, long long n,
                                                  const LensSettings& s) {
  std::vector<std::vector<double>> out;
  model.visit(repeated_sequence(n, model.vocab, s.seed), false,
              [&](std::size_t, const TensorF& attention, const TensorF*) {
                std::vector<double> by_head;
                for (const HeadScores& h : head_scores(attention, attention, n, s.thresholds)) {
                  by_head.push_back(h.induction);
                }
                out.push_back(std::move(by_head));
              });
  return out;
}

// k of the shift check, checked before any pass runs.
long long shift_of(const LensModel& model, long long T, long long requested) {
  // GPT-2 reads at most n_positions: its default k fits the text inside; k = 0 is no check.
  const long long room = model.max_positions > 0 ? model.max_positions - T : T;
  const long long k = requested >= 0 ? requested : std::min(T, room);
  require(k <= room, "shift",
          "a shift of " + std::to_string(k) + " moves the text past n_positions (at most " +
              std::to_string(room) + " here)");
  return k;
}

// The shift check: the largest logit change when every position moves by k.
nlohmann::json shift_json(const LensModel& model, const std::vector<long long>& tokens,
                          long long k) {
  if (!model.logits || k <= 0) return nullptr;
  const LogitChange change = logit_change(model.logits(tokens, 0), model.logits(tokens, k));
  return {{"k", k},
          {"max_abs_logit_change", change.max_abs_change},
          {"max_abs_logit", change.max_abs},
          {"relative_change", change.relative()},
          {"invariant_expected", !model.length_dependent}};
}

// How much the model uses position: the loss by position with positions 0..T−1, shuffled (a
// seeded permutation) and all 0.
nlohmann::json shuffle_json(const LensModel& model, const std::vector<long long>& tokens,
                            long long seed) {
  if (!model.losses) return nullptr;
  const std::size_t T = tokens.size();
  std::vector<std::int32_t> index(T, 0), constant(T, 0);
  for (std::size_t t = 0; t < T; ++t) index[t] = std::int32_t(t);
  std::vector<std::int32_t> shuffled = index;
  Rng rng{std::uint64_t(seed) + 0x5A17u};
  for (std::size_t i = shuffled.size(); i > 1; --i) {  // Fisher-Yates
    std::swap(shuffled[i - 1], shuffled[std::size_t(rng.uniform() * double(i))]);
  }
  const std::vector<double> base = model.losses(tokens, index);
  const std::vector<double> moved = model.losses(tokens, shuffled);
  const std::vector<double> flat = model.losses(tokens, constant);
  return {
      {"loss_by_position", {{"index", base}, {"shuffled", moved}, {"constant", flat}}},
      {"mean_loss", {{"index", mean(base)}, {"shuffled", mean(moved)}, {"constant", mean(flat)}}},
      {"seed", seed}};
}

}  // namespace

std::vector<long long> repeated_sequence(long long n, long long vocab, long long seed) {
  Rng rng{std::uint64_t(seed)};
  std::vector<long long> out(std::size_t(2 * n));
  for (long long i = 0; i < n; ++i) {
    out[std::size_t(i)] = out[std::size_t(i + n)] = (long long)(rng.uniform() * double(vocab));
  }
  return out;
}

std::string lens_report(const LensModel& model, const std::vector<long long>& tokens,
                        const LensSettings& s) {
  const HeadRoleThresholds& t = s.thresholds;
  const long long T = (long long)tokens.size();
  require(T > t.local_window, "tokens",
          "the lens needs more tokens than the local window W = " + std::to_string(t.local_window) +
              " (got " + std::to_string(T) + ")");
  const long long n = s.period > 0 ? s.period : T / 2;
  require(2 * n <= T, "period",
          "the repeat period n must be at most half the text's " + std::to_string(T) +
              " tokens (the induction pass runs 2n tokens)");
  const long long k = shift_of(model, T, s.shift);

  const std::vector<std::vector<double>> induction = induction_scores(model, n, s);
  const bool bands = !model.inv_freq.empty();
  // A head spreading its energy evenly over the R/2 pairs and the unrotated dims would put
  // `uniform` of it on the turning pairs: a positional head is at least `positional` of the
  // way from there to all of it (random weights stay near `uniform`).
  std::vector<float> even(model.inv_freq.size() + 1, 1.0f / float(model.inv_freq.size() + 1));
  const double uniform =
      bands ? turning_pair_share(even.data(), model.inv_freq, model.trained_context) : 0.0;
  const double positional_at = uniform + t.positional * (1.0 - uniform);
  int positional = 0;
  nlohmann::json heads = nlohmann::json::array();
  std::map<std::string, int> counts;
  for (const auto& role : kHeadRoleNames) counts[role.name] = 0;
  model.visit(
      tokens, bands, [&](std::size_t layer, const TensorF& attention, const TensorF* energy) {
        std::vector<HeadScores> scores = head_scores(attention, TensorF{}, n, t);
        const TensorF profile = attention_by_distance(attention);
        const std::size_t L = profile.dim(1);
        for (std::size_t h = 0; h < scores.size(); ++h) {
          scores[h].induction = induction.at(layer).at(h);
          const std::string role = name_of(kHeadRoleNames, head_role(scores[h], t));
          ++counts[role];
          nlohmann::json head = {
              {"layer", layer},
              {"head", h},
              {"role", role},
              {"scores", scores_json(scores[h])},
              {"distance_profile",
               std::vector<float>(profile.ptr() + h * L, profile.ptr() + (h + 1) * L)}};
          if (energy) {
            const float* row = energy->ptr() + h * energy->dim(1);
            const double share = turning_pair_share(row, model.inv_freq, model.trained_context);
            const bool is_positional = share >= positional_at;
            positional += is_positional;
            head["pair_energy"] = std::vector<float>(row, row + energy->dim(1));
            head["turning_share"] = share;
            head["bands"] = is_positional ? "positional" : "semantic";
          }
          heads.push_back(std::move(head));
        }
      });
  // RoPE's frequency bands: which pairs turn within the trained context, and how many heads
  // lean on them.
  nlohmann::json rope_bands = nullptr;
  if (bands) {
    std::vector<double> wavelength;
    for (double theta : model.inv_freq) wavelength.push_back(6.283185307179586 / theta);
    rope_bands = {{"inv_freq", model.inv_freq},
                  {"wavelength", wavelength},
                  {"trained_context", model.trained_context},
                  {"uniform_share", uniform},
                  {"positional_threshold", t.positional},
                  {"positional_share", positional_at},
                  {"positional_heads", positional},
                  {"semantic_heads", int(heads.size()) - positional}};
  }
  const nlohmann::json shift = shift_json(model, tokens, k);
  const nlohmann::json report = {{"weights", s.weights},
                                 {"tokens", T},
                                 {"precision", model.precision},
                                 {"induction", {{"period", n}, {"seed", s.seed}}},
                                 {"thresholds",
                                  {{"sink", t.sink},
                                   {"previous_token", t.previous_token},
                                   {"induction", t.induction},
                                   {"local", t.local},
                                   {"local_window", t.local_window}}},
                                 {"role_counts", counts},
                                 {"shift", shift},
                                 {"shuffle", shuffle_json(model, tokens, s.seed)},
                                 {"rope_bands", rope_bands},
                                 {"heads", heads}};
  return report.dump(1) + "\n";
}

}  // namespace poslab

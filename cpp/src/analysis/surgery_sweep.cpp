// A position-surgery sweep (poslab/analysis/surgery_sweep.hpp).
#include "poslab/analysis/surgery_sweep.hpp"

#include <algorithm>
#include <cmath>

#include "poslab/base/errors.hpp"
#include "poslab/base/format.hpp"
#include "poslab/base/random.hpp"

namespace poslab {
namespace {

// The kept fractions of the bands sweep: 1 is the unmodified model, a control whose change is 0.
constexpr double kKeptFractions[] = {1.0, 0.75, 0.5, 0.25, 0.0};
// The multiples of the model's base the base sweep tries when none are given.
constexpr double kBaseMultiples[] = {0.01, 0.1, 0.5, 2.0, 10.0};
// At least this many windows and the interval resamples windows; fewer, positions.
constexpr long long kMinBootstrapWindows = 8;

Intervention named(std::string name, std::string kind) {
  Intervention i;
  i.name = std::move(name);
  i.kind = std::move(kind);
  return i;
}

std::string range_name(long long first, long long last) {
  return std::to_string(first) + ":" + std::to_string(last);
}

void band_interventions(const SurgeryModel& model, long long group,
                        std::vector<Intervention>& out) {
  const long long P = model.target.rotary_pairs;
  for (long long first = 0; first < P; first += group) {
    const long long last = std::min(P, first + group);
    Intervention i = named("zero pairs " + range_name(first, last), "zero_pairs");
    i.surgery.rope_zero_pairs.push_back({first, last});
    out.push_back(std::move(i));
  }
  for (const double p : kKeptFractions) {
    const auto kept = static_cast<long long>(std::floor(p * double(P)));
    Intervention i = named("keep top " + format_label(p * 100) + "%", "keep_top");
    if (kept < P) i.surgery.rope_zero_pairs.push_back({kept, P});
    i.fraction = p;
    out.push_back(std::move(i));
  }
}

void head_interventions(const SurgeryModel& model, std::vector<Intervention>& out) {
  const bool rotates = model.target.rotary_pairs > 0;
  for (long long l = 0; l < model.target.layers; ++l) {
    for (long long h = 0; h < model.target.heads; ++h) {
      const HeadRef head{l, h};
      const std::string at = range_name(l, h);
      if (rotates) {
        Intervention nope = named("NoPE head " + at, "nope_head");
        nope.surgery.nope_heads.push_back(head);
        nope.head = head;
        out.push_back(std::move(nope));
      }
      Intervention ablate = named("ablate head " + at, "ablate_head");
      ablate.surgery.ablate_heads.push_back(head);
      ablate.head = head;
      out.push_back(std::move(ablate));
    }
  }
}

std::vector<double> sweep_bases(const SurgeryModel& model, const SweepSettings& s) {
  if (!s.bases.empty()) return s.bases;
  std::vector<double> bases;
  for (const double m : kBaseMultiples) {
    if (model.base * m > 1.0) bases.push_back(model.base * m);
  }
  return bases;
}

long long group_of(const SurgeryModel& model, const SweepSettings& s) {
  const long long P = model.target.rotary_pairs;
  return s.group > 0 ? s.group : std::max(1LL, (P + 15) / 16);
}

// The windows of `tokens`: consecutive runs of `window` tokens (the last partial one dropped),
// or the whole text.
std::vector<std::vector<long long>> windows_of(const std::vector<long long>& tokens,
                                               long long window) {
  require(window >= 0, "window", "the window must be a token count >= 2, or 0 for the whole text");
  const std::size_t W = window == 0 ? tokens.size() : std::min(tokens.size(), std::size_t(window));
  require(W >= 2, "tokens",
          "a sweep needs at least 2 tokens per window, for one next-token loss (got " +
              std::to_string(W) + ")");
  std::vector<std::vector<long long>> out;
  for (std::size_t at = 0; at + W <= tokens.size(); at += W) {
    out.emplace_back(tokens.begin() + long(at), tokens.begin() + long(at + W));
  }
  return out;
}

// Losses (windows, T − 1) of one pass group, and the forward-equivalents it took.
struct PassLosses {
  std::vector<std::vector<double>> by_window;
  double equivalents = 0.0;
};

double mean(const std::vector<double>& v) {
  double sum = 0.0;
  for (const double x : v) sum += x;
  return v.empty() ? 0.0 : sum / double(v.size());
}

// The 2.5 and 97.5 percentiles of the mean of `units` resampled with replacement.
std::pair<double, double> bootstrap(const std::vector<double>& units, long long resamples,
                                    long long seed) {
  Rng rng(static_cast<std::uint64_t>(seed) * 0x9E3779B97F4A7C15ULL + 1);
  std::vector<double> means(std::size_t(resamples), 0.0);
  const std::size_t n = units.size();
  for (double& m : means) {
    double sum = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
      sum += units[std::min(n - 1, std::size_t(rng.uniform() * double(n)))];
    }
    m = sum / double(n);
  }
  std::sort(means.begin(), means.end());
  const auto at = [&](double q) {
    return means[std::min(means.size() - 1, std::size_t(std::floor(q * double(means.size()))))];
  };
  return {at(0.025), at(0.975)};
}

// Fills an intervention's numbers from its losses and the unmodified ones.
void summarise(InterventionResult& r, const PassLosses& pass, const PassLosses& baseline,
               const SurgeryReport& report) {
  const std::size_t W = pass.by_window.size(), L = pass.by_window.front().size();
  std::vector<double> window_deltas, position_deltas, within, past;
  r.loss_by_position.assign(L, 0.0);
  double total = 0.0;
  for (std::size_t w = 0; w < W; ++w) {
    std::vector<double> deltas(L);
    for (std::size_t t = 0; t < L; ++t) {
      deltas[t] = pass.by_window[w][t] - baseline.by_window[w][t];
      r.loss_by_position[t] += pass.by_window[w][t] / double(W);
      total += pass.by_window[w][t];
      const bool inside = report.trained_context > 0 && (long long)t < report.trained_context;
      (inside ? within : past).push_back(deltas[t]);
    }
    window_deltas.push_back(mean(deltas));
    position_deltas.insert(position_deltas.end(), deltas.begin(), deltas.end());
  }
  r.loss_mean = total / double(W * L);
  r.delta_mean = mean(position_deltas);
  const auto [low, high] = bootstrap(report.ci_unit == "windows" ? window_deltas : position_deltas,
                                     report.resamples, report.seed);
  r.delta_ci_low = low;
  r.delta_ci_high = high;
  if (report.trained_context > 0 && !within.empty()) r.delta_within_context = mean(within);
  if (report.trained_context > 0 && !past.empty()) r.delta_past_context = mean(past);
}

// The head's lens entry, when a lens report is given.
std::optional<LensHead> lens_head(const LensReport* lens, const std::optional<HeadRef>& head) {
  if (!lens || !head) return std::nullopt;
  for (const LensHead& h : lens->heads) {
    if ((long long)h.layer == head->layer && (long long)h.head == head->head) return h;
  }
  return std::nullopt;
}

// Whether `s` leaves `model` as it is: NoPE layers and heads only, each in a layer the model
// never rotates (its own NoPE layers).
bool leaves_model_unchanged(const PositionSurgery& s, const SurgeryModel& model) {
  if (s.empty() || !s.rope_zero_pairs.empty() || s.rope_base != 0.0 || s.rope_local_base != 0.0 ||
      !s.ablate_heads.empty()) {
    return false;
  }
  const auto own = [&model](long long layer) {
    for (const long long l : model.nope_layers) {
      if (l == layer) return true;
    }
    return false;
  };
  for (const long long l : s.nope_layers) {
    if (!own(l)) return false;
  }
  for (const HeadRef& h : s.nope_heads) {
    if (!own(h.layer)) return false;
  }
  return true;
}

// What the report says of a model with NoPE layers of its own.
std::string own_nope_note(const std::vector<long long>& layers) {
  std::string list;
  for (const long long l : layers) list += (list.empty() ? "" : ", ") + std::to_string(l);
  return "the model's own NoPE layers (" + list +
         ") do not rotate: making them or their heads NoPE changes nothing (the unmodified "
         "passes stand for it), and zeroed pairs and bases leave them as they are";
}

}  // namespace

std::vector<Intervention> sweep_interventions(const SurgeryModel& model, const SweepSettings& s) {
  const bool rotates = model.target.rotary_pairs > 0;
  const std::string kind = name_of(kSweepKindNames, s.kind);
  require(rotates || s.kind == SweepKind::kHeads || s.kind == SweepKind::kSingle, "sweep",
          "the " + kind + " sweep changes the rotation, and " + model.target.model +
              " has none: sweep heads (ablation) instead");
  std::vector<Intervention> out;
  switch (s.kind) {
    case SweepKind::kBands:
      require(s.group >= 0 && s.group <= model.target.rotary_pairs, "group",
              "a group of pairs must be 0 (16 groups) or at most the model's " +
                  std::to_string(model.target.rotary_pairs) + " pairs (got " +
                  std::to_string(s.group) + ")");
      band_interventions(model, group_of(model, s), out);
      break;
    case SweepKind::kLayers:
      for (long long l = 0; l < model.target.layers; ++l) {
        Intervention i = named("NoPE layer " + std::to_string(l), "nope_layer");
        i.surgery.nope_layers.push_back(l);
        i.layer = l;
        out.push_back(std::move(i));
      }
      break;
    case SweepKind::kHeads:
      head_interventions(model, out);
      break;
    case SweepKind::kBase:
      for (const double b : sweep_bases(model, s)) {
        require(std::isfinite(b) && b > 1.0, "bases",
                "each base must be a finite number above 1 (got " + format_number(b) + ")");
        Intervention i = named("base " + format_label(b), "base");
        i.surgery.rope_base = b;
        out.push_back(std::move(i));
      }
      break;
    case SweepKind::kSingle:
      out.push_back(named(describe(s.single), "single"));
      out.back().surgery = s.single;
      break;
  }
  for (const Intervention& i : out) check_surgery(i.surgery, model.target);
  return out;
}

SurgeryReport surgery_sweep(const SurgeryModel& model, const std::vector<long long>& tokens,
                            const SweepSettings& s, const LensReport* lens,
                            const SweepProgress& progress) {
  require(s.resamples >= 1 && s.resamples <= 100000, "resamples",
          "the bootstrap's resamples must be in [1, 100000]");
  const std::vector<Intervention> interventions = sweep_interventions(model, s);
  const std::vector<std::vector<long long>> windows = windows_of(tokens, s.window);
  SurgeryReport report;
  report.precision = model.precision;
  report.sweep = name_of(kSweepKindNames, s.kind);
  report.tokens = (long long)tokens.size();
  report.window = (long long)windows.front().size();
  report.windows = (long long)windows.size();
  report.group = s.kind == SweepKind::kBands ? group_of(model, s) : 0;
  report.seed = s.seed;
  report.resamples = s.resamples;
  report.trained_context = model.trained_context;
  report.ci_unit = report.windows >= kMinBootstrapWindows ? "windows" : "positions";
  const std::size_t N = std::size_t(model.target.layers);
  report.prefix_reused =
      model.reuses_prefix && model.prefix_bytes &&
      double(model.prefix_bytes(report.window)) * double(windows.size()) <= double(s.prefix_memory);
  if (model.reuses_prefix && !report.prefix_reused) {
    report.notes.push_back("the unmodified passes' layers were not kept (over " +
                           format_bytes(s.prefix_memory) + "): every pass ran from layer 0");
  }
  if (!model.nope_layers.empty()) report.notes.push_back(own_nope_note(model.nope_layers));
  std::vector<SurgeryPrefix> prefixes(report.prefix_reused ? windows.size() : 0);
  const auto run = [&](const PositionSurgery& surgery) {
    PassLosses pass;
    // The unmodified pass runs whole (it fills the prefixes); another starts at the first layer
    // its surgery changes.
    const std::size_t first =
        report.prefix_reused && !surgery.empty() ? first_changed_layer(surgery, N) : 0;
    for (std::size_t w = 0; w < windows.size(); ++w) {
      SurgeryPrefix* prefix = report.prefix_reused ? &prefixes[w] : nullptr;
      pass.by_window.push_back(model.losses(windows[w], surgery, prefix));
      pass.equivalents += N == 0 ? 1.0 : double(N - std::min(first, N)) / double(N);
      ++report.forwards;
    }
    return pass;
  };
  const std::size_t total = interventions.size() + 1;
  const PassLosses baseline = run(PositionSurgery{});
  report.forward_equivalents = baseline.equivalents;
  if (progress) progress(1, total);
  InterventionResult unmodified;
  summarise(unmodified, baseline, baseline, report);
  report.loss_mean = unmodified.loss_mean;
  report.loss_by_position = unmodified.loss_by_position;
  for (const Intervention& i : interventions) {
    // An empty surgery (keep top 100 %) is the unmodified model: its pass is the baseline's; so
    // is a NoPE layer or head in a layer the model never rotates.
    const bool unchanged = i.surgery.empty() || leaves_model_unchanged(i.surgery, model);
    const PassLosses pass = unchanged ? PassLosses{baseline.by_window, 0.0} : run(i.surgery);
    report.forward_equivalents += pass.equivalents;
    InterventionResult r;
    r.intervention = i;
    summarise(r, pass, baseline, report);
    r.lens = lens_head(lens, i.head);
    report.interventions.push_back(std::move(r));
    if (progress) progress(report.interventions.size() + 1, total);
  }
  report.forward_equivalents /= double(windows.size());
  return report;
}

std::optional<LensReport> sweep_lens(const SurgeryModel& model, const LensModel& lens,
                                     const std::vector<long long>& tokens, const SweepSettings& s,
                                     const LensSettings& lens_settings,
                                     std::vector<std::string>& notes) {
  constexpr long long kMaxLensTokens = 4096;
  long long n = std::min<long long>(s.window > 0 ? s.window : (long long)tokens.size(),
                                    (long long)tokens.size());
  if (model.trained_context > 0) n = std::min(n, model.trained_context);
  n = std::min(n, kMaxLensTokens);
  try {
    LensReport report = lens_report(lens, {tokens.begin(), tokens.begin() + n}, lens_settings);
    notes.push_back("head roles from the lens on the text's first " + std::to_string(n) +
                    " tokens");
    return report;
  } catch (const Error& e) {
    if (e.field() != "tokens") throw;
    notes.push_back(std::string("no head roles beside the sweep: ") + e.what());
    return std::nullopt;
  }
}

}  // namespace poslab

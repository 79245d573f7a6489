// A sweep of position surgery over one text (docs/surgery.md): the unmodified model once, then
// each single intervention of the sweep — `bands` zeroes each group of K rotation pairs in turn
// and keeps the top p of them for p in {1, 0.75, 0.5, 0.25, 0}; `layers` makes each layer NoPE;
// `heads` makes each head NoPE (a model with a rotation) and, separately, ablates it; `base`
// tries each base; `single` runs the one surgery given. For each: the mean next-token loss, its
// change from the unmodified model with a seeded 95 % bootstrap interval, and the change within
// and past the trained context. The model comes as a SurgeryModel: the language models'
// adapters are in poslab/models/lm_surgery.hpp, the lab's in poslab/train/lab_surgery.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "poslab/analysis/lens_report.hpp"
#include "poslab/base/names.hpp"
#include "poslab/base/tensor.hpp"
#include "poslab/models/position_surgery.hpp"

namespace poslab {

// What the unmodified pass over one window leaves for the passes after it: the residual stream
// entering each layer (RopeLmOptions::layer_inputs).
struct SurgeryPrefix {
  std::vector<TensorF> layer_inputs;
};

// A model as a surgery sweep sees it. Its functions may refer to weights the caller keeps alive.
struct SurgeryModel {
  std::string precision = "float";  // the arithmetic of its passes, for the report
  SurgeryTarget target;             // layers, heads, rotary pairs, local layers
  double base = 0.0;                // the full layers' rotation base; 0: no rotation
  long long trained_context = 0;    // N; 0: unknown
  // The layers the model itself never rotates (SmolLM3's NoPE layers): a NoPE layer or head
  // there changes nothing, so the sweep takes the unmodified pass for it, and says so.
  std::vector<long long> nope_layers;
  // The next-token losses (T − 1,) of `tokens` under `surgery`. With `prefix`: a pass with an
  // empty surgery fills it; a later one over the same tokens starts at the surgery's first
  // changed layer from it (when reuses_prefix).
  std::function<std::vector<double>(const std::vector<long long>& tokens,
                                    const PositionSurgery& surgery, SurgeryPrefix* prefix)>
      losses;
  bool reuses_prefix = false;
  // Bytes a prefix of T tokens holds; null: no reuse.
  std::function<std::uint64_t(long long tokens)> prefix_bytes;
};

enum class SweepKind { kBands, kLayers, kHeads, kBase, kSingle };
inline constexpr Named<SweepKind> kSweepKindNames[] = {{SweepKind::kBands, "bands"},
                                                       {SweepKind::kLayers, "layers"},
                                                       {SweepKind::kHeads, "heads"},
                                                       {SweepKind::kBase, "base"},
                                                       {SweepKind::kSingle, "single"}};

#ifdef __EMSCRIPTEN__
inline constexpr std::uint64_t kDefaultPrefixMemory = std::uint64_t(256) << 20;
#else
inline constexpr std::uint64_t kDefaultPrefixMemory = std::uint64_t(2) << 30;
#endif

struct SweepSettings {
  SweepKind kind = SweepKind::kBands;
  long long group = 0;        // bands: K pairs per group; 0: as many as make 16 groups
  std::vector<double> bases;  // base: the bases tried; empty: the model's × 0.01, 0.1, 0.5, 2, 10
  PositionSurgery single;     // single: the surgery
  long long window = 0;       // tokens per window; 0: the whole text as one
  long long seed = 0;         // of the bootstrap
  long long resamples = 1000;
  std::uint64_t prefix_memory = kDefaultPrefixMemory;  // prefixes kept at most, else no reuse
};

// One intervention of a sweep.
struct Intervention {
  std::string name;  // "zero pairs 0:2", "keep top 75%", "NoPE layer 3", "ablate 1:2", ...
  std::string kind;  // zero_pairs, keep_top, nope_layer, nope_head, ablate_head, base, single
  PositionSurgery surgery;
  double fraction = -1.0;  // keep_top: p
  std::optional<HeadRef> head;
  long long layer = -1;  // nope_layer
};

// The sweep's interventions for `model`, in order. Throws Error naming the field ("sweep",
// "group", "bases") for a sweep the model cannot take (bands or base without a rotation).
std::vector<Intervention> sweep_interventions(const SurgeryModel& model,
                                              const SweepSettings& settings);

struct InterventionResult {
  Intervention intervention;
  double loss_mean = 0.0, delta_mean = 0.0;
  double delta_ci_low = 0.0, delta_ci_high = 0.0;
  std::optional<double> delta_within_context, delta_past_context;
  std::vector<double> loss_by_position;  // (T − 1,): the mean over windows
  std::optional<LensHead> lens;          // heads sweep with a lens: that head's role and scores
};

struct SurgeryReport {
  std::string weights, precision, sweep;
  long long tokens = 0, window = 0, windows = 0, group = 0, seed = 0, resamples = 0;
  long long trained_context = 0;
  std::string ci_unit;  // "windows" (8 or more) or "positions"
  double loss_mean = 0.0;
  std::vector<double> loss_by_position;  // the unmodified model's, mean over windows
  std::vector<InterventionResult> interventions;
  long long forwards = 0;            // passes run
  double forward_equivalents = 0.0;  // in whole passes: a pass from layer l counts (N − l)/N
  bool prefix_reused = false;
  std::vector<std::string> notes;
};

// Called after each pass group (the unmodified one, then each intervention) with how many are
// done of how many.
using SweepProgress = std::function<void(std::size_t done, std::size_t total)>;

// Runs the sweep. Throws Error naming the field before any pass: "tokens" (fewer than 2 per
// window), "window", and the interventions' (sweep_interventions, check_surgery).
// `lens`: for the heads sweep, the lens's report of the same model, each head's role beside it.
SurgeryReport surgery_sweep(const SurgeryModel& model, const std::vector<long long>& tokens,
                            const SweepSettings& settings, const LensReport* lens = nullptr,
                            const SweepProgress& progress = {});

// The heads sweep's lens: the lens's report of the text's first L tokens, L = min(the window
// (the text when 0), the model's trained context when known, 4096), so each head's role is read
// where the model was trained. Called after sweep_interventions has checked the settings. The
// roles are beside the sweep, not part of it: a text the lens refuses ("tokens") gives nullopt
// and a note in `notes` saying why.
std::optional<LensReport> sweep_lens(const SurgeryModel& model, const LensModel& lens,
                                     const std::vector<long long>& tokens,
                                     const SweepSettings& settings,
                                     const LensSettings& lens_settings,
                                     std::vector<std::string>& notes);

// surgery.json's text (docs/surgery.md).
std::string surgery_json(const SurgeryReport& report);

}  // namespace poslab

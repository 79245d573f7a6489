// The position lens as one call, for any model PosLab runs (docs/lens.md): two traced passes —
// a random sequence of period n repeated once (the induction score), then the text — read one
// layer at a time, so no more than one layer's (H, T, T) is held; then the shift check and the
// shuffle. The model comes as a LensModel: the language models' adapters are in
// poslab/models/lm_lens.hpp, the lab's in poslab/train/lens_model.hpp. The CLI writes the
// report as lens.json (lens_json), the wasm bindings as a JS object of the same keys.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "poslab/analysis/lens.hpp"
#include "poslab/base/tensor.hpp"

namespace poslab {

// A traced pass hands the lens each layer as it is made: its attention (H, T, T) and, for a
// RoPE model asked for its frequency bands, its pair energy (H, R/2 + 1), else null.
using LensLayerReader =
    std::function<void(std::size_t layer, const TensorF& attention, const TensorF* pair_energy)>;

// What a traced pass on the text also gives, when asked: its logits (T, V) and next-token
// losses (T − 1,), so the shift check and the shuffle need no second pass at positions 0..T−1.
struct LensOutputs {
  TensorF logits;
  std::vector<double> losses;
};

// A model as the lens sees it. Its functions may refer to weights the caller keeps alive for
// the duration of lens_report.
struct LensModel {
  long long vocab = 0;
  std::string precision = "float";  // the arithmetic of its passes, for the report
  // A traced pass on tokens at positions 0..T−1; `bands`: also each layer's pair energy;
  // `outputs`: also the logits and losses (else both empty).
  std::function<LensOutputs(const std::vector<long long>& tokens, bool bands, bool outputs,
                            const LensLayerReader&)>
      visit;
  // RoPE models: θ_i of each pair and the trained context N the bands are read against
  // (original_max_position_embeddings when scaled, else the context). Empty: no bands.
  std::vector<double> inv_freq;
  long long trained_context = 0;
  // θ_i per layer where layers turn at different bases (Gemma 3's sliding layers, at
  // rope_local_base_freq) or not at all (a NoPE layer, SmolLM3's or the surgery's: every θ_i
  // 0, so no pair turns and none of its heads reads as positional); empty: every layer turns
  // at inv_freq.
  std::vector<std::vector<double>> layer_inv_freq;
  // Logits (T, V) with token t at position offset + t; null: no shift check.
  std::function<TensorF(const std::vector<long long>& tokens, long long offset)> logits;
  // Absolute positions or a length-dependent scaling (dynamic NTK, longrope): a shift is
  // expected to move the logits.
  bool length_dependent = false;
  long long max_positions = 0;  // GPT-2's n_positions: offset + T stays within; 0: no limit
  // The next-token loss at each position (T − 1,) with token t at positions[t], for the
  // shuffled and constant passes; null where the method needs positions rising along the text.
  std::function<std::vector<double>(const std::vector<long long>& tokens,
                                    const std::vector<std::int32_t>& positions)>
      losses;
  // Bytes a traced pass over T tokens holds at once (its attention maps and activations),
  // checked against LensSettings::memory_limit before any pass; null: not checked.
  std::function<std::uint64_t(long long tokens)> working_set;
};

// The lens's working-set limit: the wasm heap's in the browser, 4 GiB natively (the CLI's
// POSLAB_LENS_MEMORY_LIMIT changes it).
#ifdef __EMSCRIPTEN__
inline constexpr std::uint64_t kDefaultLensMemoryLimit = std::uint64_t(2) << 30;
#else
inline constexpr std::uint64_t kDefaultLensMemoryLimit = std::uint64_t(4) << 30;
#endif

struct LensSettings {
  long long period = 0;  // n of the induction pass; 0: half the text
  long long seed = 0;    // of the induction pass's tokens and the shuffle
  long long shift = -1;  // k of the shift check; -1: the text's length (within max_positions)
  HeadRoleThresholds thresholds;
  std::string weights;  // the report's "weights": where the model came from
  std::uint64_t memory_limit = kDefaultLensMemoryLimit;
};

struct LensHead {
  std::size_t layer = 0, head = 0;
  HeadRole role = HeadRole::kBroad;
  HeadScores scores;
  std::vector<float> distance_profile;  // (T,): mean weight at distance i − j
  // RoPE models (empty otherwise): the share of the head's score energy per rotation pair,
  // then the unrotated dims; the share on the pairs that turn within the trained context.
  std::vector<float> pair_energy;
  double turning_share = 0.0;
  bool positional = false;  // turning_share reaches LensBands::positional_share
};

struct LensShift {
  long long k = 0;
  LogitChange change;
  bool invariant_expected = false;
};

// The next-token loss by position (T − 1,) with positions 0..T−1, shuffled, and all 0.
struct LensShuffle {
  std::vector<double> index, shuffled, constant;
  static double mean(const std::vector<double>& losses);  // the report's mean_loss of a pass
};

// One list of pairs a head is read against.
struct LensPairs {
  std::vector<double> inv_freq;    // θ_i per pair
  std::vector<double> wavelength;  // 2π/θ_i per pair
  double uniform_share = 0.0;      // the turning share of energy spread evenly
  double positional_share = 0.0;   // uniform + positional·(1 − uniform): a positional head's
};

struct LensBands : LensPairs {  // the model's pairs (its full-attention layers' for Gemma)
  long long trained_context = 0;
  int positional_heads = 0;
  std::vector<LensPairs> layers;  // per layer when layers turn at different bases, else empty
  const LensPairs& of_layer(std::size_t layer) const {
    return layers.empty() ? *this : layers.at(layer);
  }
};

struct LensReport {
  std::string weights, precision;
  long long tokens = 0, period = 0, seed = 0;
  HeadRoleThresholds thresholds;
  std::vector<LensHead> heads;         // layer by layer, head by head
  std::optional<LensShift> shift;      // none without logits, or at k = 0
  std::optional<LensShuffle> shuffle;  // none where positions must rise along the text
  std::optional<LensBands> bands;      // RoPE models
  std::vector<std::string> notes;      // what the reader should know (keys not read, ...)
  int count(HeadRole role) const;
};

// The lens's report (its fields are in docs/lens.md). Throws Error, naming its field
// ("tokens", "period", "shift"), for a text no longer than the local window, a period past
// half the text, or a shift past max_positions — before any pass runs.
LensReport lens_report(const LensModel& model, const std::vector<long long>& tokens,
                       const LensSettings& settings);

// One head's attention (T, T) on the text: the lens's example map, from one traced pass.
// Throws Error (field "layer" or "head") for a head the model does not have.
TensorF lens_attention(const LensModel& model, const std::vector<long long>& tokens,
                       long long layer, long long head);

// The report as lens.json's text.
std::string lens_json(const LensReport& report);

// The n random ids in [0, vocab) then the same n again: the induction pass's sequence.
std::vector<long long> repeated_sequence(long long n, long long vocab, long long seed);

}  // namespace poslab

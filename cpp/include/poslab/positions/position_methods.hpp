// Every position method PosLab knows, in one table: its name and alias, how it enters a
// model (kind), its options with defaults and ranges, and where it runs. The CLI's choices,
// the name lists of the JS API (lab.names) and every context's parse and format come from
// here, so a method is added by one row (and the count below), not by editing each list.
#pragma once

#include <array>
#include <cstddef>
#include <string>

#include "poslab/base/defaults.hpp"
#include "poslab/base/names.hpp"
#include "poslab/positions/rope.hpp"

namespace poslab {

enum class PositionMethod {
  kLearned,
  kSinusoidal,
  kShaw,
  kRope,
  kPRope,
  kXpos,
  kAlibi,
  kT5,
  kKerple,
  kFire,
  kCope,
  kFox,
  kAbacus,
  kNone
};
inline constexpr std::size_t kPositionMethodCount = 14;

// How the method reaches attention.
enum class PositionKind {
  kAddedTable,     // a fixed table added to the token embeddings (sinusoidal)
  kLearnedTable,   // a trained table added to the token embeddings, by position or digit place
  kRelativeTable,  // a trained embedding per clipped distance j − i (Shaw)
  kRotation,       // q and k rotated by position, as rotation_defaults gives
  kScoreBias,      // a bias added to the attention scores (score_bias.hpp's terms)
  kGated,          // from content, not positions: gates over the tokens between query and key
  kNone,           // position only through the causal mask (NoPE)
};
inline constexpr Named<PositionKind> kPositionKindNames[] = {
    {PositionKind::kAddedTable, "added table"},
    {PositionKind::kLearnedTable, "learned table"},
    {PositionKind::kRelativeTable, "relative table"},
    {PositionKind::kRotation, "rotation"},
    {PositionKind::kScoreBias, "score bias"},
    {PositionKind::kGated, "gated"},
    {PositionKind::kNone, "none"}};

// Where a method is implemented: one bit per consumer.
enum PositionSupport : unsigned {
  kSupportCore = 1u << 0,      // the core's tables or multi-head attention
  kSupportBias = 1u << 1,      // multi-head attention's position bias (score biases and none)
  kSupportTrainer = 1u << 2,   // the length-generalisation lab's trainer
  kSupportCuda = 1u << 3,      // the CUDA kernels (tables, or inside the fused attention)
  kSupportGpt2Swap = 1u << 4,  // swapped into GPT-2 in place of its learned positions
  // The trainer's position coupling (Cho et al. 2024): an operand's digit may sit at a later
  // position than the answer digit that reads it, so the method must read positions in any
  // order (xPos centres and FIRE normalises by the query's position; NoPE has none).
  kSupportCoupled = 1u << 5,
  // What a method reads, for the checks that depend on it (the lens's shift and shuffle passes):
  kReadsAnyOrder = 1u << 6,  // a row's positions in any order (shuffled, coupled, constant)
  kRelativeOnly = 1u << 7,   // only p_i − p_j: moving every position by k leaves the scores
  // The trainer computes the method's positions from the tokens (Abacus: each digit's place in
  // its number), so randomised or coupled positions, and the text task, are refused.
  kOwnPositions = 1u << 8,
};

// The bits' names, as the wasm table (`support`) and `poslab methods` print them.
inline constexpr Named<unsigned> kPositionSupportNames[] = {
    {kSupportCore, "core"},       {kSupportBias, "bias"},      {kSupportTrainer, "trainer"},
    {kSupportCuda, "cuda"},       {kSupportGpt2Swap, "gpt2"},  {kSupportCoupled, "coupled"},
    {kReadsAnyOrder, "anyOrder"}, {kRelativeOnly, "relative"}, {kOwnPositions, "ownPositions"}};

// A score bias's term (positions/score_bias.hpp), one per score-bias row: what that header's one
// switch dispatches on, so a new bias is a case the compiler asks for there and nowhere else.
enum class BiasTerm { kNone, kAlibi, kT5, kKerple, kFire };

// One option of a method, as the page shows it; the core's checks refuse what is outside.
struct PositionOption {
  const char* name;  // the JS API's option name
  double default_value, min, max;
  const char* about;
};

struct PositionMethodInfo {
  PositionMethod method;
  const char* name;
  const char* alias;  // another name accepted for it ("" for none)
  PositionKind kind;
  unsigned support;  // PositionSupport bits
  std::array<PositionOption, 2> options;
  std::size_t option_count;
  const char* summary;
  // A rotation's pairs; its options "base", "scaleBase" (a decay, formulas::decay_scale) and
  // "keepFraction" (the zeroed-pair mask) set RopeOptions' fields (rotation_defaults).
  RopeStyle pairs = RopeStyle::kNeox;
  BiasTerm term = BiasTerm::kNone;  // a score bias's term
};

// In the enum's order: kPositionMethods[int(m)] describes m.
inline constexpr PositionMethodInfo kPositionMethods[] = {
    {PositionMethod::kLearned,
     "learned",
     "absolute",
     PositionKind::kLearnedTable,
     kSupportCore | kSupportTrainer | kSupportCoupled | kSupportGpt2Swap | kReadsAnyOrder,
     {{{"std", defaults::kLearnedStd, 0, 1, "init std of the table"}}},
     1,
     "a trained (L, D) table added to the token embeddings (GPT-2)"},
    {PositionMethod::kSinusoidal,
     "sinusoidal",
     "",
     PositionKind::kAddedTable,
     kSupportCore | kSupportTrainer | kSupportCoupled | kSupportCuda | kSupportGpt2Swap |
         kReadsAnyOrder,
     {{{"base", defaults::kBase, 1, 1e300, "w_i = base^(-2i/D)"}}},
     1,
     "sin/cos of p·w_i added to the token embeddings (Vaswani et al. 2017)"},
    {PositionMethod::kShaw,
     "shaw",
     "relative",
     PositionKind::kRelativeTable,
     kSupportCore | kReadsAnyOrder | kRelativeOnly,
     {{{"maxDistance", 16, 0, 1 << 30, "clip distances to [-K, K]"}}},
     1,
     "a trained embedding per clipped distance j - i (Shaw et al. 2018)"},
    {PositionMethod::kRope,
     "rope",
     "rotary",
     PositionKind::kRotation,
     kSupportCore | kSupportTrainer | kSupportCoupled | kSupportCuda | kSupportGpt2Swap |
         kReadsAnyOrder | kRelativeOnly,
     {{{"base", defaults::kBase, 1, 1e300, "theta_i = base^(-2i/R)"},
       {"rotaryFraction", 1, 0, 1, "rotate the first R = D·fraction dims"}}},
     2,
     "q and k rotated pairwise by p·theta_i (Su et al. 2021)"},
    {PositionMethod::kPRope,
     "p-rope",
     "",
     PositionKind::kRotation,
     kSupportCore | kSupportTrainer | kSupportCoupled | kSupportCuda | kReadsAnyOrder |
         kRelativeOnly,
     {{{"base", defaults::kBase, 1, 1e300, "theta_i = base^(-2i/R)"},
       {"keepFraction", 0.75, 0, 1, "keep the floor(p·R/2) highest frequencies, zero the rest"}}},
     2,
     "RoPE with its lowest frequencies set to 0: those pairs carry no position (Barbero et al. "
     "2025)"},
    {PositionMethod::kXpos,
     "xpos",
     "",
     PositionKind::kRotation,
     kSupportCore | kSupportTrainer | kSupportCuda,
     {{{"base", defaults::kBase, 1, 1e300, "theta_i = base^(-2i/D)"},
       {"scaleBase", 512, 0, 1e300,  // torchscale's XPOS default
        "q·zeta_i^(n/scaleBase), k·zeta_i^(-m/scaleBase)"}}},
     2,
     "RoPE times a decay zeta_i^((n-m)/scaleBase) per pair (Sun et al. 2023)",
     RopeStyle::kGptj},
    {PositionMethod::kAlibi,
     "alibi",
     "",
     PositionKind::kScoreBias,
     kSupportCore | kSupportBias | kSupportTrainer | kSupportCoupled | kSupportCuda |
         kSupportGpt2Swap | kReadsAnyOrder | kRelativeOnly,
     {},
     0,
     "-m_h·|p_i - j| added to the scores (Press et al. 2022)",
     RopeStyle::kNeox,
     BiasTerm::kAlibi},
    {PositionMethod::kT5,
     "t5",
     "",
     PositionKind::kScoreBias,
     kSupportCore | kSupportBias | kSupportTrainer | kSupportCoupled | kSupportCuda |
         kReadsAnyOrder | kRelativeOnly,
     {{{"numBuckets", 32, 2, 1 << 20, "relative-position buckets"},
       {"maxDistance", 128, 2, 1 << 30, "where the logarithmic buckets end"}}},
     2,
     "a trained bias per bucket of j - p_i and head (Raffel et al. 2020)",
     RopeStyle::kNeox,
     BiasTerm::kT5},
    {PositionMethod::kKerple,
     "kerple",
     "",
     PositionKind::kScoreBias,
     kSupportCore | kSupportBias | kSupportTrainer | kSupportCoupled | kSupportCuda |
         kReadsAnyOrder | kRelativeOnly,
     {{{"r1", 0, 0, 1e6, "every head's r1 (0: drawn per head, U(0, 2), from the seed)"},
       {"r2", 0, 0, 1e6, "every head's r2 (0: drawn per head, U(0, 1), from the seed)"}}},
     2,
     "-r1_h·log(1 + r2_h·|p_i - j|), r1 and r2 learned per head (Chi et al. 2022, KERPLE log)",
     RopeStyle::kNeox,
     BiasTerm::kKerple},
    {PositionMethod::kFire,
     "fire",
     "",
     PositionKind::kScoreBias,
     kSupportTrainer,
     {},
     0,
     "a per-layer MLP of log-scaled, interpolated p_i - p_j; one bias per head (Li et al. 2024)",
     RopeStyle::kNeox,
     BiasTerm::kFire},
    {PositionMethod::kCope,
     "cope",
     "",
     PositionKind::kGated,
     kSupportTrainer | kReadsAnyOrder | kRelativeOnly,
     {{{"nposMax", 64, 2, 1 << 16,
        "positions p_ij are clipped at nposMax - 1 (the authors' npos_max)"}}},
     1,
     "contextual positions: p_ij = the sum of sigmoid(q_i·k_j/sqrt(d)) gates from key to query, a "
     "learned embedding interpolated at p_ij (Golovneva et al. 2024)"},
    {PositionMethod::kFox,
     "fox",
     "",
     PositionKind::kGated,
     kSupportTrainer | kReadsAnyOrder | kRelativeOnly,
     {{{"decayMax", 64, 0, 1 << 16,
        "the gates' biases start at decay times from 2 to decayMax tokens over the heads, "
        "b = -log(expm1(1/T)) (the authors' bias init); 0: every bias 0"}}},
     1,
     "a forget gate per head, f_t = sigmoid(w_h·x_t + b_h); the sum of log f_t from key to query "
     "added to the scores, no positions (Lin et al. 2025, Forgetting Transformer)"},
    {PositionMethod::kAbacus,
     "abacus",
     "",
     PositionKind::kLearnedTable,
     kSupportTrainer | kOwnPositions,
     {{{"maxOffset", 99, 0, 1 << 12,
        "training adds one offset k in [0, maxOffset] to a sequence's places (the authors' "
        "max_k)"}}},
     1,
     "a trained table indexed by a digit's place in its number (1, 2, ...; 0 off digits), on a "
     "NoPE model (McLeish et al. 2024, Abacus)"},
    {PositionMethod::kNone,
     "none",
     "nope",
     PositionKind::kNone,
     kSupportBias | kSupportTrainer | kSupportGpt2Swap | kReadsAnyOrder | kRelativeOnly,
     {},
     0,
     "no position signal: only the causal mask (Kazemnejad et al. 2023)"},
};
static_assert(std::size(kPositionMethods) == kPositionMethodCount,
              "every PositionMethod needs a row in kPositionMethods");
static_assert(
    [] {
      for (const PositionMethodInfo& m : kPositionMethods) {
        if ((m.kind == PositionKind::kScoreBias) != (m.term != BiasTerm::kNone)) return false;
      }
      return true;
    }(),
    "a score-bias row names its term, and only a score-bias row");

constexpr const PositionMethodInfo& position_method_info(PositionMethod method) {
  return kPositionMethods[static_cast<std::size_t>(method)];
}

constexpr bool supports(PositionMethod method, unsigned where) {
  return (position_method_info(method).support & where) == where;
}

// Whether the method reads the positions it is given: NoPE and a gated method (its
// positions come from content) read none, so randomising them changes nothing.
constexpr bool reads_positions(PositionMethod method) {
  const PositionKind kind = position_method_info(method).kind;
  return kind != PositionKind::kNone && kind != PositionKind::kGated;
}

// Whether the method adds a trained table (wpe.weight) to the token embeddings: learned by
// position, Abacus by digit place.
constexpr bool has_learned_table(PositionMethod method) {
  return position_method_info(method).kind == PositionKind::kLearnedTable;
}

// The name table of the methods `where` supports, in the table's order: what one context
// parses, prints and lists (parse_name, name_of, name_list).
template <unsigned Where>
constexpr auto position_method_names() {
  constexpr std::size_t n = [] {
    std::size_t count = 0;
    for (const PositionMethodInfo& m : kPositionMethods) count += (m.support & Where) == Where;
    return count;
  }();
  std::array<Named<PositionMethod>, n> names{};
  std::size_t k = 0;
  for (const PositionMethodInfo& m : kPositionMethods) {
    if ((m.support & Where) == Where) names[k++] = {m.method, m.name};
  }
  return names;
}

// A method's name or its alias, among those `where` supports; Error with `field`
// listing that context's names otherwise.
PositionMethod parse_position_method(const std::string& text, unsigned where, const char* what,
                                     const char* field);

const char* to_string(PositionMethod method);

// A rotation method's RopeOptions at the table's defaults: its pairs, and each option the
// table gives it in the field of that name (base, scaleBase). Error for any other kind.
RopeOptions rotation_defaults(PositionMethod method);
// The same for a method's name or alias (the CLI's --method, the JS rope options' `method`);
// Error with field "method" for an unknown name or a method that does not rotate.
RopeOptions rotation_defaults(const std::string& name);

}  // namespace poslab

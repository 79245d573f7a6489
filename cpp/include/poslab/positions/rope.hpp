// Rotary position embedding (Su et al., RoFormer) and its long-context scalings, each as
// in its paper and the Hugging Face `rope_type` code, and the decaying rotation
// (formulas::decay_scale) a position method's row may ask for.
#pragma once

#include <string>
#include <vector>

#include "poslab/base/defaults.hpp"
#include "poslab/base/names.hpp"
#include "poslab/base/tensor.hpp"
#include "poslab/positions/formulas.hpp"

namespace poslab {

enum class RopeStyle {
  kNeox,  // pairs (x[i], x[i + R/2]): the common "rotate_half"
  kGptj,  // pairs (x[2i], x[2i+1])
};

enum class RopeScaling {
  kNone,
  kLinear,   // position interpolation: θ_i / f
  kNtk,      // base · f^(R/(R−2))
  kDynamic,  // NTK with base · ((f·S/N) − (f−1))^(R/(R−2)) once S = offset + L exceeds N
  kYarn,     // ramp between θ_i/f and θ_i over the correction range; cos/sin · (0.1 ln f + 1)
  kLlama3,   // θ_i/f below the low-frequency band, θ_i above the high one, smooth between
};

inline constexpr Named<RopeStyle> kRopeStyleNames[] = {{RopeStyle::kNeox, "neox"},
                                                       {RopeStyle::kGptj, "gptj"}};
inline constexpr Named<RopeScaling> kRopeScalingNames[] = {
    {RopeScaling::kNone, "none"}, {RopeScaling::kLinear, "linear"},
    {RopeScaling::kNtk, "ntk"},   {RopeScaling::kDynamic, "dynamic"},
    {RopeScaling::kYarn, "yarn"}, {RopeScaling::kLlama3, "llama3"}};

RopeStyle parse_rope_style(const std::string& name);      // Error with field "style"
RopeScaling parse_rope_scaling(const std::string& name);  // Error with field "scaling"
std::string to_string(RopeScaling scaling);

// LongRoPE's per-pair factors (Phi-3): θ_i / short_factor[i] up to the original length,
// θ_i / long_factor[i] past it. One entry per pair.
struct LongropeFactors {
  std::vector<double> short_factor, long_factor;
};

// Rotation pairs [first, last), in Hugging Face's order (pair 0 the highest frequency).
struct PairRange {
  long long first = 0, last = 0;
};

struct RopeOptions {
  double base = defaults::kBase;
  RopeStyle style = RopeStyle::kNeox;
  double rotary_fraction = 1.0;  // rotate the first R = D·fraction dims (R even), pass the rest
  RopeScaling scaling = RopeScaling::kNone;
  double factor = 1.0;            // f >= 1
  long long original_length = 0;  // N, the trained context; required by dynamic, yarn, llama3
  double low_freq_factor = 1.0;   // llama3
  double high_freq_factor = 4.0;  // llama3
  double beta_fast = 32.0;        // yarn
  double beta_slow = 1.0;         // yarn
  bool yarn_truncate = true;      // yarn: round the ramp's ends to whole pairs (gpt-oss: false)
  double attention_factor = 0.0;  // yarn: config.json's attention_factor; 0: 0.1·ln f + 1
  // LongRoPE (with scaling none): the long list once the sequence S = offset + L passes
  // original_length, else the short one; cos and sin times attention_factor (0: 1). Null:
  // none. Only the language models set it, pointing at their config's lists, which must
  // outlive these options (a pointer keeps the options a plain value everywhere else).
  const LongropeFactors* longrope = nullptr;
  // A decaying rotation when > 0: each rotated pair also times formulas::decay_scale, ζ_i^(±e)
  // with e the position centred on the sequence over this scale base; 0: none.
  double scale_base = 0.0;
  // The zeroed-pair mask: pairs whose angle is 0, so they carry no position (cos = the attention
  // factor, sin = 0). p-RoPE (Barbero et al. 2025) keeps the ⌊keep_fraction·R/2⌋ highest
  // frequencies (pairs 0.., Hugging Face's order) and zeroes the rest: 1 is RoPE, 0 no rotation.
  // zero_pairs adds ranges [first, last) of pairs, inside [0, R/2]; null: none. A pointer, as
  // longrope's, keeps the options a plain value; the list must outlive them.
  double keep_fraction = 1.0;
  const std::vector<PairRange>* zero_pairs = nullptr;
};

// Which side of attention a decaying rotation scales: queries take ζ^e, keys ζ^(−e). A plain
// rotation treats both alike.
enum class RotationSide { kQuery, kKey };

// The effective rotation of one configuration: what the playground plots.
struct RopeFrequencies {
  long long rotary_dim = 0;       // R
  std::vector<double> inv_freq;   // θ_i, (R/2,)
  double attention_factor = 1.0;  // multiplies cos and sin (YaRN's mscale; 1 otherwise)
};

// θ_i for a head of width D. `total_length` is S = offset + L, which only `dynamic` reads.
// Throws Error for an invalid configuration (odd R, f < 1, missing N, ...).
RopeFrequencies rope_frequencies(long long head_dim, const RopeOptions& options,
                                 long long total_length = 0);

// Rotates x at positions offset..offset+L−1 of a sequence of offset + L positions. x is (L, D)
// or (H, L, D); the result has x's shape. Angles p·θ_i are computed in double. A decaying
// rotation refuses a result beyond float32 (ζ^(−e) over a long sequence).
TensorF rope_apply(const TensorF& x, const RopeOptions& options, long long offset = 0,
                   RotationSide side = RotationSide::kQuery);
// The same with row l at positions[l] (L entries, each in [0, 2^40], any order: shuffled or
// constant positions), of a sequence of max(positions) + 1 (what `dynamic` reads).
TensorF rope_apply(const TensorF& x, const RopeOptions& options,
                   const std::vector<long long>& positions,
                   RotationSide side = RotationSide::kQuery);

}  // namespace poslab

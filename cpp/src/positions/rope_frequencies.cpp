// RoPE's effective frequencies θ_i for each scaling (transcribed from the papers and the
// Hugging Face `rope_type` functions, in double), with the options' checks: run once per call,
// on R/2 numbers (the wasm modules build this file for size); the rotation is rope.cpp's.
#include <algorithm>
#include <cmath>

#include "base/validation.hpp"
#include "poslab/base/format.hpp"
#include "poslab/positions/formulas.hpp"
#include "poslab/positions/rope.hpp"

namespace poslab {

RopeStyle parse_rope_style(const std::string& name) {
  return parse_name(kRopeStyleNames, name, "RoPE style", "style");
}

RopeScaling parse_rope_scaling(const std::string& name) {
  return parse_name(kRopeScalingNames, name, "RoPE scaling", "scaling");
}

std::string to_string(RopeScaling scaling) { return name_of(kRopeScalingNames, scaling); }

namespace {

bool positive_finite(double x) { return std::isfinite(x) && x > 0.0; }

void check_options(const RopeOptions& o, long long rotary_dim) {
  require(positive_finite(o.base) && o.base != 1.0, "base",
          "RoPE base must be a positive finite number other than 1 (got " + format_number(o.base) +
              ")");
  require(std::isfinite(o.attention_factor) && o.attention_factor >= 0.0, "attentionFactor",
          "the attention factor must be positive (or 0 for the scaling's own)");
  require(std::isfinite(o.scale_base) && o.scale_base >= 0.0, "scaleBase",
          "the scale base must be 0 (no decay) or a positive finite number (got " +
              format_number(o.scale_base) + ")");
  // LongRoPE's lists: their values are checked as a model reads them (lm_config.hpp), their
  // length here, against the rotary dim (this module is in the embed's few kilobytes).
  if (o.longrope) {
    require(o.longrope->short_factor.size() == std::size_t(rotary_dim / 2) &&
                o.longrope->long_factor.size() == std::size_t(rotary_dim / 2),
            "headDim", "longrope needs one short and one long factor per rotary pair");
  }
  require(std::isfinite(o.keep_fraction) && o.keep_fraction >= 0.0 && o.keep_fraction <= 1.0,
          "keepFraction",
          "the kept fraction of frequencies must be in [0, 1] (got " +
              format_number(o.keep_fraction) + ")");
  for (std::size_t k = 0; o.zero_pairs && k < o.zero_pairs->size(); ++k) {
    const PairRange& range = (*o.zero_pairs)[k];
    require(range.first >= 0 && range.first <= range.last && range.last <= rotary_dim / 2,
            "zeroPairs",
            "a zeroed pair range [" + std::to_string(range.first) + ", " +
                std::to_string(range.last) + ") must lie inside [0, R/2] = [0, " +
                std::to_string(rotary_dim / 2) + "] and not be inverted");
  }
  if (o.scaling == RopeScaling::kNone) return;
  const std::string name = to_string(o.scaling);
  require(std::isfinite(o.factor) && o.factor >= 1.0, "factor",
          name + " scaling needs a factor >= 1 (got " + format_number(o.factor) + ")");
  const bool needs_length = o.scaling == RopeScaling::kDynamic || o.scaling == RopeScaling::kYarn ||
                            o.scaling == RopeScaling::kLlama3;
  require(!needs_length || o.original_length > 0, "originalLength",
          name + " scaling needs the original (trained) length N > 0");
  const bool ntk_like = o.scaling == RopeScaling::kNtk || o.scaling == RopeScaling::kDynamic;
  require(!ntk_like || rotary_dim > 2, "headDim", name + " scaling needs a rotary dim above 2");
  if (o.scaling == RopeScaling::kYarn) {
    require(positive_finite(o.beta_fast) && positive_finite(o.beta_slow),
            positive_finite(o.beta_fast) ? "betaSlow" : "betaFast",
            "yarn beta_fast and beta_slow must be positive");
    // beta_fast counts the rotations that end the ramp at the high-frequency end, beta_slow
    // those that end it at the low one: fast below slow would invert the ramp.
    require(o.beta_fast >= o.beta_slow, "betaFast",
            "yarn needs beta_fast >= beta_slow (got beta_fast " + format_number(o.beta_fast) +
                ", beta_slow " + format_number(o.beta_slow) + "; the defaults are 32 and 1)");
  }
  if (o.scaling == RopeScaling::kLlama3) {
    // The field is the factor that is out of range, or lowFreqFactor when they are misordered.
    // Equal factors are accepted, as transformers does (Llama-4-Scout ships 1 and 1): no
    // wavelength is then between the bands, so none is smoothed.
    const bool high_ok = positive_finite(o.high_freq_factor) || !positive_finite(o.low_freq_factor);
    require(positive_finite(o.low_freq_factor) && positive_finite(o.high_freq_factor) &&
                o.high_freq_factor >= o.low_freq_factor,
            high_ok ? "lowFreqFactor" : "highFreqFactor",
            "llama3 needs 0 < low_freq_factor <= high_freq_factor");
  }
}

// YaRN (Peng et al. 2023): the dimension whose wavelength fits `rotations` turns into N.
double yarn_correction_dim(double rotations, double dim, double base, double original_length) {
  return dim * std::log(original_length / (rotations * 2.0 * formulas::kPi)) /
         (2.0 * std::log(base));
}

void apply_yarn(std::vector<double>& inv_freq, const RopeOptions& o, long long R,
                double& attention_factor) {
  const double N = double(o.original_length);
  double low = yarn_correction_dim(o.beta_fast, double(R), o.base, N);
  double high = yarn_correction_dim(o.beta_slow, double(R), o.base, N);
  if (o.yarn_truncate) {
    low = std::floor(low);
    high = std::ceil(high);
  }
  low = std::max(low, 0.0);
  high = std::min(high, double(R - 1));
  if (low == high) high += 0.001;  // avoids a zero-width ramp, as the reference does
  for (std::size_t i = 0; i < inv_freq.size(); ++i) {
    const double ramp = std::clamp((double(i) - low) / (high - low), 0.0, 1.0);
    const double extrapolation_weight = 1.0 - ramp;  // 1 for high frequencies: kept as is
    const double theta = inv_freq[i];
    inv_freq[i] = theta / o.factor * (1.0 - extrapolation_weight) + theta * extrapolation_weight;
  }
  attention_factor = o.attention_factor > 0.0 ? o.attention_factor
                     : o.factor > 1.0         ? 0.1 * std::log(o.factor) + 1.0
                                              : 1.0;
}

void apply_llama3(std::vector<double>& inv_freq, const RopeOptions& o) {
  const double N = double(o.original_length);
  const double low_freq_wavelength = N / o.low_freq_factor;
  const double high_freq_wavelength = N / o.high_freq_factor;
  for (double& theta : inv_freq) {
    const double wavelength = 2.0 * formulas::kPi / theta;
    if (wavelength < high_freq_wavelength) continue;  // high frequencies: unchanged
    if (wavelength > low_freq_wavelength) {           // low frequencies: interpolated
      theta /= o.factor;
      continue;
    }
    // Equal factors leave no band: a wavelength of exactly N / factor, which transformers would
    // turn into 0/0 (NaN), is kept as a high frequency.
    if (o.high_freq_factor == o.low_freq_factor) continue;
    const double smooth =
        (N / wavelength - o.low_freq_factor) / (o.high_freq_factor - o.low_freq_factor);
    theta = (1.0 - smooth) * theta / o.factor + smooth * theta;
  }
}

}  // namespace

RopeFrequencies rope_frequencies(long long head_dim, const RopeOptions& o, long long total_length) {
  const std::size_t D = positive_size(head_dim, "head dim", false, "headDim");
  require(std::isfinite(o.rotary_fraction) && o.rotary_fraction > 0.0 && o.rotary_fraction <= 1.0,
          "rotaryFraction",
          "rotary fraction must be in (0, 1] (got " + format_number(o.rotary_fraction) + ")");
  // As the reference: R = int(D · fraction).
  const long long R = static_cast<long long>(double(D) * o.rotary_fraction);
  require(R >= 2 && R % 2 == 0, o.rotary_fraction < 1.0 ? "rotaryFraction" : "headDim",
          "rotary dim D·fraction = " + std::to_string(R) +
              " must be even and at least 2 (D = " + std::to_string(head_dim) + ")");
  require(total_length >= 0, "totalLength", "total length must be non-negative");
  check_options(o, R);

  double base = o.base;
  if (o.scaling == RopeScaling::kNtk) {
    base *= std::pow(o.factor, double(R) / double(R - 2));
  } else if (o.scaling == RopeScaling::kDynamic) {
    const double N = double(o.original_length);
    const double S = std::max(double(total_length), N);
    // f·(S/N − 1) + 1, not f·S/N − (f − 1): the same number, without cancelling to 0 once f
    // passes 2^53.
    base *= std::pow(o.factor * (S / N - 1.0) + 1.0, double(R) / double(R - 2));
  }
  require(std::isfinite(base), "factor",
          to_string(o.scaling) + " scaling with factor " + format_number(o.factor) +
              " makes the base overflow; use a smaller factor");

  RopeFrequencies out;
  out.rotary_dim = R;
  out.inv_freq.resize(std::size_t(R / 2));
  for (long long i = 0; i < R / 2; ++i) out.inv_freq[i] = formulas::inv_freq(int(i), int(R), base);

  switch (o.scaling) {
    case RopeScaling::kLinear:
      for (double& theta : out.inv_freq) theta /= o.factor;
      break;
    case RopeScaling::kYarn:
      apply_yarn(out.inv_freq, o, R, out.attention_factor);
      break;
    case RopeScaling::kLlama3:
      apply_llama3(out.inv_freq, o);
      break;
    default:
      break;
  }
  if (o.longrope) {
    const std::vector<double>& f =
        total_length > o.original_length ? o.longrope->long_factor : o.longrope->short_factor;
    for (std::size_t i = 0; i < f.size(); ++i) out.inv_freq[i] /= f[i];
    if (o.attention_factor > 0.0) out.attention_factor = o.attention_factor;
  }
  // The zeroed pairs last: a zeroed pair keeps the scaling's attention factor.
  const long long pairs = R / 2;
  const auto kept = static_cast<long long>(std::floor(o.keep_fraction * double(pairs)));
  for (long long i = kept; i < pairs; ++i) out.inv_freq[std::size_t(i)] = 0.0;
  for (std::size_t k = 0; o.zero_pairs && k < o.zero_pairs->size(); ++k) {
    const PairRange& range = (*o.zero_pairs)[k];
    for (long long i = range.first; i < range.last; ++i) out.inv_freq[std::size_t(i)] = 0.0;
  }
  return out;
}

}  // namespace poslab

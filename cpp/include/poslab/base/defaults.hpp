// The core's default values that are not a struct's member initialisers (RopeOptions,
// T5BucketOptions and Mask carry their own): every function's default argument, the CLI's
// option defaults and the JS API (lab.defaults) read these.
#pragma once

namespace poslab::defaults {

inline constexpr double kBase = 10000.0;     // sinusoidal table, wavelengths, offset matrix
inline constexpr double kLearnedStd = 0.02;  // learned and Shaw tables (GPT-2's init)
inline constexpr double kNormEps = 1e-5;     // LayerNorm and RMSNorm

}  // namespace poslab::defaults

// sin and cos of a large double angle, reduced exactly enough in double that a float32
// evaluation of the remainder is as good as double math rounded to float32, within 1e-6.
#pragma once

#include <cuda_runtime.h>

namespace poslab::cuda::detail {

// a = p·θ reaches 65 536 rad and beyond, which float32 cannot hold to better than 4e-3, so
// it is reduced in double to a fraction of a turn, t = a/2π − rint(a/2π) in [−½, ½] (exact
// subtraction; a/2π is off by ~1e-12 turns). In float32 2πt then has |x| <= π, where the
// hardware __sincosf is good to 2^-21.4 absolute: with the rounding of t and 2πt, at most
// ~8e-7 from exact. The double work is a few instructions and the rest is two SFU ops, so
// memory-bound kernels stay memory-bound.
__device__ __forceinline__ void sincos_of_angle(double a, float* s, float* c) {
  constexpr double kInvTwoPi = 0.15915494309189533577;  // 1/(2π)
  constexpr float kTwoPi = 6.28318530717958648f;
  double turns = a * kInvTwoPi;
  turns -= rint(turns);
  __sincosf(static_cast<float>(turns) * kTwoPi, s, c);
}

// The same for the angle p·w of an integer position p <= 2^24 (exact in float32), with w/2π
// given as hi + lo float32s (a double split in two): t = p·hi is split into its rounded
// value and its exact error (one FMA), the integer turns drop out exactly (t − rint(t)),
// and p·lo adds the rest. All float32, no double conversion per element; the fraction is as
// accurate as the double route's (~3e-8 turns).
__device__ __forceinline__ float turns_of_position(float p, float hi, float lo) {
  const float t = p * hi;
  const float error = fmaf(p, hi, -t);
  return (t - rintf(t)) + fmaf(p, lo, error);
}

}  // namespace poslab::cuda::detail

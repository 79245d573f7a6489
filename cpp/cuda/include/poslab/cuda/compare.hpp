// The one tolerance policy for GPU results against the CPU reference core, used by the GPU
// tests and by poslab-bench-cuda before it times anything.
//
// An element passes when |got − ref| <= atol + rtol·|ref| (NaN or ±∞ where the reference is
// finite always fails).
//   fp32 storage   atol 1e-5, rtol 1e-5: the project's acceptance bar (tests/cpp/reference.hpp).
//                  Angles are formed in double on both sides, so tables and RoPE differ from
//                  the reference only by float32 rounding of O(1) values (~1e-7), and float32
//                  attention by float32 sums over at most a few thousand keys (~1e-6).
//   fp16 storage   atol 1e-3, rtol 1e-3, about 2u with u = 2^-11 the unit roundoff: the
//                  output is stored in fp16 (up to u·|ref| by itself), and the softmax weights
//                  are rounded to fp16 before P·V (at most u·max|v| more, since the weights
//                  sum to 1). Inputs are rounded before the reference sees them, and scores
//                  and sums are float32, so nothing else is of that size.
//   bf16 storage   atol 8e-3, rtol 8e-3: the same argument with u = 2^-8 (8 bits of mantissa).
// Bucket-valued results (T5) are compared exactly: the tolerance only absorbs the float32
// rounding of a value looked up from the same table.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "poslab/cuda/runtime.hpp"

namespace poslab::cuda {

struct Tolerance {
  double atol;
  double rtol;
};

Tolerance tolerance_for(DType dtype);

struct Comparison {
  std::size_t count = 0;       // elements compared
  std::size_t failures = 0;    // elements outside the tolerance
  double max_abs_error = 0.0;  // max |got − ref|
  double max_abs_ref = 0.0;    // max |ref|: the scale max_abs_error is read against
  double max_excess = 0.0;     // max |got − ref| / (atol + rtol·|ref|): passes when <= 1
  std::size_t worst = 0;       // index of the element with the largest excess
  bool ok() const { return failures == 0; }
  std::string summary() const;  // "max |err| 3.1e-07, worst at 17 (got .., want ..)"
  float worst_got = 0.0f, worst_ref = 0.0f;
};

// Compares element by element; got and ref must have the same size (Error otherwise).
Comparison compare(const std::vector<float>& got, const std::vector<float>& ref, Tolerance tol);

}  // namespace poslab::cuda

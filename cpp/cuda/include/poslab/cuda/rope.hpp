// Rotary position embedding on the GPU: the rotation of poslab::rope_apply, with the
// frequencies (every scaling) computed on the host by poslab::rope_frequencies.
#pragma once

#include <cuda_runtime_api.h>

#include "poslab/cuda/runtime.hpp"
#include "poslab/positions/rope.hpp"

namespace poslab::cuda {

// Kernel variants (cpp/cuda/rope.cu):
//   1  one thread per (row, position, pair); sin/cos in double for every element.
//   2  one thread per (position, 16-byte chunk) and 4 rows: the double angle reduced in
//      double, sin/cos of the remainder in float32, once per (position, pair) for the 4
//      rows; 16-byte loads/stores. Needs D, R and the row
//      start aligned to the chunk; rope_apply falls back to variant 1 otherwise.
inline constexpr int kRopeVariants = 2;

// θ_i on the device, in double: float32 θ would put p·θ off by up to 4e-3 rad at p = 65 536.
// A decaying rotation (options.scale_base > 0) runs inside attention_flash only.
class DeviceRopeFrequencies {
 public:
  // head_dim D and the options as in poslab::rope_frequencies (total_length for `dynamic`).
  DeviceRopeFrequencies(long long head_dim, const RopeOptions& options, long long total_length);

  const double* inv_freq() const { return buffer_.as<double>(); }
  int head_dim() const { return head_dim_; }
  int rotary_dim() const { return rotary_dim_; }
  float attention_factor() const { return attention_factor_; }
  RopeStyle style() const { return style_; }
  double scale_base() const { return scale_base_; }  // > 0: a decay, formulas::decay_scale

 private:
  DeviceBuffer buffer_;
  int head_dim_ = 0;
  int rotary_dim_ = 0;
  float attention_factor_ = 1.0f;
  RopeStyle style_ = RopeStyle::kNeox;
  double scale_base_ = 0.0;
};

// x, out: device (rows, L, D) in `dtype` (rows = B·H; out may equal x). Position of row
// element l is offset + l; dims ≥ R pass through. Rotation in float32 with cos/sin from
// double angles, times the attention factor (YaRN). Refuses a decaying rotation (Error).
void rope_apply(const void* x, void* out, DType dtype, long long rows, long long length,
                const DeviceRopeFrequencies& freq, long long offset, int variant = 2,
                cudaStream_t stream = nullptr);

}  // namespace poslab::cuda

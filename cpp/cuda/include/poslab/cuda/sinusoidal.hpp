// Sinusoidal position table on the GPU: the same table as poslab::sinusoidal_table.
#pragma once

#include <cuda_runtime_api.h>

#include "poslab/positions/sinusoidal.hpp"

namespace poslab::cuda {

// Kernel variants (cpp/cuda/sinusoidal.cu):
//   1  one thread per (position, pair), sin and cos in double: the plain transcription.
//   2  one thread per 16-byte output chunk: the angle reduced to a fraction of a turn
//      exactly in float32-pair arithmetic, sin/cos of it by the SFU (error < 1e-6);
//      frequencies computed once per block. Positions up to 2^24 (variant 1 beyond).
//   3  variant 2 with one row in 4 from the SFU and the rest by angle addition from the
//      thread's previous row (interleaved layout; concat runs variant 2's kernel).
inline constexpr int kSinusoidalVariants = 3;

// pe: device (L, D) float32 for positions offset..offset+L−1, w_i = base^(-2i/D).
// Throws poslab::Error for the inputs poslab::sinusoidal_table refuses.
void sinusoidal_table(float* pe, long long length, long long dim, double base,
                      SinusoidalLayout layout, long long offset, int variant = 2,
                      cudaStream_t stream = nullptr);

}  // namespace poslab::cuda

// Rotary position embedding (Su et al., RoFormer) on the GPU, llm.c style:
//   rope_kernel1  one thread per (row, position, pair): double angle, double sin/cos, float32
//                 rotation. Any shape and alignment.
//   rope_kernel2  one thread per (position, 16-byte chunk) and 4 rows (all 4 loads in flight
//                 before the first store, which also keeps in-place calls correct); sin/cos
//                 once per (position, pair) from the double angle reduced in double
//                 (angles.cuh), shared by the 4 rows. No 64-bit division per element.
// x and out are (rows, L, D), rows = B·H; neox pairs (i, i + R/2), gptj pairs (2i, 2i + 1);
// dims ≥ R are copied. Validated against poslab::rope_apply (tests/cuda, poslab-bench-cuda).
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "angles.cuh"
#include "common.cuh"
#include "poslab/base/format.hpp"
#include "poslab/base/tensor.hpp"
#include "poslab/cuda/rope.hpp"
#include "poslab/positions/formulas.hpp"

namespace poslab::cuda {
namespace {

using detail::from_float;
using detail::to_float;

// One thread per (row, l, slot); slots [0, R/2) rotate a pair, the rest copy element
// R + (slot − R/2).
template <class T>
__global__ void rope_kernel1(const T* x, T* out, long long rows, long long L, int D, int R,
                             const double* inv_freq, float attention_factor, bool neox,
                             long long offset) {
  const int half = R / 2;
  const int slots = half + (D - R);
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= rows * L * slots) return;
  const int slot = static_cast<int>(idx % slots);
  const long long rl = idx / slots;  // row·L + l
  const long long l = rl % L;
  const T* px = x + rl * D;
  T* po = out + rl * D;
  if (slot >= half) {
    const int e = R + (slot - half);
    po[e] = px[e];
    return;
  }
  const int a = neox ? slot : 2 * slot;
  const int b = neox ? slot + half : 2 * slot + 1;
  double s, c;
  sincos(formulas::angle(double(offset + l), inv_freq[slot]), &s, &c);
  float u = to_float(px[a]), v = to_float(px[b]);
  formulas::rotate_pair(u, v, static_cast<float>(c * attention_factor),
                        static_cast<float>(s * attention_factor));
  po[a] = from_float<T>(u);
  po[b] = from_float<T>(v);
}

constexpr int kRowBatch = 4;  // rows per block: all their loads in flight at once

// Block (x: slots of one position, y: positions), grid (positions, row batches). A neox slot
// owns the chunks at i0 and R/2 + i0 (V pairs); a gptj slot owns one chunk (V/2 pairs);
// slots past the rotating ones copy a chunk of the pass-through dims.
template <class T, bool kNeox>
__global__ void rope_kernel2(const T* x, T* out, long long rows, long long L, int D, int R,
                             const double* inv_freq, float attention_factor, long long offset) {
  using Vec = detail::Vec16<T>;
  constexpr int V = Vec::N;
  constexpr int kPairs = kNeox ? V : V / 2;  // pairs per slot
  const int half = R / 2;
  const int rotating = kNeox ? half / V : R / V;
  const int slot = threadIdx.x;
  const long long l = static_cast<long long>(blockIdx.x) * blockDim.y + threadIdx.y;
  if (l >= L) return;
  const long long r0 = static_cast<long long>(blockIdx.y) * kRowBatch;
  const long long stride = L * D;  // between rows
  const T* px = x + r0 * stride + l * D;
  T* po = out + r0 * stride + l * D;
  const int n = rows - r0 < kRowBatch ? static_cast<int>(rows - r0) : kRowBatch;

  if (slot >= rotating) {
    if (x == out) return;
    const int e = R + (slot - rotating) * V;
    for (int u = 0; u < n; ++u)
      detail::store16(po + u * stride + e, detail::load16(px + u * stride + e));
    return;
  }

  // Chunk starts: neox (i0, half + i0) with pairs i0 + k; gptj ea with pairs ea/2 + k.
  const int ea = slot * V;
  const int eb = kNeox ? half + slot * V : 0;
  Vec a[kRowBatch], b[kRowBatch];
#pragma unroll
  for (int u = 0; u < kRowBatch; ++u) {
    if (u < n) {
      a[u] = detail::load16(px + u * stride + ea);
      if (kNeox) b[u] = detail::load16(px + u * stride + eb);
    }
  }
  const int i0 = kNeox ? slot * V : slot * V / 2;
  float c[kPairs], s[kPairs];
  const double position = double(offset + l);
#pragma unroll
  for (int k = 0; k < kPairs; ++k) {
    detail::sincos_of_angle(formulas::angle(position, inv_freq[i0 + k]), &s[k], &c[k]);
    c[k] *= attention_factor;
    s[k] *= attention_factor;
  }
#pragma unroll
  for (int u = 0; u < kRowBatch; ++u) {
    if (u >= n) continue;
#pragma unroll
    for (int k = 0; k < kPairs; ++k) {
      float p, q;
      if (kNeox) {
        p = to_float(a[u].v[k]);
        q = to_float(b[u].v[k]);
      } else {
        p = to_float(a[u].v[2 * k]);
        q = to_float(a[u].v[2 * k + 1]);
      }
      formulas::rotate_pair(p, q, c[k], s[k]);
      if (kNeox) {
        a[u].v[k] = from_float<T>(p);
        b[u].v[k] = from_float<T>(q);
      } else {
        a[u].v[2 * k] = from_float<T>(p);
        a[u].v[2 * k + 1] = from_float<T>(q);
      }
    }
    detail::store16(po + u * stride + ea, a[u]);
    if (kNeox) detail::store16(po + u * stride + eb, b[u]);
  }
}

}  // namespace

DeviceRopeFrequencies::DeviceRopeFrequencies(long long head_dim, const RopeOptions& options,
                                             long long total_length) {
  const RopeFrequencies f = rope_frequencies(head_dim, options, total_length);
  buffer_ = DeviceBuffer(f.inv_freq.size() * sizeof(double));
  buffer_.upload(f.inv_freq.data(), f.inv_freq.size() * sizeof(double));
  head_dim_ = static_cast<int>(head_dim);
  rotary_dim_ = static_cast<int>(f.rotary_dim);
  attention_factor_ = static_cast<float>(f.attention_factor);
  style_ = options.style;
  scale_base_ = options.scale_base;
}

void rope_apply(const void* x, void* out, DType dtype, long long rows, long long length,
                const DeviceRopeFrequencies& freq, long long offset, int variant,
                cudaStream_t stream) {
  require(rows >= 0 && length >= 0, "rows and length must be non-negative");
  require(offset >= 0 && offset <= (1LL << 40),
          "offset must be in [0, 2^40] (got " + std::to_string(offset) + ")");
  require(variant >= 1 && variant <= kRopeVariants,
          "unknown RoPE kernel variant " + std::to_string(variant));
  // A decay scales queries and keys apart: attention_flash applies it as q and k load.
  require(freq.scale_base() == 0.0, "cuda::rope_apply rotates without a decay (scale base " +
                                        format_number(freq.scale_base()) +
                                        "): attention_flash applies one to q and k");
  const int D = freq.head_dim(), R = freq.rotary_dim();
  checked_numel({std::size_t(rows), std::size_t(length), std::size_t(D)},
                "RoPE input (rows, L, D)");
  if (rows == 0 || length == 0) return;
  const bool neox = freq.style() == RopeStyle::kNeox;

  detail::dispatch_dtype(dtype, [&](auto zero) {
    using T = decltype(zero);
    constexpr int V = detail::Vec16<T>::N;
    const T* xt = static_cast<const T*>(x);
    T* ot = static_cast<T*>(out);
    // Variant 2: whole 16-byte chunks, one block row per position, rows in batches of 4.
    const int slots = (neox ? R / 2 / V : R / V) + (D - R) / V;
    const bool vectorizable = detail::aligned16(x) && detail::aligned16(out) && D % V == 0 &&
                              R % (neox ? 2 * V : V) == 0 && slots <= 256 &&
                              detail::ceil_div(rows, kRowBatch) <= 65535;
    if (variant == 1 || !vectorizable) {
      const long long threads = rows * length * (R / 2 + (D - R));
      rope_kernel1<T><<<detail::ceil_div(threads, 256), 256, 0, stream>>>(
          xt, ot, rows, length, D, R, freq.inv_freq(), freq.attention_factor(), neox, offset);
      check_launch("rope_kernel1");
      return;
    }
    const dim3 block = detail::row_block(slots);
    const dim3 grid(detail::ceil_div(length, block.y), detail::ceil_div(rows, kRowBatch));
    if (neox) {
      rope_kernel2<T, true><<<grid, block, 0, stream>>>(xt, ot, rows, length, D, R, freq.inv_freq(),
                                                        freq.attention_factor(), offset);
    } else {
      rope_kernel2<T, false><<<grid, block, 0, stream>>>(
          xt, ot, rows, length, D, R, freq.inv_freq(), freq.attention_factor(), offset);
    }
    check_launch("rope_kernel2");
  });
}

}  // namespace poslab::cuda

// Fused flash-style attention forward (Dao et al., FlashAttention-2 ordering) on tensor cores:
//   flash_attention_kernel  one block per kBr queries of one (batch, head); each warp owns
//     kTiles tiles of 16 query rows. Variant 2: 64 queries, 4 warps, one tile each, its Q
//     fragments kept in registers. Variant 3: 128 queries, 8 warps, so each K and V tile
//     serves twice the queries. Variant 4 (FlashAttention-2's layout): 128 queries, 4 warps,
//     two tiles each, Q fragments read from shared memory per key tile, so each K and V
//     fragment a warp loads feeds two MMAs (at d = 128 with 32-key tiles: two row tiles of O
//     take 128 registers). Keys and values stream through shared memory in tiles of kBc
//     rows (cp.async, XOR-swizzled rows so ldmatrix is free of bank conflicts); the V tile
//     loads while S = Q Kᵀ runs and the next K tile while the softmax and O += P V run. S and
//     O accumulate in float32 registers (mma.sync m16n8k16), the softmax is online in log2
//     units, and P goes from the S accumulators straight into A fragments (same register
//     layout), so no L×L matrix ever reaches memory.
// Masks: tiles wholly past the causal diagonal or before the window are never loaded (blocks
// run heaviest-first so the skipped work evens out); only tiles that straddle an edge, the
// end of the keys, or have key padding test each element.
// Position inside the kernel (query i at p_i = i + offset, key j at j, as mask.hpp):
//   ALiBi  −m_h·|p_i − j| per element, m_h from formulas::alibi_slope.
//   T5     a key tile and a query block span only kBr + 63 distances j − p_i, so each tile's
//          bias values (formulas::t5_bucket, then the (buckets, H) table) are looked up once
//          into shared memory and read per element.
//   RoPE   (the kRope kernels) Q and each K tile are rotated in shared memory once they land,
//          before any MMA reads them: the angle (p0 + r)·θ_k of tile row r is composed from
//          the tile's (p0·θ_k), reduced in double once per tile and pair, and a per-block
//          table of (r·θ_k), so each element costs a few FMAs and no transcendental.
// Validated against poslab::attention (and poslab::rope_apply) in tests/cuda and
// poslab-bench-cuda.
#include <cuda_runtime.h>

#include <string>

#include "angles.cuh"
#include "attention_check.hpp"
#include "attention_mask.cuh"
#include "common.cuh"
#include "mma.cuh"
#include "poslab/cuda/attention.hpp"

namespace poslab::cuda {
namespace {

constexpr float kLog2e = 1.4426950408889634f;

// How a block's kRows queries are shared out (kTiles tiles of 16 rows per warp), and kKeys
// keys per K and V tile.
template <int kRows, int kTilesPerWarp, int kKeys = 64>
struct Tiling {
  static constexpr int kBr = kRows;
  static constexpr int kBc = kKeys;
  static constexpr int kTiles = kTilesPerWarp;
  static constexpr int kWarps = kRows / (16 * kTiles);
  static constexpr int kThreads = 32 * kWarps;
  static constexpr bool kQInRegisters = kTiles == 1;  // two tiles of Q would not fit at d = 128
  static constexpr int kDistances = kBr + kBc - 1;    // j − p_i over one query block and key tile
  static_assert(kRows % (16 * kTiles) == 0 && kBr % kBc == 0, "whole tiles");
};
using Variant2 = Tiling<64, 1>;
using Variant3 = Tiling<128, 1>;
// Two tiles of 64 keys would not fit the registers at d = 128 (o and s of two row tiles).
template <int D>
using Variant4 = Tiling<128, 2, D == 128 ? 32 : 64>;

struct FlashArgs {
  const void* q;
  const void* k;
  const void* v;
  void* o;
  int H, Lq, Lk;
  float scale_log2;  // scale · log2(e)
  detail::MaskArgs mask;
  bool alibi;
  const float* t5_table;  // (num_buckets, H) or null
  int t5_buckets, t5_max_distance;
  bool t5_bidirectional;
  const double* inv_freq;  // (R/2,) when the kernel rotates
  int rotary_dim;          // R, a multiple of 4
  bool neox;
  float rope_factor;  // multiplies cos and sin (YaRN)
};

// Shared memory of one block, in bytes: Q, K, V tiles; the tile's T5 bias by distance; with
// RoPE the row-angle table and the tile's base angles; the tile's key padding.
template <class T, int D, class Tl, bool kRope>
constexpr int smem_bytes() {
  return (Tl::kBr + 2 * Tl::kBc) * D * int(sizeof(T)) + 4 * (Tl::kDistances + 1) +
         (kRope ? 8 * (Tl::kBr + 1) * (D / 2) : 0) + Tl::kBc;
}

// Element (row, col) of a [rows][D] tile: 16-byte chunk index XOR (row % 8), so the 8 rows an
// ldmatrix phase reads land in 8 different bank groups.
template <int D>
__device__ __forceinline__ int swizzle(int row, int col) {
  return row * D + ((((col >> 3) ^ (row & 7))) << 3) + (col & 7);
}

// Rows [row0, row0 + kRows) of a (L, D) matrix into a swizzled tile; rows past L are zeros.
template <class T, int D, int kRows, int kThreads>
__device__ __forceinline__ void load_tile(T* tile, const T* g, int row0, int L) {
  constexpr int kChunks = D / 8;
  static_assert(kRows * kChunks % kThreads == 0, "whole chunks per thread");
#pragma unroll
  for (int it = 0; it < kRows * kChunks / kThreads; ++it) {
    const int c = it * kThreads + threadIdx.x;
    const int r = c / kChunks, ch = c % kChunks;
    const bool ok = row0 + r < L;
    const T* src = g + (ok ? (row0 + r) * D + ch * 8 : 0);  // (L·D < 2^28)
    detail::cp_async16(tile + swizzle<D>(r, ch * 8), src, ok);
  }
}

// RoPE tables: sLocal[r·D/2 + k] = (cos, sin)(r·θ_k) for rows r < kRows, once per block.
template <int kRows, int kThreads>
__device__ __forceinline__ void rope_row_angles(float2* sLocal, const FlashArgs& a, int D) {
  const int half = a.rotary_dim / 2;
  for (int e = threadIdx.x; e < kRows * half; e += kThreads) {
    const int r = e / half, k = e % half;
    float s, c;
    detail::sincos_of_angle(double(r) * a.inv_freq[k], &s, &c);
    sLocal[r * (D / 2) + k] = make_float2(c, s);
  }
}

// sBase[k] = factor·(cos, sin)(p0·θ_k): the first row's angles of a tile at position p0.
__device__ __forceinline__ void rope_base_angles(float2* sBase, const FlashArgs& a, int p0) {
  if (threadIdx.x < a.rotary_dim / 2) {
    float s, c;
    detail::sincos_of_angle(double(p0) * a.inv_freq[threadIdx.x], &s, &c);
    sBase[threadIdx.x] = make_float2(c * a.rope_factor, s * a.rope_factor);
  }
}

// Rotates the kRows rows of a swizzled tile in place (row r at position p0 + r), two pairs per
// step: neox pairs (k, k + R/2) sit in two 4-byte words, gptj pairs (2k, 2k + 1) in one each.
// Dims ≥ R are left alone. The caller synchronises before and after.
template <class T, int D, int kRows, int kThreads>
__device__ __forceinline__ void rope_rotate_tile(T* tile, const float2* sLocal, const float2* sBase,
                                                 const FlashArgs& a) {
  const int quads = a.rotary_dim / 4;
  for (int it = threadIdx.x; it < kRows * quads; it += kThreads) {
    const int r = it / quads, k = 2 * (it % quads);  // pairs k and k + 1
    const float4 base = *reinterpret_cast<const float4*>(sBase + k);
    const float4 row = *reinterpret_cast<const float4*>(sLocal + r * (D / 2) + k);
    // cos and sin of a sum: (p0 + r)·θ = p0·θ + r·θ.
    const float c0 = base.x * row.x - base.y * row.y, s0 = base.y * row.x + base.x * row.y;
    const float c1 = base.z * row.z - base.w * row.w, s1 = base.w * row.z + base.z * row.w;
    const int col_a = a.neox ? k : 2 * k;
    const int col_b = a.neox ? k + a.rotary_dim / 2 : 2 * k + 2;
    uint32_t* wa = reinterpret_cast<uint32_t*>(tile + swizzle<D>(r, col_a));
    uint32_t* wb = reinterpret_cast<uint32_t*>(tile + swizzle<D>(r, col_b));
    const float2 u = detail::unpack2<T>(*wa), v = detail::unpack2<T>(*wb);
    // neox: pair k is (u.x, v.x) and pair k + 1 (u.y, v.y); gptj: (u.x, u.y) and (v.x, v.y).
    float x0 = u.x, y0 = a.neox ? v.x : u.y, x1 = a.neox ? u.y : v.x, y1 = v.y;
    formulas::rotate_pair(x0, y0, c0, s0);
    formulas::rotate_pair(x1, y1, c1, s1);
    *wa = a.neox ? detail::pack2<T>(x0, x1) : detail::pack2<T>(x0, y0);
    *wb = a.neox ? detail::pack2<T>(y0, y1) : detail::pack2<T>(x1, y1);
  }
}

// Grid (ceil(Lq/kBr), H, B). q, k, v, o (B, H, L, D).
template <class T, int D, class Tl, bool kRope>
__global__ void __launch_bounds__(Tl::kThreads) flash_attention_kernel(FlashArgs a) {
  constexpr int kBr = Tl::kBr, kBc = Tl::kBc, kTiles = Tl::kTiles, kThreads = Tl::kThreads;
  constexpr int kDistances = Tl::kDistances;
  extern __shared__ __align__(16) unsigned char smem[];
  T* sQ = reinterpret_cast<T*>(smem);
  T* sK = sQ + kBr * D;
  T* sV = sK + kBc * D;
  float* sRel = reinterpret_cast<float*>(sV + kBc * D);  // T5 bias · log2(e) by j − p_i
  float2* sLocal = reinterpret_cast<float2*>(sRel + kDistances + 1);  // RoPE row angles
  float2* sBase = sLocal + kBr * (D / 2);                             // RoPE tile angles
  unsigned char* sPad = reinterpret_cast<unsigned char*>(kRope ? sBase + D / 2 : sLocal);

  // Masked blocks with more rows see more keys: start those first.
  const int m_tile = a.mask.rule.causal ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
  const int m0 = m_tile * kBr;
  const int h = blockIdx.y, b = blockIdx.z;
  const long long bh = static_cast<long long>(b) * a.H + h;
  const T* Q = static_cast<const T*>(a.q) + bh * a.Lq * D;
  const T* K = static_cast<const T*>(a.k) + bh * a.Lk * D;
  const T* V = static_cast<const T*>(a.v) + bh * a.Lk * D;
  T* O = static_cast<T*>(a.o) + bh * a.Lq * D;

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane >> 2, t = lane & 3;     // accumulator row g (and g + 8), columns 2t, 2t + 1
  const int warp_row0 = warp * 16 * kTiles;  // this warp's first row in the block

  // Key tiles [n_begin, n_end) hold every key some row of this block may see: the rows'
  // ranges (mask.hpp) only move right as the row grows.
  const int n_end = a.mask.last_key(m0 + kBr - 1, a.Lk);
  const int n_begin = a.mask.first_key(m0, a.Lk) / kBc * kBc;

  const int p0 = m0 + a.mask.rule.offset;  // position of the block's first query
  load_tile<T, D, kBr, kThreads>(sQ, Q, m0, a.Lq);
  if (n_begin < n_end) load_tile<T, D, kBc, kThreads>(sK, K, n_begin, a.Lk);
  detail::cp_async_commit();
  if constexpr (kRope) {  // while the tiles are in flight
    rope_row_angles<kBr, kThreads>(sLocal, a, D);
    rope_base_angles(sBase, a, p0);
  }
  detail::cp_async_wait<0>();
  __syncthreads();
  if constexpr (kRope) {
    rope_rotate_tile<T, D, kBr, kThreads>(sQ, sLocal, sBase, a);
    __syncthreads();
  }

  // Accumulator element e of tile rt is query row_g + 16·rt + 8·(e / 2) (computed where used:
  // registers are what two tiles per warp run short of).
  const int row_g = m0 + warp_row0 + g;
  // A fragments of Q for tile rt and step kk, from sQ (which stays intact until the end).
  auto load_q = [&](uint32_t(&f)[4], int rt, int kk) {
    detail::ldmatrix_x4(
        f, sQ + swizzle<D>(warp_row0 + rt * 16 + (lane & 15), kk * 16 + (lane >> 4) * 8));
  };
  uint32_t qf[Tl::kQInRegisters ? D / 16 : 1][4];  // variant 2 and 3: Q held in registers
  if constexpr (Tl::kQInRegisters) {
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) load_q(qf[kk], 0, kk);
  }

  const float slope_log2 =
      a.alibi ? static_cast<float>(formulas::alibi_slope(int(h), int(a.H))) * kLog2e : 0.0f;
  float o[kTiles][D / 8][4];
#pragma unroll
  for (int rt = 0; rt < kTiles; ++rt) {
#pragma unroll
    for (int dt = 0; dt < D / 8; ++dt)
      o[rt][dt][0] = o[rt][dt][1] = o[rt][dt][2] = o[rt][dt][3] = 0.0f;
  }
  float m_run[kTiles][2], l_run[kTiles][2];
#pragma unroll
  for (int rt = 0; rt < kTiles; ++rt) {
    m_run[rt][0] = m_run[rt][1] = -INFINITY;
    l_run[rt][0] = l_run[rt][1] = 0.0f;
  }

  for (int n0 = n_begin; n0 < n_end; n0 += kBc) {
    load_tile<T, D, kBc, kThreads>(sV, V, n0, a.Lk);
    detail::cp_async_commit();
    detail::cp_async_wait<1>();  // K tile n0 has landed; V may still be in flight
    if constexpr (kRope) rope_base_angles(sBase, a, n0);
    if (a.t5_table != nullptr) {
      for (int x = threadIdx.x; x < kDistances; x += kThreads) {
        // Entry x is distance j − p_i = (n0 − p0) + (x − (kBr − 1)).
        const long long distance = (long long)n0 - p0 + x - (kBr - 1);
        const int bucket =
            formulas::t5_bucket(distance, a.t5_bidirectional, a.t5_buckets, a.t5_max_distance);
        sRel[x] = a.t5_table[(long long)bucket * a.H + h] * kLog2e;
      }
    }
    // The barrier also publishes this tile's key padding, whether any key of it is padded,
    // the T5 distances and the RoPE base angles.
    bool padded = false;
    if (a.mask.key_padding != nullptr) {
      bool mine = false;
      if (threadIdx.x < kBc) {
        const int j = n0 + threadIdx.x;
        const unsigned char p = j < a.Lk ? a.mask.key_padding[b * a.Lk + j] : 0;
        sPad[threadIdx.x] = p;
        mine = p != 0;
      }
      padded = __syncthreads_or(mine);
    } else {
      __syncthreads();
    }
    if constexpr (kRope) {
      rope_rotate_tile<T, D, kBc, kThreads>(sK, sLocal, sBase, a);
      __syncthreads();
    }

    // S = Q Kᵀ, per row tile 16 rows × kBc keys: kBc / 8 accumulator tiles of 16×8.
    float s[kTiles][kBc / 8][4];
#pragma unroll
    for (int rt = 0; rt < kTiles; ++rt) {
#pragma unroll
      for (int nt = 0; nt < kBc / 8; ++nt) {
        s[rt][nt][0] = s[rt][nt][1] = s[rt][nt][2] = s[rt][nt][3] = 0.0f;
      }
    }
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
      uint32_t qk[kTiles][4];  // this step's Q fragments when they are not held
      if constexpr (!Tl::kQInRegisters) {
#pragma unroll
        for (int rt = 0; rt < kTiles; ++rt) load_q(qk[rt], rt, kk);
      }
#pragma unroll
      for (int np = 0; np < kBc / 16; ++np) {
        uint32_t kf[4];  // b0, b1 of key tiles 2np and 2np + 1
        detail::ldmatrix_x4(kf, sK + swizzle<D>(np * 16 + (lane & 7) + ((lane >> 4) << 3),
                                                kk * 16 + ((lane >> 3) & 1) * 8));
#pragma unroll
        for (int rt = 0; rt < kTiles; ++rt) {
          if constexpr (Tl::kQInRegisters) {
            detail::mma_16816<T>(s[rt][2 * np], qf[kk], kf[0], kf[1]);
            detail::mma_16816<T>(s[rt][2 * np + 1], qf[kk], kf[2], kf[3]);
          } else {
            detail::mma_16816<T>(s[rt][2 * np], qk[rt], kf[0], kf[1]);
            detail::mma_16816<T>(s[rt][2 * np + 1], qk[rt], kf[2], kf[3]);
          }
        }
      }
    }
    __syncthreads();  // every warp is done with sK
    if (n0 + kBc < n_end) load_tile<T, D, kBc, kThreads>(sK, K, n0 + kBc, a.Lk);
    detail::cp_async_commit();  // possibly empty: keeps the wait counts uniform

    // Scores in log2 units, then ALiBi, T5 and the mask in their own (block-uniform) branches
    // so the common tile pays for none of them.
#pragma unroll
    for (int rt = 0; rt < kTiles; ++rt) {
#pragma unroll
      for (int nt = 0; nt < kBc / 8; ++nt) {
#pragma unroll
        for (int e = 0; e < 4; ++e) s[rt][nt][e] *= a.scale_log2;
      }
    }
    if (a.alibi) {
#pragma unroll
      for (int rt = 0; rt < kTiles; ++rt) {
#pragma unroll
        for (int nt = 0; nt < kBc / 8; ++nt) {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int p = row_g + rt * 16 + 8 * (e >> 1) + a.mask.rule.offset;
            const int d = p - (n0 + nt * 8 + 2 * t + (e & 1));
            s[rt][nt][e] -= slope_log2 * static_cast<float>(d < 0 ? -d : d);
          }
        }
      }
    }
    if (a.t5_table != nullptr) {
#pragma unroll
      for (int rt = 0; rt < kTiles; ++rt) {
#pragma unroll
        for (int nt = 0; nt < kBc / 8; ++nt) {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int col = nt * 8 + 2 * t + (e & 1);
            const int row = warp_row0 + rt * 16 + g + 8 * (e >> 1);
            s[rt][nt][e] += sRel[col - row + kBr - 1];
          }
        }
      }
    }
    // Every row sees the whole tile when it lies in the last row's first key onwards and
    // before the first row's last key (which is at most Lk).
    const bool edge =
        padded || n0 < a.mask.first_key(m0 + kBr - 1, a.Lk) || n0 + kBc > a.mask.last_key(m0, a.Lk);
    if (edge) {
#pragma unroll
      for (int rt = 0; rt < kTiles; ++rt) {
#pragma unroll
        for (int nt = 0; nt < kBc / 8; ++nt) {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int i = row_g + rt * 16 + 8 * (e >> 1);
            const int j = n0 + nt * 8 + 2 * t + (e & 1);
            const bool hidden = a.mask.rule.hides(i, j, a.Lk) || (padded && sPad[j - n0]);
            if (hidden) s[rt][nt][e] = -INFINITY;
          }
        }
      }
    }

    // Online softmax: rescale the running sums and O by 2^(m_old − m_new).
#pragma unroll
    for (int rt = 0; rt < kTiles; ++rt) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        float mx = -INFINITY;
#pragma unroll
        for (int nt = 0; nt < kBc / 8; ++nt) {
          mx = fmaxf(mx, fmaxf(s[rt][nt][2 * r], s[rt][nt][2 * r + 1]));
        }
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
        const float m_new = fmaxf(m_run[rt][r], mx);
        // No visible key yet: subtract 0 so hidden scores give 2^−∞ = 0, never −∞ − (−∞).
        const float m_use = m_new == -INFINITY ? 0.0f : m_new;
        const float alpha = exp2f(m_run[rt][r] - m_use);
        m_run[rt][r] = m_new;
        float sum = 0.0f;
#pragma unroll
        for (int nt = 0; nt < kBc / 8; ++nt) {
          s[rt][nt][2 * r] = exp2f(s[rt][nt][2 * r] - m_use);
          s[rt][nt][2 * r + 1] = exp2f(s[rt][nt][2 * r + 1] - m_use);
          sum += s[rt][nt][2 * r] + s[rt][nt][2 * r + 1];
        }
        l_run[rt][r] = l_run[rt][r] * alpha + sum;
#pragma unroll
        for (int dt = 0; dt < D / 8; ++dt) {
          o[rt][dt][2 * r] *= alpha;
          o[rt][dt][2 * r + 1] *= alpha;
        }
      }
    }

    // P as A fragments: accumulator tiles 2kk, 2kk + 1 are the 16 keys of step kk.
    uint32_t pf[kTiles][kBc / 16][4];
#pragma unroll
    for (int rt = 0; rt < kTiles; ++rt) {
#pragma unroll
      for (int kk = 0; kk < kBc / 16; ++kk) {
        pf[rt][kk][0] = detail::pack2<T>(s[rt][2 * kk][0], s[rt][2 * kk][1]);
        pf[rt][kk][1] = detail::pack2<T>(s[rt][2 * kk][2], s[rt][2 * kk][3]);
        pf[rt][kk][2] = detail::pack2<T>(s[rt][2 * kk + 1][0], s[rt][2 * kk + 1][1]);
        pf[rt][kk][3] = detail::pack2<T>(s[rt][2 * kk + 1][2], s[rt][2 * kk + 1][3]);
      }
    }

    detail::cp_async_wait<1>();  // V tile n0 has landed; the next K may still be in flight
    __syncthreads();
    // O += P V: V is (key, d) row-major, read transposed into B fragments.
#pragma unroll
    for (int kk = 0; kk < kBc / 16; ++kk) {
#pragma unroll
      for (int dp = 0; dp < D / 16; ++dp) {
        uint32_t vf[4];  // b0, b1 of d tiles 2dp and 2dp + 1
        detail::ldmatrix_x4_trans(vf,
                                  sV + swizzle<D>(kk * 16 + (lane & 7) + (((lane >> 3) & 1) << 3),
                                                  dp * 16 + ((lane >> 4) << 3)));
#pragma unroll
        for (int rt = 0; rt < kTiles; ++rt) {
          detail::mma_16816<T>(o[rt][2 * dp], pf[rt][kk], vf[0], vf[1]);
          detail::mma_16816<T>(o[rt][2 * dp + 1], pf[rt][kk], vf[2], vf[3]);
        }
      }
    }
    __syncthreads();  // every warp is done with sV before the next tile overwrites it
  }
  detail::cp_async_wait<0>();

  // Normalise (a row that saw no key has l = 0 and gets a zero output), stage this warp's
  // rows in its own rows of sQ, then store them as 16-byte chunks.
#pragma unroll
  for (int rt = 0; rt < kTiles; ++rt) {
    float inv[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float l = l_run[rt][r];
      l += __shfl_xor_sync(0xffffffffu, l, 1);
      l += __shfl_xor_sync(0xffffffffu, l, 2);
      inv[r] = l > 0.0f ? 1.0f / l : 0.0f;
    }
    const int row = warp_row0 + rt * 16 + g;
#pragma unroll
    for (int dt = 0; dt < D / 8; ++dt) {
      *reinterpret_cast<uint32_t*>(sQ + swizzle<D>(row, dt * 8 + 2 * t)) =
          detail::pack2<T>(o[rt][dt][0] * inv[0], o[rt][dt][1] * inv[0]);
      *reinterpret_cast<uint32_t*>(sQ + swizzle<D>(row + 8, dt * 8 + 2 * t)) =
          detail::pack2<T>(o[rt][dt][2] * inv[1], o[rt][dt][3] * inv[1]);
    }
  }
  __syncwarp();
  constexpr int kChunks = D / 8;
#pragma unroll
  for (int it = 0; it < kTiles * 16 * kChunks / 32; ++it) {
    const int c = it * 32 + lane;
    const int r = warp_row0 + c / kChunks, ch = c % kChunks;
    if (m0 + r < a.Lq) {
      *reinterpret_cast<uint4*>(O + (m0 + r) * D + ch * 8) =
          *reinterpret_cast<const uint4*>(sQ + swizzle<D>(r, ch * 8));
    }
  }
}

template <class T, int D, class Tl, bool kRope>
void launch_flash(const FlashArgs& args, const AttentionDims& n, cudaStream_t stream) {
  constexpr int kSmem = smem_bytes<T, D, Tl, kRope>();
  // Past 48 KB a kernel must opt in to more dynamic shared memory, once per process.
  static const cudaError_t opt_in = cudaFuncSetAttribute(
      flash_attention_kernel<T, D, Tl, kRope>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  check(opt_in, "cudaFuncSetAttribute(flash_attention_kernel)");
  const dim3 grid(detail::ceil_div(n.Lq, Tl::kBr), unsigned(n.H), unsigned(n.B));
  flash_attention_kernel<T, D, Tl, kRope><<<grid, Tl::kThreads, kSmem, stream>>>(args);
  check_launch("flash_attention_kernel");
}

template <class T, int D>
void launch_flash(const FlashArgs& args, const AttentionDims& n, bool rope, int variant,
                  cudaStream_t stream) {
  auto go = [&](auto tiling) {
    using Tl = decltype(tiling);
    rope ? launch_flash<T, D, Tl, true>(args, n, stream)
         : launch_flash<T, D, Tl, false>(args, n, stream);
  };
  if (variant == 2) {
    go(Variant2{});
  } else if (variant == 3) {
    go(Variant3{});
  } else {
    go(Variant4<D>{});
  }
}

template <class T>
void launch_flash(const FlashArgs& args, const AttentionDims& n, bool rope, int variant,
                  cudaStream_t stream) {
  n.d == 64 ? launch_flash<T, 64>(args, n, rope, variant, stream)
            : launch_flash<T, 128>(args, n, rope, variant, stream);
}

}  // namespace

void attention_flash(const void* q, const void* k, const void* v, void* out, DType dtype,
                     const AttentionDims& n, const AttentionConfig& config, int variant,
                     cudaStream_t stream) {
  const double scale = detail::check_attention(n, config);
  require(variant >= 2 && variant <= kAttentionVariants,
          "unknown fused attention variant " + std::to_string(variant) + " (2, 3 or 4)");
  require(dtype != DType::kF32, "flash attention runs on fp16 or bf16 storage (tensor cores)");
  require(n.d == 64 || n.d == 128,
          "flash attention supports head widths 64 and 128 (got " + std::to_string(n.d) + ")");
  require(config.bias == nullptr,
          "flash attention takes ALiBi (config.alibi) or T5 (config.t5_table), not a bias tensor: "
          "use attention_naive");
  if (config.t5_table != nullptr) check_t5_options(config.t5);
  const DeviceRopeFrequencies* rope = config.rope;
  if (rope != nullptr) {
    require(rope->head_dim() == n.d, "flash attention: RoPE frequencies are for head width " +
                                         std::to_string(rope->head_dim()) + ", not " +
                                         std::to_string(n.d));
    // As poslab::rope_apply: positions start at 0 (query i sits at i + offset).
    require(config.mask.offset >= 0,
            "flash attention: RoPE needs query positions >= 0, so a mask offset >= 0 (got " +
                std::to_string(config.mask.offset) + ")");
    require(rope->rotary_dim() % 4 == 0,
            "flash attention rotates two pairs at a time: the rotary dim must be a multiple of 4 "
            "(got " +
                std::to_string(rope->rotary_dim()) + ")");
  }
  require(n.H <= 65535 && n.B <= 65535, "flash attention: B and H must be at most 65535");
  for (const void* p : {q, k, v, static_cast<const void*>(out)}) {
    require(detail::aligned16(p), "flash attention needs 16-byte aligned q, k, v and out");
  }
  if (n.Lq == 0) return;
  const FlashArgs args{q,
                       k,
                       v,
                       out,
                       static_cast<int>(n.H),
                       static_cast<int>(n.Lq),
                       static_cast<int>(n.Lk),
                       static_cast<float>(scale) * kLog2e,
                       detail::mask_args(config),
                       config.alibi,
                       config.t5_table,
                       static_cast<int>(config.t5.num_buckets),
                       static_cast<int>(config.t5.max_distance),
                       config.t5.bidirectional,
                       rope != nullptr ? rope->inv_freq() : nullptr,
                       rope != nullptr ? rope->rotary_dim() : 0,
                       rope == nullptr || rope->style() == RopeStyle::kNeox,
                       rope != nullptr ? rope->attention_factor() : 1.0f};
  if (dtype == DType::kF16) {
    launch_flash<__half>(args, n, rope != nullptr, variant, stream);
  } else {
    launch_flash<__nv_bfloat16>(args, n, rope != nullptr, variant, stream);
  }
}

}  // namespace poslab::cuda

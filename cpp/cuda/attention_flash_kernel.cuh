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
// Position methods are two compile-time policies (in the spirit of FlexAttention's score_mod),
// so a kernel without one carries none of its code and each method is its own instantiation:
//   Score     a score modifier: each score of query position p = i + offset (MaskRule::position)
//             and key j becomes head(score, p, j), before the mask (ALiBi, T5: attention_flash_
//             alibi.cu, attention_flash_t5.cu).
//   Rotation  a load-time transform of the Q and K tiles in shared memory, before any MMA reads
//             them (RoPE, with or without a decay: attention_flash_rope.cu).
// The contracts of both are written above NoScoreMod and NoRotation below.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "attention_flash_methods.cuh"
#include "attention_mask.cuh"
#include "common.cuh"
#include "mma.cuh"
#include "poslab/cuda/attention.hpp"
#include "poslab/positions/formulas.hpp"

namespace poslab::cuda::detail {

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

// A score modifier (FlexAttention's score_mod, the head bound once per block since it is
// block-uniform). A policy type provides:
//   kModifies                 false only here: the kernel then skips the per-score loop
//   shared_floats<Tl>()       floats of shared memory it may fill per key tile
//   at_head(h) → Head         the block's state for head h (a slope, a table column)
//   stage<Tl>(head, shared, n0, p0)  all threads, before the tile's barrier: fill `shared` (and
//                              head) for the key tile at n0 and the query block at position p0
// and its Head, held in registers, so small:
//   operator()(s, p, j) → s'   the score of query position p and key j, in log2 units (scale ·
//                              log2 e applied): a term t is added as t·log2 e
// The term itself comes from the scalar formula the CPU core uses (formulas.hpp), its twin.
struct NoScoreMod {
  static constexpr bool kModifies = false;
  template <class Tl>
  static constexpr int shared_floats() {
    return 0;
  }
  struct Head {
    __device__ float operator()(float s, int, int) const { return s; }
  };
  __device__ Head at_head(int) const { return {}; }
  template <class Tl>
  __device__ void stage(Head&, float*, int, int) const {}
};

// A rotation of q and k by position (RoPE, plain or decaying), applied to the Q tile and each K
// tile in shared memory as they land. Row r of a tile whose first row sits at position p0 has its
// pair k multiplied, as a complex number, by tile_factor(p0, k) · row_factor(r, k): the
// (cos, sin) of (p0 + r)·θ_k composed from a per-tile and a per-block table (sum of angles),
// times any per-pair scale the method has, so each element costs a few FMAs and no
// transcendental. A policy type provides:
//   kRotates                  false only here
//   kRowsDependOnSide         the row factors differ for queries and keys (rebuilt for K): a
//                             decay scales the two sides by opposite powers
//   rotary_dim()              R, a multiple of 4; dims ≥ R are left alone
//   neox()                    pairs (k, k + R/2); otherwise (2k, 2k + 1)
//   row_factor(r, k, side)    float2 (re, im) for row offset r
//   tile_factor(p0, k, side)  float2 (re, im) for the tile's first position p0
struct NoRotation {
  static constexpr bool kRotates = false;
  static constexpr bool kRowsDependOnSide = false;
};

// Shared memory of one block, in bytes: Q, K, V tiles; what the score modifier stages per
// tile; with a rotation the row-factor table and the tile's factors; the tile's key padding.
template <class T, int D, class Tl, class Score, class Rotation>
constexpr int smem_bytes() {
  return (Tl::kBr + 2 * Tl::kBc) * D * int(sizeof(T)) + 4 * Score::template shared_floats<Tl>() +
         (Rotation::kRotates ? 8 * (Tl::kBr + 1) * (D / 2) : 0) + Tl::kBc;
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
    cp_async16(tile + swizzle<D>(r, ch * 8), src, ok);
  }
}

// sRow[r·D/2 + k] = the rotation's row factor of rows r < kRows, pair k.
template <int D, int kRows, int kThreads, class Rotation>
__device__ __forceinline__ void rotation_row_factors(float2* sRow, const Rotation& rot,
                                                     RotationSide side) {
  const int half = rot.rotary_dim() / 2;
  for (int e = threadIdx.x; e < kRows * half; e += kThreads) {
    const int r = e / half, k = e % half;
    sRow[r * (D / 2) + k] = rot.row_factor(r, k, side);
  }
}

// sTile[k] = the rotation's factor of a tile whose first row sits at position p0.
template <class Rotation>
__device__ __forceinline__ void rotation_tile_factors(float2* sTile, const Rotation& rot, int p0,
                                                      RotationSide side) {
  if (threadIdx.x < rot.rotary_dim() / 2)
    sTile[threadIdx.x] = rot.tile_factor(p0, threadIdx.x, side);
}

// Rotates the kRows rows of a swizzled tile in place (row r at position p0 + r), two pairs per
// step: neox pairs (k, k + R/2) sit in two 4-byte words, gptj pairs (2k, 2k + 1) in one each.
// Dims ≥ R are left alone. The caller synchronises before and after.
template <class T, int D, int kRows, int kThreads, class Rotation>
__device__ __forceinline__ void rotate_tile(T* tile, const float2* sRow, const float2* sTile,
                                            const Rotation& rot) {
  const int R = rot.rotary_dim();
  const bool neox = rot.neox();
  const int quads = R / 4;
  for (int it = threadIdx.x; it < kRows * quads; it += kThreads) {
    const int r = it / quads, k = 2 * (it % quads);  // pairs k and k + 1
    const float4 base = *reinterpret_cast<const float4*>(sTile + k);
    const float4 row = *reinterpret_cast<const float4*>(sRow + r * (D / 2) + k);
    // The complex product: cos and sin of a sum, (p0 + r)·θ = p0·θ + r·θ, and the scales.
    const float c0 = base.x * row.x - base.y * row.y, s0 = base.y * row.x + base.x * row.y;
    const float c1 = base.z * row.z - base.w * row.w, s1 = base.w * row.z + base.z * row.w;
    const int col_a = neox ? k : 2 * k;
    const int col_b = neox ? k + R / 2 : 2 * k + 2;
    uint32_t* wa = reinterpret_cast<uint32_t*>(tile + swizzle<D>(r, col_a));
    uint32_t* wb = reinterpret_cast<uint32_t*>(tile + swizzle<D>(r, col_b));
    const float2 u = unpack2<T>(*wa), v = unpack2<T>(*wb);
    // neox: pair k is (u.x, v.x) and pair k + 1 (u.y, v.y); gptj: (u.x, u.y) and (v.x, v.y).
    float x0 = u.x, y0 = neox ? v.x : u.y, x1 = neox ? u.y : v.x, y1 = v.y;
    formulas::rotate_pair(x0, y0, c0, s0);
    formulas::rotate_pair(x1, y1, c1, s1);
    *wa = neox ? pack2<T>(x0, x1) : pack2<T>(x0, y0);
    *wb = neox ? pack2<T>(y0, y1) : pack2<T>(x1, y1);
  }
}

// Blocks per multiprocessor the registers must leave room for (0: as many as the registers
// ptxas picks allow). Variant 3 at d = 64 (256 threads) is held to 128 registers a thread so
// that two blocks fit, the occupancy it had before the methods were split into policies (at
// 130-138 it would drop to one).
template <class Tl, int D>
constexpr int min_blocks_per_sm() {
  return Tl::kThreads == 256 && D == 64 ? 2 : 0;
}

// Grid (ceil(Lq/kBr), H, B). q, k, v, o (B, H, L, D).
template <class T, int D, class Tl, class Score, class Rotation>
__global__ void __launch_bounds__(Tl::kThreads, (min_blocks_per_sm<Tl, D>()))
    flash_attention_kernel(FlashArgs a, Score score, Rotation rot) {
  constexpr int kBr = Tl::kBr, kBc = Tl::kBc, kTiles = Tl::kTiles, kThreads = Tl::kThreads;
  extern __shared__ __align__(16) unsigned char smem[];
  T* sQ = reinterpret_cast<T*>(smem);
  T* sK = sQ + kBr * D;
  T* sV = sK + kBc * D;
  float* sScore = reinterpret_cast<float*>(sV + kBc * D);  // the score modifier's tile data
  float2* sRow = reinterpret_cast<float2*>(sScore + Score::template shared_floats<Tl>());
  float2* sTile = sRow + kBr * (D / 2);  // the rotation's factors of the tile in hand
  unsigned char* sPad = reinterpret_cast<unsigned char*>(Rotation::kRotates ? sTile + D / 2 : sRow);

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

  const int p0 = a.mask.rule.position(m0);  // position of the block's first query
  load_tile<T, D, kBr, kThreads>(sQ, Q, m0, a.Lq);
  if (n_begin < n_end) load_tile<T, D, kBc, kThreads>(sK, K, n_begin, a.Lk);
  cp_async_commit();
  if constexpr (Rotation::kRotates) {  // while the tiles are in flight
    rotation_row_factors<D, kBr, kThreads>(sRow, rot, RotationSide::kQuery);
    rotation_tile_factors(sTile, rot, p0, RotationSide::kQuery);
  }
  cp_async_wait<0>();
  __syncthreads();
  if constexpr (Rotation::kRotates) {
    rotate_tile<T, D, kBr, kThreads>(sQ, sRow, sTile, rot);
    __syncthreads();
    // The keys' rows, published by the first tile's barrier below.
    if constexpr (Rotation::kRowsDependOnSide) {
      rotation_row_factors<D, kBc, kThreads>(sRow, rot, RotationSide::kKey);
    }
  }

  // Accumulator element e of tile rt is query row_g + 16·rt + 8·(e / 2) (computed where used:
  // registers are what two tiles per warp run short of).
  const int row_g = m0 + warp_row0 + g;
  // A fragments of Q for tile rt and step kk, from sQ (which stays intact until the end).
  auto load_q = [&](uint32_t(&f)[4], int rt, int kk) {
    ldmatrix_x4(f, sQ + swizzle<D>(warp_row0 + rt * 16 + (lane & 15), kk * 16 + (lane >> 4) * 8));
  };
  uint32_t qf[Tl::kQInRegisters ? D / 16 : 1][4];  // variant 2 and 3: Q held in registers
  if constexpr (Tl::kQInRegisters) {
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) load_q(qf[kk], 0, kk);
  }

  typename Score::Head head = score.at_head(h);
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
    cp_async_commit();
    cp_async_wait<1>();  // K tile n0 has landed; V may still be in flight
    if constexpr (Rotation::kRotates) rotation_tile_factors(sTile, rot, n0, RotationSide::kKey);
    score.template stage<Tl>(head, sScore, n0, p0);
    // The barrier also publishes this tile's key padding, whether any key of it is padded,
    // the score modifier's staged data and the rotation's tile factors.
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
    if constexpr (Rotation::kRotates) {
      rotate_tile<T, D, kBc, kThreads>(sK, sRow, sTile, rot);
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
        ldmatrix_x4(kf, sK + swizzle<D>(np * 16 + (lane & 7) + ((lane >> 4) << 3),
                                        kk * 16 + ((lane >> 3) & 1) * 8));
#pragma unroll
        for (int rt = 0; rt < kTiles; ++rt) {
          if constexpr (Tl::kQInRegisters) {
            mma_16816<T>(s[rt][2 * np], qf[kk], kf[0], kf[1]);
            mma_16816<T>(s[rt][2 * np + 1], qf[kk], kf[2], kf[3]);
          } else {
            mma_16816<T>(s[rt][2 * np], qk[rt], kf[0], kf[1]);
            mma_16816<T>(s[rt][2 * np + 1], qk[rt], kf[2], kf[3]);
          }
        }
      }
    }
    __syncthreads();  // every warp is done with sK
    if (n0 + kBc < n_end) load_tile<T, D, kBc, kThreads>(sK, K, n0 + kBc, a.Lk);
    cp_async_commit();  // possibly empty: keeps the wait counts uniform

    // Scores in log2 units, then the score modifier (compiled in only where there is one),
    // then the mask in its own block-uniform branch so the common tile pays for none of it.
#pragma unroll
    for (int rt = 0; rt < kTiles; ++rt) {
#pragma unroll
      for (int nt = 0; nt < kBc / 8; ++nt) {
#pragma unroll
        for (int e = 0; e < 4; ++e) s[rt][nt][e] *= a.scale_log2;
      }
    }
    if constexpr (Score::kModifies) {
#pragma unroll
      for (int rt = 0; rt < kTiles; ++rt) {
#pragma unroll
        for (int nt = 0; nt < kBc / 8; ++nt) {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int p = a.mask.rule.position(row_g + rt * 16 + 8 * (e >> 1));
            const int j = n0 + nt * 8 + 2 * t + (e & 1);
            s[rt][nt][e] = head(s[rt][nt][e], p, j);
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
        pf[rt][kk][0] = pack2<T>(s[rt][2 * kk][0], s[rt][2 * kk][1]);
        pf[rt][kk][1] = pack2<T>(s[rt][2 * kk][2], s[rt][2 * kk][3]);
        pf[rt][kk][2] = pack2<T>(s[rt][2 * kk + 1][0], s[rt][2 * kk + 1][1]);
        pf[rt][kk][3] = pack2<T>(s[rt][2 * kk + 1][2], s[rt][2 * kk + 1][3]);
      }
    }

    cp_async_wait<1>();  // V tile n0 has landed; the next K may still be in flight
    __syncthreads();
    // O += P V: V is (key, d) row-major, read transposed into B fragments.
#pragma unroll
    for (int kk = 0; kk < kBc / 16; ++kk) {
#pragma unroll
      for (int dp = 0; dp < D / 16; ++dp) {
        uint32_t vf[4];  // b0, b1 of d tiles 2dp and 2dp + 1
        ldmatrix_x4_trans(vf, sV + swizzle<D>(kk * 16 + (lane & 7) + (((lane >> 3) & 1) << 3),
                                              dp * 16 + ((lane >> 4) << 3)));
#pragma unroll
        for (int rt = 0; rt < kTiles; ++rt) {
          mma_16816<T>(o[rt][2 * dp], pf[rt][kk], vf[0], vf[1]);
          mma_16816<T>(o[rt][2 * dp + 1], pf[rt][kk], vf[2], vf[3]);
        }
      }
    }
    __syncthreads();  // every warp is done with sV before the next tile overwrites it
  }
  cp_async_wait<0>();

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
          pack2<T>(o[rt][dt][0] * inv[0], o[rt][dt][1] * inv[0]);
      *reinterpret_cast<uint32_t*>(sQ + swizzle<D>(row + 8, dt * 8 + 2 * t)) =
          pack2<T>(o[rt][dt][2] * inv[1], o[rt][dt][3] * inv[1]);
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

template <class T, int D, class Tl, class Score, class Rotation>
void launch_flash(const FlashLaunch& l, const Score& score, const Rotation& rot) {
  constexpr int kSmem = smem_bytes<T, D, Tl, Score, Rotation>();
  auto* kernel = flash_attention_kernel<T, D, Tl, Score, Rotation>;
  // Past 48 KB a kernel must opt in to more dynamic shared memory, once per process.
  static const cudaError_t opt_in =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  check(opt_in, "cudaFuncSetAttribute(flash_attention_kernel)");
  const dim3 grid(ceil_div(l.dims.Lq, Tl::kBr), unsigned(l.dims.H), unsigned(l.dims.B));
  kernel<<<grid, Tl::kThreads, kSmem, l.stream>>>(l.args, score, rot);
  check_launch("flash_attention_kernel");
}

// The kernel of one position method (its two policies) for the call's storage type, head
// width and variant: 12 instantiations, compiled in the method's own file
// (attention_flash_<method>.cu) so the methods build in parallel.
template <class Score, class Rotation>
void launch_flash_method(const FlashLaunch& l, const Score& score, const Rotation& rot) {
  if (l.dims.Lq == 0) return;
  auto with_type = [&](auto zero_value) {
    using T = decltype(zero_value);
    auto with_width = [&](auto width) {
      constexpr int D = decltype(width)::value;
      if (l.variant == 2) {
        launch_flash<T, D, Variant2>(l, score, rot);
      } else if (l.variant == 3) {
        launch_flash<T, D, Variant3>(l, score, rot);
      } else {
        launch_flash<T, D, Variant4<D>>(l, score, rot);
      }
    };
    l.dims.d == 64 ? with_width(std::integral_constant<int, 64>{})
                   : with_width(std::integral_constant<int, 128>{});
  };
  l.dtype == DType::kF16 ? with_type(__half{}) : with_type(__nv_bfloat16{});
}

}  // namespace poslab::cuda::detail

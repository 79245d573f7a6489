// Float32 GEMM, C (M, N) = op(A) · op(B) (+ C), blocked as in BLIS (Van Zee & van de Geijn,
// 2015): a kc × nc block of op(B) is packed into panels of NR columns (kc × NR contiguous,
// streamed from L1), an mc × kc block of op(A) into panels of MR rows (held in L2), and the
// micro-kernel accumulates one MR × NR tile of C in registers over the kc steps: per step
// NV loads of B, MR broadcasts of A, MR·NV multiply-adds. Packing absorbs the transposes, so
// the four variants (A·B, Aᵀ·B, A·Bᵀ, Aᵀ·Bᵀ) share one kernel. Panels are zero-padded at the
// edges; partial tiles of C go through a small scratch tile.
#include <hwy/highway.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <vector>

#include "fast/madd.hpp"
#include "poslab/base/threads.hpp"
#include "poslab/fast/gemm.hpp"

namespace poslab::fast {

namespace hn = hwy::HWY_NAMESPACE;

namespace {

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// Tile of C held in registers: MR rows × NV vectors. Wider vectors (AVX2, AVX-512: 16 or 32
// registers) take 6 rows × 2 vectors. 128-bit SIMD (SSE, wasm) takes 4 × 2: V8 maps v128 onto
// 16 x86 registers and keeps some for itself, and in Node 20 a 4 × 3 or 6 × 2 tile (12
// accumulators) ran 30-40% slower than 4 × 2 or 2 × 4 (8 accumulators, 2 loads, 1 broadcast).
#if HWY_TARGET == HWY_WASM || HWY_TARGET == HWY_SSSE3 || HWY_TARGET == HWY_SSE4 || \
    HWY_TARGET == HWY_EMU128 || HWY_TARGET == HWY_SCALAR
constexpr std::size_t kMR = 4;
constexpr std::size_t kNV = 2;
// A·Bᵀ as dot products up to kDotMaxRows rows (gemm_abt_few_rows), up to kChunkedRows of them
// K-chunked (gemm_abt_interleaved): 32 × 3072 × 768 in cache ran at 39 GFLOP/s (wasm SIMD, Node).
constexpr std::size_t kDotMaxRows = 32;
constexpr std::size_t kChunkedRows = 8;
#else
constexpr std::size_t kMR = 6;
constexpr std::size_t kNV = 2;
// The packed kernel's 6 × 16 tile outruns the dot products from 8 rows up: GPT-2 small's
// forward at T = 8 / 32 took 68 / 102 ms against 72 / 181 with dot products to 32 rows
// (AVX2 + FMA, bench/gpt2_bench.cpp). One group of kDotRows rows stays on the dot products,
// which run at the memory floor there.
constexpr std::size_t kDotMaxRows = 4;
constexpr std::size_t kChunkedRows = 4;
#endif

// Block sizes: a B micro-panel (kKC × NR floats, 8 KB at NR = 8) stays in L1, an A block
// (kMC × kKC, 96 KB) in L2, a B block (kKC × kNC, 2 MB) in the last-level cache.
constexpr std::size_t kKC = 256;
constexpr std::size_t kMC = kMR * 24;
constexpr std::size_t kNC = 2048;
// Up to kDirectRows rows of op(A), a row-major B is read in place instead of packed; up to
// kDotMaxRows, A·Bᵀ runs as dot products (gemm_abt_few_rows), kDotRows rows of A at a time.
constexpr std::size_t kDirectRows = 16;
constexpr std::size_t kDotRows = 4;
constexpr std::size_t kDotCols = 16;  // rows of B in cache at a time (48 KB at K = 768)
// gemm_abt_interleaved takes kDotChunk elements of K per pass.
constexpr std::size_t kDotChunk = 128;

// op(A)[i0 .. i0+m, p0 .. p0+k] → panels of kMR rows: panel r holds, for each step p, the
// kMR values of rows r·kMR.. (zero past m).
void pack_a(const float* a, std::size_t lda, Op op, std::size_t i0, std::size_t m, std::size_t p0,
            std::size_t k, float* packed) {
  for (std::size_t r = 0; r < m; r += kMR) {
    const std::size_t rows = std::min(kMR, m - r);
    float* panel = packed + r * k;
    if (op == Op::kNone) {
      for (std::size_t i = 0; i < rows; ++i) {
        const float* src = a + (i0 + r + i) * lda + p0;
        for (std::size_t p = 0; p < k; ++p) panel[p * kMR + i] = src[p];
      }
    } else if (rows == kMR) {
      // A constant size, so the copy is a load and a store, not a call (wasm's memcpy is one).
      for (std::size_t p = 0; p < k; ++p) {
        std::memcpy(panel + p * kMR, a + (p0 + p) * lda + i0 + r, kMR * sizeof(float));
      }
    } else {
      for (std::size_t p = 0; p < k; ++p) {
        std::memcpy(panel + p * kMR, a + (p0 + p) * lda + i0 + r, rows * sizeof(float));
      }
    }
    for (std::size_t i = rows; i < kMR; ++i) {
      for (std::size_t p = 0; p < k; ++p) panel[p * kMR + i] = 0.0f;
    }
  }
}

// One whole panel of Bᵀ: panel[p * nr + j] = b[j * ldb + p] for j < nr (a multiple of 4),
// p < k, in 4 × 4 blocks turned in registers (128-bit vectors, which every target has): an
// element-by-element gather made the packed A·Bᵀ 2–6 % slower than A·B at T = 64–128.
void pack_bt_panel(const float* b, std::size_t ldb, std::size_t k, std::size_t nr, float* panel) {
  const hn::Full128<float> d4;
  for (std::size_t j = 0; j < nr; j += 4) {
    const float* r0 = b + j * ldb;
    const float* r1 = r0 + ldb;
    const float* r2 = r1 + ldb;
    const float* r3 = r2 + ldb;
    std::size_t p = 0;
    for (; p + 4 <= k; p += 4) {
      const auto a0 = hn::LoadU(d4, r0 + p), a1 = hn::LoadU(d4, r1 + p);
      const auto a2 = hn::LoadU(d4, r2 + p), a3 = hn::LoadU(d4, r3 + p);
      const auto lo01 = hn::InterleaveLower(d4, a0, a1), lo23 = hn::InterleaveLower(d4, a2, a3);
      const auto hi01 = hn::InterleaveUpper(d4, a0, a1), hi23 = hn::InterleaveUpper(d4, a2, a3);
      float* out = panel + p * nr + j;
      hn::StoreU(hn::ConcatLowerLower(d4, lo23, lo01), d4, out);
      hn::StoreU(hn::ConcatUpperUpper(d4, lo23, lo01), d4, out + nr);
      hn::StoreU(hn::ConcatLowerLower(d4, hi23, hi01), d4, out + 2 * nr);
      hn::StoreU(hn::ConcatUpperUpper(d4, hi23, hi01), d4, out + 3 * nr);
    }
    for (; p < k; ++p) {
      for (std::size_t q = 0; q < 4; ++q) panel[p * nr + j + q] = b[(j + q) * ldb + p];
    }
  }
}

// op(B)[p0 .. p0+k, j0 .. j0+n] → panels of nr columns: panel c holds, for each step p, the
// nr values of columns c·nr.. (zero past n).
void pack_b(const float* b, std::size_t ldb, Op op, std::size_t p0, std::size_t k, std::size_t j0,
            std::size_t n, std::size_t nr, float* packed) {
  for (std::size_t c = 0; c < n; c += nr) {
    const std::size_t cols = std::min(nr, n - c);
    float* panel = packed + c * k;
    if (op == Op::kNone && cols == nr) {
      const DF d;
      const std::size_t N = hn::Lanes(d);
      for (std::size_t p = 0; p < k; ++p) {
        const float* src = b + (p0 + p) * ldb + j0 + c;
        for (std::size_t v = 0; v < kNV; ++v)
          hn::StoreU(hn::LoadU(d, src + v * N), d, panel + p * nr + v * N);
      }
    } else if (op == Op::kNone) {
      for (std::size_t p = 0; p < k; ++p) {
        float* dst = panel + p * nr;
        std::memcpy(dst, b + (p0 + p) * ldb + j0 + c, cols * sizeof(float));
        std::fill(dst + cols, dst + nr, 0.0f);
      }
    } else if (cols == nr) {
      pack_bt_panel(b + (j0 + c) * ldb + p0, ldb, k, nr, panel);
    } else {
      for (std::size_t j = 0; j < cols; ++j) {
        const float* src = b + (j0 + c + j) * ldb + p0;
        for (std::size_t p = 0; p < k; ++p) panel[p * nr + j] = src[p];
      }
      for (std::size_t j = cols; j < nr; ++j) {
        for (std::size_t p = 0; p < k; ++p) panel[p * nr + j] = 0.0f;
      }
    }
  }
}

// The micro-kernel: tile (kMR × NR, row stride ldc) = Σ_p a_panel[p] ⊗ b_panel[p], added to
// the tile when `add`, else stored. Rows of the B panel are `ldb` floats apart: NR when packed,
// B's own stride when read in place.
HWY_INLINE void kernel(std::size_t k, const float* HWY_RESTRICT a, const float* HWY_RESTRICT b,
                       std::size_t ldb, float* HWY_RESTRICT c, std::size_t ldc, bool add) {
  const DF d;
  const std::size_t N = hn::Lanes(d);
  VF acc[kMR][kNV];
  for (std::size_t r = 0; r < kMR; ++r) {
    for (std::size_t v = 0; v < kNV; ++v) acc[r][v] = hn::Zero(d);
  }
  for (std::size_t p = 0; p < k; ++p) {
    VF bv[kNV];
    for (std::size_t v = 0; v < kNV; ++v) bv[v] = hn::LoadU(d, b + v * N);
    for (std::size_t r = 0; r < kMR; ++r) {
      const VF ar = hn::Set(d, a[r]);
      for (std::size_t v = 0; v < kNV; ++v) acc[r][v] = madd(ar, bv[v], acc[r][v]);
    }
    a += kMR;
    b += ldb;
  }
  for (std::size_t r = 0; r < kMR; ++r) {
    for (std::size_t v = 0; v < kNV; ++v) {
      float* out = c + r * ldc + v * N;
      hn::StoreU(add ? hn::Add(hn::LoadU(d, out), acc[r][v]) : acc[r][v], d, out);
    }
  }
}

// acc0[r] += ar[r]·b0 and acc1[r] += ar[r]·b1 lane by lane over the whole vectors of
// [p0, p1): a tile of kDotRows rows of A × 2 rows of B, 6 loads per 8 multiply-adds.
HWY_INLINE void dot_tile(const float* const* ar, const float* b0, const float* b1, std::size_t p0,
                         std::size_t p1, VF* acc0, VF* acc1) {
  const DF d;
  for (std::size_t p = p0; p < p1; p += hn::Lanes(d)) {
    const VF bv0 = hn::LoadU(d, b0 + p);
    const VF bv1 = hn::LoadU(d, b1 + p);
    for (std::size_t r = 0; r < kDotRows; ++r) {
      const VF av = hn::LoadU(d, ar[r] + p);
      acc0[r] = madd(av, bv0, acc0[r]);
      acc1[r] = madd(av, bv1, acc1[r]);
    }
  }
}

// Where gemm_abt_few_rows leaves the sum of what it touched ahead, so that the compiler keeps
// those loads (atomic: threads run it at once on their slices).
std::atomic<float> g_touched{0.0f};

// C (M, N) (+)= A · Bᵀ for a few rows (M <= kDotMaxRows), A (M, K) and B (N, K) row-major: each
// C[i][j] is a dot product along contiguous K. B — GPT-2's (V, E) token embedding for the
// logits — is streamed from memory once, kDotCols rows at a time, and every row of A (all of A
// stays in L2) meets those rows while they are in cache, in dot_tile's tiles (one row of B
// against 8 rows of A took 9 loads per 8 multiply-adds).
void gemm_abt_few_rows(std::size_t M, std::size_t N, std::size_t K, const float* a, std::size_t lda,
                       const float* b, std::size_t ldb, float* c, std::size_t ldc,
                       bool accumulate) {
  const DF d;
  const std::size_t L = hn::Lanes(d);
  const std::size_t groups = (M + kDotRows - 1) / kDotRows;
  float touched = 0;
  for (std::size_t j0 = 0; j0 < N; j0 += kDotCols) {
    const std::size_t cols_in_block = std::min(kDotCols, N - j0);
    // Each group of rows also loads a share of the next block of B, one float per 64-byte line,
    // so that the block is in cache when the first group reaches it: that group's pass over a
    // block otherwise waited on memory (wasm has no prefetch) while the others ran from cache.
    // GPT-2 small's forward at T = 12 / 16 / 24 / 32 ran 1.23 / 1.12 / 1.12 / 1.08× faster.
    const std::size_t next_j0 = std::min(N, j0 + kDotCols);
    const std::size_t next_rows = std::min(kDotCols, N - next_j0);
    const float* next = b + next_j0 * ldb;
    const std::size_t next_floats = next_rows == 0 ? 0 : (next_rows - 1) * ldb + K;
    const std::size_t share = (next_floats / 16 + groups) / groups * 16;
    for (std::size_t i0 = 0; i0 < M; i0 += kDotRows) {
      const std::size_t rows = std::min(kDotRows, M - i0);
      const std::size_t t0 = i0 / kDotRows * share;
      for (std::size_t t = t0; t < std::min(next_floats, t0 + share); t += 16) touched += next[t];
      // Rows past M repeat the last one: computed, never stored.
      const float* ar[kDotRows];
      for (std::size_t r = 0; r < kDotRows; ++r) ar[r] = a + (i0 + std::min(r, rows - 1)) * lda;
      for (std::size_t jj = 0; jj < cols_in_block; jj += 2) {
        const std::size_t cols = std::min<std::size_t>(2, cols_in_block - jj);
        const float* b0 = b + (j0 + jj) * ldb;
        const float* b1 = cols == 2 ? b0 + ldb : b0;
        VF acc0[kDotRows], acc1[kDotRows];
        for (std::size_t r = 0; r < kDotRows; ++r) acc0[r] = acc1[r] = hn::Zero(d);
        const std::size_t p = K / L * L;
        dot_tile(ar, b0, b1, 0, p, acc0, acc1);
        for (std::size_t r = 0; r < rows; ++r) {
          const VF* acc[2] = {acc0, acc1};
          const float* bj[2] = {b0, b1};
          for (std::size_t q = 0; q < cols; ++q) {
            float sum = hn::GetLane(hn::SumOfLanes(d, acc[q][r]));
            for (std::size_t t = p; t < K; ++t) sum += ar[r][t] * bj[q][t];
            float& out = c[(i0 + r) * ldc + j0 + jj + q];
            out = accumulate ? out + sum : sum;
          }
        }
      }
    }
  }
  g_touched.store(touched, std::memory_order_relaxed);
}

// The same for up to kChunkedRows rows, where the kDotRows-row passes over a pair of B rows
// would otherwise run one after another: the first reads the pair from memory, the rest from
// L1 while no load goes to memory. Here every pass takes kDotChunk elements of K in turn
// (partial sums kept in `partial`), so the pair streams in evenly: at M = 8 the logits product
// (wte, 154 MB) took 25 ms against 18 at M = 4 with the passes in a row.
void gemm_abt_interleaved(std::size_t M, std::size_t N, std::size_t K, const float* a,
                          std::size_t lda, const float* b, std::size_t ldb, float* c,
                          std::size_t ldc, bool accumulate) {
  const DF d;
  const std::size_t L = hn::Lanes(d);
  const std::size_t groups = (M + kDotRows - 1) / kDotRows;
  const std::size_t vector_end = K / L * L;
  // One group of rows has nothing to interleave with: all of K in one pass.
  const std::size_t chunk = groups == 1 ? std::max<std::size_t>(vector_end, 1) : kDotChunk;
  HWY_ALIGN float partial[kChunkedRows / kDotRows][2 * kDotRows][HWY_MAX_BYTES / sizeof(float)];
  for (std::size_t j = 0; j < N; j += 2) {
    const std::size_t cols = std::min<std::size_t>(2, N - j);
    const float* b0 = b + j * ldb;
    const float* b1 = cols == 2 ? b0 + ldb : b0;
    for (std::size_t g = 0; g < groups; ++g) {
      for (std::size_t s = 0; s < 2 * kDotRows; ++s) hn::Store(hn::Zero(d), d, partial[g][s]);
    }
    for (std::size_t p0 = 0; p0 < vector_end; p0 += chunk) {
      const std::size_t p1 = std::min(vector_end, p0 + chunk);
      for (std::size_t g = 0; g < groups; ++g) {
        const std::size_t i0 = g * kDotRows, rows = std::min(kDotRows, M - i0);
        const float* ar[kDotRows];  // rows past M repeat the last one: computed, never stored
        for (std::size_t r = 0; r < kDotRows; ++r) ar[r] = a + (i0 + std::min(r, rows - 1)) * lda;
        VF acc0[kDotRows], acc1[kDotRows];
        for (std::size_t r = 0; r < kDotRows; ++r) {
          acc0[r] = hn::Load(d, partial[g][r]);
          acc1[r] = hn::Load(d, partial[g][kDotRows + r]);
        }
        dot_tile(ar, b0, b1, p0, p1, acc0, acc1);
        for (std::size_t r = 0; r < kDotRows; ++r) {
          hn::Store(acc0[r], d, partial[g][r]);
          hn::Store(acc1[r], d, partial[g][kDotRows + r]);
        }
      }
    }
    for (std::size_t i = 0; i < M; ++i) {
      const std::size_t g = i / kDotRows, r = i % kDotRows;
      const float* ai = a + i * lda;
      const float* bj[2] = {b0, b1};
      for (std::size_t q = 0; q < cols; ++q) {
        float sum = hn::GetLane(hn::SumOfLanes(d, hn::Load(d, partial[g][q * kDotRows + r])));
        for (std::size_t t = vector_end; t < K; ++t) sum += ai[t] * bj[q][t];
        float& out = c[i * ldc + j + q];
        out = accumulate ? out + sum : sum;
      }
    }
  }
}

// One thread's product: every column block of C in turn.
void gemm_serial(std::size_t M, std::size_t N, std::size_t K, const float* a, std::size_t lda,
                 Op op_a, const float* b, std::size_t ldb, Op op_b, float* c, std::size_t ldc,
                 bool accumulate) {
  if (op_a == Op::kNone && op_b == Op::kTranspose && M <= kChunkedRows) {
    return gemm_abt_interleaved(M, N, K, a, lda, b, ldb, c, ldc, accumulate);
  }
  if (op_a == Op::kNone && op_b == Op::kTranspose && M <= kDotMaxRows) {
    return gemm_abt_few_rows(M, N, K, a, lda, b, ldb, c, ldc, accumulate);
  }
  const DF d;
  const std::size_t nr = kNV * hn::Lanes(d);
  // A few rows of A reuse each B panel only a few times: packing B would cost as much as the
  // product, so a row-major B is read in place. Only a partial last panel is packed, so no load
  // runs past a row.
  const bool direct_b = op_b == Op::kNone && M <= kDirectRows;
  // Column blocks hold whole panels (nr need not divide kNC).
  const std::size_t nc_block = kNC / nr * nr;
  const std::size_t nc_max = std::min(nc_block, (N + nr - 1) / nr * nr);
  const std::size_t kc_max = std::min(kKC, K);
  const std::size_t mc_max = std::min(kMC, (M + kMR - 1) / kMR * kMR);
  // Left uninitialised: every element read is packed first, and zeroing a fresh vector per call
  // showed in the trainer's profile, whose products are small and many.
  const std::unique_ptr<float[]> b_packed(new float[kc_max * nc_max]);
  const std::unique_ptr<float[]> a_packed(new float[mc_max * kc_max]);
  float edge[kMR * 64];  // one partial tile (nr <= 64 for every Highway target up to AVX-512)

  for (std::size_t j0 = 0; j0 < N; j0 += nc_block) {
    const std::size_t nc = std::min(nc_block, N - j0);
    for (std::size_t p0 = 0; p0 < K; p0 += kKC) {
      const std::size_t kc = std::min(kKC, K - p0);
      const bool add = accumulate || p0 > 0;
      if (!direct_b) pack_b(b, ldb, op_b, p0, kc, j0, nc, nr, b_packed.get());
      for (std::size_t i0 = 0; i0 < M; i0 += kMC) {
        const std::size_t mc = std::min(kMC, M - i0);
        pack_a(a, lda, op_a, i0, mc, p0, kc, a_packed.get());
        for (std::size_t jr = 0; jr < nc; jr += nr) {
          const std::size_t cols = std::min(nr, nc - jr);
          const float* b_panel = b_packed.get() + jr * kc;
          std::size_t b_stride = nr;
          if (direct_b && cols == nr) {
            b_panel = b + p0 * ldb + j0 + jr;
            b_stride = ldb;
          } else if (direct_b && i0 == 0) {
            pack_b(b, ldb, op_b, p0, kc, j0 + jr, cols, nr, b_packed.get() + jr * kc);
          }
          for (std::size_t ir = 0; ir < mc; ir += kMR) {
            const std::size_t rows = std::min(kMR, mc - ir);
            const float* a_panel = a_packed.get() + ir * kc;
            float* tile = c + (i0 + ir) * ldc + j0 + jr;
            if (rows == kMR && cols == nr) {
              kernel(kc, a_panel, b_panel, b_stride, tile, ldc, add);
              continue;
            }
            for (std::size_t r = 0; r < rows; ++r) {
              std::memcpy(edge + r * nr, tile + r * ldc, cols * sizeof(float));
            }
            kernel(kc, a_panel, b_panel, b_stride, edge, nr, add);
            for (std::size_t r = 0; r < rows; ++r) {
              std::memcpy(tile + r * ldc, edge + r * nr, cols * sizeof(float));
            }
          }
        }
      }
    }
  }
}

}  // namespace

void gemm(std::size_t M, std::size_t N, std::size_t K, const float* a, std::size_t lda, Op op_a,
          const float* b, std::size_t ldb, Op op_b, float* c, std::size_t ldc, bool accumulate) {
  if (M == 0 || N == 0) return;
  if (K == 0) {
    if (!accumulate) {
      for (std::size_t i = 0; i < M; ++i) std::fill(c + i * ldc, c + i * ldc + N, 0.0f);
    }
    return;
  }
  // Threads take column slices of C, each packing its own panels of A and B: the same
  // operations per element as one thread (identical results), no shared writes. A slice is
  // whole panels (so only the last has a partial one), as even as panels allow: slices of 64
  // columns left a 576-wide product 4 : 5 and a 192-wide one 1 : 2 on two threads (SmolLM2's
  // projections), the faster thread idle for the rest. Below kParallelFlops a slice's work would
  // not pay for waking the pool: one slice, all of C.
  const std::size_t panel = kNV * hn::Lanes(DF());
  const bool split = 2.0 * double(M) * double(N) * double(K) >= kParallelFlops;
  parallel_for(N, split ? panel : N, [&](std::size_t j0, std::size_t j1) {
    const float* b_slice = op_b == Op::kNone ? b + j0 : b + j0 * ldb;
    gemm_serial(M, j1 - j0, K, a, lda, op_a, b_slice, ldb, op_b, c + j0, ldc, accumulate);
  });
}

TensorF matmul(const TensorF& a, const TensorF& b, Op op_a, Op op_b) {
  require(a.ndim() == 2, "a", "matmul: a must be 2-D, got shape " + shape_string(a.shape));
  require(b.ndim() == 2, "b", "matmul: b must be 2-D, got shape " + shape_string(b.shape));
  const std::size_t M = op_a == Op::kNone ? a.dim(0) : a.dim(1);
  const std::size_t K = op_a == Op::kNone ? a.dim(1) : a.dim(0);
  const std::size_t Kb = op_b == Op::kNone ? b.dim(0) : b.dim(1);
  const std::size_t N = op_b == Op::kNone ? b.dim(1) : b.dim(0);
  require(K == Kb, "b",
          "matmul: inner sizes differ (" + std::to_string(K) + " vs " + std::to_string(Kb) +
              ") for a " + shape_string(a.shape) + " and b " + shape_string(b.shape));
  TensorF c({M, N}, "matmul result (M, N)");
  gemm(M, N, K, a.ptr(), a.dim(1), op_a, b.ptr(), b.dim(1), op_b, c.ptr(), N);
  return c;
}

}  // namespace poslab::fast

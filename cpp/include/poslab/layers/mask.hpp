// Which keys a query sees: the one rule of the reference, the SIMD fast path, the CUDA
// kernels and the JS API (attentionMask), header-only and marked host+device for nvcc.
// Query i sits at position i + offset and key j at position j (offset 0: top-left aligned,
// also when Lq != Lk; offset Lk − Lq: bottom-right, a decoder's new queries after a cache).
//   causal:  key j hidden when j > i + offset
//   window W (causal too): also hidden when (i + offset) − j >= W
//   padding: key j hidden from every query when key_padding[j] != 0
// The visible keys of a query are always one range [first, last): fast paths loop over it.
#pragma once

#include <cstdint>

#include "poslab/positions/formulas.hpp"  // POSLAB_HD

namespace poslab {

enum class MaskKind {
  kNone,
  kCausal,         // removes j > i + offset
  kSlidingWindow,  // causal, and keeps only (i + offset) − j < W
};

// Keys [first, last) of one query, before padding; first == last when it sees none.
template <class I>
struct KeyRange {
  I first, last;
};

// The rule in a form device code can copy: I is int on the GPU, long long on the host.
template <class I>
struct MaskRule {
  bool causal = false;  // causal or sliding window
  I window = 0;         // W >= 1 for a sliding window; 0 = unbounded
  I offset = 0;         // query i sits at position i + offset

  // The position of query i: the one place the offset is applied (masks, ALiBi, T5).
  POSLAB_HD I position(I i) const { return i + offset; }

  POSLAB_HD KeyRange<I> keys(I i, I Lk) const {
    if (!causal) return {0, Lk};
    const I p = position(i);
    I last = p + 1 < Lk ? p + 1 : Lk;
    if (last < 0) last = 0;
    I first = window > 0 && p - window + 1 > 0 ? p - window + 1 : 0;
    if (first > last) first = last;
    return {first, last};
  }

  // True when key j (of Lk) is hidden from query i; key_padding (Lk,) or null.
  POSLAB_HD bool hides(I i, I j, I Lk, const std::uint8_t* key_padding = nullptr) const {
    const KeyRange<I> r = keys(i, Lk);
    return j < r.first || j >= r.last || (key_padding != nullptr && key_padding[j] != 0);
  }
};

// Offsets beyond ±2^30 are refused (check_mask_offset), so i + offset fits an int on the GPU.
inline constexpr long long kMaxMaskOffset = 1LL << 30;

struct Mask {
  MaskKind kind = MaskKind::kNone;
  long long window = 0;  // W >= 1 for kSlidingWindow
  long long offset = 0;  // query i sits at position i + offset

  template <class I = long long>
  POSLAB_HD MaskRule<I> rule() const {
    return {kind != MaskKind::kNone, kind == MaskKind::kSlidingWindow ? I(window) : I(0),
            I(offset)};
  }

  // True when key j is hidden from query i (padding aside); any number of keys past j.
  POSLAB_HD bool hides(long long i, long long j) const { return rule().hides(i, j, j + 1); }
};

}  // namespace poslab

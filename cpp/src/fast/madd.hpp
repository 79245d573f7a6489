// madd(a, b, c) = a·b + c on a Highway vector of floats: the one multiply-add of the GEMM
// micro-kernels and the attention products. Natively it is Highway's MulAdd (an FMA where the
// target has one). In wasm it is a multiply then an add, unless the build is the relaxed
// variant (POSLAB_RELAXED_SIMD, -mrelaxed-simd): there it is one f32x4.relaxed_madd, which
// engines may fuse (one rounding) or not (two), so results differ from the SIMD build within the
// GEMM's γ_K bound (gemm.hpp), never bit for bit.
//
// Emscripten 3.1.6's clang 14 emits __builtin_wasm_fma_f32x4 as the pre-standard opcode
// 0xfd 0xaf 0x01, which no engine accepts; cpp/wasm/relaxed_simd_patch.mjs rewrites it to
// f32x4.relaxed_madd (0xfd 0x85 0x02) after the link. The standard instruction computes
// x·y + z for builtin(x, y, z) (measured in Node 20 and Chromium), hence the argument order.
#pragma once

#include <hwy/highway.h>

#include <type_traits>

#if defined(POSLAB_RELAXED_SIMD) && HWY_TARGET != HWY_WASM
#error "POSLAB_RELAXED_SIMD needs the SIMD128 target (em++ -msimd128 -mrelaxed-simd)"
#endif

namespace poslab::fast {

namespace hn = hwy::HWY_NAMESPACE;

template <class V>
HWY_INLINE V madd(V a, V b, V c) {
#ifdef POSLAB_RELAXED_SIMD
  if constexpr (std::is_same_v<hn::TFromV<V>, float>) {
    return V{__builtin_wasm_fma_f32x4(a.raw, b.raw, c.raw)};
  }
#endif
  return hn::MulAdd(a, b, c);
}

}  // namespace poslab::fast

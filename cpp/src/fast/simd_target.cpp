// Which instruction set Highway compiled the fast paths for (static dispatch: the flags of
// this build decide), so tests and benchmarks can say what they measured. The relaxed wasm
// variant (fast/madd.hpp) says so: its products use f32x4.relaxed_madd.
#include <hwy/highway.h>

#include "poslab/fast/fast.hpp"

namespace poslab::fast {

#ifdef POSLAB_RELAXED_SIMD
const char* simd_target() { return "WASM+RELAXED"; }
#else
const char* simd_target() { return hwy::TargetName(HWY_STATIC_TARGET); }
#endif

}  // namespace poslab::fast

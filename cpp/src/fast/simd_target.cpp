// Which instruction set Highway compiled the fast paths for (static dispatch: the flags of
// this build decide), so tests and benchmarks can say what they measured.
#include <hwy/highway.h>

#include "poslab/fast/fast.hpp"

namespace poslab::fast {

const char* simd_target() { return hwy::TargetName(HWY_STATIC_TARGET); }

}  // namespace poslab::fast

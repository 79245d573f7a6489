// Heap measurements for tests: the bytes malloc has handed out and not had back (mallinfo's
// uordblks). emscripten_get_heap_size() only grows, so a leak test must read this instead.
#pragma once

#include <malloc.h>

namespace poslab::wasm {

inline double live_heap_bytes() { return double(mallinfo().uordblks); }

}  // namespace poslab::wasm

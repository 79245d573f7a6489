// The threads the core's fast kernels may use (the float32 GEMM's column blocks, attention's
// heads): one process-wide count, 1 unless set. Natively up to the machine's cores; in
// WebAssembly only the threaded build of the language-model module (pthreads, a shared heap)
// has more than one, up to its worker pool; every other wasm build runs serially.
//
// The split never changes a result: each output element is computed by the same sequence of
// operations whatever the count, so 1 and N threads give identical bits.
#pragma once

#include <cstddef>
#include <functional>

namespace poslab {

// The most threads set_thread_count accepts here: the logical cores (natively, at most
// kMaxThreads), the wasm module's pool of workers plus the caller, or 1 without threads.
std::size_t max_thread_count();

// Throws Error (field "threads") unless 1 <= n <= max_thread_count().
void set_thread_count(std::size_t n);
std::size_t thread_count();

// Where the pool's time goes, summed over the batches parallel_for ran on it since the last
// reset (all zeros where there are no threads). A batch runs from waking the workers to the last
// chunk done; its slowest chunk bounds it from below. So, with n threads:
//   batch_s − slowest_s: waking the workers and learning they are done (the pool's overhead);
//   n·slowest_s − caller_work_s − worker_work_s: thread time idle because chunks differ;
// and a caller's wall time outside batches is serial: the other threads wait through it.
struct PoolProfile {
  std::size_t batches = 0;
  std::size_t chunks = 0;    // Σ chunks over batches (n per batch)
  double batch_s = 0;        // the caller's wall time in batches
  double slowest_s = 0;      // Σ over batches of the longest chunk
  double caller_work_s = 0;  // the caller's own chunks
  double worker_work_s = 0;  // every worker's chunks
};
PoolProfile pool_profile();
void reset_pool_profile();

namespace detail {
// parallel_for's pool path (threads.cpp): the chunks on the workers.
void parallel_for_pool(std::size_t n, std::size_t grain,
                       const std::function<void(std::size_t, std::size_t)>& body);
}  // namespace detail

// Runs body(begin, end) over [0, n) cut into at most thread_count() contiguous chunks whose
// bounds are multiples of `grain` (the last may be shorter), the calling thread taking the
// first, and returns when all are done. Serial (one call, body(0, n)) when the count is 1, n
// fits one grain, or when called from inside another parallel_for's body. The first exception a
// chunk throws is rethrown here after every chunk has finished. A wasm build without threads
// compiles this to the plain call (no pool code in its modules).
template <class Body>
void parallel_for(std::size_t n, std::size_t grain, Body&& body) {
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  (void)grain;
#else
  if (thread_count() > 1 && n > grain) {
    detail::parallel_for_pool(n, grain, body);
    return;
  }
#endif
  if (n > 0) body(std::size_t{0}, n);
}

// The native cap: more threads than this only add synchronisation for the kernels above.
inline constexpr std::size_t kMaxThreads = 64;

// Below this many flops a kernel stays on one thread: a split's share would not pay for waking
// the pool (tens of microseconds in wasm).
inline constexpr double kParallelFlops = 4.0e6;

}  // namespace poslab

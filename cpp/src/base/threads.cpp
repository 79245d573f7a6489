// A small persistent pool behind parallel_for: workers are started on first use and then wait
// on a condition variable for the next batch of chunks, so a GEMM of a few hundred microseconds
// does not pay for starting threads. In the threaded wasm build every worker must come from
// Emscripten's pool of pre-started Web Workers (a thread started later would need the caller to
// yield to the event loop, which a kernel never does): max_thread_count() is that pool's size
// plus the caller, at most POSLAB_WASM_MAX_THREADS (cpp/wasm/settings.cmake).
#include "poslab/base/threads.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "poslab/base/errors.hpp"

#if defined(__EMSCRIPTEN__)
#include <emscripten/em_asm.h>
#endif

#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__)
#define POSLAB_HAS_THREADS 1
#else
#define POSLAB_HAS_THREADS 0
#endif

namespace poslab {

namespace {

std::atomic<std::size_t> g_thread_count{1};

#if POSLAB_HAS_THREADS

thread_local bool t_inside_parallel_for = false;

class Pool {
 public:
  ~Pool() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  // Runs chunk(0) here and chunk(1 .. n-1) on workers 1 .. n-1; false (nothing run) when another
  // thread holds the pool, so the caller runs serially instead of waiting.
  bool run(std::size_t n, const std::function<void(std::size_t)>& chunk) {
    std::unique_lock<std::mutex> caller(run_mutex_, std::try_to_lock);
    if (!caller.owns_lock()) return false;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      while (workers_.size() + 1 < n) {
        const std::size_t index = workers_.size() + 1;
        workers_.emplace_back([this, index] { work(index); });
      }
      task_ = &chunk;
      chunks_ = n;
      pending_ = n - 1;
      error_ = nullptr;
      ++generation_;
    }
    wake_.notify_all();
    std::exception_ptr mine;
    try {
      chunk(0);
    } catch (...) {
      mine = std::current_exception();
    }
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    task_ = nullptr;
    if (mine) std::rethrow_exception(mine);
    if (error_) std::rethrow_exception(error_);
    return true;
  }

 private:
  void work(std::size_t index) {
    t_inside_parallel_for = true;
    std::size_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (index >= chunks_) continue;
      const std::function<void(std::size_t)>* task = task_;
      lock.unlock();
      std::exception_ptr error;
      try {
        (*task)(index);
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      if (error && !error_) error_ = error;
      if (--pending_ == 0) done_.notify_one();
    }
  }

  std::mutex run_mutex_;  // one batch at a time
  std::mutex mutex_;      // everything below
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  const std::function<void(std::size_t)>* task_ = nullptr;
  std::size_t chunks_ = 0, pending_ = 0, generation_ = 0;
  std::exception_ptr error_;
  bool stop_ = false;
};

Pool& pool() {
  static Pool p;
  return p;
}

#endif  // POSLAB_HAS_THREADS

}  // namespace

std::size_t max_thread_count() {
#if defined(__EMSCRIPTEN_PTHREADS__)
  // The workers the page started with the module (its option poslabWorkers), and the caller.
  const int workers = EM_ASM_INT({ return Module['poslabWorkers'] | 0; });
  return std::clamp<std::size_t>(std::size_t(std::max(workers, 0)) + 1, 1, POSLAB_WASM_MAX_THREADS);
#elif POSLAB_HAS_THREADS
  return std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, kMaxThreads);
#else
  return 1;
#endif
}

void set_thread_count(std::size_t n) {
  const std::size_t most = max_thread_count();
  require(n >= 1 && n <= most, "threads",
          "threads must be between 1 and " + std::to_string(most) +
              (most == 1 ? " (this build runs one thread)" : " here") + ", got " +
              std::to_string(n));
  g_thread_count = n;
}

std::size_t thread_count() { return g_thread_count; }

#if POSLAB_HAS_THREADS
namespace detail {

void parallel_for_pool(std::size_t n, std::size_t grain,
                       const std::function<void(std::size_t, std::size_t)>& body) {
  grain = std::max<std::size_t>(grain, 1);
  const std::size_t grains = (n + grain - 1) / grain;
  const std::size_t chunks = std::min(thread_count(), grains);
  if (chunks > 1 && !t_inside_parallel_for) {
    // Chunk c takes grains [c·grains/chunks, (c+1)·grains/chunks): sizes differ by one grain.
    const auto chunk = [&](std::size_t c) {
      const std::size_t begin = c * grains / chunks * grain;
      const std::size_t end = std::min(n, (c + 1) * grains / chunks * grain);
      if (begin < end) body(begin, end);
    };
    t_inside_parallel_for = true;
    try {
      const bool ran = pool().run(chunks, chunk);
      t_inside_parallel_for = false;
      if (ran) return;
    } catch (...) {
      t_inside_parallel_for = false;
      throw;
    }
  }
  if (n > 0) body(0, n);
}

}  // namespace detail
#endif  // POSLAB_HAS_THREADS

}  // namespace poslab

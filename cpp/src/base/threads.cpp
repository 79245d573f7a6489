// A small persistent pool behind parallel_for: workers are started on first use and then wait
// on a condition variable for the next batch of chunks, so a GEMM of a few hundred microseconds
// does not pay for starting threads. In the threaded wasm build every worker must come from
// Emscripten's pool of pre-started Web Workers (a thread started later would need the caller to
// yield to the event loop, which a kernel never does): max_thread_count() is that pool's size
// plus the caller, at most POSLAB_WASM_MAX_THREADS (cpp/wasm/settings.cmake).
#include "poslab/base/threads.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
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

// Durations on one thread's own clock only: a worker's clock may be offset from the caller's
// (in wasm each Web Worker has its own performance.now origin).
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// How long a thread spins on the pool's state before it sleeps on a condition variable. A
// forward runs a batch every few hundred microseconds (a product, then a norm or an activation
// on one thread, then the next product); waking a sleeping Web Worker took about 0.1–0.2 ms a
// batch at 2 threads (SmolLM2's shape, `npm run bench:ort-llama`'s pool profile), spinning
// through the gap none. A thread spins at most this long after its last batch.
constexpr double kSpinSeconds = 1e-3;

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins until done() or kSpinSeconds have passed (the caller then checks under its lock).
template <class Done>
void spin_until(Done done) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (done()) return;
      cpu_relax();
    }
    if (seconds_since(start) > kSpinSeconds) return;
  }
}

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
    bool wake_sleepers = false;
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
      batch_slowest_ = 0;
      ++generation_;
      // Spinning workers see the generation change; only sleeping ones need the wake-up, which
      // costs a futex call even when nobody waits (a sixth of the caller's pool time in wasm).
      wake_sleepers = sleeping_workers_ > 0;
    }
    const auto start = std::chrono::steady_clock::now();
    if (wake_sleepers) wake_.notify_all();
    std::exception_ptr mine;
    try {
      chunk(0);
    } catch (...) {
      mine = std::current_exception();
    }
    const double own = seconds_since(start);
    spin_until([this] { return pending_.load(std::memory_order_acquire) == 0; });
    // Taken even when the spin saw the workers finish: the lock orders their writes before ours.
    std::unique_lock<std::mutex> lock(mutex_);
    caller_sleeping_ = true;
    done_.wait(lock, [this] { return pending_ == 0; });
    caller_sleeping_ = false;
    profile_.batches += 1;
    profile_.chunks += n;
    profile_.batch_s += seconds_since(start);
    profile_.slowest_s += std::max(own, batch_slowest_);
    profile_.caller_work_s += own;
    task_ = nullptr;
    if (mine) std::rethrow_exception(mine);
    if (error_) std::rethrow_exception(error_);
    return true;
  }

  PoolProfile profile() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return profile_;
  }
  void reset_profile() {
    const std::lock_guard<std::mutex> lock(mutex_);
    profile_ = PoolProfile{};
  }

 private:
  void work(std::size_t index) {
    t_inside_parallel_for = true;
    std::size_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      if (!stop_ && generation_ == seen) {
        lock.unlock();
        spin_until([&] { return generation_.load(std::memory_order_acquire) != seen; });
        lock.lock();
      }
      ++sleeping_workers_;
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      --sleeping_workers_;
      if (stop_) return;
      seen = generation_;
      if (index >= chunks_) continue;
      const std::function<void(std::size_t)>* task = task_;
      lock.unlock();
      std::exception_ptr error;
      const auto start = std::chrono::steady_clock::now();
      try {
        (*task)(index);
      } catch (...) {
        error = std::current_exception();
      }
      const double work = seconds_since(start);
      lock.lock();
      profile_.worker_work_s += work;
      batch_slowest_ = std::max(batch_slowest_, work);
      if (error && !error_) error_ = error;
      if (--pending_ == 0 && caller_sleeping_) done_.notify_one();
    }
  }

  std::mutex run_mutex_;  // one batch at a time
  std::mutex mutex_;      // everything below
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  const std::function<void(std::size_t)>* task_ = nullptr;
  std::size_t chunks_ = 0;
  // Written under mutex_; atomic so that a spinning thread may read them without it.
  std::atomic<std::size_t> pending_{0}, generation_{0};
  std::exception_ptr error_;
  bool stop_ = false;
  double batch_slowest_ = 0;  // this batch's longest worker chunk so far
  // Who waits on a condition variable (wake_, done_) rather than spinning: notified only then.
  std::size_t sleeping_workers_ = 0;
  bool caller_sleeping_ = false;
  PoolProfile profile_;
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
PoolProfile pool_profile() { return pool().profile(); }
void reset_pool_profile() { pool().reset_profile(); }
#else
PoolProfile pool_profile() { return {}; }
void reset_pool_profile() {}
#endif

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

// Kernel timing with CUDA events: warm-up calls, then repeats until a time budget is spent;
// the median is reported (robust to the odd slow repeat), the minimum beside it. Each sample
// includes one launch's overhead (about 9 µs for an empty kernel on the lent H100 VM), which
// dominates small kernels, so a second figure times a batch of back-to-back launches between
// one event pair: the GPU then overlaps each launch with the previous kernel.
#pragma once

#include <functional>

namespace poslab::cuda::bench {

struct Timing {
  double median_ms = 0.0;
  double min_ms = 0.0;
  int repeats = 0;
  double batched_ms = 0.0;  // per launch, in a batch of `batch` back-to-back launches
  int batch = 0;
};

// `launch` enqueues the work once on the default stream.
Timing time_launches(const std::function<void()>& launch, int warmup = 3, int min_repeats = 10,
                     int max_repeats = 100, double budget_ms = 200.0);

}  // namespace poslab::cuda::bench

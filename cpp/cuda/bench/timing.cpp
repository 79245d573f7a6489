// CUDA-event timing: one event pair per repeat, so each sample is one launch sequence.
#include "timing.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <vector>

#include "poslab/cuda/runtime.hpp"

namespace poslab::cuda::bench {

Timing time_launches(const std::function<void()>& launch, int warmup, int min_repeats,
                     int max_repeats, double budget_ms) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  for (int i = 0; i < warmup; ++i) launch();
  check(cudaDeviceSynchronize(), "warm-up");

  std::vector<float> samples;
  double spent = 0.0;
  while (int(samples.size()) < max_repeats &&
         (int(samples.size()) < min_repeats || spent < budget_ms)) {
    check(cudaEventRecord(start), "cudaEventRecord");
    launch();
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0.0f;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    samples.push_back(ms);
    spent += ms;
  }
  std::sort(samples.begin(), samples.end());
  Timing t;
  t.repeats = int(samples.size());
  t.min_ms = samples.front();
  const std::size_t m = samples.size() / 2;
  t.median_ms = samples.size() % 2 ? samples[m] : 0.5 * (samples[m - 1] + samples[m]);

  // About 50 ms of back-to-back launches, 5 to 100 of them.
  t.batch = std::clamp(int(50.0 / std::max(t.median_ms, 1e-3)), 5, 100);
  check(cudaEventRecord(start), "cudaEventRecord");
  for (int i = 0; i < t.batch; ++i) launch();
  check(cudaEventRecord(stop), "cudaEventRecord");
  check(cudaEventSynchronize(stop), "cudaEventSynchronize");
  float total = 0.0f;
  check(cudaEventElapsedTime(&total, start, stop), "cudaEventElapsedTime");
  t.batched_ms = total / t.batch;
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return t;
}

}  // namespace poslab::cuda::bench

// The shared benchmark state.
#include "suite.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>

namespace poslab::cuda::bench {
namespace {

// cudaMemcpyAsync of bytes/2 device to device: it reads and writes `bytes` in all, the traffic
// of the kernel it is printed beside, so "% of copy" is what that traffic allows here.
Timing time_copy(double bytes) {
  const std::size_t half = static_cast<std::size_t>(bytes / 2);
  DeviceBuffer from(half), to(half);
  check(cudaMemset(from.get(), 0, half), "cudaMemset");
  return time_launches([&] {
    check(cudaMemcpyAsync(to.get(), from.get(), half, cudaMemcpyDeviceToDevice), "cudaMemcpyAsync");
  });
}

}  // namespace

void Context::add(Record r) {
  if (r.bytes > 0.0) {
    auto it = copies_.find(r.bytes);
    if (it == copies_.end()) it = copies_.emplace(r.bytes, time_copy(r.bytes)).first;
    r.copy = it->second;
  }
  std::fprintf(stderr, "%s\n", console_line(r, device).c_str());
  if (!r.check.ok()) std::fprintf(stderr, "  FAILED: %s\n", r.check.summary().c_str());
  records.push_back(std::move(r));
}

int Context::failures() const {
  int n = 0;
  for (const Record& r : records) n += r.check.ok() ? 0 : 1;
  return n;
}

}  // namespace poslab::cuda::bench

// The shared benchmark state.
#include "suite.hpp"

#include <cstdio>

namespace poslab::cuda::bench {

void Context::add(Record r) {
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

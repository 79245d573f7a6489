// The GPU-vs-CPU comparison of compare.hpp.
#include "poslab/cuda/compare.hpp"

#include <cmath>
#include <cstdio>

namespace poslab::cuda {

Tolerance tolerance_for(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return {1e-5, 1e-5};
    case DType::kF16:
      return {1e-3, 1e-3};
    case DType::kBF16:
      return {8e-3, 8e-3};
  }
  return {0.0, 0.0};
}

std::string Comparison::summary() const {
  char text[200];
  std::snprintf(text, sizeof text,
                "%zu of %zu outside tolerance, max |err| %.3g, worst at %zu (got %.9g, want %.9g)",
                failures, count, max_abs_error, worst, double(worst_got), double(worst_ref));
  return text;
}

Comparison compare(const std::vector<float>& got, const std::vector<float>& ref, Tolerance tol) {
  require(got.size() == ref.size(), "compare: " + std::to_string(got.size()) + " results for " +
                                        std::to_string(ref.size()) + " reference values");
  Comparison c;
  c.count = got.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], r = ref[i];
    double excess;
    double err;
    if (!std::isfinite(r) || !std::isfinite(g)) {
      // Non-finite values must match exactly (same infinity, or NaN for NaN).
      const bool same = (std::isnan(r) && std::isnan(g)) || g == r;
      err = same ? 0.0 : INFINITY;
      excess = same ? 0.0 : INFINITY;
    } else {
      err = std::fabs(g - r);
      const double bound = tol.atol + tol.rtol * std::fabs(r);
      excess = bound > 0.0 ? err / bound : (err > 0.0 ? INFINITY : 0.0);
    }
    if (excess > 1.0) ++c.failures;
    if (err > c.max_abs_error) c.max_abs_error = err;
    if (std::isfinite(r) && std::fabs(r) > c.max_abs_ref) c.max_abs_ref = std::fabs(r);
    if (excess > c.max_excess || i == 0) {
      c.max_excess = excess;
      c.worst = i;
      c.worst_got = got[i];
      c.worst_ref = ref[i];
    }
  }
  return c;
}

}  // namespace poslab::cuda

// Rates and percentages of peak derived from a Record.
#include "record.hpp"

#include <cstdio>
#include <string>

namespace poslab::cuda::bench {
namespace {

// j[rate] and j[pct] (% of `peak`), and their "_batched" forms: `amount` moved per median and
// per back-to-back launch, in `unit`s per second (1e9: GB/s, 1e12: TFLOP/s).
void add_rates(nlohmann::json& j, double amount, double unit, const Timing& timing, double peak,
               const std::string& rate, const std::string& pct) {
  const double per_launch = amount / (timing.median_ms * 1e-3) / unit;
  const double batched = amount / (timing.batched_ms * 1e-3) / unit;
  j[rate] = per_launch;
  j[pct] = 100.0 * per_launch / peak;
  j[rate + "_batched"] = batched;
  j[pct + "_batched"] = 100.0 * batched / peak;
}

}  // namespace

nlohmann::json to_json(const Record& r, const DeviceInfo& device) {
  nlohmann::json j = {{"kernel", r.kernel},
                      {"variant", r.variant},
                      {"dtype", r.dtype},
                      {"shape", r.shape},
                      {"params", r.params.is_null() ? nlohmann::json::object() : r.params},
                      {"median_ms", r.timing.median_ms},
                      {"min_ms", r.timing.min_ms},
                      {"repeats", r.timing.repeats},
                      {"batched_ms", r.timing.batched_ms},
                      {"batch", r.timing.batch},
                      {"max_abs_error", r.check.max_abs_error},
                      {"max_abs_reference", r.check.max_abs_ref},
                      {"tolerance", {{"atol", r.tolerance.atol}, {"rtol", r.tolerance.rtol}}},
                      {"validated", r.check.ok()},
                      {"validated_on", r.validated_on}};
  if (r.bytes > 0.0) {
    j["bytes"] = r.bytes;
    add_rates(j, r.bytes, 1e9, r.timing, device.peak_bandwidth_gbs, "gbs", "pct_peak_bandwidth");
    if (r.copy.batched_ms > 0.0) {
      j["copy_median_ms"] = r.copy.median_ms;
      j["copy_batched_ms"] = r.copy.batched_ms;
      j["pct_copy_batched"] = 100.0 * r.copy.batched_ms / r.timing.batched_ms;
    }
  }
  if (r.flops > 0.0) {
    j["flops"] = r.flops;
    add_rates(j, r.flops, 1e12, r.timing, device.peak_tensor_tflops, "tflops", "pct_peak_tensor");
  }
  return j;
}

std::string console_line(const Record& r, const DeviceInfo& device) {
  const nlohmann::json j = to_json(r, device);
  char rate[128] = "";
  if (j.contains("gbs")) {
    std::snprintf(rate, sizeof rate, "%7.0f GB/s (%4.1f%%, batched %4.1f%%, of copy %5.1f%%)",
                  j["gbs"].get<double>(), j["pct_peak_bandwidth"].get<double>(),
                  j["pct_peak_bandwidth_batched"].get<double>(), j.value("pct_copy_batched", 0.0));
  } else if (j.contains("tflops")) {
    std::snprintf(rate, sizeof rate, "%8.1f TFLOP/s (%5.1f%%)", j["tflops"].get<double>(),
                  j["pct_peak_tensor"].get<double>());
  }
  char line[512];
  std::snprintf(line, sizeof line, "%-10s %-9s %-4s %-44s %-22s %9.4f ms %s  err %.2e %s",
                r.kernel.c_str(), r.variant.c_str(), r.dtype.c_str(), r.shape.dump().c_str(),
                r.params.is_null() ? "" : r.params.dump().c_str(), r.timing.median_ms, rate,
                r.check.max_abs_error, r.check.ok() ? "ok" : "FAILED");
  return line;
}

}  // namespace poslab::cuda::bench

// poslab-bench-cuda: validates every GPU kernel against the CPU reference core, then times
// it (median of CUDA-event timings after warm-up) and writes the results as JSON.
//
//   poslab-bench-cuda --out public/bench/poslab-h100-2026-11-23.json     full sweep
//   poslab-bench-cuda --quick --only attention                           a first look
//
// Exit status 1 if any kernel disagreed with the reference (its timing is still written).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "poslab/cuda/runtime.hpp"
#include "suite.hpp"
#include "timing.hpp"

namespace pb = poslab::cuda::bench;

namespace {

std::string utc_now(const char* format) {
  const std::time_t now = std::time(nullptr);
  char text[64];
  std::strftime(text, sizeof text, format, std::gmtime(&now));
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Validate and time the PosLab CUDA kernels; write JSON results"};
  std::string out_path;
  std::vector<std::string> only;
  bool quick = false;
  app.add_option("--out", out_path, "JSON file to write (default: print to stdout)");
  app.add_option("--only", only, "suites to run: tables, rope, attention, position (default: all)")
      ->check(CLI::IsMember({"tables", "rope", "attention", "position"}));
  app.add_flag("--quick", quick, "a few shapes per kernel instead of the full sweep");
  CLI11_PARSE(app, argc, argv);

  try {
    if (poslab::cuda::device_count() == 0) {
      std::fprintf(stderr, "poslab-bench-cuda: error: no CUDA device found\n");
      return 2;
    }
    pb::Context ctx;
    ctx.device = pb::query_device();
    ctx.quick = quick;
    std::fprintf(stderr, "device: %s, driver %s, %d SMs, peak %.0f GB/s, %.0f TFLOP/s\n",
                 ctx.device.name.c_str(), ctx.device.driver.c_str(), ctx.device.multiprocessors,
                 ctx.device.peak_bandwidth_gbs, ctx.device.peak_tensor_tflops);
    auto wanted = [&](const char* name) {
      return only.empty() || std::find(only.begin(), only.end(), name) != only.end();
    };
    if (wanted("tables")) pb::run_tables(ctx);
    if (wanted("rope")) pb::run_rope(ctx);
    if (wanted("attention")) pb::run_attention(ctx);
    if (wanted("position")) pb::run_position(ctx);

    // What a kernel that does nothing measures: part of every per-launch time below.
    const pb::Timing empty = pb::time_launches([] { poslab::cuda::launch_empty_kernel(); });
    nlohmann::json device = pb::to_json(ctx.device);
    device["empty_kernel_ms"] = empty.median_ms;
    nlohmann::json doc = {{"schema", "poslab-bench/1"},
                          {"source", "poslab-bench-cuda"},
                          {"date", utc_now("%Y-%m-%d")},
                          {"time_utc", utc_now("%Y-%m-%dT%H:%M:%SZ")},
                          {"device", device},
                          {"timing",
                           "median_ms: median of CUDA-event times per launch after 3 warm-up "
                           "launches, at least 10 repeats, up to 200 ms; batched_ms: one event "
                           "pair around `batch` back-to-back launches, divided by batch (no "
                           "launch gaps; outputs under ~4x the L2 size may partly stay in L2)"},
                          {"results", nlohmann::json::array()}};
    for (const pb::Record& r : ctx.records) doc["results"].push_back(pb::to_json(r, ctx.device));
    if (out_path.empty()) {
      std::cout << doc.dump(1) << "\n";
    } else {
      std::ofstream file(out_path);
      file << doc.dump(1) << "\n";
      if (!file) {
        std::fprintf(stderr, "poslab-bench-cuda: error: cannot write %s\n", out_path.c_str());
        return 1;
      }
      std::fprintf(stderr, "wrote %zu results to %s\n", ctx.records.size(), out_path.c_str());
    }
    if (ctx.failures() > 0) {
      std::fprintf(stderr, "poslab-bench-cuda: %d kernels disagreed with the CPU reference\n",
                   ctx.failures());
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "poslab-bench-cuda: error: %s\n", e.what());
    return 1;
  }
}

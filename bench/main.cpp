// poslab_bench's main: Google Benchmark's usual console table, then a summary of each core
// row's speed-up over the naive baseline of the same op and size (naive time / core time) and
// the SIMD peak the simd_peak rows measured; the CPU model heads the output (every format).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace {

// /proc/cpuinfo's first "model name" (Linux), else "unknown".
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const std::size_t colon = line.find(':');
    if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
  }
  return "unknown";
}

// Rows are named "<op>/<variant>/<args>" (e.g. "rope/core/H:8/L:512/D:64"); a row's baseline
// is the "<op>/naive" row whose args are a prefix of its own (the naive attention has no
// "weights" arg, so it is the baseline of both weights:0 and weights:1).
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  using benchmark::ConsoleReporter::ConsoleReporter;

  void ReportRuns(const std::vector<Run>& runs) override {
    benchmark::ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred || run.run_type != Run::RT_Iteration) continue;
      const std::string& name = run.run_name.function_name;
      const std::size_t slash = name.find('/');
      if (slash == std::string::npos) continue;
      const auto flops = run.counters.find("FLOP/s");
      if (name.rfind("simd_peak/", 0) == 0 && flops != run.counters.end()) {
        // simd_peak/<form>/chains:N → <form>: the best over the chain counts.
        const std::size_t end = name.find('/', slash + 1);
        double& best = peaks_[name.substr(slash + 1, end - slash - 1)];
        best = std::max(best, double(flops->second));
      }
      rows_.push_back({name.substr(0, slash), name.substr(slash + 1), run.run_name.args,
                       run.real_accumulated_time / double(run.iterations)});
    }
  }

  void Finalize() override {
    benchmark::ConsoleReporter::Finalize();
    bool header = false;
    for (const Row& row : rows_) {
      if (row.variant == "naive") continue;
      for (const Row& base : rows_) {
        if (base.op != row.op || base.variant != "naive" || !is_prefix(base.args, row.args)) {
          continue;
        }
        if (!header) {
          std::printf("\nSpeed-up over the naive scalar baseline (naive time / core time):\n");
          header = true;
        }
        const std::string label = row.op + "/" + row.variant + "/" + row.args;
        std::printf("  %-42s %8.1fx\n", label.c_str(), base.seconds / row.seconds);
        break;
      }
    }
    if (peaks_.empty()) {
      std::printf("\nSIMD peak: not measured in this run (its rows are simd_peak/*)\n");
    } else {
      std::printf("\nSIMD peak of one core, the best simd_peak row of each form (%s):\n",
                  cpu_model().c_str());
      for (const auto& [form, flops] : peaks_)
        std::printf("  %-14s %8.1f GFLOP/s\n", form.c_str(), flops / 1e9);
    }
    std::fflush(stdout);
  }

 private:
  struct Row {
    std::string op, variant, args;
    double seconds;  // real time per iteration
  };

  static bool is_prefix(const std::string& prefix, const std::string& args) {
    if (args.compare(0, prefix.size(), prefix) != 0) return false;
    return args.size() == prefix.size() || args[prefix.size()] == '/';
  }

  std::vector<Row> rows_;
  std::map<std::string, double> peaks_;  // simd_peak form → best FLOP/s
};

}  // namespace

int main(int argc, char** argv) {
  // --benchmark_format=json|csv asks for the library's own reporter: no summary then.
  bool console = true;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg.rfind("--benchmark_format=", 0) == 0) console = arg == "--benchmark_format=console";
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("cpu_model", cpu_model());
  if (!console) {
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
  }
  const bool color = isatty(STDOUT_FILENO) != 0;
  RatioReporter reporter(color ? benchmark::ConsoleReporter::OO_ColorTabular
                               : benchmark::ConsoleReporter::OO_Tabular);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}

// poslab_bench's main: Google Benchmark's usual console table, then a summary of each core
// row's speed-up over the naive baseline of the same op and size (naive time / core time).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

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

// Subcommands for looking at encodings: similarity, offset-matrix, wavelengths.
#include <string>

#include "commands.hpp"
#include "input.hpp"
#include "options.hpp"
#include "poslab/analysis/analysis.hpp"
#include "poslab/base/defaults.hpp"
#include "poslab/positions/sinusoidal.hpp"

namespace poslab::cli {
namespace {

void add_similarity(Commands& commands) {
  struct Args {
    std::string in, metric = name_of(kSimilarityMetricNames, SimilarityMetric::kCosine);
  };
  add_tensor_command<Args>(
      commands, "similarity", "S[i,j] = sim(x_i, x_j) of the rows of X (L, D), (L, L)",
      [](CLI::App* cmd, Args& a) {
        add_input(cmd, "--in", a.in, "table (L, D)")->required();
        cmd->add_option("--metric", a.metric, "cosine or dot")
            ->capture_default_str()
            ->check(parsed_by(parse_similarity_metric, choices(kSimilarityMetricNames)));
      },
      [](const Args& a) {
        return similarity_matrix(read_input(a.in), parse_similarity_metric(a.metric));
      });
}

void add_offset_matrix(Commands& commands) {
  struct Args {
    long long dim = 0, k = 0;
    double base = defaults::kBase;
  };
  add_tensor_command<Args>(
      commands, "offset-matrix",
      "M_k (D, D) with PE(p+k) = M_k PE(p) for the interleaved sinusoidal table",
      [](CLI::App* cmd, Args& a) {
        add_size(cmd, "--dim", a.dim, "width D (even)");
        cmd->add_option("--k", a.k, "offset k (may be negative)")->required()->check(any_integer());
        cmd->add_option("--base", a.base, "frequency base b")
            ->capture_default_str()
            ->check(finite_number());
      },
      [](const Args& a) { return offset_matrix(a.dim, a.k, a.base); });
}

void add_wavelengths(Commands& commands) {
  struct Args {
    long long dim = 0;
    double base = defaults::kBase;
  };
  add_tensor_command<Args>(
      commands, "wavelengths", "Sinusoidal wavelengths 2*pi/w_i = 2*pi*b^(2i/D) per pair, (D/2,)",
      [](CLI::App* cmd, Args& a) {
        add_size(cmd, "--dim", a.dim, "width D (even)");
        cmd->add_option("--base", a.base, "frequency base b")
            ->capture_default_str()
            ->check(finite_number());
      },
      [](const Args& a) { return sinusoidal_wavelengths(a.dim, a.base); });
}

}  // namespace

void add_analysis_commands(Commands& commands) {
  add_similarity(commands);
  add_offset_matrix(commands);
  add_wavelengths(commands);
}

}  // namespace poslab::cli

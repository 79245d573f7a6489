// Subcommands for looking at encodings: similarity, offset-matrix, wavelengths.
#include <memory>

#include "commands.hpp"
#include "input.hpp"
#include "options.hpp"
#include "output.hpp"
#include "poslab/analysis.hpp"
#include "poslab/sinusoidal.hpp"

namespace poslab::cli {
namespace {

void add_similarity(Commands& commands) {
  struct Args {
    std::string in, metric = "cosine", out;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd =
      commands.add("similarity", "S[i,j] = sim(x_i, x_j) of the rows of X (L, D), (L, L)", [a] {
        check_output_path(a->out);
        const TensorF x = read_input(a->in);
        write_output(a->out, similarity_matrix(x, parse_similarity_metric(a->metric)));
      });
  add_input(cmd, "--in", a->in, "table (L, D)")->required();
  cmd->add_option("--metric", a->metric, "cosine or dot")
      ->capture_default_str()
      ->check(parsed_by(parse_similarity_metric, "{cosine,dot}"));
  add_output(cmd, a->out);
}

void add_offset_matrix(Commands& commands) {
  struct Args {
    long long dim = 0, k = 0;
    double base = 10000.0;
    std::string out;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd =
      commands.add("offset-matrix",
                   "M_k (D, D) with PE(p+k) = M_k PE(p) for the interleaved sinusoidal table", [a] {
                     check_output_path(a->out);
                     write_output(a->out, offset_matrix(a->dim, a->k, a->base));
                   });
  add_size(cmd, "--dim", a->dim, "width D (even)");
  cmd->add_option("--k", a->k, "offset k (may be negative)")->required()->check(any_integer());
  cmd->add_option("--base", a->base, "frequency base b")
      ->capture_default_str()
      ->check(finite_number());
  add_output(cmd, a->out);
}

void add_wavelengths(Commands& commands) {
  struct Args {
    long long dim = 0;
    double base = 10000.0;
    std::string out;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = commands.add(
      "wavelengths", "Sinusoidal wavelengths 2*pi/w_i = 2*pi*b^(2i/D) per pair, (D/2,)", [a] {
        check_output_path(a->out);
        write_output(a->out, sinusoidal_wavelengths(a->dim, a->base));
      });
  add_size(cmd, "--dim", a->dim, "width D (even)");
  cmd->add_option("--base", a->base, "frequency base b")
      ->capture_default_str()
      ->check(finite_number());
  add_output(cmd, a->out);
}

}  // namespace

void add_analysis_commands(Commands& commands) {
  add_similarity(commands);
  add_offset_matrix(commands);
  add_wavelengths(commands);
}

}  // namespace poslab::cli

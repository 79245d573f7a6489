// Entry point of the `poslab` command-line tool: registers the subcommands, runs the chosen
// one, and turns every failure into "poslab: error: <message>" and an exit status
// (2: the command line is wrong, 1: running it failed).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "commands.hpp"
#include "options.hpp"
#include "poslab/base/errors.hpp"

namespace {

constexpr const char* kVersion = POSLAB_VERSION;  // from project() in CMakeLists.txt

int fail(const std::string& message, int status) {
  std::fprintf(stderr, "poslab: error: %s\n", message.c_str());
  return status;
}

std::string command_problem(CLI::App& app, int argc, char** argv) {
  std::string names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
  }
  // Only --help and --version come before the command, and neither gets here.
  if (argc > 1 && argv[1][0] == '-') {
    return std::string("unknown option '") + argv[1] + "' before the command (commands: " + names +
           ")";
  }
  if (argc > 1) {
    return std::string("unknown command '") + argv[1] + "' (commands: " + names + ")";
  }
  return "no command given (commands: " + names + "; see poslab --help)";
}

// An option before any command ("poslab --task copy --position rope ..."): CLI11 would take the
// first later word that names a command ("rope") as the command and complain about its options.
// Which commands have that option says what was probably meant.
std::string missing_command(CLI::App& app, const std::string& option) {
  if (app.get_option_no_throw(option) != nullptr) return {};  // --help, --version
  std::string owners;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_option_no_throw(option) == nullptr) continue;
    owners += (owners.empty() ? "" : ", ") + sub->get_name();
  }
  if (owners.empty()) return {};
  const bool one = owners.find(',') == std::string::npos;
  return "no command given before '" + option + "', an option of " + owners +
         (one ? ": write 'poslab " + owners + " " + option + " ...'" : "") + " (see poslab --help)";
}

int run(int argc, char** argv) {
  CLI::App app("PosLab: positional encodings and attention as .npy, CSV or JSON arrays.", "poslab");
  app.set_version_flag("--version", std::string("poslab ") + kVersion);
  app.require_subcommand(1);
  poslab::cli::Commands commands(app);
  poslab::cli::add_encoding_commands(commands);
  poslab::cli::add_rope_commands(commands);
  poslab::cli::add_attention_commands(commands);
  poslab::cli::add_analysis_commands(commands);
  poslab::cli::add_gpt2_commands(commands);
  poslab::cli::add_lm_commands(commands);
  poslab::cli::add_lens_command(commands);
  poslab::cli::add_surgery_command(commands);
  poslab::cli::add_train_command(commands);
  poslab::cli::add_sweep_command(commands);
  poslab::cli::add_methods_command(commands);

  if (argc > 1 && argv[1][0] == '-') {
    const std::string first = argv[1];
    const std::string option = first.substr(0, first.find('='));
    const std::string problem = missing_command(app, option);
    if (!problem.empty()) return fail(problem, 2);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Help and --version arrive as "errors" with status 0; CLI11 prints those to stdout.
    if (e.get_exit_code() == 0) return app.exit(e);
    // CLI11 words both a missing and a mistyped command as "A subcommand is required".
    if (e.get_name() == "RequiredError" && app.get_subcommands().empty()) {
      return fail(command_problem(app, argc, argv), 2);
    }
    return fail(e.what(), 2);
  }
  try {
    commands.run_selected();
  } catch (const std::bad_alloc&) {
    const std::string name = app.get_subcommands().front()->get_name();
    return fail("out of memory running 'poslab " + name +
                    "': the inputs or sizes need more memory than this machine gives; "
                    "try smaller ones",
                1);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const poslab::cli::UsageError& e) {
    return fail(e.what(), 2);
  } catch (const std::bad_alloc&) {
    return fail("out of memory", 1);
  } catch (const std::exception& e) {
    // poslab::Error and I/O failures: the message already says what and why.
    return fail(e.what(), 1);
  } catch (...) {
    return fail("unexpected failure", 1);
  }
}

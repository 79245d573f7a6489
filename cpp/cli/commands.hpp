// The subcommands of `poslab`, one group per file, and the registry that runs the chosen
// one only after the whole command line has parsed (so parse errors and run errors stay apart).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "options.hpp"
#include "output.hpp"

namespace poslab::cli {

class Commands {
 public:
  using Action = std::function<void()>;

  explicit Commands(CLI::App& app) : app_(app) {}

  // Adds subcommand `name`; the caller gives it options. `action` runs if it is chosen.
  CLI::App* add(const std::string& name, const std::string& description, Action action);

  // Runs the action of the subcommand the command line chose.
  void run_selected() const;

 private:
  struct Entry {
    CLI::App* app;
    Action action;
  };
  CLI::App& app_;
  std::vector<Entry> entries_;
};

// Adds subcommand `name` whose option values live in an `Args` (default-constructed, alive as
// long as the command line): `declare(cmd, args)` adds its options, `run(args)` runs once the
// whole command line has parsed. For subcommands with more than the one -o output.
template <class Args, class Declare, class Run>
CLI::App* add_command(Commands& commands, const std::string& name, const std::string& description,
                      Declare declare, Run run) {
  auto args = std::make_shared<Args>();
  CLI::App* cmd = commands.add(name, description, [args, run] { run(*args); });
  declare(cmd, *args);
  return cmd;
}

// The common subcommand: options, then -o OUT; `compute(args)` returns the one tensor written
// there (its format from the extension). The output path is checked before compute runs, so
// a bad -o fails before any input is read or any work done.
template <class Args, class Declare, class Compute>
CLI::App* add_tensor_command(Commands& commands, const std::string& name,
                             const std::string& description, Declare declare, Compute compute) {
  struct State {
    Args args;
    std::string out;
  };
  return add_command<State>(
      commands, name, description,
      [declare](CLI::App* cmd, State& state) {
        declare(cmd, state.args);
        add_output(cmd, state.out);
      },
      [compute](const State& state) {
        check_output_path(state.out);
        write_output(state.out, compute(state.args));
      });
}

// sinusoidal, learned, shaw, t5-buckets, alibi, alibi-slopes
void add_encoding_commands(Commands& commands);
// rope, rope-freqs, rope-decay
void add_rope_commands(Commands& commands);
// attention, norm
void add_attention_commands(Commands& commands);
// similarity, offset-matrix, wavelengths
void add_analysis_commands(Commands& commands);
// gpt2
void add_gpt2_commands(Commands& commands);
// lm, lm-random
void add_lm_commands(Commands& commands);
void add_lm_random_command(Commands& commands);
// lens_command.cpp: how a model's heads use position.
void add_lens_command(Commands& commands);
void add_surgery_command(Commands& commands);
// train_command.cpp: the length-generalisation lab's trainer.
void add_train_command(Commands& commands);
// sweep_command.cpp: many train runs from one plan (run, emit, one, merge).
void add_sweep_command(Commands& commands);
// methods_command.cpp: the table of position methods.
void add_methods_command(Commands& commands);

}  // namespace poslab::cli

// The subcommands of `poslab`, one group per file, and the registry that runs the chosen
// one only after the whole command line has parsed (so parse errors and run errors stay apart).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

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

}  // namespace poslab::cli

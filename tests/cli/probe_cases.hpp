// The bad-input probe as generated tables: each case is a command line run in a sandbox that
// already holds the files it names (and the user's previous outputs), with its verdict:
// refused (exit status, a one-line error that names the option or field, nothing created or
// changed) or accepted (exit 0, only the named outputs written, and a check of what they hold).
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <variant>
#include <vector>

#include "fixtures.hpp"

namespace poslab::test::probe {

// One entry of the sandbox before the command runs: a file with `bytes`, a directory (a name
// ending in '/'), a symbolic link to `link_to`, or a FIFO (`link_to` kFifo).
struct FileSpec {
  std::string name;
  std::string bytes;
  std::string link_to;
};
inline constexpr const char* kFifo = "<fifo>";
using Files = std::vector<FileSpec>;

// Refused: `status` 1 (the data) or 2 (the command line), 0 where either is right; every
// pattern (ECMAScript) is found in the error line. The first names the option or field.
struct Refused {
  int status = 0;
  std::vector<std::string> patterns;
};

// Accepted: exit 0 with nothing on stderr (or, with `note`, one "poslab: note: " line matching
// it); `outputs` (paths relative to the sandbox, a
// directory standing for everything under it) are the only entries that may be created or
// changed, and each must exist afterwards; `check` reads them with gtest expectations.
struct Accepted {
  std::vector<std::string> outputs;
  std::function<void(const std::string& dir, const RunResult& run)> check;
  std::string note;  // regex of the one note line expected on stderr; empty: none
};

inline Refused refused(int status, std::vector<std::string> patterns) {
  return Refused{status, std::move(patterns)};
}

// What the user had before the command: a failed run must leave it byte for byte.
inline constexpr const char* kPrevious = "the previous output, which a failed run must not touch";

struct ProbeCase {
  std::string name;              // the gtest parameter name: letters, digits, '_'
  std::function<Files()> files;  // built when the case runs, not when the table is
  std::vector<std::string> args;
  std::vector<std::string> env;  // "NAME=value" added to the command's environment
  std::variant<Refused, Accepted> verdict;
};

// gtest prints a failing parameter with this: its name and command line, not its files.
void PrintTo(const ProbeCase& c, std::ostream* os);

// The tables, one per surface (probe_cases.cpp).
std::vector<ProbeCase> train_cases();    // poslab train: options × values, combinations
std::vector<ProbeCase> output_cases();   // two outputs naming one file, on every command
std::vector<ProbeCase> lm_cases();       // poslab lm / gpt2: corrupt checkpoints and configs
std::vector<ProbeCase> scaling_cases();  // RoPE scalings' parameters in rope-freqs, rope, lm
// Llama-family configs, lab checkpoints and the lens, inputs that are not files, outputs that
// meet through "." ".." and links (probe_model_cases.cpp)
std::vector<ProbeCase> model_cases();

}  // namespace poslab::test::probe

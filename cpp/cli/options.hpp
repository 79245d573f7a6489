// Option helpers shared by the subcommands: validators that word their messages the
// PosLab way, the required -o option, the input-file option and the RoPE flags.
#pragma once

#include <CLI/CLI.hpp>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "poslab/base/errors.hpp"
#include "poslab/base/names.hpp"
#include "poslab/positions/rope.hpp"

namespace poslab::cli {

// A mistake in how poslab was called that shows only after parsing (options that cannot go
// together); main() reports it like a parse error, with exit status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An integer >= `min`. Applied before CLI11 converts, so "abc" gets our message, not its.
CLI::Validator integer_at_least(long long min);
// An integer in [min, max].
CLI::Validator integer_in(long long min, long long max);
// Any integer that fits in a long long.
CLI::Validator any_integer();
// A non-negative integer that fits in 64 bits (seeds).
CLI::Validator unsigned_integer();
// A finite real number.
CLI::Validator finite_number();
// One of `names`.
CLI::Validator one_of(std::initializer_list<const char*> names, const std::string& what);
CLI::Validator one_of(const std::vector<std::string>& names, const std::string& what);
// One of the names of a core name table (names.hpp).
template <class E, std::size_t N>
CLI::Validator one_of(const Named<E> (&table)[N], const std::string& what) {
  std::vector<std::string> names;
  for (const Named<E>& entry : table) names.emplace_back(entry.name);
  return one_of(names, what);
}
template <class E, std::size_t N>
CLI::Validator one_of(const std::array<Named<E>, N>& table, const std::string& what) {
  std::vector<std::string> names;
  for (const Named<E>& entry : table) names.emplace_back(entry.name);
  return one_of(names, what);
}

// "{a,b,window:W}": a name table's choices as the help shows them.
template <class Table>
std::string choices(const Table& table) {
  std::string out = "{";
  for (const auto& entry : table) {
    out += std::string(out.size() > 1 ? "," : "") + entry.name + entry.argument;
  }
  return out + "}";
}

// Refuses (UsageError) two output options that name one file or directory, however spelled
// ("r.json", "./r.json", through a symbolic link): the second would silently replace the first.
// `outputs` holds each option's flag and its path ("" when the option was not given).
void require_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs);

// A path that is not empty: `--checkpoint ''` is a mistake, not "no checkpoint".
CLI::Validator non_empty_path();

// A path whose extension names an output format (.npy, .csv, .json).
CLI::Validator output_file();
// An input path that, when it exists, is a regular file (not a FIFO, which would block the
// open forever, a directory or a device): checked before anything is opened.
CLI::Validator input_file();

// A working-set limit from the environment (`variable`: bytes, or a number with KiB, MiB or
// GiB), `fallback` when unset; UsageError naming the variable when it is not a size.
std::uint64_t memory_limit_from_environment(const char* variable, std::uint64_t fallback);

// Accepts exactly what the core's `parse(text)` accepts and reports its Error message, so
// the names of layouts, styles, scalings, masks and metrics live in one place.
template <class Parse>
CLI::Validator parsed_by(Parse parse, const std::string& description) {
  return CLI::Validator(
      [parse](std::string& text) -> std::string {
        try {
          parse(text);
          return {};
        } catch (const Error& e) {
          return e.what();
        }
      },
      description);
}

// --name VALUE, required, an integer >= min.
CLI::Option* add_size(CLI::App* app, const std::string& name, long long& value,
                      const std::string& description, long long min = 1);

// --seed VALUE, an unsigned integer with its default shown.
CLI::Option* add_seed(CLI::App* app, std::uint64_t& seed, const std::string& description);

// --name FILE.npy, an input array.
CLI::Option* add_input(CLI::App* app, const std::string& name, std::string& path,
                       const std::string& description);

// -o,--out OUT, required; its extension (.npy, .csv, .json) picks the format.
CLI::Option* add_output(CLI::App* app, std::string& path);

// --offset: query i sits at position i + offset, as the mask places it (attention's --offset).
CLI::Option* add_query_offset(CLI::App* app, long long& offset);

// --threads N: how many threads the core's fast kernels use (set_thread_count) while the
// command runs.
CLI::Option* add_threads(CLI::App* app);

// The RoPE options as they arrive from the command line: enums as text, converted by the
// core once parsing has validated them.
struct RopeFlags {
  RopeOptions options;
  std::string style;  // "": options.style (neox), or the rope command's method's pairs
  std::string scaling = name_of(kRopeScalingNames, options.scaling);
  std::optional<double> keep_fraction;  // unset: every pair, or the rope command's method's

  RopeOptions resolve() const;
};

// --base, --rotary-fraction, --keep-fraction, --scaling and its parameters; --style when
// `with_style`.
void add_rope_flags(CLI::App* app, RopeFlags& flags, bool with_style);

// RoPE's scaling options, each named "--" + prefix + its name: scaling (into `scaling`, checked
// against the core's names), factor, original-len, low-freq-factor, high-freq-factor, beta-fast,
// beta-slow (into `o`). add_rope_flags uses no prefix; `poslab lm` uses "rope-". Returns the
// options in that order, scaling first.
std::vector<CLI::Option*> add_rope_scaling_options(CLI::App* app, const std::string& prefix,
                                                   std::string& scaling, RopeOptions& o,
                                                   const std::string& scaling_help);

}  // namespace poslab::cli

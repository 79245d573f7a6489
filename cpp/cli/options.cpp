// Validators and option groups shared by the subcommands.
#include "options.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "output.hpp"
#include "output_files.hpp"
#include "poslab/base/threads.hpp"
#include "poslab/io/file_kind.hpp"

namespace poslab::cli {
namespace {

// Digits with an optional leading '-', as every integer option is written (no '+', spaces,
// fraction or exponent, which strtoll would partly accept).
bool integer_text(const std::string& text) {
  const std::size_t digits = !text.empty() && text[0] == '-' ? 1 : 0;
  return text.size() > digits && text.find_first_not_of("0123456789", digits) == std::string::npos;
}

// Whole-string integer parse: "" when `value` holds it, else why not.
std::string parse_integer(const std::string& text, long long& value) {
  if (!integer_text(text)) return "'" + text + "' is not an integer";
  errno = 0;
  value = std::strtoll(text.c_str(), nullptr, 10);
  if (errno != 0) return "'" + text + "' is out of range";
  return {};
}

}  // namespace

CLI::Validator integer_at_least(long long min) {
  const std::string description = min == 1 ? "POSITIVE" : min == 0 ? "NON-NEGATIVE" : "";
  return CLI::Validator(
      [min](std::string& text) -> std::string {
        long long value = 0;
        if (std::string problem = parse_integer(text, value); !problem.empty()) return problem;
        if (value >= min) return {};
        if (min == 1) return "must be positive (got " + text + ")";
        if (min == 0) return "must be non-negative (got " + text + ")";
        return "must be at least " + std::to_string(min) + " (got " + text + ")";
      },
      description);
}

CLI::Validator integer_in(long long min, long long max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        long long value = 0;
        if (std::string problem = parse_integer(text, value); !problem.empty()) return problem;
        if (value >= min && value <= max) return {};
        return "must be in [" + std::to_string(min) + ", " + std::to_string(max) + "] (got " +
               text + ")";
      },
      "INT in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
}

CLI::Validator any_integer() { return integer_at_least(std::numeric_limits<long long>::min()); }

CLI::Validator unsigned_integer() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool digits =
            !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        errno = 0;
        if (digits) std::strtoull(text.c_str(), nullptr, 10);
        if (!digits || errno != 0) {
          return "'" + text + "' is not an integer in [0, 2^64)";
        }
        return {};
      },
      "UINT64");
}

CLI::Validator finite_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = text.empty() ? 0.0 : std::strtod(text.c_str(), &end);
        // strtod also reads hexadecimal ("0x10" is 16): not how a number is written here.
        const bool hex = text.find_first_of("xX") != std::string::npos;
        if (text.empty() || std::isspace(static_cast<unsigned char>(text[0])) || *end != '\0' ||
            hex) {
          return "'" + text + "' is not a number";
        }
        if (!std::isfinite(value)) return "must be finite (got " + text + ")";
        return {};
      },
      "");
}

CLI::Validator one_of(std::initializer_list<const char*> names, const std::string& what) {
  return one_of(std::vector<std::string>(names.begin(), names.end()), what);
}

CLI::Validator one_of(const std::vector<std::string>& allowed, const std::string& what) {
  std::string list;
  for (std::size_t i = 0; i < allowed.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + allowed[i];
  }
  return CLI::Validator(
      [allowed, list, what](std::string& text) -> std::string {
        for (const std::string& name : allowed) {
          if (text == name) return {};
        }
        return "unknown " + what + " '" + text + "' (expected " + list + ")";
      },
      "{" + list + "}");
}

void require_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    for (std::size_t j = i + 1; j < outputs.size(); ++j) {
      const auto& [flag_i, path_i] = outputs[i];
      const auto& [flag_j, path_j] = outputs[j];
      if (path_i.empty() || path_j.empty() || output_identity(path_i) != output_identity(path_j))
        continue;
      throw UsageError(flag_i + " and " + flag_j + " name the same file ('" + path_i + "'" +
                       (path_i == path_j ? "" : " and '" + path_j + "'") +
                       "): give each output its own path");
    }
  }
}

std::uint64_t memory_limit_from_environment(const char* variable, std::uint64_t fallback) {
  const char* text = std::getenv(variable);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text, &end);
  const std::string unit = end;
  const double scale = unit.empty() || unit == "B" ? 1.0
                       : unit == "KiB"             ? 0x1p10
                       : unit == "MiB"             ? 0x1p20
                       : unit == "GiB"             ? 0x1p30
                                                   : 0.0;
  if (end == text || errno != 0 || scale == 0.0 || !(value > 0) || value * scale > 0x1p62) {
    throw UsageError(std::string(variable) + "='" + text +
                     "' is not a size: give bytes, or a number with KiB, MiB or GiB (e.g. 8GiB)");
  }
  return static_cast<std::uint64_t>(value * scale);
}

CLI::Validator non_empty_path() {
  return CLI::Validator(
      [](std::string& text) -> std::string { return text.empty() ? "needs a path, got ''" : ""; },
      "");
}

CLI::Validator input_file() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        const std::string kind = non_regular_kind(path);
        return kind.empty() ? "" : "'" + path + "' is " + kind + ", not a regular file";
      },
      "");
}

CLI::Validator output_file() { return parsed_by(output_format, ""); }

CLI::Option* add_size(CLI::App* app, const std::string& name, long long& value,
                      const std::string& description, long long min) {
  return app->add_option(name, value, description)->required()->check(integer_at_least(min));
}

CLI::Option* add_seed(CLI::App* app, std::uint64_t& seed, const std::string& description) {
  return app->add_option("--seed", seed, description)
      ->capture_default_str()
      ->check(unsigned_integer());
}

CLI::Option* add_input(CLI::App* app, const std::string& name, std::string& path,
                       const std::string& description) {
  return app->add_option(name, path, description)->type_name("FILE.npy")->check(input_file());
}

CLI::Option* add_output(CLI::App* app, std::string& path) {
  return app
      ->add_option("-o,--out", path,
                   "output file; the extension picks the format: .npy (numpy), .csv or .json")
      ->required()
      ->type_name("OUT")
      ->check(output_file());
}

CLI::Option* add_query_offset(CLI::App* app, long long& offset) {
  return app
      ->add_option("--offset", offset,
                   "query i sits at position i + offset (Lk - Lq: the last query is the last key)")
      ->capture_default_str()
      ->check(any_integer());
}

CLI::Option* add_threads(CLI::App* app) {
  const long long most = static_cast<long long>(max_thread_count());
  return app
      ->add_option_function<long long>(
          "--threads", [](long long n) { set_thread_count(static_cast<std::size_t>(n)); },
          "threads for the float32 products and attention (default 1, at most " +
              std::to_string(most) + " here); the results are the same bits whatever the count")
      ->type_name("N")
      ->check(integer_in(1, most));
}

RopeOptions RopeFlags::resolve() const {
  RopeOptions resolved = options;
  if (!style.empty()) resolved.style = parse_rope_style(style);
  resolved.scaling = parse_rope_scaling(scaling);
  resolved.keep_fraction = keep_fraction.value_or(resolved.keep_fraction);
  return resolved;
}

std::vector<CLI::Option*> add_rope_scaling_options(CLI::App* app, const std::string& prefix,
                                                   std::string& scaling, RopeOptions& o,
                                                   const std::string& scaling_help) {
  const auto flag = [&](const char* name) { return "--" + prefix + name; };
  CLI::Option* chosen = app->add_option(flag("scaling"), scaling, scaling_help)
                            ->capture_default_str()
                            ->check(parsed_by(parse_rope_scaling, choices(kRopeScalingNames)));
  // Each parameter and the scalings that read it.
  using Reads = bool (*)(RopeScaling);
  std::vector<std::pair<CLI::Option*, Reads>> parameters;
  const auto number = [&](const char* name, double& value, const char* about, Reads reads) {
    parameters.emplace_back(
        app->add_option(flag(name), value, about)->capture_default_str()->check(finite_number()),
        reads);
  };
  number("factor", o.factor, "scaling factor f >= 1",
         [](RopeScaling s) { return s != RopeScaling::kNone; });
  parameters.emplace_back(app->add_option(flag("original-len"), o.original_length,
                                          "trained context length N (dynamic, yarn, llama3)")
                              ->check(integer_at_least(1)),
                          [](RopeScaling s) {
                            return s == RopeScaling::kDynamic || s == RopeScaling::kYarn ||
                                   s == RopeScaling::kLlama3;
                          });
  const Reads llama3 = [](RopeScaling s) { return s == RopeScaling::kLlama3; };
  const Reads yarn = [](RopeScaling s) { return s == RopeScaling::kYarn; };
  number("low-freq-factor", o.low_freq_factor, "llama3 low_freq_factor", llama3);
  number("high-freq-factor", o.high_freq_factor, "llama3 high_freq_factor", llama3);
  number("beta-fast", o.beta_fast, "yarn beta_fast", yarn);
  number("beta-slow", o.beta_slow, "yarn beta_slow", yarn);
  // A parameter the chosen scaling does not read is refused, not silently dropped: "--factor 8"
  // under "--scaling none" would otherwise look as if it did something.
  app->parse_complete_callback([parameters, chosen, &scaling] {
    if (scaling.empty()) return;  // poslab lm without --rope-scaling: the config's own
    const RopeScaling s = parse_rope_scaling(scaling);
    for (const auto& [option, reads] : parameters) {
      if (option->count() == 0 || reads(s)) continue;
      throw UsageError(option->get_name() + " is not read by " + chosen->get_name() + " " +
                       scaling + ": drop it, or pick a scaling that reads it");
    }
  });
  std::vector<CLI::Option*> added{chosen};
  for (const auto& parameter : parameters) added.push_back(parameter.first);
  return added;
}

void add_rope_flags(CLI::App* app, RopeFlags& flags, bool with_style) {
  RopeOptions& o = flags.options;
  app->add_option("--base", o.base, "frequency base b: theta_i = b^(-2i/R)")
      ->capture_default_str()
      ->check(finite_number());
  if (with_style) {
    app->add_option("--style", flags.style,
                    "pairing: neox (x[i], x[i+R/2]) or gptj (x[2i], x[2i+1]); default: the "
                    "method's")
        ->check(parsed_by(parse_rope_style, choices(kRopeStyleNames)));
  }
  app->add_option("--rotary-fraction", o.rotary_fraction,
                  "rotate the first R = D*F dims, pass the rest through")
      ->capture_default_str()
      ->check(finite_number());
  app->add_option(
         "--keep-fraction", flags.keep_fraction,
         "the zeroed-pair mask: keep the floor(P*R/2) highest frequencies, zero the rest (default: "
         "1, or the method's)")
      ->check(finite_number());
  add_rope_scaling_options(app, "", flags.scaling, o, "long-context scaling");
}

}  // namespace poslab::cli

// `poslab lens`: how a model's heads use position (docs/lens.md). Reads the model and the text,
// hands them to the core's lens (poslab/analysis/lens_report.hpp) and writes its report.
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "loaded_model.hpp"
#include "model_input.hpp"
#include "options.hpp"
#include "output.hpp"
#include "poslab/analysis/lens_report.hpp"
#include "poslab/base/precision.hpp"
#include "rope_scaling_flags.hpp"
#include "surgery_flags.hpp"

namespace poslab::cli {
namespace {

struct LensArgs {
  std::string weights, config, tokens, tokens_file, text_file, out;
  std::string precision = name_of(kPrecisionNames, Precision::kFloat);
  LensSettings settings;
  RopeScalingFlags rope;
  SurgeryFlags surgery;
};

void run_lens(const LensArgs& a) {
  check_output_path(a.out);
  require(output_format(a.out) == Format::kJson, "out",
          "lens writes a JSON report: -o must end in .json, got '" + a.out + "'");
  // A byte-level model's text: at most 64 KiB, the lens's whole trace.
  const std::vector<long long> tokens =
      model_tokens(a.tokens, a.tokens_file, a.text_file, std::size_t(1) << 16, "the lens");
  const PositionSurgery surgery = a.surgery.surgery();
  LoadedModel model;
  with_surgery_flag_names(
      [&] {
        model = load_model({a.weights, a.config}, parse_precision(a.precision), a.rope, surgery);
      },
      &a.surgery);
  LensSettings settings = a.settings;
  settings.weights = a.weights;
  settings.memory_limit =
      memory_limit_from_environment("POSLAB_LENS_MEMORY_LIMIT", kDefaultLensMemoryLimit);
  LensReport report;
  try {
    with_surgery_flag_names([&] { report = lens_report(model.lens, tokens, settings); });
  } catch (const Error& e) {
    if (e.field() != "tokens") throw;
    const char* option = !a.text_file.empty()     ? "--text-file"
                         : !a.tokens_file.empty() ? "--tokens-file"
                                                  : "--tokens";
    throw Error(std::string(e.what()) + " (" + option +
                    "; or raise the limit with POSLAB_LENS_MEMORY_LIMIT, e.g. 8GiB)",
                "tokens");
  }
  report.notes = model.notes;
  if (!surgery.empty()) report.notes.push_back("position surgery: " + describe(surgery));
  write_outputs({{a.out, lens_json(report)}});
  for (const std::string& note : report.notes)
    std::fprintf(stderr, "poslab: note: %s\n", note.c_str());

  std::string line;
  for (const auto& role : kHeadRoleNames) {
    line += (line.empty() ? "" : ", ") + std::string(role.name) + " " +
            std::to_string(report.count(role.value));
  }
  std::printf("%zu heads: %s\n", report.heads.size(), line.c_str());
  if (report.bands) {
    const LensBands& b = *report.bands;
    std::printf(
        "RoPE bands: %d positional, %zu semantic (turning-pair share >= %.3f; %.3f if "
        "spread evenly)\n",
        b.positional_heads, report.heads.size() - std::size_t(b.positional_heads),
        b.positional_share, b.uniform_share);
  }
}

}  // namespace

void add_lens_command(Commands& commands) {
  add_command<LensArgs>(
      commands, "lens",
      "How a model's heads use position: attention by distance and each head's role "
      "(sink, previous-token, induction, local, broad) as JSON",
      [](CLI::App* cmd, LensArgs& a) {
        cmd->add_option("--weights", a.weights,
                        "model.safetensors (GPT-2, GPT-NeoX, Llama family, or a lab checkpoint "
                        "of poslab train)")
            ->required()
            ->check(input_file());
        cmd->add_option("--config", a.config, "its config.json (required for RoPE models)")
            ->check(input_file());
        auto* tokens =
            cmd->add_option("--tokens", a.tokens, "token ids of the text, e.g. 464,2068");
        auto* file = cmd->add_option("--tokens-file", a.tokens_file, "token ids as a 1-D .npy")
                         ->check(input_file());
        auto* text = cmd->add_option("--text-file", a.text_file,
                                     "a byte-level model's text: its bytes are the ids (a lab "
                                     "text model, poslab train --task text)")
                         ->check(input_file());
        tokens->excludes(file);
        text->excludes(tokens);
        text->excludes(file);
        cmd->add_option("--period", a.settings.period,
                        "the induction pass's random sequence length n (run twice: 2n tokens); "
                        "default half the text")
            ->check(integer_at_least(1));
        cmd->add_option("--seed", a.settings.seed, "seed of the induction pass's random tokens")
            ->capture_default_str()
            ->check(integer_at_least(0));
        cmd->add_option("--shift", a.settings.shift,
                        "k: the text runs again with every position moved by k and the largest "
                        "logit change is reported (default: the text's length, within GPT-2's "
                        "n_positions)")
            ->check(integer_at_least(0));
        cmd->add_option("--precision", a.precision, "float (SIMD) or double (the reference)")
            ->capture_default_str()
            ->check(parsed_by(parse_precision, choices(kPrecisionNames)));
        cmd->add_option("--local-window", a.settings.thresholds.local_window,
                        "W: a local head's mass lies within the last W tokens")
            ->capture_default_str()
            ->check(integer_at_least(1));
        add_rope_scaling_flags(cmd, a.rope);
        add_surgery_flags(cmd, a.surgery);
        add_threads(cmd);
        add_output(cmd, a.out);
      },
      run_lens);
}

}  // namespace poslab::cli

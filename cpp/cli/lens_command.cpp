// `poslab lens`: how a model's heads use position (docs/lens.md). Reads the model and the text,
// hands them to the core's lens (poslab/analysis/lens_report.hpp) and writes its report.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "commands.hpp"
#include "model_input.hpp"
#include "options.hpp"
#include "output.hpp"
#include "poslab/analysis/lens_report.hpp"
#include "poslab/base/precision.hpp"
#include "poslab/models/lm_lens.hpp"
#include "poslab/models/unmodelled_keys.hpp"
#include "poslab/train/checkpoint.hpp"
#include "poslab/train/lens_model.hpp"
#include "rope_scaling_flags.hpp"

namespace poslab::cli {
namespace {

struct LensArgs {
  std::string weights, config, tokens, tokens_file, text_file, out;
  std::string precision = name_of(kPrecisionNames, Precision::kFloat);
  LensSettings settings;
  RopeScalingFlags rope;
};

bool is_lab_checkpoint(const std::string& weights) {
  const SafetensorsHeader header = read_safetensors_header(weights);
  const auto format = header.metadata.find("format");
  return format != header.metadata.end() && format->second == "poslab-train";
}

// The loaded model, kept alive while the lens runs over it, and its LensModel.
struct LoadedModel {
  std::shared_ptr<const void> keep;
  LensModel lens;
  std::vector<std::string> notes;  // config keys the runtime does not read
};

template <class Weights, class... Rope>
LoadedModel loaded(Weights&& weights, Precision precision, const Rope&... rope) {
  auto keep = std::make_shared<const std::decay_t<Weights>>(std::forward<Weights>(weights));
  return {keep, lens_model(*keep, precision, rope...), {}};
}

// A RoPE model: its config.json is required; --rope-* replaces its scaling.
template <class Config>
LoadedModel rope_model(const LensArgs& a, const std::string& config_text, Precision precision,
                       const char* model) {
  require(!a.config.empty(), a.weights + " is a " + model +
                                 " checkpoint: give its config.json with --config (the head "
                                 "counts and rotary settings are not in the tensors)");
  const Config config = Config::from_json(config_text, a.config);
  const std::optional<RopeOptions> rope =
      a.rope.scaling.empty() ? std::nullopt : std::optional<RopeOptions>(a.rope.apply(config));
  return loaded(load_lm_weights(a.weights, config), precision, rope);
}

// A Hugging Face checkpoint: GPT-2, GPT-NeoX or the Llama family.
LoadedModel load_lm_lens_model(const LensArgs& a, const std::string& config_text,
                               LmArchitecture arch, Precision precision) {
  const bool rotation = !a.rope.scaling.empty();
  if (arch == LmArchitecture::kGpt2) {
    const std::optional<Gpt2Config> config =
        a.config.empty() ? std::nullopt
                         : std::optional<Gpt2Config>(Gpt2Config::from_json(config_text, a.config));
    require(!rotation, "rope-scaling",
            a.weights + " is a GPT-2 checkpoint: --rope-* is for RoPE models");
    return loaded(load_gpt2_weights(a.weights, config), precision);
  }
  if (arch == LmArchitecture::kGptNeox) {
    return rope_model<GptNeoxConfig>(a, config_text, precision, "GPT-NeoX");
  }
  return rope_model<LlamaConfig>(a, config_text, precision, "Llama");
}

LoadedModel load_lens_model(const LensArgs& a, Precision precision) {
  const bool rotation = !a.rope.scaling.empty();
  if (is_lab_checkpoint(a.weights)) {
    if (!a.config.empty()) {
      throw UsageError("--config: " + a.weights +
                       " is a lab checkpoint, which carries its own config: drop --config");
    }
    require(precision == Precision::kFloat, "precision",
            a.weights + " is a lab checkpoint: the lab's model runs in float only");
    auto checkpoint = std::make_shared<const train::LabCheckpoint>(train::read_lab_checkpoint(
        read_whole_file(a.weights, std::size_t(1) << 30, "a lab checkpoint"), a.weights));
    // --rope-* on a lab model of a rotation method: its original length is the trained context.
    const std::optional<RopeOptions> scaling =
        rotation ? std::optional<RopeOptions>(a.rope.apply(RopeOptions{}, 0)) : std::nullopt;
    return {checkpoint, train::lens_model(*checkpoint, scaling), {}};
  }
  const std::string config_text = a.config.empty() ? "" : read_model_config(a.config);
  const LmArchitecture arch = lm_architecture_of_files(a.weights, a.config, config_text);
  LoadedModel model = load_lm_lens_model(a, config_text, arch, precision);
  const std::string note = unmodelled_keys_note(unmodelled_keys(config_text, arch), a.config, arch);
  if (!note.empty()) model.notes.push_back(note);
  return model;
}

std::vector<long long> lens_tokens(const LensArgs& a) {
  if (a.tokens.empty() && a.tokens_file.empty() && a.text_file.empty()) {
    throw UsageError("give the token ids with --tokens or --tokens-file (or --text-file)");
  }
  if (a.text_file.empty()) {
    return a.tokens_file.empty() ? parse_tokens(a.tokens) : read_token_file(a.tokens_file);
  }
  // A byte-level model's ids are the bytes; at most 64 KiB of them, the lens's whole trace.
  std::vector<long long> tokens;
  for (const char c : read_whole_file(a.text_file, std::size_t(1) << 16, "the lens's text")) {
    tokens.push_back(static_cast<unsigned char>(c));
  }
  require(!tokens.empty(), a.text_file + " (--text-file) is empty: the lens needs a text");
  return tokens;
}

void run_lens(const LensArgs& a) {
  check_output_path(a.out);
  require(output_format(a.out) == Format::kJson, "out",
          "lens writes a JSON report: -o must end in .json, got '" + a.out + "'");
  const std::vector<long long> tokens = lens_tokens(a);
  const LoadedModel model = load_lens_model(a, parse_precision(a.precision));
  LensSettings settings = a.settings;
  settings.weights = a.weights;
  settings.memory_limit =
      memory_limit_from_environment("POSLAB_LENS_MEMORY_LIMIT", kDefaultLensMemoryLimit);
  LensReport report;
  try {
    report = lens_report(model.lens, tokens, settings);
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
        add_threads(cmd);
        add_output(cmd, a.out);
      },
      run_lens);
}

}  // namespace poslab::cli

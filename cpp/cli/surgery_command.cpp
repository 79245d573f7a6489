// `poslab surgery`: a sweep of position surgery over one text (docs/surgery.md). Loads the model,
// runs the core's sweep (poslab/analysis/surgery_sweep.hpp) — for the heads sweep beside the
// lens's report of the same text — and writes surgery.json.
#include <chrono>
#include <cstdio>
#include <functional>
#include <sstream>
#include <string>

#include "commands.hpp"
#include "loaded_model.hpp"
#include "options.hpp"
#include "output.hpp"
#include "poslab/analysis/surgery_sweep.hpp"
#include "poslab/base/errors.hpp"
#include "rope_scaling_flags.hpp"

namespace poslab::cli {
namespace {

struct SurgeryArgs {
  std::string weights, config, tokens, tokens_file, text_file, out, sweep, bases;
  std::string precision = name_of(kPrecisionNames, Precision::kFloat);
  SweepSettings settings;
  RopeScalingFlags rope;
};

// --bases "100,1000,1e6": each a finite number.
std::vector<double> parse_bases(const std::string& text) {
  std::vector<double> bases;
  if (text.empty()) return bases;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    std::size_t used = 0;
    double value = 0.0;
    try {
      value = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size()) {
      throw UsageError("--bases: '" + item + "' is not a number");
    }
    bases.push_back(value);
  }
  return bases;
}

// Runs `f`; an Error of a field the command's options set comes out naming the option.
void with_sweep_flag_names(const SurgeryArgs& a, const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    const std::string& field = e.field();
    const char* tokens = !a.text_file.empty()     ? "--text-file"
                         : !a.tokens_file.empty() ? "--tokens-file"
                                                  : "--tokens";
    const char* flag = field == "group"    ? "--group"
                       : field == "bases"  ? "--bases"
                       : field == "sweep"  ? "--sweep"
                       : field == "rope"   ? "--rope-scaling"
                       : field == "tokens" ? tokens
                                           : nullptr;
    if (flag == nullptr || std::string(e.what()).rfind(flag, 0) == 0) throw;
    throw Error(std::string(flag) + ": " + e.what(), field);
  }
}

void run_surgery(const SurgeryArgs& a) {
  check_output_path(a.out);
  require(output_format(a.out) == Format::kJson, "out",
          "surgery writes a JSON report: -o must end in .json, got '" + a.out + "'");
  SweepSettings settings = a.settings;
  settings.kind = parse_name(kSweepKindNames, a.sweep, "sweep", "sweep");
  require(settings.kind != SweepKind::kSingle, "sweep",
          "--sweep single is the page's: one intervention runs with poslab lm or poslab lens");
  settings.bases = parse_bases(a.bases);
  if (!settings.bases.empty() && settings.kind != SweepKind::kBase) {
    throw UsageError("--bases is for --sweep base");
  }
  if (settings.group != 0 && settings.kind != SweepKind::kBands) {
    throw UsageError("--group is for --sweep bands");
  }
  // A byte-level model's text: at most 16 MiB.
  const std::vector<long long> tokens =
      model_tokens(a.tokens, a.tokens_file, a.text_file, std::size_t(1) << 24, "the sweep");
  LoadedModel model;
  with_sweep_flag_names(a, [&] {
    model = load_model({a.weights, a.config}, parse_precision(a.precision), a.rope);
  });
  require(model.surgery.has_value(), "weights",
          a.weights +
              " is a GPT-2 checkpoint: position surgery runs on the RoPE models "
              "(GPT-NeoX, the Llama family) and the lab's checkpoints");
  // The heads sweep reads each head's role off the lens (sweep_lens: where it was trained).
  std::optional<LensReport> lens;
  std::vector<std::string> lens_notes;
  if (settings.kind == SweepKind::kHeads) {
    with_sweep_flag_names(a, [&] { sweep_interventions(*model.surgery, settings); });
    LensSettings lens_settings;
    lens_settings.weights = a.weights;
    lens_settings.memory_limit =
        memory_limit_from_environment("POSLAB_LENS_MEMORY_LIMIT", kDefaultLensMemoryLimit);
    lens = sweep_lens(*model.surgery, model.lens, tokens, settings, lens_settings, lens_notes);
  }
  const auto start = std::chrono::steady_clock::now();
  SurgeryReport report;
  with_sweep_flag_names(a, [&] {
    report = surgery_sweep(*model.surgery, tokens, settings, lens ? &*lens : nullptr);
  });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.weights = a.weights;
  report.notes.insert(report.notes.end(), model.notes.begin(), model.notes.end());
  report.notes.insert(report.notes.end(), lens_notes.begin(), lens_notes.end());
  write_outputs({{a.out, surgery_json(report)}});
  for (const std::string& note : report.notes)
    std::fprintf(stderr, "poslab: note: %s\n", note.c_str());
  std::printf("%s sweep: %zu interventions, %lld passes (%.2f forward-equivalents%s) in %.2f s\n",
              report.sweep.c_str(), report.interventions.size(), report.forwards,
              report.forward_equivalents, report.prefix_reused ? ", prefix reused" : "", seconds);
  std::printf("unmodified: loss %.4f nats over %lld windows of %lld tokens\n", report.loss_mean,
              report.windows, report.window);
}

void declare_surgery(CLI::App* cmd, SurgeryArgs& a) {
  cmd->add_option("--weights", a.weights,
                  "model.safetensors (GPT-NeoX, Llama family, or a lab checkpoint of poslab "
                  "train)")
      ->required()
      ->check(input_file());
  cmd->add_option("--config", a.config, "its config.json (required for the hub's models)")
      ->check(input_file());
  auto* ids = cmd->add_option("--tokens", a.tokens, "token ids of the text, comma-separated")
                  ->type_name("IDS");
  auto* file = cmd->add_option("--tokens-file", a.tokens_file, "token ids as a 1-D .npy")
                   ->type_name("FILE.npy")
                   ->check(input_file());
  auto* text = cmd->add_option("--text-file", a.text_file,
                               "a byte-level model's text: its bytes are the ids (a lab text "
                               "model, poslab train --task text)")
                   ->check(input_file());
  ids->excludes(file);
  text->excludes(ids);
  text->excludes(file);
  cmd->add_option("--sweep", a.sweep,
                  "bands: zero each group of pairs, keep the top p; layers: each layer NoPE; "
                  "heads: each head NoPE and ablated; base: each base")
      ->required()
      ->check(one_of({"bands", "layers", "heads", "base"}, "sweep"));
  cmd->add_option("--group", a.settings.group, "bands: K pairs per group (default: 16 groups)")
      ->check(integer_at_least(1));
  cmd->add_option("--bases", a.bases,
                  "base: the bases tried, comma-separated (default: the model's x 0.01, 0.1, "
                  "0.5, 2, 10)")
      ->type_name("LIST");
  cmd->add_option("--window", a.settings.window,
                  "tokens per window: the text is cut into windows, each run on its own; the "
                  "interval resamples windows when there are 8 or more (default: the whole text)")
      ->check(integer_at_least(2));
  cmd->add_option("--seed", a.settings.seed, "seed of the bootstrap interval")
      ->capture_default_str()
      ->check(integer_at_least(0));
  cmd->add_option("--precision", a.precision, "float (SIMD) or double (the reference)")
      ->capture_default_str()
      ->check(parsed_by(parse_precision, choices(kPrecisionNames)));
  add_rope_scaling_flags(cmd, a.rope);
  add_threads(cmd);
  add_output(cmd, a.out);
}

}  // namespace

void add_surgery_command(Commands& commands) {
  add_command<SurgeryArgs>(commands, "surgery",
                           "Position surgery sweep: the change in next-token loss when RoPE "
                           "bands are zeroed, layers or heads made position-blind or ablated, "
                           "or the base changed, as JSON",
                           declare_surgery, run_surgery);
}

}  // namespace poslab::cli

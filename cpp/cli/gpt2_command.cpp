// `poslab gpt2`: GPT-2's forward pass on a list of token ids, with weights from a
// .safetensors checkpoint or seeded random init; writes the logits (T, V) and, with
// --trace DIR, one .npy per traced tensor plus index.json naming each file and its shape.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "commands.hpp"
#include "lm_trace.hpp"
#include "model_input.hpp"
#include "options.hpp"
#include "poslab/models/gpt2.hpp"

namespace poslab::cli {
namespace {

struct Gpt2Args {
  std::string weights, preset, config, tokens, out, trace;
  std::string position = name_of(kGpt2PositionNames, Gpt2Options{}.position);
  std::string precision = name_of(kPrecisionNames, Gpt2Options{}.precision);
  std::uint64_t seed = 0;
  long long top_k = 10;
};

// Reads the tokens, config and weights, runs the forward pass and writes the logits (and the
// trace directory, lm_trace.hpp's as `poslab lm` writes it), all or nothing.
void run_gpt2(const Gpt2Args& a) {
  check_lm_outputs(a.out, a.trace);
  const std::vector<long long> tokens = parse_tokens(a.tokens);
  // Without --config or --preset: GPT-2 small for random init, or read off the checkpoint.
  std::optional<Gpt2Config> config;
  if (!a.config.empty()) {
    config = Gpt2Config::from_json(read_model_config(a.config), a.config);
  } else if (!a.preset.empty() || a.weights.empty()) {
    config = Gpt2Config::preset(a.preset.empty() ? "small" : a.preset);
  }
  const Gpt2Weights weights =
      a.weights.empty() ? lm_random_weights(*config, a.seed) : load_gpt2_weights(a.weights, config);
  check_trace_memory(a.trace, weights.config.dims.layers, weights.config.dims.heads, tokens.size());
  Gpt2Options options;
  options.trace = !a.trace.empty();
  options.top_k = a.top_k;
  options.position = parse_gpt2_position(a.position);
  options.precision = parse_precision(a.precision);
  if (options.position != Gpt2Position::kLearned) {
    std::fprintf(stderr, "poslab: note: %s\n", gpt2_position_note(options.position));
  }
  const Gpt2Result result = gpt2_forward(weights, tokens, options);

  nlohmann::json index;
  index["model"] = nlohmann::json::parse(weights.config.to_json());
  index["model"]["weights"] =
      a.weights.empty() ? "random init, seed " + std::to_string(a.seed) : a.weights;
  index["position"] = {{"method", to_string(options.position)},
                       {"note", gpt2_position_note(options.position)}};
  index["precision"] = to_string(options.precision);
  index["tokens"] = tokens;
  write_lm_outputs(a.out, result.logits, a.trace, std::move(index), lm_trace(result));
}

void declare_gpt2(CLI::App* cmd, Gpt2Args& a) {
  cmd->add_option("--tokens", a.tokens, "token ids, comma-separated (e.g. 464,2068,7586)")
      ->required()
      ->type_name("IDS");
  cmd->add_option("--weights", a.weights,
                  "GPT-2 checkpoint (.safetensors, F32, F16 or BF16, names as Hugging Face's)")
      ->type_name("FILE")
      ->check(input_file());
  auto* preset = cmd->add_option("--preset", a.preset,
                                 "model size: small (124M) or medium (default: read off the "
                                 "checkpoint, or small for random init)")
                     ->check(one_of({"small", "medium"}, "preset"));
  cmd->add_option("--config", a.config, "Hugging Face config.json instead of a preset")
      ->type_name("FILE")
      ->check(input_file())
      ->excludes(preset);
  add_seed(cmd, a.seed, "seed of the random init used without --weights")->excludes("--weights");
  cmd->add_option("--position", a.position,
                  "position method: learned (as trained), or sinusoidal, rope, alibi, none "
                  "swapped in for exploration")
      ->capture_default_str()
      ->check(parsed_by(parse_gpt2_position, choices(kGpt2PositionNames)));
  cmd->add_option("--precision", a.precision,
                  "float: float32 SIMD products (fast); double: products accumulated in double "
                  "(the reference)")
      ->capture_default_str()
      ->check(one_of(kPrecisionNames, "precision"));
  add_lm_trace_options(cmd, a.top_k, a.trace);
  add_threads(cmd);
  add_output(cmd, a.out);
}

void add_gpt2(Commands& commands) {
  add_command<Gpt2Args>(
      commands, "gpt2",
      "GPT-2 forward pass on token ids: logits (T, vocab), optional trace of every layer",
      declare_gpt2, run_gpt2);
}

}  // namespace

void add_gpt2_commands(Commands& commands) { add_gpt2(commands); }

}  // namespace poslab::cli

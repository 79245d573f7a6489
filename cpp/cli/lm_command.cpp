// `poslab lm`: one command for every language-model architecture. config.json's model_type
// picks GPT-2, GPT-NeoX or Llama (without --config the tensor names do; GPT-NeoX and Llama
// then need the config for their heads and rotary settings). Writes the logits (T, V), or with
// --loss-by-position the next-token losses (T−1,), and with --trace DIR one .npy per traced
// tensor plus index.json. RoPE scaling (--rope-*) applies to the RoPE models.
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "commands.hpp"
#include "lm_trace.hpp"
#include "model_input.hpp"
#include "options.hpp"
#include "poslab/models/gpt2.hpp"
#include "poslab/models/gpt_neox.hpp"
#include "poslab/models/llama.hpp"
#include "poslab/models/lm.hpp"
#include "poslab/models/unmodelled_keys.hpp"
#include "rope_scaling_flags.hpp"
#include "surgery_flags.hpp"

namespace poslab::cli {
namespace {

struct LmArgs {
  std::string weights, config, tokens, tokens_file, out, trace;
  std::string precision = name_of(kPrecisionNames, Precision::kFloat);
  bool loss_by_position = false;
  long long top_k = 10;
  RopeScalingFlags rope;
  SurgeryFlags surgery;
};

// A RoPE model (GPT-NeoX, Llama): its config.json is required (the head counts and rotary
// settings are not in the tensors); --rope-* replaces its scaling.
template <class Config, class Options, class Forward>
void run_rope_model(const LmArgs& a, const std::string& config_text,
                    const std::vector<long long>& tokens, Precision precision, nlohmann::json index,
                    const char* model, const Forward& forward) {
  require(!a.config.empty(), a.weights + " is a " + model +
                                 " checkpoint: give its config.json with --config (the head "
                                 "counts and rotary settings are not in the tensors)");
  const Config config = Config::from_json(config_text, a.config);
  check_trace_memory(a.trace, config.dims.layers, config.dims.heads, tokens.size());
  Options options;
  options.precision = precision;
  options.trace = !a.trace.empty();
  options.top_k = a.top_k;
  options.logits = !a.loss_by_position;
  options.loss_by_position = a.loss_by_position;
  if (!a.rope.scaling.empty()) options.rope = a.rope.apply(config);
  with_surgery_flag_names([&] { options.surgery = a.surgery.surgery(); });
  const auto weights = load_lm_weights(a.weights, config);
  const auto result = [&] {
    decltype(forward(weights, tokens, options)) out;
    with_surgery_flag_names([&] { out = forward(weights, tokens, options); });
    return out;
  }();
  if (!a.trace.empty()) {
    index["model"] = nlohmann::json::parse(config.to_json());
    const RopeOptions rope = options.rope ? *options.rope : config.rope();
    index["rope"] = {{"scaling", to_string(rope.scaling)},
                     {"factor", rope.factor},
                     {"original_length", rope.original_length},
                     {"rotary_dim", rope_frequencies(config.head_dim(), rope).rotary_dim},
                     {"base", rope.base}};
    index["surgery"] = describe(options.surgery);
  }
  write_lm_outputs(a.out, a.loss_by_position ? result.losses : result.logits, a.trace,
                   std::move(index), lm_trace(result));
}

void run_lm(const LmArgs& a) {
  check_lm_outputs(a.out, a.trace);
  if (a.tokens.empty() && a.tokens_file.empty()) {
    throw UsageError("give the token ids with --tokens or --tokens-file");
  }
  const std::vector<long long> tokens =
      a.tokens_file.empty() ? parse_tokens(a.tokens) : read_token_file(a.tokens_file);
  if (a.loss_by_position) {
    require(tokens.size() >= 2, "--loss-by-position needs at least 2 tokens (got " +
                                    std::to_string(tokens.size()) + ")");
  }

  const std::string config_text = a.config.empty() ? "" : read_model_config(a.config);
  const LmArchitecture arch = lm_architecture_of_files(a.weights, a.config, config_text);
  const Precision precision = parse_precision(a.precision);

  // Keys this runtime does not read that change the math elsewhere: said, not refused.
  const std::string note = unmodelled_keys_note(unmodelled_keys(config_text, arch), a.config, arch);
  nlohmann::json index;
  index["notes"] = note.empty() ? nlohmann::json::array() : nlohmann::json::array({note});
  index["architecture"] = to_string(arch);
  index["weights"] = a.weights;
  index["precision"] = to_string(precision);
  index["tokens"] = tokens;
  if (arch == LmArchitecture::kGpt2) {
    if (a.surgery.any()) {
      throw UsageError(a.surgery.first_flag() + ": " + a.weights +
                       " is a GPT-2 checkpoint: position surgery runs on the RoPE models "
                       "(GPT-NeoX, the Llama family) and the lab's checkpoints (poslab lens, "
                       "poslab surgery)");
    }
    if (a.rope.any()) {
      throw UsageError(
          "--rope-* options apply to RoPE models (GPT-NeoX, Llama); " + a.weights +
          " is a GPT-2, whose positions are learned (wpe): there is no rotation to scale");
    }
    const std::optional<Gpt2Config> config =
        a.config.empty() ? std::nullopt
                         : std::optional<Gpt2Config>(Gpt2Config::from_json(config_text, a.config));
    const Gpt2Weights weights = load_gpt2_weights(a.weights, config);
    check_trace_memory(a.trace, weights.config.dims.layers, weights.config.dims.heads,
                       tokens.size());
    Gpt2Options options;
    options.trace = !a.trace.empty();
    options.top_k = a.top_k;
    options.precision = precision;
    const Gpt2Result result = gpt2_forward(weights, tokens, options);
    index["model"] = nlohmann::json::parse(weights.config.to_json());
    write_lm_outputs(a.out,
                     a.loss_by_position ? next_token_losses(result.logits, tokens) : result.logits,
                     a.trace, std::move(index), lm_trace(result));
  } else if (arch == LmArchitecture::kGptNeox) {
    run_rope_model<GptNeoxConfig, GptNeoxOptions>(a, config_text, tokens, precision,
                                                  std::move(index), "GPT-NeoX", gpt_neox_forward);
  } else {
    run_rope_model<LlamaConfig, LlamaOptions>(a, config_text, tokens, precision, std::move(index),
                                              "Llama", llama_forward);
  }
  if (!note.empty()) std::fprintf(stderr, "poslab: note: %s\n", note.c_str());
}

void declare_lm(CLI::App* cmd, LmArgs& a) {
  cmd->add_option("--weights", a.weights,
                  "checkpoint (.safetensors, F32, F16 or BF16, Hugging Face names): GPT-2, "
                  "GPT-NeoX or Llama; or a sharded one's model.safetensors.index.json, its "
                  "shards beside it")
      ->required()
      ->type_name("FILE")
      ->check(input_file());
  cmd->add_option("--config", a.config,
                  "Hugging Face config.json; its model_type (gpt2 | gpt_neox | llama | mistral | "
                  "qwen2 | qwen3 | gemma3_text | smollm3) picks the architecture (required but "
                  "for GPT-2)")
      ->type_name("FILE")
      ->check(input_file());
  auto* tokens =
      cmd->add_option("--tokens", a.tokens, "token ids, comma-separated")->type_name("IDS");
  auto* file = cmd->add_option("--tokens-file", a.tokens_file, "token ids as a 1-D .npy")
                   ->type_name("FILE.npy")
                   ->check(input_file())
                   ->excludes(tokens);
  tokens->excludes(file);
  cmd->add_flag("--loss-by-position", a.loss_by_position,
                "write the next-token losses (T-1,) instead of the logits; the vocabulary is "
                "reduced a panel at a time, so long sequences fit");
  cmd->add_option("--precision", a.precision,
                  "float (SIMD float32 products) or double (the reference)")
      ->capture_default_str()
      ->check(parsed_by(parse_precision, choices(kPrecisionNames)));
  add_lm_trace_options(cmd, a.top_k, a.trace);
  add_rope_scaling_flags(cmd, a.rope);
  add_surgery_flags(cmd, a.surgery);
  add_threads(cmd);
  add_output(cmd, a.out);
}

}  // namespace

void add_lm_commands(Commands& commands) {
  add_command<LmArgs>(commands, "lm",
                      "language model (GPT-2, GPT-NeoX/Pythia or Llama) on token ids: logits "
                      "(T, vocab) "
                      "or next-token losses, optional trace of every layer",
                      declare_lm, run_lm);
  add_lm_random_command(commands);
}

}  // namespace poslab::cli

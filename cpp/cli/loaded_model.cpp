// The analysis commands' model loading (loaded_model.hpp).
#include "loaded_model.hpp"

#include <type_traits>

#include "input.hpp"
#include "model_input.hpp"
#include "options.hpp"
#include "poslab/models/lm_lens.hpp"
#include "poslab/models/lm_surgery.hpp"
#include "poslab/models/unmodelled_keys.hpp"
#include "poslab/train/checkpoint.hpp"
#include "poslab/train/lab_surgery.hpp"
#include "poslab/train/lens_model.hpp"

namespace poslab::cli {
namespace {

bool is_lab_checkpoint(const std::string& weights) {
  const SafetensorsHeader header = read_safetensors_header(weights);
  const auto format = header.metadata.find("format");
  return format != header.metadata.end() && format->second == "poslab-train";
}

// A RoPE model: its config.json is required; --rope-* replaces its scaling.
template <class Config>
LoadedModel rope_model(const ModelFiles& files, const std::string& config_text, Precision precision,
                       const RopeScalingFlags& flags, const PositionSurgery& surgery,
                       const char* model) {
  require(!files.config.empty(), files.weights + " is a " + model +
                                     " checkpoint: give its config.json with --config (the head "
                                     "counts and rotary settings are not in the tensors)");
  const Config config = Config::from_json(config_text, files.config);
  const std::optional<RopeOptions> rope =
      flags.scaling.empty() ? std::nullopt : std::optional<RopeOptions>(flags.apply(config));
  using Weights = typename Config::Weights;
  auto keep = std::make_shared<const Weights>(load_lm_weights(files.weights, config));
  return {
      keep, lens_model(*keep, precision, rope, surgery), surgery_model(*keep, precision, rope), {}};
}

// A Hugging Face checkpoint: GPT-2, GPT-NeoX or the Llama family.
LoadedModel load_hub_model(const ModelFiles& files, const std::string& config_text,
                           LmArchitecture arch, Precision precision, const RopeScalingFlags& flags,
                           const PositionSurgery& surgery) {
  if (arch == LmArchitecture::kGpt2) {
    const std::optional<Gpt2Config> config =
        files.config.empty()
            ? std::nullopt
            : std::optional<Gpt2Config>(Gpt2Config::from_json(config_text, files.config));
    require(flags.scaling.empty(), "rope-scaling",
            files.weights + " is a GPT-2 checkpoint: --rope-* is for RoPE models");
    require(surgery.empty(), "surgery",
            files.weights +
                " is a GPT-2 checkpoint: position surgery runs on the RoPE models "
                "(GPT-NeoX, the Llama family) and the lab's checkpoints");
    auto keep = std::make_shared<const Gpt2Weights>(load_gpt2_weights(files.weights, config));
    return {keep, lens_model(*keep, precision), std::nullopt, {}};
  }
  if (arch == LmArchitecture::kGptNeox) {
    return rope_model<GptNeoxConfig>(files, config_text, precision, flags, surgery, "GPT-NeoX");
  }
  return rope_model<LlamaConfig>(files, config_text, precision, flags, surgery, "Llama");
}

}  // namespace

LoadedModel load_model(const ModelFiles& files, Precision precision, const RopeScalingFlags& flags,
                       const PositionSurgery& surgery) {
  const bool rotation = !flags.scaling.empty();
  if (is_lab_checkpoint(files.weights)) {
    if (!files.config.empty()) {
      throw UsageError("--config: " + files.weights +
                       " is a lab checkpoint, which carries its own config: drop --config");
    }
    require(precision == Precision::kFloat, "precision",
            "--precision: " + files.weights +
                " is a lab checkpoint: the lab's model runs in float only");
    auto checkpoint = std::make_shared<const train::LabCheckpoint>(train::read_lab_checkpoint(
        read_whole_file(files.weights, std::size_t(1) << 30, "a lab checkpoint"), files.weights));
    // --rope-* on a lab model of a rotation method: its original length is the trained context.
    const std::optional<RopeOptions> scaling =
        rotation ? std::optional<RopeOptions>(flags.apply(RopeOptions{}, 0)) : std::nullopt;
    return {checkpoint,
            train::lens_model(*checkpoint, scaling, surgery),
            train::surgery_model(*checkpoint, scaling),
            {}};
  }
  const std::string config_text = files.config.empty() ? "" : read_model_config(files.config);
  const LmArchitecture arch = lm_architecture_of_files(files.weights, files.config, config_text);
  LoadedModel model = load_hub_model(files, config_text, arch, precision, flags, surgery);
  const std::string note =
      unmodelled_keys_note(unmodelled_keys(config_text, arch), files.config, arch);
  if (!note.empty()) model.notes.push_back(note);
  return model;
}

std::vector<long long> model_tokens(const std::string& tokens, const std::string& tokens_file,
                                    const std::string& text_file, std::size_t max_bytes,
                                    const char* what) {
  if (tokens.empty() && tokens_file.empty() && text_file.empty()) {
    throw UsageError("give the token ids with --tokens or --tokens-file (or --text-file)");
  }
  if (text_file.empty()) {
    return tokens_file.empty() ? parse_tokens(tokens) : read_token_file(tokens_file);
  }
  // A byte-level model's ids are the bytes.
  std::vector<long long> ids;
  for (const char c : read_whole_file(text_file, max_bytes, what)) {
    ids.push_back(static_cast<unsigned char>(c));
  }
  require(!ids.empty(), text_file + " (--text-file) is empty: " + what + " needs a text");
  return ids;
}

}  // namespace poslab::cli

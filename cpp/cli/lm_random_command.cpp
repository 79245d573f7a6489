// `poslab lm-random`: a seeded random-weight checkpoint of any architecture — DIR/
// model.safetensors (F32 or F16) and DIR/config.json — for benchmarks and tests at real
// models' shapes without downloading weights. `poslab lm --weights DIR/model.safetensors
// --config DIR/config.json` runs it.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "commands.hpp"
#include "model_input.hpp"
#include "options.hpp"
#include "output_files.hpp"
#include "poslab/models/gpt2.hpp"
#include "poslab/models/gpt_neox.hpp"
#include "poslab/models/llama.hpp"
#include "poslab/models/lm.hpp"

namespace poslab::cli {
namespace {

struct LmRandomArgs {
  std::string arch, preset, config, out, dtype = "F32";
  std::uint64_t seed = 0;
};

// Every tensor re-stored as `dtype` (F16 rounds to nearest even).
std::string encode(const std::vector<std::pair<std::string, const StoredTensor*>>& named,
                   StoredDType dtype) {
  if (dtype == StoredDType::kF32) return encode_safetensors(named);
  std::vector<StoredTensor> halves;
  halves.reserve(named.size());
  std::vector<std::pair<std::string, const StoredTensor*>> out;
  for (const auto& [name, tensor] : named) {
    halves.push_back(StoredTensor::from(tensor->to_float(), StoredDType::kF16));
    out.emplace_back(name, &halves.back());
  }
  return encode_safetensors(out);
}

// config.json's text with --arch as its model_type where it has none, so that a Llama-family
// member (mistral, ..., smollm3) given by --arch is read as that member, not as llama.
std::string with_model_type(const std::string& text, const LmRandomArgs& a) {
  if (a.arch.empty() ||
      lm_checkpoint_family(parse_lm_architecture(a.arch)) != LmArchitecture::kLlama) {
    return text;
  }
  nlohmann::json json = nlohmann::json::parse(text);
  if (json.contains("model_type")) return text;
  json["model_type"] = a.arch;
  return json.dump();
}

// The architecture's config (--preset, or config.json's `text`), its seeded random weights and
// their config.json, staged in `files` under `dir`.
template <class Config>
void add_random_checkpoint(OutputFiles& files, const std::filesystem::path& dir,
                           const std::string& text, const LmRandomArgs& a, StoredDType dtype) {
  const Config config = a.config.empty() ? Config::preset(a.preset)
                                         : Config::from_json(with_model_type(text, a), a.config);
  const typename Config::Weights weights = lm_random_weights(config, a.seed);
  files.add((dir / "model.safetensors").string(), encode(lm_named_tensors(weights), dtype));
  files.add((dir / "config.json").string(), config.to_json());
}

void run_lm_random(const LmRandomArgs& a) {
  const std::string text = a.config.empty() ? "" : read_model_config(a.config);
  std::optional<LmArchitecture> arch;
  if (!a.arch.empty()) arch = parse_lm_architecture(a.arch);
  if (!a.config.empty()) {
    const std::optional<LmArchitecture> declared = lm_architecture_of_config(text, a.config);
    require(!arch || !declared || *arch == *declared,
            a.config + " describes a " + to_string(*declared) + " model, not --arch " + a.arch);
    if (!arch) arch = declared;
  }
  if (!arch) throw UsageError("give --arch, or a --config whose model_type names it");
  if (a.preset.empty() && a.config.empty()) throw UsageError("give --preset or --config");
  // A Llama-family preset is one member's shape: another member is refused, not written as it.
  if (!a.preset.empty() && lm_checkpoint_family(*arch) == LmArchitecture::kLlama) {
    const LmArchitecture member = LlamaConfig::preset(a.preset).model_type;
    require(member == *arch, "--preset " + a.preset + " is a " + to_string(member) +
                                 " shape, not --arch " + a.arch +
                                 " (give that member's config.json with --config)");
  }
  std::error_code error;
  require(!std::filesystem::exists(a.out, error) || std::filesystem::is_directory(a.out, error),
          a.out + ": -o must name a directory");
  const StoredDType dtype = a.dtype == "F16" ? StoredDType::kF16 : StoredDType::kF32;

  OutputFiles files;
  files.add_directory(a.out);
  const std::filesystem::path dir(a.out);
  if (*arch == LmArchitecture::kGpt2) {
    add_random_checkpoint<Gpt2Config>(files, dir, text, a, dtype);
  } else if (*arch == LmArchitecture::kGptNeox) {
    add_random_checkpoint<GptNeoxConfig>(files, dir, text, a, dtype);
  } else {
    add_random_checkpoint<LlamaConfig>(files, dir, text, a, dtype);  // the Llama family
  }
  files.commit();
}

void declare_lm_random(CLI::App* cmd, LmRandomArgs& a) {
  cmd->add_option("--arch", a.arch, "architecture (default: config.json's model_type)")
      ->check(one_of(kLmArchitectureNames, "architecture"));
  auto* preset = cmd->add_option("--preset", a.preset,
                                 "model shape: small, medium (gpt2); pythia-70m, pythia-160m "
                                 "(gpt_neox); smollm2-135m (llama); qwen2.5-0.5b (qwen2); "
                                 "smollm3-3b (smollm3)")
                     ->check(one_of({"small", "medium", "pythia-70m", "pythia-160m", "smollm2-135m",
                                     "qwen2.5-0.5b", "smollm3-3b"},
                                    "preset"));
  cmd->add_option("--config", a.config, "Hugging Face config.json instead of a preset")
      ->type_name("FILE")
      ->check(input_file())
      ->excludes(preset);
  add_seed(cmd, a.seed, "seed of the random init");
  cmd->add_option("--dtype", a.dtype, "stored dtype of the weights")
      ->capture_default_str()
      ->check(one_of({"F32", "F16"}, "dtype"));
  cmd->add_option("-o,--out", a.out,
                  "directory to write model.safetensors and config.json into (created)")
      ->required()
      ->type_name("DIR");
}

}  // namespace

void add_lm_random_command(Commands& commands) {
  add_command<LmRandomArgs>(commands, "lm-random",
                            "seeded random-weight checkpoint (model.safetensors + config.json) "
                            "of a GPT-2, GPT-NeoX or Llama shape",
                            declare_lm_random, run_lm_random);
}

}  // namespace poslab::cli

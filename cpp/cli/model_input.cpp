// The inputs of the language-model commands: token ids from the command line or a .npy file,
// and config.json text.
#include "model_input.hpp"

#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>

#include "options.hpp"
#include "poslab/io/file_kind.hpp"
#include "poslab/io/npy.hpp"
#include "poslab/io/safetensors_index.hpp"
#include "poslab/models/lm_weights.hpp"

namespace poslab::cli {

// "464,2068,7586" → ids; the range check against the vocabulary is the core's.
std::vector<long long> parse_tokens(const std::string& text) {
  std::vector<long long> ids;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? comma : comma - start);
    const bool digits = !item.empty() && item.size() <= 12 &&
                        item.find_first_not_of("0123456789") == std::string::npos;
    if (!digits) {
      throw UsageError("--tokens: token ids must be comma-separated non-negative integers (got '" +
                       item + "')");
    }
    ids.push_back(std::stoll(item));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return ids;
}

// A 1-D .npy of token ids (any integer dtype, or floats holding integers). The reader widens
// to float32, exact for integers below 2^24: larger values cannot be ids of any vocabulary
// this tool loads (the parameter cap bounds V·E), so they are refused rather than rounded.
std::vector<long long> read_token_file(const std::string& path) {
  const TensorF ids = read_npy(path);
  require(ids.ndim() == 1,
          path + ": token ids must be a 1-D array (T,), got shape " + shape_string(ids.shape));
  std::vector<long long> tokens(ids.size());
  for (std::size_t t = 0; t < ids.size(); ++t) {
    const float v = ids.data[t];
    if (!(std::isfinite(v) && v >= 0.0f && v < 16777216.0f && v == std::floor(v))) {
      std::ostringstream message;
      message << path << "[" << t << "] is " << v << ": token ids must be integers in [0, 2^24)";
      throw Error(message.str());
    }
    tokens[t] = static_cast<long long>(v);
  }
  return tokens;
}

std::string read_whole_file(const std::string& path, std::size_t max_bytes, const char* what) {
  require_regular_file(path);
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) throw Error(path + ": cannot open");
  std::string text;
  char chunk[4096];
  std::size_t got;
  while ((got = std::fread(chunk, 1, sizeof chunk, file)) > 0 && text.size() <= max_bytes) {
    text.append(chunk, got);
  }
  const bool failed = std::ferror(file) != 0;
  std::fclose(file);
  require(!failed, path + ": cannot read");
  const std::string limit = max_bytes >= (std::size_t(1) << 20)
                                ? std::to_string(max_bytes >> 20) + " MiB"
                                : std::to_string(max_bytes >> 10) + " KiB";
  require(text.size() <= max_bytes, path + ": too large for " + what + " (at most " + limit + ")");
  return text;
}

// A config is a few kilobytes; 1 MiB is certainly not one.
std::string read_model_config(const std::string& path) {
  return read_whole_file(path, std::size_t(1) << 20, "a model config");
}

LmArchitecture lm_architecture_of_files(const std::string& weights, const std::string& config,
                                        const std::string& config_text) {
  SafetensorsHeader header;
  if (is_safetensors_index(weights)) {
    // A sharded checkpoint: its index lists every tensor name.
    for (const auto& entry : read_safetensors_index(weights).weight_map) {
      header.entries.push_back({});
      header.entries.back().name = entry.first;
    }
  } else {
    header = read_safetensors_header(weights);
  }
  const LmArchitecture stored = lm_architecture_of_checkpoint(header, weights);
  if (config.empty()) return stored;
  const std::optional<LmArchitecture> declared = lm_architecture_of_config(config_text, config);
  require(!declared || lm_checkpoint_family(*declared) == stored,
          config + " describes a " + to_string(*declared) + " model, but " + weights + " holds " +
              to_string(stored) + " tensors");
  // The Llama family's members share their tensor names: the config tells them apart.
  return declared ? *declared : stored;
}

}  // namespace poslab::cli

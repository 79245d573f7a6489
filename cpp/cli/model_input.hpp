// The inputs of the language-model commands (lm, lm-random, lens): token ids, config.json
// text and the architecture a checkpoint holds.
#pragma once

#include <string>
#include <vector>

#include "poslab/models/lm.hpp"

namespace poslab::cli {

// "464,2068,7586" → ids; anything else is a UsageError naming --tokens. The range check
// against the vocabulary is the core's.
std::vector<long long> parse_tokens(const std::string& text);

// A 1-D .npy of token ids (any integer dtype, or floats holding integers), each in [0, 2^24);
// Error naming the file and the index otherwise.
std::vector<long long> read_token_file(const std::string& path);

// A config.json's text (at most 1 MB); Error naming the path.
std::string read_model_config(const std::string& path);
// The bytes of `path`, refused (naming `what`) past max_bytes, checked while reading.
std::string read_whole_file(const std::string& path, std::size_t max_bytes, const char* what);

// The architecture of a checkpoint, before any weight is read: config.json's model_type
// (`config_text`, empty when no --config) when it has one, else the tensor names; Error when
// the two disagree.
LmArchitecture lm_architecture_of_files(const std::string& weights, const std::string& config,
                                        const std::string& config_text);

}  // namespace poslab::cli

// model.safetensors.index.json, the index of a checkpoint Hugging Face saves in shards
// (model-00001-of-00002.safetensors, …): its "weight_map" names, for each tensor, the shard
// file beside the index that holds it.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace poslab {

struct SafetensorsIndex {
  std::map<std::string, std::string> weight_map;  // tensor name → shard file name
  std::vector<std::string> shards;                // each shard once, in the order first named
};

// The most bytes an index may have: a 70B model's is about 100 KB.
inline constexpr std::size_t kMaxSafetensorsIndexBytes = std::size_t{16} << 20;

// Whether `path` names an index rather than a .safetensors file (it ends in ".index.json").
bool is_safetensors_index(const std::string& path);

// Parses an index's text. Throws Error, naming `name`, unless it is a JSON object whose
// "weight_map" is a non-empty object of strings, each a plain file name (no directory, so a
// shard lies beside its index) ending in ".safetensors".
SafetensorsIndex parse_safetensors_index(const std::string& text, const std::string& name);

// Reads and parses the index at `path` (at most kMaxSafetensorsIndexBytes).
SafetensorsIndex read_safetensors_index(const std::string& path);

}  // namespace poslab

// model.safetensors.index.json (poslab/io/safetensors_index.hpp).
#include "poslab/io/safetensors_index.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/strings.hpp"
#include "poslab/base/errors.hpp"
#include "poslab/io/file_kind.hpp"
#include "poslab/io/json_text.hpp"

namespace poslab {

using detail::ends_with;

bool is_safetensors_index(const std::string& path) { return ends_with(path, ".index.json"); }

SafetensorsIndex parse_safetensors_index(const std::string& text, const std::string& name) {
  const nlohmann::json json = parse_json_text(text, name);
  require(json.is_object(), name + ": expected a JSON object with a \"weight_map\"");
  const auto map = json.find("weight_map");
  require(map != json.end() && map->is_object() && !map->empty(),
          name + ": \"weight_map\" must be a non-empty object of tensor name → shard file");
  SafetensorsIndex index;
  for (const auto& [tensor, shard] : map->items()) {
    require(shard.is_string(), name + ": \"weight_map\"'s entry for '" + tensor +
                                   "' must be a shard file name (a string)");
    const std::string file = shard.get<std::string>();
    require(!file.empty() && file.find('/') == std::string::npos &&
                file.find('\\') == std::string::npos && file != "." && file != "..",
            name + ": shard '" + file + "' for tensor '" + tensor +
                "' must be a file name beside the index, without a directory");
    require(ends_with(file, ".safetensors"),
            name + ": shard '" + file + "' for tensor '" + tensor + "' is not a .safetensors file");
    if (std::find(index.shards.begin(), index.shards.end(), file) == index.shards.end()) {
      index.shards.push_back(file);
    }
    index.weight_map.emplace(tensor, file);
  }
  return index;
}

SafetensorsIndex read_safetensors_index(const std::string& path) {
  require_regular_file(path);
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (error) throw Error(path + ": cannot open: " + error.message());
  require(size <= kMaxSafetensorsIndexBytes,
          path + ": " + std::to_string(size) +
              " bytes is more than a checkpoint index has (at most " +
              std::to_string(kMaxSafetensorsIndexBytes) + ")");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_safetensors_index(text.str(), path);
}

}  // namespace poslab

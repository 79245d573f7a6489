// LmCheckpointStream (lm_weights.hpp): one checkpoint's files, a single .safetensors or the
// shards its index names, streamed into a layout's tensors. Run once per load: the wasm build
// compiles it for size (cpp/CMakeLists.txt).
#include <algorithm>
#include <filesystem>
#include <map>

#include "base/strings.hpp"
#include "poslab/base/errors.hpp"
#include "poslab/models/lm_weights.hpp"

namespace poslab {

using detail::starts_with;

LmCheckpointStream::LmCheckpointStream(const SafetensorsHeader& header,
                                       const LmTensorLayout& layout, std::string name)
    : name_(std::move(name)) {
  files_.push_back(std::make_unique<LmWeightStream>(header, layout, name_));
}

LmCheckpointStream::LmCheckpointStream(const SafetensorsIndex& index, const std::string& index_name,
                                       const ShardHeader& shard_header,
                                       const LmTensorLayout& layout)
    : name_(index_name) {
  const bool prefixed =
      lm_uses_prefix(layout, [&](const std::string& n) { return index.weight_map.count(n) > 0; });
  const std::string prefix = prefixed ? layout.prefix : "";
  // Each shard's part of the layout, from the index.
  std::map<std::string, LmTensorLayout> parts;
  for (const std::string& shard : index.shards) {
    LmTensorLayout part = layout;
    part.tensors.clear();
    parts.emplace(shard, std::move(part));
  }
  for (const LmTensor& t : layout.tensors) {
    const auto where = index.weight_map.find(prefix + t.name);
    require(where != index.weight_map.end(), index_name + ": names no shard for tensor '" + prefix +
                                                 t.name + "' (" + lm_layers_note(layout) +
                                                 " needs it)");
    parts.at(where->second).tensors.push_back(t);
  }
  for (const auto& entry : index.weight_map) {
    const std::string& tensor = entry.first;
    const std::string& shard = entry.second;
    const bool known = std::any_of(layout.tensors.begin(), layout.tensors.end(),
                                   [&](const LmTensor& t) { return prefix + t.name == tensor; });
    const std::string bare = starts_with(tensor, prefix) ? tensor.substr(prefix.size()) : tensor;
    require(known || (layout.ignored && layout.ignored(bare)),
            index_name + ": unexpected tensor '" + tensor + "' in " + shard + " (not part of " +
                lm_layers_note(layout) + ")");
  }
  // Every shard checked before the first tensor is allocated.
  std::vector<std::pair<std::string, SafetensorsHeader>> headers;
  for (const std::string& shard : index.shards) {
    headers.push_back(shard_header(shard));
    LmWeightStream::check(headers.back().second, parts.at(shard), headers.back().first, prefixed);
  }
  for (std::size_t k = 0; k < headers.size(); ++k) {
    files_.push_back(std::make_unique<LmWeightStream>(headers[k].second, parts.at(index.shards[k]),
                                                      headers[k].first, prefixed));
  }
}

void LmCheckpointStream::next_file() {
  require(current_ + 1 < files_.size(),
          name_ + ": no file after the last of its " + std::to_string(files_.size()));
  files_[current_]->finish();
  ++current_;
}

std::uint64_t LmCheckpointStream::received() const {
  std::uint64_t total = 0;
  for (const auto& f : files_) total += f->received();
  return total;
}

std::uint64_t LmCheckpointStream::expected() const {
  std::uint64_t total = 0;
  for (const auto& f : files_) total += f->expected();
  return total;
}

void LmCheckpointStream::finish() {
  require(current_ + 1 == files_.size(), name_ + ": only " + std::to_string(current_ + 1) +
                                             " of its " + std::to_string(files_.size()) +
                                             " shards were read");
  files_[current_]->finish();
}

std::string lm_shard_directory(const std::string& index_path) {
  const std::string dir = std::filesystem::path(index_path).parent_path().string();
  return dir.empty() ? dir : dir + "/";
}

}  // namespace poslab

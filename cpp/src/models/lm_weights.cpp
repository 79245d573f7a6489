// The one streamed .safetensors loader of the language models, over an architecture's
// description of its checkpoint (lm_weights.hpp).
#include "poslab/models/lm_weights.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "base/strings.hpp"
#include "poslab/base/errors.hpp"
#include "poslab/base/random.hpp"
#include "poslab/io/file_kind.hpp"
#include "poslab/io/safetensors_index.hpp"

namespace poslab {
namespace {

using detail::starts_with;

bool all_finite(const StoredTensor& t) {
  if (t.dtype == StoredDType::kF32) {
    return std::all_of(t.f32.begin(), t.f32.end(), [](float v) { return std::isfinite(v); });
  }
  // Exponent bits all ones: infinity or NaN.
  const std::uint16_t exponent = t.dtype == StoredDType::kF16 ? 0x7c00u : 0x7f80u;
  return std::none_of(t.bits16.begin(), t.bits16.end(),
                      [&](std::uint16_t h) { return (h & exponent) == exponent; });
}

// Reads `n` bytes at the file's current position into dst, or throws naming the file.
void read_exactly(std::ifstream& in, char* dst, std::size_t n, const std::string& path) {
  in.read(dst, static_cast<std::streamsize>(n));
  if (static_cast<std::size_t>(in.gcount()) != n) {
    throw Error(path + ": file ended early (changed while reading?)");
  }
}

}  // namespace

void add_matrix(LmTensorLayout& layout, const std::string& name, StoredTensor& tensor,
                Shape shape) {
  layout.tensors.push_back({name, &tensor, std::move(shape), LmTensor::kNormal});
}

void add_norm(LmTensorLayout& layout, const std::string& name, StoredTensor& weight,
              StoredTensor& bias, std::size_t width) {
  layout.tensors.push_back({name + ".weight", &weight, {width}, LmTensor::kOne});
  layout.tensors.push_back({name + ".bias", &bias, {width}, LmTensor::kZero});
}

void add_linear(LmTensorLayout& layout, const std::string& name, StoredTensor& weight,
                std::size_t in, std::size_t out) {
  const bool in_out = layout.linear == LmTensorLayout::kInOut;
  add_matrix(layout, name + ".weight", weight, in_out ? Shape{in, out} : Shape{out, in});
  layout.tensors.back().transposed = in_out;
}

void add_linear(LmTensorLayout& layout, const std::string& name, StoredTensor& weight,
                StoredTensor& bias, std::size_t in, std::size_t out) {
  add_linear(layout, name, weight, in, out);
  layout.tensors.push_back({name + ".bias", &bias, {out}, LmTensor::kZero});
}

void add_gain(LmTensorLayout& layout, const std::string& name, StoredTensor& weight,
              std::size_t width) {
  layout.tensors.push_back({name + ".weight", &weight, {width}, LmTensor::kOne});
}

std::string lm_layers_note(const LmTensorLayout& layout) {
  return "a " + layout.model + " with " + layout.layers_key + " " + std::to_string(layout.layers);
}

void check_lm_tensors(const LmTensorLayout& layout) {
  for (const LmTensor& t : layout.tensors) {
    const Shape held = t.held_shape();
    require(t.tensor->shape == held &&
                t.tensor->size() == checked_numel(held, t.name, kMaxWeightElements),
            layout.model + " tensor '" + t.name + "' is held as " + shape_string(t.tensor->shape) +
                ", the config needs " + shape_string(held));
  }
}

LmCheckpointTensors::LmCheckpointTensors(const LmTensorLayout& layout) {
  for (const LmTensor& t : layout.tensors) {
    if (!t.transposed) {
      emplace_back(t.name, t.tensor);
      continue;
    }
    copies_.push_back(std::make_unique<StoredTensor>(transposed(*t.tensor)));
    emplace_back(t.name, copies_.back().get());
  }
}

std::vector<std::pair<std::string, const StoredTensor*>> lm_held_tensors(
    const LmTensorLayout& layout) {
  std::vector<std::pair<std::string, const StoredTensor*>> out;
  for (const LmTensor& t : layout.tensors) out.emplace_back(t.name, t.tensor);
  return out;
}

void lm_random_init(const LmTensorLayout& layout, std::uint64_t seed) {
  Rng rng(seed);
  for (const LmTensor& t : layout.tensors) {
    StoredTensor& tensor = *t.tensor;
    tensor = StoredTensor(t.shape, StoredDType::kF32, layout.model + " tensor '" + t.name + "'");
    if (t.init == LmTensor::kOne) std::fill(tensor.f32.begin(), tensor.f32.end(), 1.0f);
    if (t.init == LmTensor::kNormal) {
      for (float& v : tensor.f32) v = static_cast<float>(0.02 * rng.normal());
    }
    if (t.transposed) tensor = transposed(tensor);
  }
}

SafetensorsHeader read_safetensors_header(const std::string& path) {
  require_regular_file(path);
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (error) throw Error(path + ": cannot open: " + error.message());
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open");
  std::string prefix(std::size_t(std::min<std::uintmax_t>(8, size)), '\0');
  read_exactly(in, &prefix[0], prefix.size(), path);
  const std::uint64_t length = safetensors_header_length(prefix, size, path);
  prefix.resize(std::size_t(8 + length));
  read_exactly(in, &prefix[8], std::size_t(length), path);
  return parse_safetensors_header(prefix, size, path);
}

void stream_safetensors_data(const std::string& path, const SafetensorsHeader& header,
                             const std::function<void(const char*, std::size_t)>& append) {
  require_regular_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open");
  in.seekg(std::streamoff(header.data_start));
  std::vector<char> chunk(std::size_t{8} << 20);
  for (std::uint64_t left = header.file_size - header.data_start; left > 0;) {
    const std::size_t n = std::size_t(std::min<std::uint64_t>(chunk.size(), left));
    read_exactly(in, chunk.data(), n, path);
    append(chunk.data(), n);
    left -= n;
  }
}

bool lm_uses_prefix(const LmTensorLayout& layout,
                    const std::function<bool(const std::string&)>& has) {
  return !layout.prefix.empty() && !layout.tensors.empty() &&
         has(layout.prefix + layout.tensors.front().name);
}

std::vector<LmWeightStream::Match> LmWeightStream::match(const SafetensorsHeader& header,
                                                         const LmTensorLayout& layout,
                                                         const std::string& name, bool prefixed) {
  const std::string& prefix = layout.prefix;
  std::map<std::string, const LmTensor*> by_name;
  for (const LmTensor& t : layout.tensors) by_name.emplace(t.name, &t);
  std::vector<Match> matched;
  for (const SafetensorsEntry& e : header.entries) {
    const bool has_prefix = !prefix.empty() && starts_with(e.name, prefix);
    const std::string bare = has_prefix ? e.name.substr(prefix.size()) : e.name;
    const auto slot = by_name.find(bare);
    if (slot != by_name.end() && has_prefix == prefixed) {
      require(e.shape == slot->second->shape,
              name + ": tensor '" + e.name + "' has shape " + shape_string(e.shape) +
                  ", the config needs " + shape_string(slot->second->shape) +
                  (layout.sizes.empty() ? "" : " (from its " + layout.sizes + ")"));
      require(e.loadable, name + ": tensor '" + e.name + "': " + unsupported_dtype(e));
      matched.push_back({&e, slot->second});
      by_name.erase(slot);
    } else {
      require(layout.ignored && layout.ignored(bare), name + ": unexpected tensor '" + e.name +
                                                          "' (not part of " +
                                                          lm_layers_note(layout) + ")");
      matched.push_back({&e, nullptr});
    }
  }
  for (const LmTensor& t : layout.tensors) {
    require(!by_name.count(t.name), name + ": missing tensor '" + (prefixed ? prefix : "") +
                                        t.name + "' (" + lm_layers_note(layout) + " needs it)");
  }
  require(header.untiled.empty(), name + ": " + header.untiled);
  return matched;
}

void LmWeightStream::check(const SafetensorsHeader& header, const LmTensorLayout& layout,
                           const std::string& name, bool prefixed) {
  match(header, layout, name, prefixed);
}

LmWeightStream::LmWeightStream(const SafetensorsHeader& header, const LmTensorLayout& layout,
                               std::string name)
    : LmWeightStream(header, layout, std::move(name),
                     lm_uses_prefix(layout, [&](const std::string& n) {
                       return std::any_of(header.entries.begin(), header.entries.end(),
                                          [&](const SafetensorsEntry& e) { return e.name == n; });
                     })) {}

LmWeightStream::LmWeightStream(const SafetensorsHeader& header, const LmTensorLayout& layout,
                               std::string name, bool prefixed)
    : name_(std::move(name)) {
  // Everything is checked before the first weight is allocated.
  const std::vector<Match> matched = match(header, layout, name_, prefixed);
  for (const Match& m : matched) {
    if (m.slot == nullptr) {
      targets_.push_back({m.entry->begin, m.entry->end, nullptr, m.entry->name, false});
      continue;
    }
    *m.slot->tensor =
        StoredTensor(m.entry->shape, m.entry->dtype, name_ + ": tensor '" + m.entry->name + "'");
    targets_.push_back(
        {m.entry->begin, m.entry->end, m.slot->tensor, m.entry->name, m.slot->transposed});
  }
  std::sort(targets_.begin(), targets_.end(),
            [](const Target& a, const Target& b) { return a.begin < b.begin; });
  expected_ = header.file_size - header.data_start;
}

void LmWeightStream::append(const char* bytes, std::size_t n) {
  require(!finished_, name_ + ": the checkpoint was already loaded");
  require(n <= expected_ - received_, name_ + ": more bytes than the header's " +
                                          std::to_string(expected_) + "-byte data buffer");
  while (n > 0) {
    while (next_ < targets_.size() && targets_[next_].end <= received_) ++next_;
    std::uint64_t take;
    if (next_ < targets_.size() && received_ >= targets_[next_].begin) {
      const Target& t = targets_[next_];
      take = std::min<std::uint64_t>(n, t.end - received_);
      // The tensor holds the file's bytes as they are (a chunk may end inside an element).
      if (t.tensor) std::memcpy(t.tensor->raw() + (received_ - t.begin), bytes, take);
    } else {  // padding between tensors, or a skipped buffer's bytes
      const std::uint64_t until = next_ < targets_.size() ? targets_[next_].begin : expected_;
      take = std::min<std::uint64_t>(n, until - received_);
    }
    bytes += take;
    n -= static_cast<std::size_t>(take);
    received_ += take;
  }
}

void LmWeightStream::finish() {
  require(!finished_, name_ + ": the checkpoint was already loaded");
  if (received_ != expected_) {
    // Name the first tensor the stream stopped short of.
    std::string where;
    for (const Target& t : targets_) {
      if (t.end > received_) {
        where = " in tensor '" + t.name + "'";
        break;
      }
    }
    throw Error(name_ + ": file ended early" + where + ": got " + std::to_string(received_) +
                " of " + std::to_string(expected_) + " data bytes (truncated?)");
  }
  for (const Target& t : targets_) {
    if (t.tensor) {
      require(all_finite(*t.tensor), name_ + ": tensor '" + t.name + "' contains NaN or infinity");
    }
  }
  // Turned after the checks: a refused file leaves nothing half done. One tensor's copy at a
  // time is the peak beyond the weights themselves.
  for (const Target& t : targets_) {
    if (t.transposed) *t.tensor = transposed(*t.tensor);
  }
  finished_ = true;
}

}  // namespace poslab

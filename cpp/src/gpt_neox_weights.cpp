// GPT-NeoX weights: Hugging Face's tensor names and shapes, seeded random init, and
// checkpoints checked name by name against the config, streamed in chunks.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "poslab/gpt_neox.hpp"
#include "poslab/lm.hpp"
#include "poslab/random.hpp"

namespace poslab {
namespace {

// One tensor of the model: its name, where it lives, the shape it must have, its init.
struct Slot {
  std::string name;
  StoredTensor* tensor;
  Shape shape;
  enum Init { kNormal, kZero, kOne } init;
};

// Every tensor in checkpoint order. Sizes are validated by config.validate() first.
std::vector<Slot> slots(GptNeoxWeights& w) {
  const GptNeoxConfig& c = w.config;
  const std::size_t V = std::size_t(c.vocab_size), E = std::size_t(c.hidden_size);
  const std::size_t I = std::size_t(c.intermediate_size);
  std::vector<Slot> out;
  out.push_back({"gpt_neox.embed_in.weight", &w.embed_in, {V, E}, Slot::kNormal});
  w.layers.resize(std::size_t(c.num_hidden_layers));
  for (std::size_t i = 0; i < w.layers.size(); ++i) {
    GptNeoxLayer& l = w.layers[i];
    const std::string p = "gpt_neox.layers." + std::to_string(i) + ".";
    out.push_back({p + "input_layernorm.weight", &l.input_layernorm_weight, {E}, Slot::kOne});
    out.push_back({p + "input_layernorm.bias", &l.input_layernorm_bias, {E}, Slot::kZero});
    out.push_back({p + "post_attention_layernorm.weight",
                   &l.post_attention_layernorm_weight,
                   {E},
                   Slot::kOne});
    out.push_back(
        {p + "post_attention_layernorm.bias", &l.post_attention_layernorm_bias, {E}, Slot::kZero});
    out.push_back({p + "attention.query_key_value.weight",
                   &l.query_key_value_weight,
                   {3 * E, E},
                   Slot::kNormal});
    out.push_back(
        {p + "attention.query_key_value.bias", &l.query_key_value_bias, {3 * E}, Slot::kZero});
    out.push_back({p + "attention.dense.weight", &l.dense_weight, {E, E}, Slot::kNormal});
    out.push_back({p + "attention.dense.bias", &l.dense_bias, {E}, Slot::kZero});
    out.push_back({p + "mlp.dense_h_to_4h.weight", &l.dense_h_to_4h_weight, {I, E}, Slot::kNormal});
    out.push_back({p + "mlp.dense_h_to_4h.bias", &l.dense_h_to_4h_bias, {I}, Slot::kZero});
    out.push_back({p + "mlp.dense_4h_to_h.weight", &l.dense_4h_to_h_weight, {E, I}, Slot::kNormal});
    out.push_back({p + "mlp.dense_4h_to_h.bias", &l.dense_4h_to_h_bias, {E}, Slot::kZero});
  }
  out.push_back({"gpt_neox.final_layer_norm.weight", &w.final_layer_norm_weight, {E}, Slot::kOne});
  out.push_back({"gpt_neox.final_layer_norm.bias", &w.final_layer_norm_bias, {E}, Slot::kZero});
  out.push_back({"embed_out.weight", &w.embed_out, {V, E}, Slot::kNormal});
  return out;
}

// Buffers older transformers versions saved with the weights: the rotary frequencies (the
// config's rotary_emb_base and rotary_pct say them) and the causal-mask buffers. Only for a
// layer the config has: a buffer of layer 7 in a 6-layer model is a wrong checkpoint.
bool ignored_name(const std::string& name, long long layers) {
  if (name == "gpt_neox.rotary_emb.inv_freq") return true;
  const std::string prefix = "gpt_neox.layers.";
  if (name.compare(0, prefix.size(), prefix) != 0) return false;
  std::size_t end = prefix.size();
  while (end < name.size() && end - prefix.size() < 9 && name[end] >= '0' && name[end] <= '9') {
    ++end;
  }
  const std::string digits = name.substr(prefix.size(), end - prefix.size());
  if (digits.empty() || (digits.size() > 1 && digits[0] == '0')) return false;
  if (std::stoll(digits) >= layers) return false;
  const std::string rest = name.substr(end);
  return rest == ".attention.rotary_emb.inv_freq" || rest == ".attention.bias" ||
         rest == ".attention.masked_bias";
}

bool all_finite(const StoredTensor& t) {
  if (t.dtype == StoredDType::kF16) {
    // Exponent bits all ones: infinity or NaN.
    return std::none_of(t.f16.begin(), t.f16.end(),
                        [](std::uint16_t h) { return (h & 0x7c00u) == 0x7c00u; });
  }
  return std::all_of(t.f32.begin(), t.f32.end(), [](float v) { return std::isfinite(v); });
}

void read_exactly(std::ifstream& in, char* dst, std::size_t n, const std::string& path) {
  in.read(dst, static_cast<std::streamsize>(n));
  if (static_cast<std::size_t>(in.gcount()) != n) {
    throw Error(path + ": file ended early (changed while reading?)");
  }
}

std::string layers_note(const GptNeoxConfig& c) {
  return "a GPT-NeoX with num_hidden_layers " + std::to_string(c.num_hidden_layers);
}

}  // namespace

std::uint64_t GptNeoxWeights::bytes() const {
  std::uint64_t total = 0;
  for (const auto& entry : gpt_neox_named_tensors(*this)) total += entry.second->bytes();
  return total;
}

std::vector<std::pair<std::string, const StoredTensor*>> gpt_neox_named_tensors(
    const GptNeoxWeights& weights) {
  check_gpt_neox_weights(weights);
  // slots() only reads the config and takes addresses; the layers already have their size.
  GptNeoxWeights& w = const_cast<GptNeoxWeights&>(weights);
  std::vector<std::pair<std::string, const StoredTensor*>> out;
  for (const Slot& s : slots(w)) out.emplace_back(s.name, s.tensor);
  return out;
}

void check_gpt_neox_weights(const GptNeoxWeights& weights) {
  weights.config.validate();
  require(weights.layers.size() == std::size_t(weights.config.num_hidden_layers),
          "GPT-NeoX weights have " + std::to_string(weights.layers.size()) +
              " layers, the config says num_hidden_layers " +
              std::to_string(weights.config.num_hidden_layers));
  GptNeoxWeights& w = const_cast<GptNeoxWeights&>(weights);  // slots() resizes to the same size
  for (const Slot& s : slots(w)) {
    require(s.tensor->shape == s.shape && s.tensor->size() == checked_numel(s.shape, s.name),
            "GPT-NeoX tensor '" + s.name + "' has shape " + shape_string(s.tensor->shape) +
                ", the config needs " + shape_string(s.shape));
  }
}

GptNeoxWeights gpt_neox_random_weights(const GptNeoxConfig& config, std::uint64_t seed) {
  config.validate();
  GptNeoxWeights w;
  w.config = config;
  Rng rng(seed);
  for (const Slot& s : slots(w)) {
    *s.tensor = StoredTensor(s.shape, StoredDType::kF32, "GPT-NeoX tensor '" + s.name + "'");
    std::vector<float>& values = s.tensor->f32;
    if (s.init == Slot::kOne) std::fill(values.begin(), values.end(), 1.0f);
    if (s.init == Slot::kNormal) {
      for (float& v : values) v = static_cast<float>(0.02 * rng.normal());
    }
  }
  return w;
}

GptNeoxLoader::GptNeoxLoader(const SafetensorsHeader& header, const GptNeoxConfig& config,
                             std::string name)
    : name_(std::move(name)) {
  config.validate();
  weights_.config = config;
  std::map<std::string, Slot> by_name;
  for (const Slot& s : slots(weights_)) by_name.emplace(s.name, s);

  // Everything is checked before the first weight is allocated.
  std::vector<std::pair<const SafetensorsEntry*, Slot>> matched;
  for (const SafetensorsEntry& e : header.entries) {
    const auto slot = by_name.find(e.name);
    if (slot != by_name.end()) {
      require(e.shape == slot->second.shape, name_ + ": tensor '" + e.name + "' has shape " +
                                                 shape_string(e.shape) + ", the config needs " +
                                                 shape_string(slot->second.shape));
      require(e.loadable, name_ + ": tensor '" + e.name + "': " + unsupported_dtype(e));
      matched.emplace_back(&e, slot->second);
      by_name.erase(slot);
    } else {
      require(
          ignored_name(e.name, config.num_hidden_layers),
          name_ + ": unexpected tensor '" + e.name + "' (not part of " + layers_note(config) + ")");
      targets_.push_back({e.begin, e.end, nullptr, e.name});
    }
  }
  for (const Slot& s : slots(weights_)) {
    require(!by_name.count(s.name),
            name_ + ": missing tensor '" + s.name + "' (" + layers_note(config) + " needs it)");
  }
  for (const auto& [entry, slot] : matched) {
    *slot.tensor =
        StoredTensor(entry->shape, entry->dtype, name_ + ": tensor '" + entry->name + "'");
    targets_.push_back({entry->begin, entry->end, slot.tensor, entry->name});
  }
  std::sort(targets_.begin(), targets_.end(),
            [](const Target& a, const Target& b) { return a.begin < b.begin; });
  expected_ = header.file_size - header.data_start;
}

void GptNeoxLoader::append(const char* bytes, std::size_t n) {
  require(!finished_, name_ + ": the checkpoint was already loaded");
  require(n <= expected_ - received_, name_ + ": more bytes than the header's " +
                                          std::to_string(expected_) + "-byte data buffer");
  while (n > 0) {
    while (next_ < targets_.size() && targets_[next_].end <= received_) ++next_;
    std::uint64_t take;
    if (next_ < targets_.size() && received_ >= targets_[next_].begin) {
      const Target& t = targets_[next_];
      take = std::min<std::uint64_t>(n, t.end - received_);
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

GptNeoxWeights GptNeoxLoader::finish() {
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
  finished_ = true;
  return std::move(weights_);
}

GptNeoxWeights gpt_neox_weights_from_bytes(const std::string& bytes, const GptNeoxConfig& config,
                                           const std::string& name) {
  config.validate();
  const std::uint64_t length = safetensors_header_length(bytes, bytes.size(), name);
  const SafetensorsHeader header = parse_safetensors_header(bytes, bytes.size(), name);
  GptNeoxLoader loader(header, config, name);
  loader.append(bytes.data() + 8 + length, bytes.size() - 8 - length);
  return loader.finish();
}

GptNeoxWeights load_gpt_neox_weights(const std::string& path, const GptNeoxConfig& config) {
  config.validate();
  const SafetensorsHeader header = read_safetensors_header(path);
  GptNeoxLoader loader(header, config, path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open");
  in.seekg(std::streamoff(header.data_start));
  // Chunks of 8 MiB: the file is never held whole, only the weights it fills.
  std::vector<char> chunk(std::size_t{8} << 20);
  while (loader.received() < loader.expected()) {
    const std::size_t n =
        std::size_t(std::min<std::uint64_t>(chunk.size(), loader.expected() - loader.received()));
    read_exactly(in, chunk.data(), n, path);
    loader.append(chunk.data(), n);
  }
  return loader.finish();
}

}  // namespace poslab

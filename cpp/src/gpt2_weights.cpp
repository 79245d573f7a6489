// GPT-2 weights: the standard tensor names and shapes, seeded random init, and checkpoints
// checked name by name against the config.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "poslab/gpt2.hpp"
#include "poslab/random.hpp"

namespace poslab {
namespace {

// One tensor of the model: its standard name, where it lives, and the shape it must have.
struct Slot {
  std::string name;
  StoredTensor* tensor;
  Shape shape;
  enum Init { kNormal, kZero, kOne } init;
};

// Every tensor in checkpoint order. Sizes are validated by config.validate() first.
std::vector<Slot> slots(Gpt2Weights& w) {
  const Gpt2Config& c = w.config;
  const std::size_t V = std::size_t(c.vocab_size), P = std::size_t(c.n_positions);
  const std::size_t E = std::size_t(c.n_embd);
  std::vector<Slot> out;
  out.push_back({"wte.weight", &w.wte, {V, E}, Slot::kNormal});
  out.push_back({"wpe.weight", &w.wpe, {P, E}, Slot::kNormal});
  w.blocks.resize(std::size_t(c.n_layer));
  for (std::size_t i = 0; i < w.blocks.size(); ++i) {
    Gpt2Block& b = w.blocks[i];
    const std::string h = "h." + std::to_string(i) + ".";
    out.push_back({h + "ln_1.weight", &b.ln_1_weight, {E}, Slot::kOne});
    out.push_back({h + "ln_1.bias", &b.ln_1_bias, {E}, Slot::kZero});
    out.push_back({h + "attn.c_attn.weight", &b.attn_c_attn_weight, {E, 3 * E}, Slot::kNormal});
    out.push_back({h + "attn.c_attn.bias", &b.attn_c_attn_bias, {3 * E}, Slot::kZero});
    out.push_back({h + "attn.c_proj.weight", &b.attn_c_proj_weight, {E, E}, Slot::kNormal});
    out.push_back({h + "attn.c_proj.bias", &b.attn_c_proj_bias, {E}, Slot::kZero});
    out.push_back({h + "ln_2.weight", &b.ln_2_weight, {E}, Slot::kOne});
    out.push_back({h + "ln_2.bias", &b.ln_2_bias, {E}, Slot::kZero});
    out.push_back({h + "mlp.c_fc.weight", &b.mlp_c_fc_weight, {E, 4 * E}, Slot::kNormal});
    out.push_back({h + "mlp.c_fc.bias", &b.mlp_c_fc_bias, {4 * E}, Slot::kZero});
    out.push_back({h + "mlp.c_proj.weight", &b.mlp_c_proj_weight, {4 * E, E}, Slot::kNormal});
    out.push_back({h + "mlp.c_proj.bias", &b.mlp_c_proj_bias, {E}, Slot::kZero});
  }
  out.push_back({"ln_f.weight", &w.ln_f_weight, {E}, Slot::kOne});
  out.push_back({"ln_f.bias", &w.ln_f_bias, {E}, Slot::kZero});
  return out;
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

// Buffers some checkpoints carry that are not weights: the causal-mask buffers of older
// transformers versions, and lm_head.weight (GPT-2 ties it to wte).
bool ignored_name(const std::string& name) {
  if (name == "lm_head.weight") return true;
  const auto ends_with = [&](const std::string& suffix) {
    return name.size() >= suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return starts_with(name, "h.") && (ends_with(".attn.bias") || ends_with(".attn.masked_bias"));
}

bool all_finite(const StoredTensor& t) {
  if (t.dtype == StoredDType::kF16) {
    // Exponent bits all ones: infinity or NaN.
    return std::none_of(t.f16.begin(), t.f16.end(),
                        [](std::uint16_t h) { return (h & 0x7c00u) == 0x7c00u; });
  }
  return std::all_of(t.f32.begin(), t.f32.end(), [](float v) { return std::isfinite(v); });
}

// Reads `n` bytes at the file's current position into dst, or throws naming the file.
void read_exactly(std::ifstream& in, char* dst, std::size_t n, const std::string& path) {
  in.read(dst, static_cast<std::streamsize>(n));
  if (static_cast<std::size_t>(in.gcount()) != n) {
    throw Error(path + ": file ended early (changed while reading?)");
  }
}

}  // namespace

std::uint64_t Gpt2Weights::bytes() const {
  std::uint64_t total = 0;
  for (const auto& entry : gpt2_named_tensors(*this)) total += entry.second->bytes();
  return total;
}

std::vector<std::pair<std::string, const StoredTensor*>> gpt2_named_tensors(
    const Gpt2Weights& weights) {
  check_gpt2_weights(weights);
  // slots() only reads the config and takes addresses; the blocks already have their size.
  Gpt2Weights& w = const_cast<Gpt2Weights&>(weights);
  std::vector<std::pair<std::string, const StoredTensor*>> out;
  for (const Slot& s : slots(w)) out.emplace_back(s.name, s.tensor);
  return out;
}

void check_gpt2_weights(const Gpt2Weights& weights) {
  weights.config.validate();
  require(weights.blocks.size() == std::size_t(weights.config.n_layer),
          "GPT-2 weights have " + std::to_string(weights.blocks.size()) +
              " blocks, the config says n_layer " + std::to_string(weights.config.n_layer));
  Gpt2Weights& w = const_cast<Gpt2Weights&>(weights);  // slots() resizes to the same size
  for (const Slot& s : slots(w)) {
    require(s.tensor->shape == s.shape && s.tensor->size() == checked_numel(s.shape, s.name),
            "GPT-2 tensor '" + s.name + "' has shape " + shape_string(s.tensor->shape) +
                ", the config needs " + shape_string(s.shape));
  }
}

Gpt2Weights gpt2_random_weights(const Gpt2Config& config, std::uint64_t seed) {
  config.validate();
  Gpt2Weights w;
  w.config = config;
  Rng rng(seed);
  for (const Slot& s : slots(w)) {
    *s.tensor = StoredTensor(s.shape, StoredDType::kF32, "GPT-2 tensor '" + s.name + "'");
    std::vector<float>& values = s.tensor->f32;
    if (s.init == Slot::kOne) std::fill(values.begin(), values.end(), 1.0f);
    if (s.init == Slot::kNormal) {
      for (float& v : values) v = static_cast<float>(0.02 * rng.normal());
    }
  }
  return w;
}

Gpt2Loader::Gpt2Loader(const SafetensorsHeader& header, const Gpt2Config& config, std::string name)
    : name_(std::move(name)) {
  config.validate();
  weights_.config = config;
  // Hugging Face's GPT2LMHeadModel saves "transformer.wte.weight" (and a bare lm_head.weight);
  // GPT2Model saves "wte.weight".
  const std::string prefix = "transformer.";
  const bool prefixed =
      std::any_of(header.entries.begin(), header.entries.end(),
                  [&](const SafetensorsEntry& e) { return e.name == prefix + "wte.weight"; });
  std::map<std::string, Slot> by_name;
  for (const Slot& s : slots(weights_)) by_name.emplace(s.name, s);

  // Everything is checked before the first weight is allocated.
  const std::string layers = " (a GPT-2 with n_layer " + std::to_string(config.n_layer);
  std::vector<std::pair<const SafetensorsEntry*, Slot>> matched;
  for (const SafetensorsEntry& e : header.entries) {
    const bool has_prefix = starts_with(e.name, prefix);
    const std::string bare = has_prefix ? e.name.substr(prefix.size()) : e.name;
    auto slot = by_name.find(bare);
    if (slot != by_name.end() && has_prefix == prefixed) {
      require(e.shape == slot->second.shape, name_ + ": tensor '" + e.name + "' has shape " +
                                                 shape_string(e.shape) + ", the config needs " +
                                                 shape_string(slot->second.shape));
      require(e.loadable, name_ + ": tensor '" + e.name + "': " + unsupported_dtype(e));
      matched.emplace_back(&e, slot->second);
      by_name.erase(slot);
    } else {
      require(ignored_name(bare),
              name_ + ": unexpected tensor '" + e.name + "' (not part of" + layers + "))");
      targets_.push_back({e.begin, e.end, nullptr, e.name});
    }
  }
  for (const Slot& s : slots(weights_)) {
    require(!by_name.count(s.name), name_ + ": missing tensor '" + (prefixed ? prefix : "") +
                                        s.name + "'" + layers + " needs it)");
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

void Gpt2Loader::append(const char* bytes, std::size_t n) {
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

Gpt2Weights Gpt2Loader::finish() {
  require(!finished_, name_ + ": the checkpoint was already loaded");
  require(received_ == expected_, name_ + ": file ended early: got " + std::to_string(received_) +
                                      " of " + std::to_string(expected_) +
                                      " data bytes (truncated?)");
  for (const Target& t : targets_) {
    if (t.tensor) {
      require(all_finite(*t.tensor), name_ + ": tensor '" + t.name + "' contains NaN or infinity");
    }
  }
  finished_ = true;
  return std::move(weights_);
}

Gpt2Weights gpt2_weights_from_bytes(const std::string& bytes,
                                    const std::optional<Gpt2Config>& config,
                                    const std::string& name) {
  const std::uint64_t length = safetensors_header_length(bytes, bytes.size(), name);
  const SafetensorsHeader header = parse_safetensors_header(bytes, bytes.size(), name);
  Gpt2Loader loader(header, config ? *config : Gpt2Config::from_header(header, name), name);
  loader.append(bytes.data() + 8 + length, bytes.size() - 8 - length);
  return loader.finish();
}

Gpt2Weights load_gpt2_weights(const std::string& path, const std::optional<Gpt2Config>& config) {
  if (config) config->validate();
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
  const SafetensorsHeader header = parse_safetensors_header(prefix, size, path);
  Gpt2Loader loader(header, config ? *config : Gpt2Config::from_header(header, path), path);
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

// GPT-2 weights: the standard tensor names and shapes, seeded random init, and checkpoints
// checked name by name against the config.
#include <algorithm>
#include <cmath>
#include <set>

#include "poslab/gpt2.hpp"
#include "poslab/random.hpp"

namespace poslab {
namespace {

// One tensor of the model: its standard name, where it lives, and the shape it must have.
struct Slot {
  std::string name;
  TensorF* tensor;
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

// Buffers some checkpoints carry that are not weights: the causal-mask buffers of older
// transformers versions, and lm_head.weight (GPT-2 ties it to wte).
bool ignored_name(const std::string& name) {
  if (name == "lm_head.weight") return true;
  const auto ends_with = [&](const std::string& suffix) {
    return name.size() >= suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return name.compare(0, 2, "h.") == 0 &&
         (ends_with(".attn.bias") || ends_with(".attn.masked_bias"));
}

}  // namespace

std::vector<std::pair<std::string, const TensorF*>> gpt2_named_tensors(const Gpt2Weights& weights) {
  check_gpt2_weights(weights);
  // slots() only reads the config and takes addresses; the blocks already have their size.
  Gpt2Weights& w = const_cast<Gpt2Weights&>(weights);
  std::vector<std::pair<std::string, const TensorF*>> out;
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
    *s.tensor = TensorF(s.shape, "GPT-2 tensor '" + s.name + "'");
    if (s.init == Slot::kOne) std::fill(s.tensor->data.begin(), s.tensor->data.end(), 1.0f);
    if (s.init == Slot::kNormal) {
      for (float& v : s.tensor->data) v = static_cast<float>(0.02 * rng.normal());
    }
  }
  return w;
}

Gpt2Weights gpt2_weights_from(SafetensorsFile file, const Gpt2Config& config,
                              const std::string& name) {
  config.validate();
  // Hugging Face's GPT2LMHeadModel saves "transformer.wte.weight"; GPT2Model "wte.weight".
  const bool prefixed = file.tensors.count("transformer.wte.weight") > 0;
  const std::string prefix = prefixed ? "transformer." : "";

  Gpt2Weights w;
  w.config = config;
  std::set<std::string> used;
  for (const Slot& s : slots(w)) {
    const std::string full = prefix + s.name;
    auto it = file.tensors.find(full);
    require(it != file.tensors.end(), name + ": missing tensor '" + full +
                                          "' (a GPT-2 with n_layer " +
                                          std::to_string(config.n_layer) + " needs it)");
    TensorF& t = it->second;
    require(t.shape == s.shape, name + ": tensor '" + full + "' has shape " +
                                    shape_string(t.shape) + ", the config needs " +
                                    shape_string(s.shape));
    const bool finite =
        std::all_of(t.data.begin(), t.data.end(), [](float v) { return std::isfinite(v); });
    require(finite, name + ": tensor '" + full + "' contains NaN or infinity");
    *s.tensor = std::move(t);
    used.insert(full);
  }
  for (const auto& entry : file.tensors) {
    if (used.count(entry.first)) continue;
    const std::string bare = prefixed && entry.first.compare(0, prefix.size(), prefix) == 0
                                 ? entry.first.substr(prefix.size())
                                 : entry.first;
    require(ignored_name(bare), name + ": unexpected tensor '" + entry.first +
                                    "' (not part of a GPT-2 with n_layer " +
                                    std::to_string(config.n_layer) + ")");
  }
  return w;
}

Gpt2Weights load_gpt2_weights(const std::string& path, const Gpt2Config& config) {
  config.validate();
  return gpt2_weights_from(read_safetensors(path), config, path);
}

}  // namespace poslab

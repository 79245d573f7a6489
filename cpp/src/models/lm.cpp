// The pieces GPT-2 and GPT-NeoX share behind `poslab lm`: architecture detection, the
// streaming next-token loss, top-k.
#include "poslab/models/lm.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>

#include "models/lm_config.hpp"

namespace poslab {

LmArchitecture parse_lm_architecture(const std::string& name) {
  return parse_name(kLmArchitectureNames, name, "architecture", "arch");
}

const char* to_string(LmArchitecture architecture) {
  return name_of(kLmArchitectureNames, architecture);
}

LmArchitecture lm_checkpoint_family(LmArchitecture architecture) {
  const bool llama_family =
      architecture == LmArchitecture::kMistral || architecture == LmArchitecture::kQwen2 ||
      architecture == LmArchitecture::kQwen3 || architecture == LmArchitecture::kGemma3 ||
      architecture == LmArchitecture::kSmolLm3;
  return llama_family ? LmArchitecture::kLlama : architecture;
}

std::optional<LmArchitecture> lm_architecture_of_config(const std::string& text,
                                                        const std::string& name) {
  const nlohmann::json json = lm_config::parse_object(text, name, "a model config");
  if (!json.contains("model_type")) return std::nullopt;
  const nlohmann::json& type = json["model_type"];
  for (const Named<LmArchitecture>& entry : kLmArchitectureNames) {
    if (type == entry.name) return entry.value;
  }
  throw Error(name + ": \"model_type\" " + type.dump() + " is not supported (expected " +
              name_list(kLmArchitectureNames) + ")");
}

LmArchitecture lm_architecture_of_checkpoint(const SafetensorsHeader& header,
                                             const std::string& name) {
  for (const SafetensorsEntry& e : header.entries) {
    if (e.name == "gpt_neox.embed_in.weight") return LmArchitecture::kGptNeox;
    if (e.name == "wte.weight" || e.name == "transformer.wte.weight") return LmArchitecture::kGpt2;
    if (e.name == "model.embed_tokens.weight") return LmArchitecture::kLlama;
  }
  throw Error(name +
              ": cannot tell the architecture: no gpt_neox.embed_in.weight (GPT-NeoX), "
              "no wte.weight (GPT-2) and no model.embed_tokens.weight (Llama)");
}

NextTokenLoss::NextTokenLoss(const std::vector<long long>& tokens, std::size_t vocab)
    : vocab_(vocab) {
  require(
      tokens.size() >= 2, "tokens",
      "the loss by position needs at least 2 tokens (got " + std::to_string(tokens.size()) + ")");
  for (std::size_t t = 1; t < tokens.size(); ++t) {
    require(tokens[t] >= 0 && std::size_t(tokens[t]) < vocab, "tokens",
            "token " + std::to_string(tokens[t]) + " at position " + std::to_string(t) +
                " is outside the vocabulary [0, " + std::to_string(vocab) + ")");
    targets_.push_back(std::size_t(tokens[t]));
  }
  max_.assign(targets_.size(), -std::numeric_limits<double>::infinity());
  sum_.assign(targets_.size(), 0.0);
  target_logit_.assign(targets_.size(), std::numeric_limits<double>::quiet_NaN());
}

void NextTokenLoss::add(const float* block, std::size_t ld, std::size_t v0, std::size_t n) {
  require(v0 + n <= vocab_ && ld >= n, "logit columns past the vocabulary");
  columns_ += n;
  if (n == 0) return;
  for (std::size_t t = 0; t < targets_.size(); ++t) {
    const float* row = block + t * ld;
    const double block_max = *std::max_element(row, row + n);
    // Rescale the running sum to the new maximum, then add this block's terms.
    double m = max_[t], sum = sum_[t];
    if (block_max > m) {
      sum *= std::exp(m - block_max);
      m = block_max;
    }
    // exp in float: the arguments are float32 logits minus their row maximum, and the sum is
    // kept in double, so each term's 2^-24 relative error stays in the loss's 7th digit.
    const float mf = static_cast<float>(m);
    double block_sum = 0.0;
    for (std::size_t c = 0; c < n; ++c) block_sum += std::exp(row[c] - mf);
    max_[t] = m;
    sum_[t] = sum + block_sum;
    if (targets_[t] >= v0 && targets_[t] < v0 + n) target_logit_[t] = row[targets_[t] - v0];
  }
}

TensorF NextTokenLoss::losses() const {
  require(columns_ == vocab_, "the loss saw " + std::to_string(columns_) + " logit columns of " +
                                  std::to_string(vocab_));
  TensorF out({targets_.size()}, "losses (T - 1,)");
  for (std::size_t t = 0; t < targets_.size(); ++t) {
    out.data[t] = static_cast<float>(max_[t] + std::log(sum_[t]) - target_logit_[t]);
  }
  return out;
}

TensorF next_token_losses(const TensorF& logits, const std::vector<long long>& tokens) {
  require(logits.ndim() == 2 && logits.dim(0) == tokens.size(), "logits",
          "logits must be (T, V) with T = " + std::to_string(tokens.size()) + " tokens, got " +
              shape_string(logits.shape));
  NextTokenLoss loss(tokens, logits.dim(1));
  loss.add(logits.ptr(), logits.dim(1), 0, logits.dim(1));
  return loss.losses();
}

TopK top_k(const float* logits, std::size_t vocab, std::size_t k) {
  k = std::min(k, vocab);
  TopK out;
  if (vocab == 0) return out;
  const double max = *std::max_element(logits, logits + vocab);
  double sum = 0.0;
  for (std::size_t i = 0; i < vocab; ++i) sum += std::exp(double(logits[i]) - max);
  std::vector<std::int32_t> ids(vocab);
  std::iota(ids.begin(), ids.end(), 0);
  // Highest logit first; equal logits by lower id, so the order is deterministic.
  std::partial_sort(ids.begin(), ids.begin() + std::ptrdiff_t(k), ids.end(),
                    [logits](std::int32_t a, std::int32_t b) {
                      return logits[a] != logits[b] ? logits[a] > logits[b] : a < b;
                    });
  ids.resize(k);
  out.ids = ids;
  for (const std::int32_t id : ids) {
    out.probs.push_back(static_cast<float>(std::exp(double(logits[id]) - max) / sum));
  }
  return out;
}

}  // namespace poslab

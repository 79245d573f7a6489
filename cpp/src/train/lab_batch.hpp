// One sequence as the lab's model takes it, for the passes that read a trained model (the
// lens, position surgery): a batch of one, unscored.
#pragma once

#include <string>
#include <vector>

#include "poslab/base/errors.hpp"
#include "poslab/train/model.hpp"
#include "train/tasks.hpp"

namespace poslab::train {

// One sequence of token ids at positions offset, offset + 1, ... (or positions[t]) as `model`
// takes it; an Abacus model reads its digits' places instead, moved by offset.
inline Batch lab_batch(const ModelConfig& model, const std::vector<long long>& tokens,
                       long long offset, const std::vector<std::int32_t>& positions = {}) {
  const long long vocab = static_cast<long long>(model.vocab_size);
  Batch b;
  b.batch = 1;
  b.length = tokens.size();
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    require(tokens[t] >= 0 && tokens[t] < vocab, "tokens",
            "token id " + std::to_string(tokens[t]) + " is outside the model's vocabulary of " +
                std::to_string(vocab));
    b.tokens.push_back(static_cast<std::int32_t>(tokens[t]));
    b.positions.push_back(positions.empty() ? static_cast<std::int32_t>(offset + (long long)t)
                                            : positions[t]);
  }
  if (model.position == PositionMethod::kAbacus) {
    b.positions = abacus_places(b.tokens, static_cast<std::size_t>(std::max(0LL, offset)));
  }
  b.targets = b.tokens;  // unscored
  b.loss_mask.assign(b.length, 0.0f);
  return b;
}

}  // namespace poslab::train

// The text task (Press et al. 2022, "Train Short, Test Long"): a byte-level language model,
// vocabulary 256 and no tokenizer, trained on random windows of train_len bytes from the first
// 90% of a text and scored on the last 10% in non-overlapping windows of longer contexts, where
// every position counts. Loss is in nats per byte.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "poslab/base/random.hpp"
#include "poslab/train/config.hpp"
#include "poslab/train/model.hpp"
#include "poslab/train/trainer.hpp"

namespace poslab::train {

// The training part (the first ⌊0.9·n⌋ bytes) and the held-out part (the rest).
struct TextSplit {
  std::string_view train, held_out;
};
TextSplit split_text(const std::string& text);

// Refuses (field text) a missing text, or one whose parts are too short: a training window
// needs train_len + 1 bytes, the longest context test_len + 1 held-out bytes.
void check_text(const TrainConfig& config);

// The windows of `context` bytes one evaluation batch runs together: as many as keep the
// attention weights of a layer near 4 Mi elements per head (64 at most, 1 at 2048 and past).
std::size_t text_windows_per_batch(std::size_t context);

// The contexts evaluated: train_len·2^k while at most test_len, then test_len itself.
std::vector<std::size_t> text_contexts(const TrainConfig& config);

// B random windows of the training part: tokens w[0..N), targets w[1..N], every position
// scored; positions 0..N−1, or sorted samples from [0, MAX) when randomised.
Batch text_training_batch(const TrainConfig& config, Rng& rng);

// The mean loss per byte at each position over the first `windows` non-overlapping windows of
// `context` bytes of `part` (positions 0..context−1, or sorted samples from [0, random_max)
// drawn from `rng`). Error (field text) when `part` has fewer than windows·context + 1 bytes.
std::vector<double> mean_loss_by_position(Model& model, const Parameters& params,
                                          std::string_view part, std::size_t context,
                                          std::size_t windows, std::size_t random_max, Rng& rng);

// The loss per byte at every context of text_contexts(); at the longest, by position too.
// For RoPE, again with each of the core's scalings (linear, ntk, dynamic, yarn) at factor
// context / train_len, original length train_len, no fine-tuning. `model` is left unscaled.
TextEval evaluate_text(Model& model, const Parameters& params, const TrainConfig& config);

}  // namespace poslab::train

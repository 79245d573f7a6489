// The lab's synthetic tasks and the batches made of them: `BOS x SEP y EOS`, right-padded
// with PAD, targets the next token, the loss mask over y and EOS, positions 0..T−1 or a
// sorted random subset of [0, MAX) (Ruoss et al. 2023).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "poslab/base/random.hpp"
#include "poslab/train/config.hpp"
#include "poslab/train/model.hpp"

namespace poslab::train {

// One rendered example: its tokens and the index of the first answer token (after SEP).
struct Sequence {
  std::vector<std::int32_t> tokens;
  std::size_t answer_start = 0;
};

// An example of `length` (digits of each operand for addition), drawn from `rng`:
// copy x SEP x, reverse x SEP reverse(x), sort (digits) x SEP sorted(x), addition
// a + b SEP a+b with every number written least-significant digit first, in `format`. The draws
// from `rng` do not depend on the format.
struct AdditionFormat {
  std::size_t pad_to = 0;       // operands zero-padded to this many digits (pad_operands)
  std::size_t index_hints = 0;  // K: each digit after its hint (index_hints); 0: none
  std::size_t hint_start = 0;   // the least significant digits' hint, in [0, K − digits − 1]
};
Sequence sample_sequence(Task task, std::size_t length, Rng& rng,
                         const AdditionFormat& format = {});

// Uniform in [0, n), n > 0.
std::size_t below(Rng& rng, std::size_t n);

// `count` sorted distinct positions from [0, max) (Floyd's sampling).
std::vector<std::int32_t> sample_positions(std::size_t count, std::size_t max, Rng& rng);

// An addition's coupled positions (TrainConfig::coupled_positions), as Cho et al.'s code gives
// them: 0 for BOS and EOS, `start` (≥ 1) for '+' and SEP, start + 1 + i for the i-th digit of
// a, of b and of the sum.
std::vector<std::int32_t> coupled_positions(const Sequence& addition, std::size_t start);

// Abacus's positions (McLeish et al. 2024) of `tokens`: each digit's place in its run of
// digits, offset + 1, offset + 2, ...; 0 for every other token. The lab's digits are the
// symbols 0..9 of every synthetic task, and numbers are written least-significant digit first,
// so the digits of a, of b and of the sum that share a significance share a place.
std::vector<std::int32_t> abacus_places(const std::vector<std::int32_t>& tokens,
                                        std::size_t offset);

// How a batch's positions are chosen: by index; sorted samples from [0, random_max); coupled,
// with a start drawn from [1, coupled_max − n − 2] (sample_start) or 1; or Abacus's places,
// with an offset drawn from [0, abacus_max_offset] per sequence (sample_start) or 0.
struct PositionRule {
  std::size_t random_max = 0;
  std::size_t coupled_max = 0;
  bool abacus = false;
  std::size_t abacus_max_offset = 0;
  bool sample_start = false;
};

// A run's addition format for `length` digits: operands padded to N with pad_operands; with
// index hints, their start drawn from `rng` in training (`draw`), 0 in evaluation.
AdditionFormat addition_format(const TrainConfig& config, std::size_t length, Rng& rng, bool draw);

// The rule of a run's training (sampled starts and offsets) or evaluation batches.
PositionRule position_rule(const TrainConfig& config, bool training);

// The batch of `sequences`: padded to the longest, targets and loss mask as above, positions
// by `rule` (padding repeats the last position: it follows EOS, so the causal mask keeps it
// from every scored token).
Batch make_batch(const std::vector<Sequence>& sequences, const Vocabulary& vocab,
                 const PositionRule& rule, Rng& rng);

// A training batch: lengths uniform in [1, N], positions randomised when the run is (the text
// task's: text_training_batch).
Batch training_batch(const TrainConfig& config, Rng& rng);

// The fixed evaluation set of `length`: eval_examples sequences drawn from a stream seeded by
// the run's seed and the length (the same for every method, so methods see the same tests).
std::vector<Sequence> evaluation_sequences(const TrainConfig& config, std::size_t length);
Batch evaluation_batch(const TrainConfig& config, std::size_t length,
                       const std::vector<Sequence>& sequences);

}  // namespace poslab::train

// A training run of the lab: task sampling, AdamW with warm-up and cosine decay, gradient
// clipping, evaluation by length, and the files a run writes (result.json, the checkpoint,
// the --dump set). The CLI's `poslab train` and the training wasm module both drive this
// class, so a run is the same run in every build (bit for bit on one build, per seed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "poslab/base/random.hpp"
#include "poslab/base/tensor.hpp"
#include "poslab/io/stored_tensor.hpp"
#include "poslab/train/config.hpp"
#include "poslab/train/model.hpp"

namespace poslab::train {

// Exact match and per-token accuracy by evaluated length. An answer is y then EOS after SEP.
// Exact match by greedy decoding equals "every answer token is the argmax given the true
// prefix", so both are computed from one teacher-forced forward pass per example; the
// per-token accuracy is that argmax check at each answer position.
// The text task's: loss in nats per byte at each evaluated context (empty where a learned
// table has no row), by position at the longest context, and for RoPE the same rows again
// under each inference-time scaling (train/text.hpp).
struct ContextLoss {
  std::size_t context = 0;
  std::optional<double> loss;
};
struct TextEval {
  std::vector<ContextLoss> by_context;
  std::vector<double> loss_by_position;  // at the longest context; empty where it has no loss
  std::vector<std::pair<std::string, std::vector<ContextLoss>>> with_scaling;
};

struct EvalResult {
  std::vector<double> accuracy_by_length;                       // [L−1]: exact match, L = 1..M
  std::vector<std::vector<double>> token_accuracy_by_position;  // [L−1][answer position]
  EvalPositions positions = EvalPositions::kIndex;
  std::optional<TextEval> text;  // the text task's (its accuracies are empty)
};

// One example rendered for the attention view: its tokens (BOS x SEP y EOS), the positions the
// model saw, the model's argmax prediction at each position and the maps (L, H, T, T).
struct AttentionExample {
  std::vector<std::int32_t> tokens;
  std::vector<std::int32_t> positions;
  std::vector<std::int32_t> predictions;
  std::size_t answer_start = 0;  // index of the first answer token (just after SEP)
  TensorF maps;
};

class Trainer {
 public:
  explicit Trainer(TrainConfig config);  // validates, lays out and initialises the model

  const TrainConfig& config() const { return config_; }
  const ModelConfig& model_config() const { return model_.config(); }

  // One optimizer step on a fresh batch; returns that batch's loss (before the update).
  double step();
  std::size_t steps_done() const { return steps_done_; }
  const std::vector<std::pair<std::size_t, double>>& loss_curve() const { return loss_curve_; }
  double learning_rate(std::size_t step) const;  // the schedule at `step` (0-based)

  EvalResult evaluate();
  // Example `index` (0-based, of eval_examples) of length `length` from the evaluation set.
  AttentionExample attention_example(std::size_t length, std::size_t index);

  // result.json: config, loss_curve, accuracy_by_length, token_accuracy_by_position,
  // eval_positions, steps_done, wall_time_s, tokens_per_s, flops and metrics (metrics.hpp).
  std::string result_json(const EvalResult& eval, double wall_time_s) const;
  // config.json of a dump: the model's shape, the task and its special token ids.
  std::string config_json() const;
  // The .safetensors bytes of the weights, the config in __metadata__ (read_lab_checkpoint).
  std::string checkpoint(StoredDType dtype = StoredDType::kF32) const;  // F32, or F16 (rounded)
  // The --steps 0 --dump set, file name → bytes: config.json, weights.safetensors, tokens.npy,
  // targets.npy, positions.npy, loss_mask.npy, loss.json, grads.safetensors (for the batch the
  // next step would train on).
  std::map<std::string, std::string> dump();

  const Parameters& parameters() const { return params_; }
  // The next training batch (what step() would use), without consuming it.
  Batch peek_batch() const;
  // Training tokens processed so far (Σ B·T) and the floating-point operations spent.
  double tokens_seen() const { return tokens_seen_; }
  double flops_spent() const { return flops_spent_; }

 private:
  TrainConfig config_;
  Model model_;
  Parameters params_, grads_, adam_m_, adam_v_;
  Rng data_rng_;  // the training data stream, apart from the weights' seed
  std::size_t steps_done_ = 0;
  std::vector<std::pair<std::size_t, double>> loss_curve_;
  double tokens_seen_ = 0, flops_spent_ = 0;
};

}  // namespace poslab::train

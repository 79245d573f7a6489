#include "train/text.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "poslab/base/errors.hpp"
#include "poslab/positions/rope.hpp"
#include "train/tasks.hpp"

namespace poslab::train {

namespace {

// One window of `context` inputs and their next bytes, starting at `start` of `part`.
void add_window(Batch& b, std::string_view part, std::size_t start, std::size_t context,
                const std::vector<std::int32_t>& positions) {
  for (std::size_t t = 0; t < context; ++t) {
    b.tokens.push_back(static_cast<unsigned char>(part[start + t]));
    b.targets.push_back(static_cast<unsigned char>(part[start + t + 1]));
    b.positions.push_back(positions[t]);
    b.loss_mask.push_back(1.0f);
  }
}

// 0..context−1, or sorted samples from [0, max) when max > 0.
std::vector<std::int32_t> window_positions(std::size_t context, std::size_t max, Rng& rng) {
  if (max > 0) return sample_positions(context, max, rng);
  std::vector<std::int32_t> pos(context);
  for (std::size_t t = 0; t < context; ++t) pos[t] = static_cast<std::int32_t>(t);
  return pos;
}

// Σ −log softmax(z)[target] of each scored row of `logits` (B, T, 256), added by position.
void add_losses(const TensorF& logits, const Batch& b, std::vector<double>& by_position) {
  const std::size_t V = logits.shape[2];
  for (std::size_t r = 0; r < b.batch * b.length; ++r) {
    const float* z = logits.data.data() + r * V;
    const double top = *std::max_element(z, z + V);
    double sum = 0;
    for (std::size_t v = 0; v < V; ++v) sum += std::exp(double(z[v]) - top);
    by_position[r % b.length] += top + std::log(sum) - double(z[b.targets[r]]);
  }
}

struct ContextResult {
  double loss = 0;
  std::vector<double> by_position;
};

// The mean loss per byte over every window of `context` in the held-out part, and by position.
ContextResult context_loss(Model& model, const Parameters& params, const TrainConfig& c,
                           std::size_t context) {
  const std::string_view held = split_text(*c.text).held_out;
  const std::size_t max =
      eval_positions_of(c) == EvalPositions::kRandom ? c.randomized_positions : 0;
  Rng rng(c.seed * 0xD1B54A32D192ED03ull + 0x7E47u + context);
  ContextResult result;
  result.by_position =
      mean_loss_by_position(model, params, held, context, (held.size() - 1) / context, max, rng);
  for (const double x : result.by_position) result.loss += x;
  result.loss /= double(context);
  return result;
}

}  // namespace

std::vector<double> mean_loss_by_position(Model& model, const Parameters& params,
                                          std::string_view part, std::size_t context,
                                          std::size_t windows, std::size_t random_max, Rng& rng) {
  require(windows >= 1 && windows * context < part.size(), "text",
          "the text needs at least " + std::to_string(windows * context + 1) + " bytes, got " +
              std::to_string(part.size()));
  const std::size_t per_batch = text_windows_per_batch(context);
  std::vector<double> by_position(context, 0.0);
  for (std::size_t first = 0; first < windows; first += per_batch) {
    Batch b;
    b.batch = std::min(per_batch, windows - first);
    b.length = context;
    for (std::size_t w = first; w < first + b.batch; ++w) {
      add_window(b, part, w * context, context, window_positions(context, random_max, rng));
    }
    add_losses(model.logits(params, b), b, by_position);
  }
  for (double& x : by_position) x /= double(windows);
  return by_position;
}

TextSplit split_text(const std::string& text) {
  const std::size_t train = text.size() - text.size() / 10;  // the last ⌊n/10⌋ bytes are held out
  return {std::string_view(text).substr(0, train), std::string_view(text).substr(train)};
}

void check_text(const TrainConfig& c) {
  require(c.text != nullptr && !c.text->empty(), "text", "the text task needs a text to train on");
  const TextSplit parts = split_text(*c.text);
  const std::size_t m = test_len_of(c);
  require(parts.train.size() > c.train_len, "text",
          "the text's training part (the first 90%, " + std::to_string(parts.train.size()) +
              " bytes) must be longer than the training length " + std::to_string(c.train_len));
  require(parts.held_out.size() > m, "text",
          "the text's held-out part (the last 10%, " + std::to_string(parts.held_out.size()) +
              " bytes) must be longer than the test context " + std::to_string(m) +
              ": give a text of at least " + std::to_string(10 * (m + 1)) +
              " bytes or a shorter test length");
}

std::size_t text_windows_per_batch(std::size_t context) {
  const std::size_t budget = std::size_t(1) << 22;
  return std::clamp<std::size_t>(budget / std::max<std::size_t>(1, context * context), 1, 64);
}

std::vector<std::size_t> text_contexts(const TrainConfig& c) {
  const std::size_t m = test_len_of(c);
  std::vector<std::size_t> contexts;
  for (std::size_t n = c.train_len; n <= m; n *= 2) contexts.push_back(n);
  if (contexts.back() != m) contexts.push_back(m);
  return contexts;
}

Batch text_training_batch(const TrainConfig& c, Rng& rng) {
  const std::string_view train = split_text(*c.text).train;
  const std::size_t N = c.train_len;
  Batch b;
  b.batch = c.batch;
  b.length = N;
  for (std::size_t i = 0; i < c.batch; ++i) {
    const std::size_t start = below(rng, train.size() - N);
    add_window(b, train, start, N, window_positions(N, c.randomized_positions, rng));
  }
  return b;
}

TextEval evaluate_text(Model& model, const Parameters& params, const TrainConfig& c) {
  TextEval eval;
  const std::vector<std::size_t> contexts = text_contexts(c);
  // A learned table has rows for the positions it was trained on only.
  const std::size_t rows = has_learned_table(model.config().position)
                               ? model.config().n_positions
                               : static_cast<std::size_t>(-1);
  const auto reaches = [&](std::size_t context) {
    return eval_positions_of(c) == EvalPositions::kRandom || context <= rows;
  };
  for (const std::size_t context : contexts) {
    if (!reaches(context)) {
      eval.by_context.push_back({context, std::nullopt});
      continue;
    }
    ContextResult r = context_loss(model, params, c, context);
    eval.by_context.push_back({context, r.loss});
    if (context == contexts.back()) eval.loss_by_position = std::move(r.by_position);
  }

  if (c.position != PositionMethod::kRope) return eval;
  for (const RopeScaling scaling :
       {RopeScaling::kLinear, RopeScaling::kNtk, RopeScaling::kDynamic, RopeScaling::kYarn}) {
    std::vector<ContextLoss> rows_of_scaling;
    for (std::size_t k = 0; k < contexts.size(); ++k) {
      const std::size_t context = contexts[k];
      if (context <= c.train_len) {  // factor 1: every scaling is the plain rotation
        rows_of_scaling.push_back(eval.by_context[k]);
        continue;
      }
      RopeOptions rope;
      rope.scaling = scaling;
      rope.factor = double(context) / double(c.train_len);
      rope.original_length = static_cast<long long>(c.train_len);
      model.set_rope_scaling(rope);
      rows_of_scaling.push_back({context, context_loss(model, params, c, context).loss});
    }
    eval.with_scaling.emplace_back(to_string(scaling), std::move(rows_of_scaling));
  }
  model.set_rope_scaling(RopeOptions{});
  return eval;
}

}  // namespace poslab::train

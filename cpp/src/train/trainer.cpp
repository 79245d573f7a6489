// A training run: the data stream, AdamW with warm-up and cosine decay, clipping, the
// evaluation by length and the files a run writes.
#include "poslab/train/trainer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "poslab/base/format.hpp"
#include "poslab/io/npy.hpp"
#include "poslab/io/safetensors.hpp"
#include "poslab/train/metrics.hpp"
#include "train/tasks.hpp"
#include "train/text.hpp"

namespace poslab::train {

namespace {

constexpr double kPi = 3.14159265358979323846;

// The data stream's seed, apart from the weights' seed so the two never share draws.
std::uint64_t data_seed(std::uint64_t seed) { return seed * 0xBF58476D1CE4E5B9ull + 0xDA7Au; }

nlohmann::ordered_json model_json(const TrainConfig& c, const ModelConfig& m) {
  const Vocabulary v = vocabulary(c.task, c.index_hints);
  nlohmann::ordered_json j;
  j["n_layer"] = m.n_layer;
  j["n_embd"] = m.n_embd;
  j["n_head"] = m.n_head;
  j["n_inner"] = m.n_inner;
  j["vocab_size"] = m.vocab_size;
  j["n_positions"] = m.n_positions;
  j["layer_norm_epsilon"] = m.layer_norm_epsilon;
  j["position"] = name_of(kPositionMethodNames, m.position);
  j["base"] = m.base;
  j["keep_fraction"] = m.keep_fraction;
  j["embed_scale"] = m.embed_scale;
  j["t5_num_buckets"] = m.t5_num_buckets;
  j["t5_max_distance"] = m.t5_max_distance;
  j["sinks"] = m.sinks;
  j["nope_every"] = m.nope_every;
  j["attn_floor_scale"] = m.attn_floor_scale;
  j["attn_scale"] = m.attn_scale;
  j["cope_npos_max"] = m.cope_npos_max;
  if (m.position == PositionMethod::kAbacus) j["abacus_max_offset"] = m.abacus_max_offset;
  j["randomized_positions"] = c.randomized_positions;
  j["coupled_positions"] = c.coupled_positions;
  if (c.pad_operands) j["pad_operands"] = true;
  if (c.index_hints > 0) j["index_hints"] = c.index_hints;
  j["task"] = name_of(kTaskNames, c.task);
  j["train_len"] = c.train_len;
  j["symbols"] = v.symbols;
  if (!v.specials) return j;  // text: the bytes are the whole vocabulary
  j["bos_token_id"] = v.bos;
  j["sep_token_id"] = v.sep;
  j["eos_token_id"] = v.eos;
  j["pad_token_id"] = v.pad;
  return j;
}

nlohmann::ordered_json run_json(const TrainConfig& c) {
  nlohmann::ordered_json j;
  j["task"] = name_of(kTaskNames, c.task);
  j["position"] = name_of(kPositionMethodNames, c.position);
  j["randomized_positions"] = c.randomized_positions;
  j["coupled_positions"] = c.coupled_positions;
  // Absent when off: older results read the same.
  if (c.pad_operands) j["pad_operands"] = true;
  if (c.index_hints > 0) j["index_hints"] = c.index_hints;
  if (c.position == PositionMethod::kAbacus) j["abacus_max_offset"] = abacus_max_offset_of(c);
  if (c.position == PositionMethod::kFox) j["fox_decay_max"] = fox_decay_max_of(c);
  j["train_len"] = c.train_len;
  j["test_len"] = test_len_of(c);
  j["layers"] = c.layers;
  j["width"] = c.width;
  j["heads"] = c.heads;
  j["batch"] = c.batch;
  j["steps"] = c.steps;
  j["lr"] = c.lr;
  j["warmup_steps"] = std::min(c.warmup_steps, c.steps / 10);
  j["seed"] = c.seed;
  j["threads"] = c.threads;
  j["embed_scale"] = c.embed_scale;
  j["eval_positions"] = name_of(kEvalPositionsNames, eval_positions_of(c));
  j["eval_examples"] = c.eval_examples;
  j["beta1"] = c.beta1;
  j["beta2"] = c.beta2;
  j["adam_eps"] = c.adam_eps;
  j["weight_decay"] = c.weight_decay;
  j["clip_norm"] = c.clip_norm;
  return j;
}

std::string safetensors_of(const Parameters& p, const std::map<std::string, std::string>& meta,
                           StoredDType dtype = StoredDType::kF32) {
  std::vector<TensorF> tensors;
  tensors.reserve(p.info().size());
  for (const ParamInfo& info : p.info()) {
    const float* src = p.data() + info.offset;
    tensors.emplace_back(info.shape, std::vector<float>(src, src + info.numel));
  }
  std::vector<std::pair<std::string, const TensorF*>> named;
  for (std::size_t i = 0; i < tensors.size(); ++i)
    named.emplace_back(p.info()[i].name, &tensors[i]);
  return encode_safetensors(named, dtype, meta);
}

// {"context", "loss", "perplexity"} rows; null loss and perplexity where there is none.
nlohmann::ordered_json context_rows(const std::vector<ContextLoss>& rows) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const ContextLoss& row : rows) {
    nlohmann::ordered_json j;
    j["context"] = row.context;
    j["loss"] = row.loss ? nlohmann::ordered_json(*row.loss) : nlohmann::ordered_json(nullptr);
    j["perplexity"] =
        row.loss ? nlohmann::ordered_json(std::exp(*row.loss)) : nlohmann::ordered_json(nullptr);
    list.push_back(j);
  }
  return list;
}

TensorI int_tensor(const Batch& b, const std::vector<std::int32_t>& values) {
  return TensorI({b.batch, b.length}, values);
}

}  // namespace

Trainer::Trainer(TrainConfig config)
    : config_((validate(config), check_memory(config), std::move(config))),
      model_(train::model_config(config_), config_.threads),
      params_(model_.config()),
      grads_(model_.config()),
      adam_m_(model_.config()),
      adam_v_(model_.config()),
      data_rng_(data_seed(config_.seed)) {
  init_parameters(params_, config_.seed, fox_decay_max_of(config_));
  require_embedding_scale_fits(config_.embed_scale, params_, model_.config().n_embd);
}

double Trainer::learning_rate(std::size_t step) const {
  const std::size_t warm = std::min(config_.warmup_steps, config_.steps / 10);
  if (step < warm) return config_.lr * static_cast<double>(step + 1) / static_cast<double>(warm);
  const double span = static_cast<double>(std::max<std::size_t>(1, config_.steps - warm));
  const double progress = std::min(1.0, static_cast<double>(step - warm) / span);
  return config_.lr * 0.5 * (1.0 + std::cos(kPi * progress));
}

Batch Trainer::peek_batch() const {
  Rng copy = data_rng_;
  return training_batch(config_, copy);
}

double Trainer::step() {
  require(steps_done_ < config_.steps, "steps",
          "the run has done its " + std::to_string(config_.steps) + " steps");
  const Batch batch = training_batch(config_, data_rng_);
  const double loss = model_.forward_backward(params_, batch, grads_);
  // Before the first update the weights are the initial ones: only the embedding scale
  // (and nothing the learning rate did) can have made the loss overflow.
  require(std::isfinite(loss) || steps_done_ > 0, "embedScale",
          "the loss is not finite at step 0, before any update: lower the embedding scale (" +
              format_number(config_.embed_scale) + ")");
  require(std::isfinite(loss), "lr",
          "the loss is no longer finite at step " + std::to_string(steps_done_) +
              ": lower the learning rate");

  // Global gradient-norm clipping.
  double sq = 0;
  for (std::size_t i = 0; i < grads_.size(); ++i) sq += double(grads_.data()[i]) * grads_.data()[i];
  const double norm = std::sqrt(sq);
  const double clip = norm > config_.clip_norm ? config_.clip_norm / norm : 1.0;

  // AdamW (Loshchilov & Hutter): decoupled decay on the matrices, bias-corrected moments.
  const double lr = learning_rate(steps_done_);
  const double t = static_cast<double>(steps_done_ + 1);
  const double c1 = 1.0 - std::pow(config_.beta1, t), c2 = 1.0 - std::pow(config_.beta2, t);
  const float b1 = static_cast<float>(config_.beta1), b2 = static_cast<float>(config_.beta2);
  for (const ParamInfo& info : params_.info()) {
    float* p = params_.data() + info.offset;
    float* m = adam_m_.data() + info.offset;
    float* v = adam_v_.data() + info.offset;
    const float* g = grads_.data() + info.offset;
    const float decay = info.decay ? static_cast<float>(1.0 - lr * config_.weight_decay) : 1.0f;
    for (std::size_t i = 0; i < info.numel; ++i) {
      const float gi = static_cast<float>(g[i] * clip);
      m[i] = b1 * m[i] + (1 - b1) * gi;
      v[i] = b2 * v[i] + (1 - b2) * gi * gi;
      const double update = (m[i] / c1) / (std::sqrt(v[i] / c2) + config_.adam_eps);
      p[i] = static_cast<float>(p[i] * decay - lr * update);
    }
  }
  project_parameters(params_);
  loss_curve_.emplace_back(steps_done_, loss);
  ++steps_done_;
  tokens_seen_ += static_cast<double>(batch.batch * batch.length);
  flops_spent_ += model_.flops_per_step(batch.batch, batch.length);
  return loss;
}

EvalResult Trainer::evaluate() {
  EvalResult r;
  r.positions = eval_positions_of(config_);
  if (config_.task == Task::kText) {
    r.text = evaluate_text(model_, params_, config_);
    return r;
  }
  const std::size_t M = test_len_of(config_);
  for (std::size_t length = 1; length <= M; ++length) {
    const std::vector<Sequence> seqs = evaluation_sequences(config_, length);
    const Batch batch = evaluation_batch(config_, length, seqs);
    const TensorF logits = model_.logits(params_, batch);
    const std::size_t V = model_.config().vocab_size, T = batch.length;
    const std::size_t answer = T - seqs[0].answer_start;  // y and EOS
    std::vector<double> right(answer, 0.0);
    std::size_t exact = 0;
    for (std::size_t b = 0; b < batch.batch; ++b) {
      bool all = true;
      for (std::size_t k = 0; k < answer; ++k) {
        const std::size_t t = seqs[b].answer_start + k;  // predicted from row t − 1
        const float* z = logits.data.data() + ((b * T) + t - 1) * V;
        const auto best = static_cast<std::int32_t>(std::max_element(z, z + V) - z);
        const bool ok = best == seqs[b].tokens[t];
        right[k] += ok;
        all = all && ok;
      }
      exact += all;
    }
    for (double& x : right) x /= static_cast<double>(batch.batch);
    r.accuracy_by_length.push_back(static_cast<double>(exact) / static_cast<double>(batch.batch));
    r.token_accuracy_by_position.push_back(std::move(right));
  }
  return r;
}

AttentionExample Trainer::attention_example(std::size_t length, std::size_t index) {
  require(config_.task != Task::kText, "task",
          "the text task has no examples by length: its evaluation is by context");
  require(length >= 1 && length <= test_len_of(config_), "length",
          "the example length must be in [1, " + std::to_string(test_len_of(config_)) + "]");
  require(index < config_.eval_examples, "index",
          "the example index must be below " + std::to_string(config_.eval_examples));
  const std::vector<Sequence> seqs = evaluation_sequences(config_, length);
  const Batch all = evaluation_batch(config_, length, seqs);
  Batch one;
  one.batch = 1;
  one.length = all.length;
  const auto row = [&](const std::vector<std::int32_t>& v) {
    return std::vector<std::int32_t>(v.begin() + static_cast<long>(index * all.length),
                                     v.begin() + static_cast<long>((index + 1) * all.length));
  };
  one.tokens = row(all.tokens);
  one.targets = row(all.targets);
  one.positions = row(all.positions);
  one.loss_mask.assign(all.length, 0.0f);

  AttentionExample ex;
  ex.tokens = one.tokens;
  ex.positions = one.positions;
  ex.answer_start = seqs[index].answer_start;
  const TensorF logits = model_.logits(params_, one);
  const std::size_t V = model_.config().vocab_size;
  for (std::size_t t = 0; t < one.length; ++t) {
    const float* z = logits.data.data() + t * V;
    ex.predictions.push_back(static_cast<std::int32_t>(std::max_element(z, z + V) - z));
  }
  ex.maps = model_.attention_maps(params_, one, 0);
  return ex;
}

std::string Trainer::config_json() const { return model_json(config_, model_.config()).dump(2); }

std::string Trainer::result_json(const EvalResult& eval, double wall_time_s) const {
  nlohmann::ordered_json j;
  nlohmann::ordered_json config = run_json(config_);
  config["model"] = model_json(config_, model_.config());
  j["config"] = config;
  nlohmann::ordered_json curve = nlohmann::ordered_json::array();
  for (const auto& [step, loss] : loss_curve_) curve.push_back({step, loss});
  j["loss_curve"] = curve;
  nlohmann::ordered_json acc, tokens;
  for (std::size_t L = 1; L <= eval.accuracy_by_length.size(); ++L) {
    acc[std::to_string(L)] = eval.accuracy_by_length[L - 1];
    tokens[std::to_string(L)] = eval.token_accuracy_by_position[L - 1];
  }
  j["accuracy_by_length"] = acc;
  j["token_accuracy_by_position"] = tokens;
  if (eval.text) {
    j["perplexity_by_context"] = context_rows(eval.text->by_context);
    nlohmann::ordered_json by_position = nullptr;
    if (!eval.text->loss_by_position.empty()) by_position = eval.text->loss_by_position;
    j["loss_by_position"] = by_position;
    if (!eval.text->with_scaling.empty()) {
      nlohmann::ordered_json scaled;
      for (const auto& [name, rows] : eval.text->with_scaling) scaled[name] = context_rows(rows);
      j["perplexity_by_context_with_scaling"] = scaled;
    }
  }
  j["eval_positions"] = name_of(kEvalPositionsNames, eval.positions);
  j["steps_done"] = steps_done_;
  j["wall_time_s"] = wall_time_s;
  j["tokens_per_s"] = wall_time_s > 0 ? tokens_seen_ / wall_time_s : 0.0;
  j["flops"] = flops_spent_;
  nlohmann::ordered_json metrics;
  for (const auto& [name, value] : lab_metrics(eval, config_.train_len)) {
    metrics[name] = value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
  }
  j["metrics"] = metrics;
  return j.dump(1);
}

std::string Trainer::checkpoint(StoredDType dtype) const {
  return safetensors_of(params_, {{"format", "poslab-train"}, {"config", config_json()}}, dtype);
}

std::map<std::string, std::string> Trainer::dump() {
  const Batch batch = peek_batch();
  Parameters grads(model_.config());
  const double loss = model_.forward_backward(params_, batch, grads);
  std::map<std::string, std::string> files;
  files["config.json"] = config_json() + "\n";
  files["weights.safetensors"] = safetensors_of(params_, {{"format", "poslab-train"}});
  files["grads.safetensors"] = safetensors_of(grads, {{"format", "poslab-train"}});
  files["tokens.npy"] = encode_npy(int_tensor(batch, batch.tokens));
  files["targets.npy"] = encode_npy(int_tensor(batch, batch.targets));
  files["positions.npy"] = encode_npy(int_tensor(batch, batch.positions));
  files["loss_mask.npy"] = encode_npy(TensorF({batch.batch, batch.length}, batch.loss_mask));
  nlohmann::ordered_json l;
  l["loss"] = loss;
  files["loss.json"] = l.dump() + "\n";
  return files;
}

}  // namespace poslab::train

// Parameters' layout and initialisation, and Model over Engine<float>.
#include "poslab/train/model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#ifndef __EMSCRIPTEN__
#include <thread>
#endif

#include "base/strings.hpp"
#include "poslab/base/format.hpp"
#include "poslab/base/random.hpp"
#include "train/engine.hpp"

namespace poslab::train {

std::vector<ParamInfo> parameter_layout(const ModelConfig& c) {
  std::vector<ParamInfo> info;
  const std::size_t E = c.n_embd, I = c.n_inner;
  auto add = [&](std::string name, Shape shape, bool decay,
                 const score_bias::ParameterTensor* term = nullptr) {
    ParamInfo p;
    p.name = std::move(name);
    p.numel = checked_numel(shape, p.name);
    p.shape = std::move(shape);
    p.offset = info.empty() ? 0 : info.back().offset + info.back().numel;
    p.decay = decay;
    p.term = term;
    info.push_back(std::move(p));
  };
  // A score bias's tensors (score_bias.hpp): the shared ones before the layers, each layer's
  // after its MLP.
  const score_bias::ParameterTensors term = score_bias::parameter_tensors(c.position);
  const auto add_term = [&](bool per_layer, const std::string& prefix) {
    for (const score_bias::ParameterTensor& t : term) {
      if (t.per_layer != per_layer) continue;
      const std::size_t rows = score_bias::tensor_size(t.rows, c.n_head, c.t5_num_buckets);
      const std::size_t cols = score_bias::tensor_size(t.cols, c.n_head, c.t5_num_buckets);
      add(prefix + t.name, t.matrix ? Shape{rows, cols} : Shape{rows * cols}, false, &t);
    }
  };
  add("wte.weight", {c.vocab_size, E}, false);
  if (has_learned_table(c.position)) add("wpe.weight", {c.n_positions, E}, false);
  add_term(false, "");
  for (std::size_t l = 0; l < c.n_layer; ++l) {
    const std::string h = "h." + std::to_string(l) + ".";
    add(h + "ln_1.weight", {E}, false);
    add(h + "ln_1.bias", {E}, false);
    add(h + "attn.c_attn.weight", {E, 3 * E}, true);
    add(h + "attn.c_attn.bias", {3 * E}, false);
    add(h + "attn.c_proj.weight", {E, E}, true);
    add(h + "attn.c_proj.bias", {E}, false);
    add(h + "ln_2.weight", {E}, false);
    add(h + "ln_2.bias", {E}, false);
    add(h + "mlp.c_fc.weight", {E, I}, true);
    add(h + "mlp.c_fc.bias", {I}, false);
    add(h + "mlp.c_proj.weight", {I, E}, true);
    add(h + "mlp.c_proj.bias", {E}, false);
    add_term(true, h + "attn.");
    if (c.position == PositionMethod::kCope) {
      // CoPE's position embeddings, the authors' pos_emb (1, head_dim, npos_max), one per layer
      // shared by its heads.
      add(h + "attn.cope_pos_emb", {E / c.n_head, c.cope_npos_max}, false);
    }
    if (c.position == PositionMethod::kFox) {
      // FoX's forget gate, nn.Linear(width, H) as the authors' fgate_proj: its weight decays
      // as the other projections' do.
      add(h + "attn.fox_w", {c.n_head, E}, true);
      add(h + "attn.fox_b", {c.n_head}, false);
    }
    if (c.sinks) add(h + "attn.sinks", {c.n_head}, false);
  }
  add("ln_f.weight", {E}, false);
  add("ln_f.bias", {E}, false);
  return info;
}

std::vector<std::string> score_bias_tensors(const ModelConfig& c, std::size_t layer) {
  std::vector<std::string> names;
  for (const score_bias::ParameterTensor& t : score_bias::parameter_tensors(c.position)) {
    names.push_back((t.per_layer ? "h." + std::to_string(layer) + ".attn." : "") + t.name);
  }
  return names;
}

std::size_t score_bias_parameter_count(const ModelConfig& c) {
  std::size_t count = 0;
  for (const score_bias::ParameterTensor& t : score_bias::parameter_tensors(c.position)) {
    count += score_bias::tensor_numel(t, c.n_head, c.t5_num_buckets);
  }
  return count;
}

Parameters::Parameters(const ModelConfig& c) : info_(parameter_layout(c)) {
  data_.assign(checked_numel({info_.back().offset + info_.back().numel}, "parameters"), 0.0f);
}

const ParamInfo& Parameters::find(const std::string& name) const {
  for (const ParamInfo& p : info_) {
    if (p.name == name) return p;
  }
  throw Error("the model has no parameter '" + name + "'");
}

using detail::ends_with;

void require_embedding_scale_fits(double scale, const Parameters& params, std::size_t width) {
  // The bound keeps the first LayerNorm's sum of squares a factor 16 below FLT_MAX, room for
  // the position signal added first; the option is blamed before a step rather than the
  // learning rate after one.
  const ParamInfo& wte = params.find("wte.weight");
  double largest = 0;
  for (std::size_t i = 0; i < wte.numel; ++i) {
    largest = std::max(largest, std::abs(double(params.data()[wte.offset + i])));
  }
  const double bound = std::sqrt(double(std::numeric_limits<float>::max()) / double(width)) / 4;
  require(std::isfinite(scale) && scale * largest <= bound, "embedScale",
          "the embedding scale " + format_number(scale) + " overflows float32: s·wte reaches " +
              format_number(scale * largest) + " and the first LayerNorm squares it; use at most " +
              format_number(std::floor(bound / std::max(largest, 1e-30))));
}

double fox_gate_bias(std::size_t head, std::size_t heads, double decay_max) {
  if (decay_max == 0.0) return 0.0;
  const double step = heads > 1 ? double(head) / double(heads - 1) : 0.0;
  const double decay = std::exp(std::log(kFoxDecayMin) + step * std::log(decay_max / kFoxDecayMin));
  return -std::log(std::expm1(1.0 / decay));
}

void init_parameters(Parameters& params, std::uint64_t seed, double fox_decay_max) {
  Rng rng(seed);
  for (const ParamInfo& p : params.info()) {
    float* w = params.data() + p.offset;
    const bool norm = p.name.find(".ln_") != std::string::npos || p.name.rfind("ln_f.", 0) == 0;
    if (p.term != nullptr) {
      score_bias::initialize(*p.term, rng, w, p.numel);
    } else if (norm) {
      std::fill(w, w + p.numel, ends_with(p.name, ".weight") ? 1.0f : 0.0f);
    } else if (ends_with(p.name, ".fox_b")) {
      for (std::size_t h = 0; h < p.numel; ++h) {
        w[h] = static_cast<float>(fox_gate_bias(h, p.numel, fox_decay_max));
      }
    } else if (ends_with(p.name, ".bias") || ends_with(p.name, ".cope_pos_emb")) {
      std::fill(w, w + p.numel, 0.0f);
    } else {
      for (std::size_t i = 0; i < p.numel; ++i) w[i] = static_cast<float>(0.02 * rng.normal());
    }
  }
}

void project_parameters(Parameters& params) {
  for (const ParamInfo& p : params.info()) {
    if (p.term == nullptr || p.term->least == score_bias::kUnbounded) continue;
    float* w = params.data() + p.offset;
    const auto least = static_cast<float>(p.term->least);
    for (std::size_t i = 0; i < p.numel; ++i) w[i] = std::max(w[i], least);
  }
}

struct Model::Workspace {
  Engine<float> engine;
  // Natively, with threads > 1: one engine and one gradient buffer per shard of the batch.
  std::vector<Engine<float>> shards;
  std::vector<Parameters> shard_grads;
  PositionSurgery surgery;  // what the engines point at (Model::set_surgery): moves with them
  Workspace(const ModelConfig& c) : engine(c, Parameters(c).info()) {}
};

#ifndef __EMSCRIPTEN__
namespace {

// Sequences [first, first + count) of `batch` (a thread's shard).
Batch slice(const Batch& batch, std::size_t first, std::size_t count) {
  Batch out;
  out.batch = count;
  out.length = batch.length;
  const auto rows = [&](const auto& v) {
    using V = std::decay_t<decltype(v)>;
    return V(v.begin() + static_cast<long>(first * batch.length),
             v.begin() + static_cast<long>((first + count) * batch.length));
  };
  out.tokens = rows(batch.tokens);
  out.targets = rows(batch.targets);
  out.positions = rows(batch.positions);
  out.loss_mask = rows(batch.loss_mask);
  return out;
}

}  // namespace
#endif

Model::Model(ModelConfig config, unsigned threads)
    : config_(std::move(config)),
      threads_(threads == 0 ? 1 : threads),
      workspace_(std::make_unique<Workspace>(config_)) {}
Model::~Model() = default;
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;

double Model::forward_backward(const Parameters& params, const Batch& batch, Parameters& grads) {
  require(params.size() == grads.size(), "gradients do not have the parameters' layout");
  // Before any pass: a shard's engine would throw on its own thread, and one made after
  // set_surgery would train without it.
  require(workspace_->surgery.empty(), "surgery",
          "a pass under position surgery has no gradient: end it (set_surgery({})) to train");
#ifndef __EMSCRIPTEN__
  const std::size_t shards = std::min<std::size_t>(threads_, batch.batch);
  if (shards > 1) return forward_backward_sharded(params, batch, grads, shards);
#endif
  Engine<float>& e = workspace_->engine;
  e.forward(params.data(), batch);
  const double loss = e.loss(batch);
  std::fill(grads.data(), grads.data() + grads.size(), 0.0f);
  e.backward(params.data(), grads.data());
  return loss;
}

#ifndef __EMSCRIPTEN__
// Each thread runs the model on a contiguous shard of sequences with the whole batch's mask
// total as the divisor; the shards' gradients are summed in shard order, so a run is the same
// bit for bit for a given thread count (and within float rounding of the one-thread run).
double Model::forward_backward_sharded(const Parameters& params, const Batch& batch,
                                       Parameters& grads, std::size_t shards) {
  Workspace& w = *workspace_;
  while (w.shards.size() < shards) {
    w.shards.emplace_back(config_, params.info());
    w.shard_grads.emplace_back(config_);
  }
  double total = 0;
  for (float m : batch.loss_mask) total += m;
  std::vector<double> losses(shards, 0.0);
  std::vector<std::thread> pool;
  for (std::size_t s = 0; s < shards; ++s) {
    const std::size_t first = batch.batch * s / shards;
    const std::size_t count = batch.batch * (s + 1) / shards - first;
    pool.emplace_back([&, s, first, count] {
      const Batch part = slice(batch, first, count);
      Parameters& g = w.shard_grads[s];
      std::fill(g.data(), g.data() + g.size(), 0.0f);
      w.shards[s].forward(params.data(), part);
      losses[s] = total > 0 ? w.shards[s].loss(part, total) : 0.0;
      if (total > 0) w.shards[s].backward(params.data(), g.data());
    });
  }
  for (std::thread& t : pool) t.join();
  std::copy(w.shard_grads[0].data(), w.shard_grads[0].data() + grads.size(), grads.data());
  for (std::size_t s = 1; s < shards; ++s) {
    const float* g = w.shard_grads[s].data();
    for (std::size_t i = 0; i < grads.size(); ++i) grads.data()[i] += g[i];
  }
  double loss = 0;
  for (double l : losses) loss += l;
  return loss;
}
#endif

double Model::loss(const Parameters& params, const Batch& batch) {
  Engine<float>& e = workspace_->engine;
  e.forward(params.data(), batch);
  return e.loss(batch);
}

TensorF Model::logits(const Parameters& params, const Batch& batch) {
  Engine<float>& e = workspace_->engine;
  e.forward(params.data(), batch);
  e.require_finite_forward();
  return TensorF({batch.batch, batch.length, config_.vocab_size}, e.logits());
}

TensorF model_score_bias(const ModelConfig& config, const Parameters& params,
                         const std::vector<std::int32_t>& positions) {
  require(position_method_info(config.position).kind == PositionKind::kScoreBias, "position",
          std::string("the model's positions are ") + to_string(config.position) +
              ", not a score bias");
  require(!positions.empty(), "length", "the score bias needs at least one position");
  for (std::size_t t = 0; t < positions.size(); ++t) {
    require(positions[t] >= 0 && (t == 0 || positions[t] >= positions[t - 1]), "positions",
            "positions must be >= 0 and sorted");
  }
  const std::size_t H = config.n_head, T = positions.size();
  TensorF bias({config.n_layer, H, T, T}, "score bias");  // zeros above the diagonal
  const ParamOffsets offsets(config, params.info());
  score_bias::TermShape shape;
  shape.heads = static_cast<int>(H);
  shape.options[0] = static_cast<double>(config.t5_num_buckets);
  shape.options[1] = static_cast<double>(config.t5_max_distance);
  std::vector<double> values(H);
  for (std::size_t l = 0; l < config.n_layer; ++l) {
    float* plane = bias.data.data() + l * H * T * T;
    score_bias::with_score_bias_term(
        config.position, params.data() + offsets.layers[l].bias, shape, [&](const auto& term) {
          for (std::size_t i = 0; i < T; ++i) {
            for (std::size_t j = 0; j <= i; ++j) {
              term.values(positions[i], positions[j], values.data());
              for (std::size_t h = 0; h < H; ++h) {
                plane[(h * T + i) * T + j] = static_cast<float>(values[h]);
              }
            }
          }
        });
  }
  return bias;
}

TensorF Model::attention_maps(const Parameters& params, const Batch& batch, std::size_t b) {
  return attention_trace(params, batch, b, false).maps;
}

Model::AttentionTrace Model::attention_trace(const Parameters& params, const Batch& batch,
                                             std::size_t b, bool qk) {
  require(b < batch.batch, "sequence index past the batch");
  Engine<float>& e = workspace_->engine;
  e.forward(params.data(), batch);
  e.require_finite_forward();
  const std::size_t N = config_.n_layer, H = config_.n_head, L = batch.length;
  const std::size_t d = config_.n_embd / H;
  AttentionTrace out{TensorF({N, H, L, L}, "attention maps"), {}, {}};
  if (qk) {
    out.q = TensorF({N, H, L, d}, "queries");
    out.k = TensorF({N, H, L, d}, "keys");
  }
  // Sequence b's block of each layer's (B, H, ·, ·) buffer.
  const auto take = [b](const std::vector<float>& from, std::size_t per_sequence, TensorF& to,
                        std::size_t l) {
    const float* src = from.data() + b * per_sequence;
    std::copy(src, src + per_sequence, to.data.data() + l * per_sequence);
  };
  for (std::size_t l = 0; l < N; ++l) {
    take(e.attention(l), H * L * L, out.maps, l);
    if (!qk) continue;
    take(e.queries(l), H * L * d, out.q, l);
    take(e.keys(l), H * L * d, out.k, l);
  }
  return out;
}

SurgeryTarget Model::surgery_target() const {
  const bool rotates = position_method_info(config_.position).kind == PositionKind::kRotation;
  const std::string name = to_string(config_.position);  // "an alibi model", "a rope model"
  return {(name.find_first_of("aeiou") == 0 ? "an " : "a ") + name + " model",
          static_cast<long long>(config_.n_layer), static_cast<long long>(config_.n_head),
          rotates ? static_cast<long long>(config_.n_embd / config_.n_head / 2) : 0, false};
}

void Model::set_surgery(const PositionSurgery& surgery) {
  check_surgery(surgery, surgery_target());
  workspace_->surgery = surgery;
  const PositionSurgery* active = surgery.empty() ? nullptr : &workspace_->surgery;
  workspace_->engine.set_surgery(active);
  for (Engine<float>& e : workspace_->shards) e.set_surgery(active);
}

void Model::set_rope_scaling(const RopeOptions& options) {
  workspace_->engine.set_rope_scaling(options);
  for (Engine<float>& e : workspace_->shards) e.set_rope_scaling(options);
}

double Model::flops_per_step(std::size_t batch, std::size_t length) const {
  // Forward: 2 per multiply-add of every matrix product (QKV, output, MLP, tied head) and of
  // causal attention (QKᵀ and PV over T(T+1)/2 pairs per head); backward twice the forward.
  const double n = static_cast<double>(batch) * length;
  const double E = config_.n_embd, I = config_.n_inner, V = config_.vocab_size;
  const double per_layer =
      2 * n * (E * 3 * E + E * E + 2 * E * I) + 2 * 2 * batch * (length * (length + 1) / 2.0) * E;
  const double forward = config_.n_layer * per_layer + 2 * n * E * V;
  return 3 * forward;
}

}  // namespace poslab::train

// The lab's model for the position lens (poslab/train/lens_model.hpp).
#include "poslab/train/lens_model.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include "poslab/analysis/lens.hpp"
#include "poslab/base/errors.hpp"
#include "poslab/models/lm.hpp"
#include "poslab/positions/position_methods.hpp"
#include "poslab/positions/rope.hpp"
#include "poslab/train/model.hpp"
#include "train/lab_batch.hpp"

namespace poslab::train {
namespace {

// Each layer's pairs where some layer does not rotate — the model's own NoPE layers
// (--nope-every) or the surgery's —, read as pairs that never turn (every θ 0), so their heads
// are never positional; empty when every layer turns at `all`.
std::vector<std::vector<double>> nope_layer_pairs(const ModelConfig& c,
                                                  const PositionSurgery& surgery,
                                                  const std::vector<double>& all) {
  std::vector<std::vector<double>> layers(c.n_layer, all);
  bool any = false;
  for (std::size_t l = 0; l < c.n_layer; ++l) {
    const bool nope =
        c.nope_layer(l) || std::find(surgery.nope_layers.begin(), surgery.nope_layers.end(),
                                     (long long)l) != surgery.nope_layers.end();
    if (nope) layers[l].assign(all.size(), 0.0);
    any = any || nope;
  }
  return any ? layers : std::vector<std::vector<double>>{};
}

// Layer l of a per-layer stack (N, a, b, c) as (a, b, c).
TensorF slice(const TensorF& stack, std::size_t l) {
  const std::size_t per_layer = stack.size() / stack.dim(0);
  return TensorF(
      Shape{stack.dim(1), stack.dim(2), stack.dim(3)},
      std::vector<float>(stack.ptr() + l * per_layer, stack.ptr() + (l + 1) * per_layer));
}

// −log softmax(logits[t])[token t + 1] for t in [0, T − 1) of logits (T, V), as doubles.
std::vector<double> losses_of(const TensorF& logits, const std::vector<long long>& t) {
  const TensorF losses = next_token_losses(logits, t);
  return std::vector<double>(losses.data.begin(), losses.data.end());
}

}  // namespace

LensModel lens_model(const LabCheckpoint& checkpoint, const std::optional<RopeOptions>& scaling,
                     const PositionSurgery& surgery) {
  auto model = std::make_shared<Model>(checkpoint.model);
  model->set_surgery(surgery);
  const long long V = (long long)checkpoint.model.vocab_size;
  LensModel out;
  out.vocab = V;
  const PositionMethod p = checkpoint.model.position;
  const bool rotates = position_method_info(p).kind == PositionKind::kRotation;
  // The method's pairs, over the whole head.
  const RopeStyle style = rotates ? rotation_defaults(p).style : RopeStyle::kNeox;
  const long long d = (long long)(checkpoint.model.n_embd / checkpoint.model.n_head);
  // The trainer's model gives every layer's maps at once (2 layers × 4 heads in the lab).
  out.visit = [&checkpoint, model, rotates, style, d](const std::vector<long long>& t, bool bands,
                                                      bool outputs, const LensLayerReader& read) {
    const Batch batch = lab_batch(checkpoint.model, t, 0);
    const bool qk = bands && rotates;
    const Model::AttentionTrace trace = model->attention_trace(checkpoint.params, batch, 0, qk);
    for (std::size_t l = 0; l < trace.maps.dim(0); ++l) {
      const TensorF layer = slice(trace.maps, l);
      if (!qk) {
        read(l, layer, nullptr);
        continue;
      }
      const TensorF energy =
          rope_pair_energy(slice(trace.q, l), slice(trace.k, l), layer, d, style);
      read(l, layer, &energy);
    }
    if (!outputs) return LensOutputs{};
    const TensorF logits = model->logits(checkpoint.params, batch);
    LensOutputs o{TensorF({logits.dim(1), logits.dim(2)}, logits.data), {}};
    o.losses = losses_of(o.logits, t);
    return o;
  };
  out.logits = [&checkpoint, model](const std::vector<long long>& t, long long offset) {
    const TensorF logits = model->logits(checkpoint.params, lab_batch(checkpoint.model, t, offset));
    return TensorF({logits.dim(1), logits.dim(2)}, logits.data);
  };
  require(!scaling || rotates, "rope",
          model->surgery_target().model +
              " has no rotation to scale: a scaling is for rotation methods' models");
  if (rotates) {
    RopeOptions rope = scaling.value_or(RopeOptions{});
    rope.base = checkpoint.model.base;
    rope.style = style;
    rope.original_length = (long long)checkpoint.train_len;
    if (scaling) model->set_rope_scaling(rope);
    out.inv_freq = rope_frequencies(d, surgery_rope(rope, surgery)).inv_freq;
    out.layer_inv_freq = nope_layer_pairs(checkpoint.model, surgery, out.inv_freq);
    out.trained_context = (long long)checkpoint.train_len;
    out.length_dependent = rope.scaling == RopeScaling::kDynamic;
  }
  if (supports(p, kReadsAnyOrder)) {
    out.losses = [&checkpoint, model](const std::vector<long long>& t,
                                      const std::vector<std::int32_t>& positions) {
      const TensorF logits =
          model->logits(checkpoint.params, lab_batch(checkpoint.model, t, 0, positions));
      const TensorF losses = next_token_losses(TensorF({t.size(), logits.dim(2)}, logits.data), t);
      return std::vector<double>(losses.data.begin(), losses.data.end());
    };
  }
  out.length_dependent = out.length_dependent || !supports(p, kRelativeOnly);
  if (has_learned_table(p)) out.max_positions = (long long)checkpoint.model.n_positions;
  // The trainer's pass keeps every layer's maps (B = 1), the trace copies them, with q and k
  // for the bands, the layers' activations and the logits.
  const std::uint64_t N = checkpoint.model.n_layer, H = checkpoint.model.n_head,
                      E = checkpoint.model.n_embd, I = checkpoint.model.n_inner;
  out.working_set = [N, H, E, I, V](long long tokens) {
    const std::uint64_t T = std::uint64_t(tokens);
    return 4 * (2 * N * H * T * T + N * T * (12 * E + 2 * I) + T * std::uint64_t(V));
  };
  return out;
}

}  // namespace poslab::train

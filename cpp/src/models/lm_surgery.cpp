// The language models' surgery adapters (poslab/models/lm_surgery.hpp).
#include "poslab/models/lm_surgery.hpp"

namespace poslab {
namespace {

// One architecture's weights and forward pass as a SurgeryModel: losses only (no (T, V)
// logits), the unmodified pass keeping each layer's input for the passes after it.
template <class Weights, class Forward>
SurgeryModel rope_surgery_model(const Weights& weights, Precision precision,
                                const std::optional<RopeOptions>& override_rope, const char* name,
                                bool local_layers, Forward forward) {
  const auto& c = weights.config;
  const RopeOptions rope = override_rope ? *override_rope : c.rope();
  RopeLmOptions base;
  base.precision = precision;
  base.rope = rope;
  base.logits = false;
  base.loss_by_position = true;
  base.top_k = 0;
  SurgeryModel out;
  out.precision = to_string(precision);
  out.target = {name, c.dims.layers, c.dims.heads,
                rope_frequencies(c.head_dim(), rope).rotary_dim / 2, local_layers};
  out.base = rope.base;
  out.trained_context = rope.scaling != RopeScaling::kNone && rope.original_length > 0
                            ? rope.original_length
                            : c.dims.context;
  out.losses = [&weights, base, forward](const std::vector<long long>& tokens,
                                         const PositionSurgery& surgery, SurgeryPrefix* prefix) {
    RopeLmOptions o = base;
    o.surgery = surgery;
    if (prefix && surgery.empty()) {
      o.layer_inputs = &prefix->layer_inputs;
    } else if (prefix && !prefix->layer_inputs.empty()) {
      o.reuse_inputs = &prefix->layer_inputs;
    }
    const TensorF losses = forward(weights, tokens, o).losses;
    return std::vector<double>(losses.data.begin(), losses.data.end());
  };
  out.reuses_prefix = true;
  const std::uint64_t N = std::uint64_t(c.dims.layers), E = std::uint64_t(c.dims.width);
  out.prefix_bytes = [N, E](long long tokens) { return 4 * (N + 1) * E * std::uint64_t(tokens); };
  return out;
}

}  // namespace

SurgeryModel surgery_model(const GptNeoxWeights& weights, Precision precision,
                           const std::optional<RopeOptions>& rope) {
  return rope_surgery_model(weights, precision, rope, "GPT-NeoX", false, gpt_neox_forward);
}

SurgeryModel surgery_model(const LlamaWeights& weights, Precision precision,
                           const std::optional<RopeOptions>& rope) {
  SurgeryModel out = rope_surgery_model(weights, precision, rope, weights.config.family_name(),
                                        weights.config.has_local_rotation(), llama_forward);
  for (std::size_t i = 0; i < std::size_t(weights.config.dims.layers); ++i) {
    if (weights.config.nope(i)) out.nope_layers.push_back(static_cast<long long>(i));
  }
  return out;
}

}  // namespace poslab

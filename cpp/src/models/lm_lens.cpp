// The language models' lens adapters (poslab/models/lm_lens.hpp): each pass asks the forward
// for what the lens reads and no more — the traced pass hands one layer at a time and skips
// the (T, V) logits; the shuffle's passes ask only for the losses.
#include "poslab/models/lm_lens.hpp"

namespace poslab {
namespace {

// The forward options' visitor handing each traced layer to `read`.
LmLayerVisitor to_reader(const LensLayerReader& read) {
  return [&read](std::size_t layer, LmLayerTrace& trace) {
    read(layer, trace.attention, trace.pair_energy.data.empty() ? nullptr : &trace.pair_energy);
  };
}

// −log softmax(logits[t])[token t + 1] for t in [0, T − 1), as doubles.
std::vector<double> losses_from_logits(const TensorF& logits, const std::vector<long long>& t) {
  const std::size_t V = logits.dim(logits.ndim() - 1);
  const TensorF losses = next_token_losses(TensorF({t.size(), V}, logits.data), t);
  return std::vector<double>(losses.data.begin(), losses.data.end());
}

// GPT-NeoX and the Llama family: one forward over RopeLmOptions.
template <class Weights, class Forward>
LensModel rope_lens_model(const Weights& weights, Precision precision, Forward forward) {
  const auto& config = weights.config;
  LensModel out;
  out.vocab = config.dims.vocab_size;
  out.precision = to_string(precision);
  out.visit = [&weights, precision, forward](const std::vector<long long>& t, bool bands,
                                             const LensLayerReader& read) {
    RopeLmOptions o;
    o.precision = precision;
    o.trace = true;
    o.pair_energy = bands;
    o.on_layer = to_reader(read);
    o.logits = false;  // the losses instead: (T − 1,) rather than (T, V)
    o.loss_by_position = true;
    o.top_k = 1;
    forward(weights, t, o);
  };
  out.logits = [&weights, precision, forward](const std::vector<long long>& t, long long offset) {
    RopeLmOptions o;
    o.precision = precision;
    o.top_k = 1;
    o.position_offset = offset;
    return forward(weights, t, o).logits;
  };
  out.losses = [&weights, precision, forward](const std::vector<long long>& t,
                                              const std::vector<std::int32_t>& positions) {
    RopeLmOptions o;
    o.precision = precision;
    o.logits = false;
    o.loss_by_position = true;
    o.top_k = 1;
    o.positions.assign(positions.begin(), positions.end());
    const TensorF losses = forward(weights, t, o).losses;
    return std::vector<double>(losses.data.begin(), losses.data.end());
  };
  const RopeOptions rope = config.rope();
  out.length_dependent = rope.scaling == RopeScaling::kDynamic;
  out.inv_freq = rope_frequencies(config.head_dim(), rope).inv_freq;
  out.trained_context = rope.scaling != RopeScaling::kNone && rope.original_length > 0
                            ? rope.original_length
                            : config.dims.context;
  return out;
}

}  // namespace

LensModel lens_model(const Gpt2Weights& weights, Precision precision) {
  LensModel out;
  out.vocab = weights.config.dims.vocab_size;
  out.precision = to_string(precision);
  out.visit = [&weights, precision](const std::vector<long long>& t, bool,
                                    const LensLayerReader& read) {
    Gpt2Options o;
    o.precision = precision;
    o.top_k = 1;
    o.on_layer = to_reader(read);
    gpt2_forward(weights, t, o);
  };
  out.logits = [&weights, precision](const std::vector<long long>& t, long long offset) {
    Gpt2Options o;
    o.precision = precision;
    o.top_k = 1;
    o.trace = false;
    o.position_offset = offset;
    return gpt2_forward(weights, t, o).logits;
  };
  out.losses = [&weights, precision](const std::vector<long long>& t,
                                     const std::vector<std::int32_t>& positions) {
    Gpt2Options o;
    o.precision = precision;
    o.top_k = 1;
    o.trace = false;
    o.positions.assign(positions.begin(), positions.end());
    return losses_from_logits(gpt2_forward(weights, t, o).logits, t);
  };
  out.max_positions = weights.config.dims.context;
  out.length_dependent = true;  // learned positions: each position its own vector
  return out;
}

LensModel lens_model(const GptNeoxWeights& weights, Precision precision) {
  return rope_lens_model(weights, precision, gpt_neox_forward);
}

LensModel lens_model(const LlamaWeights& weights, Precision precision) {
  return rope_lens_model(weights, precision, llama_forward);
}

}  // namespace poslab

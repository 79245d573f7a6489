// The language models' lens adapters (poslab/models/lm_lens.hpp): each pass asks the forward
// for what the lens reads and no more — the traced pass hands one layer at a time and skips
// the (T, V) logits; the shuffle's passes ask only for the losses.
#include "poslab/models/lm_lens.hpp"

#include <algorithm>
#include <functional>

namespace poslab {
namespace {

// The forward options' visitor handing each traced layer to `read`.
LmLayerVisitor to_reader(const LensLayerReader& read) {
  return [&read](std::size_t layer, LmLayerTrace& trace) {
    read(layer, trace.attention, trace.pair_energy.data.empty() ? nullptr : &trace.pair_energy);
  };
}

std::vector<double> as_doubles(const TensorF& values) {
  return std::vector<double>(values.data.begin(), values.data.end());
}

// −log softmax(logits[t])[token t + 1] for t in [0, T − 1), as doubles.
std::vector<double> losses_from_logits(const TensorF& logits, const std::vector<long long>& t) {
  const std::size_t V = logits.dim(logits.ndim() - 1);
  return as_doubles(next_token_losses(TensorF({t.size(), V}, logits.data), t));
}

// GPT-NeoX and the Llama family: one forward over RopeLmOptions, type-erased so both share
// one set of passes (in the wasm module, one copy of their code). `base`: every pass's
// precision and rotation.
using RopeLmRun = std::function<RopeLmResult(const std::vector<long long>&, const RopeLmOptions&)>;

LensModel rope_lens_model(const RopeLmRun& run, const RopeLmOptions& base, long long vocab,
                          long long head_dim, long long context) {
  LensModel out;
  out.vocab = vocab;
  out.precision = to_string(base.precision);
  out.visit = [run, base](const std::vector<long long>& t, bool bands, bool outputs,
                          const LensLayerReader& read) {
    RopeLmOptions o = base;
    o.trace = true;
    o.pair_energy = bands;
    o.on_layer = to_reader(read);
    o.logits = outputs;
    o.loss_by_position = outputs;
    RopeLmResult r = run(t, o);
    return LensOutputs{std::move(r.logits), as_doubles(r.losses)};
  };
  out.logits = [run, base](const std::vector<long long>& t, long long offset) {
    RopeLmOptions o = base;
    o.position_offset = offset;
    return run(t, o).logits;
  };
  out.losses = [run, base](const std::vector<long long>& t,
                           const std::vector<std::int32_t>& positions) {
    RopeLmOptions o = base;
    o.logits = false;
    o.loss_by_position = true;
    o.positions.assign(positions.begin(), positions.end());
    return as_doubles(run(t, o).losses);
  };
  const RopeOptions& rope = *base.rope;
  // Dynamic NTK and longrope (its long factors past N) turn by the sequence's length.
  out.length_dependent = rope.scaling == RopeScaling::kDynamic || rope.longrope != nullptr;
  out.inv_freq = rope_frequencies(head_dim, surgery_rope(rope, base.surgery)).inv_freq;
  out.trained_context = rope.scaling != RopeScaling::kNone && rope.original_length > 0
                            ? rope.original_length
                            : context;
  return out;
}

// The passes' shared options: precision, the rotation (the config's unless overridden), top-1.
template <class Config>
RopeLmOptions rope_lens_options(const Config& config, Precision precision,
                                const std::optional<RopeOptions>& rope,
                                const PositionSurgery& surgery) {
  RopeLmOptions o;
  o.precision = precision;
  o.rope = rope ? *rope : config.rope();
  o.top_k = 1;
  o.surgery = surgery;
  return o;
}

// What a traced pass of an LM holds at once: one layer's (H, T, T) weights three times (the
// attention's own, the trace's, the lens's copy), the pair energy's q and k, and the logits.
std::function<std::uint64_t(long long)> lm_working_set(const LmDims& dims) {
  const std::uint64_t H = std::uint64_t(dims.heads), E = std::uint64_t(dims.width),
                      V = std::uint64_t(dims.vocab_size);
  return [H, E, V](long long tokens) {
    const std::uint64_t T = std::uint64_t(tokens);
    return 4 * (3 * H * T * T + 8 * T * E + T * V);
  };
}

// An architecture's weights and forward pass as rope_lens_model's one run.
template <class Weights, class Forward>
LensModel rope_lens_model_of(const Weights& weights, Precision precision,
                             const std::optional<RopeOptions>& rope, const PositionSurgery& surgery,
                             Forward forward) {
  const auto& c = weights.config;
  LensModel out = rope_lens_model(
      [&weights, forward](const std::vector<long long>& t, const RopeLmOptions& o) {
        return forward(weights, t, o);
      },
      rope_lens_options(c, precision, rope, surgery), c.dims.vocab_size, c.head_dim(),
      c.dims.context);
  out.working_set = lm_working_set(c.dims);
  return out;
}

// Each layer's pairs where the layers do not all turn as `all`: `layers[i]`, or, in a layer
// that does not rotate at all (`nope[i]`: the config's NoPE layers, SmolLM3's, and the
// surgery's), every θ_i 0 — none of its pairs turns, so none of its heads reads as positional.
// Empty where every layer turns as `all`.
std::vector<std::vector<double>> per_layer_pairs(std::vector<std::vector<double>> layers,
                                                 const std::vector<bool>& nope,
                                                 const std::vector<double>& all) {
  bool same = true;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (nope[i]) layers[i].assign(all.size(), 0.0);
    same = same && layers[i] == all;
  }
  return same ? std::vector<std::vector<double>>{} : layers;
}

// Which of `n` layers the surgery makes NoPE (one outside them is refused by the first pass).
std::vector<bool> surgery_nope(const PositionSurgery& surgery, std::size_t n) {
  std::vector<bool> nope(n, false);
  for (const long long l : surgery.nope_layers) {
    if (l >= 0 && std::size_t(l) < n) nope[std::size_t(l)] = true;
  }
  return nope;
}

// A Llama-family member's pairs per layer: Gemma 3's sliding layers at their own base, the NoPE
// layers of the config (SmolLM3) and of the surgery none.
std::vector<std::vector<double>> layer_frequencies(const LlamaConfig& c, const RopeOptions& rope,
                                                   const PositionSurgery& surgery,
                                                   const std::vector<double>& all) {
  const std::size_t n = std::size_t(c.dims.layers);
  const RopeOptions full = surgery_rope(rope, surgery);
  std::vector<std::vector<double>> layers;
  std::vector<bool> nope = surgery_nope(surgery, n);
  for (std::size_t i = 0; i < n; ++i) {
    const RopeOptions layer = c.local_rotation(i)
                                  ? surgery_rope(c.layer_rope(i, full), surgery, true)
                                  : c.layer_rope(i, full);
    layers.push_back(rope_frequencies(c.head_dim(), layer).inv_freq);
    nope[i] = nope[i] || c.nope(i);
  }
  return per_layer_pairs(std::move(layers), nope, all);
}

}  // namespace

LensModel lens_model(const Gpt2Weights& weights, Precision precision) {
  LensModel out;
  out.vocab = weights.config.dims.vocab_size;
  out.precision = to_string(precision);
  out.visit = [&weights, precision](const std::vector<long long>& t, bool, bool outputs,
                                    const LensLayerReader& read) {
    Gpt2Options o;
    o.precision = precision;
    o.top_k = 1;
    o.on_layer = to_reader(read);
    Gpt2Result r = gpt2_forward(weights, t, o);
    if (!outputs) return LensOutputs{};
    std::vector<double> losses = losses_from_logits(r.logits, t);
    return LensOutputs{std::move(r.logits), std::move(losses)};
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
  out.working_set = lm_working_set(weights.config.dims);
  return out;
}

LensModel lens_model(const GptNeoxWeights& weights, Precision precision,
                     const std::optional<RopeOptions>& rope, const PositionSurgery& surgery) {
  LensModel out = rope_lens_model_of(weights, precision, rope, surgery, gpt_neox_forward);
  const std::size_t n = std::size_t(weights.config.dims.layers);
  out.layer_inv_freq = per_layer_pairs(std::vector<std::vector<double>>(n, out.inv_freq),
                                       surgery_nope(surgery, n), out.inv_freq);
  return out;
}

LensModel lens_model(const LlamaWeights& weights, Precision precision,
                     const std::optional<RopeOptions>& rope, const PositionSurgery& surgery) {
  LensModel out = rope_lens_model_of(weights, precision, rope, surgery, llama_forward);
  out.layer_inv_freq = layer_frequencies(weights.config, rope ? *rope : weights.config.rope(),
                                         surgery, out.inv_freq);
  return out;
}

}  // namespace poslab

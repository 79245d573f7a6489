// The language models' decoder skeleton (decoder.hpp).
#include "models/decoder.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "models/vocabulary_head.hpp"
#include "poslab/analysis/lens.hpp"
#include "poslab/base/errors.hpp"
#include "poslab/base/format.hpp"
#include "poslab/fast/fast.hpp"
#include "poslab/layers/attention.hpp"
#include "poslab/layers/norm.hpp"

namespace poslab::model {

void check_tokens(const std::vector<long long>& tokens, long long vocab, std::size_t max_tokens,
                  const std::string& model, const std::string& limit) {
  require(!tokens.empty(), "tokens", model + " needs at least one token");
  require(tokens.size() <= max_tokens, "tokens",
          std::to_string(tokens.size()) + " tokens exceed " + limit);
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    require(tokens[t] >= 0 && tokens[t] < vocab, "tokens",
            "token " + std::to_string(tokens[t]) + " at position " + std::to_string(t) +
                " is outside the vocabulary [0, " + std::to_string(vocab) + ")");
  }
}

namespace {

// rope_lm_forward's checks, then x[t] = embedding[token t] (T, E).
TensorF start_rope_forward(const std::vector<long long>& tokens, const RopeLmOptions& options,
                           const RopeOptions& rope, const LmDims& dims, long long head_dim,
                           const RopeLmParts& parts) {
  constexpr std::size_t max_tokens = kMaxRopeLmTokens;
  check_tokens(tokens, dims.vocab_size, max_tokens, parts.model,
               "the limit of " + std::to_string(max_tokens) +
                   " (RoPE angles are exact to 1e-5 up to there)");
  require(options.top_k >= 0, "topK", "top_k must be non-negative");
  const std::size_t T = tokens.size(), E = std::size_t(dims.width);
  // A bad rotation fails here, before any work, with its field.
  require(options.position_offset >= 0, "positionOffset",
          "the position offset must be non-negative");
  long long total = options.position_offset + static_cast<long long>(T);
  if (!options.positions.empty()) {
    require(options.position_offset == 0, "positions",
            "give the positions one by one or an offset, not both");
    require(options.positions.size() == T, "positions",
            "one position per token: " + std::to_string(T) + " tokens, " +
                std::to_string(options.positions.size()) + " positions");
    total = 0;
    for (const long long p : options.positions) {
      require(p >= 0 && p <= (1LL << 40), "positions",
              "positions must be in [0, 2^40] (got " + std::to_string(p) + ")");
      total = std::max(total, p + 1);
    }
  }
  rope_frequencies(head_dim, rope, total);
  if (options.loss_by_position) NextTokenLoss(tokens, std::size_t(dims.vocab_size));
  parts.check_sizes(T);
  TensorF x({T, E}, "residual stream (T, E)");
  for (std::size_t t = 0; t < T; ++t) {
    parts.embedding->widen(std::size_t(tokens[t]) * E, E, x.ptr() + t * E);
  }
  if (parts.embedding_scale != 1.0) {
    for (float& value : x.data) value = static_cast<float>(value * parts.embedding_scale);
  }
  return x;
}

}  // namespace

namespace {

// The layer a pass starts at: first_changed_layer of its surgery when it reuses an unmodified
// pass's residual stream (checked to be one of these tokens), else 0.
std::size_t first_layer(const RopeLmOptions& options, std::size_t T, const LmDims& dims,
                        std::size_t layers) {
  if (!options.reuse_inputs) return 0;
  require(!options.trace, "trace", "a pass that reuses another's layers cannot be traced");
  const std::vector<TensorF>& inputs = *options.reuse_inputs;
  require(inputs.size() == layers + 1, "reuseInputs",
          "prefix reuse needs the N + 1 residuals of an unmodified pass");
  for (const TensorF& x : inputs) {
    require(x.ndim() == 2 && x.dim(0) == T && x.dim(1) == std::size_t(dims.width), "reuseInputs",
            "prefix reuse needs the residuals of a pass over the same tokens");
  }
  return first_changed_layer(options.surgery, layers);
}

}  // namespace

RopeLmResult rope_lm_forward(const std::vector<long long>& tokens, const RopeLmOptions& options,
                             const RopeOptions& trained, const LmDims& dims, long long head_dim,
                             const RopeLmParts& parts) {
  const RopeOptions& chosen = options.rope ? *options.rope : trained;
  check_surgery(options.surgery,
                {parts.model, static_cast<long long>(parts.layers), dims.heads,
                 rope_frequencies(head_dim, chosen).rotary_dim / 2, parts.local_layers});
  const RopeOptions rope = surgery_rope(chosen, options.surgery);
  TensorF x = start_rope_forward(tokens, options, rope, dims, head_dim, parts);
  require_finite_activation(x, "the token embedding");
  const std::size_t first = first_layer(options, tokens.size(), dims, parts.layers);
  if (options.layer_inputs) {
    options.layer_inputs->clear();
    for (std::size_t i = 0; i < first; ++i)
      options.layer_inputs->push_back((*options.reuse_inputs)[i]);
  }
  if (first > 0) x = (*options.reuse_inputs)[first];
  RopeLmResult result;
  x = decoder_layers(
      std::move(x), parts.layers, [&](std::size_t i) { return parts.layer(i, rope, options); },
      options.trace ? &result.layers : nullptr, options.trace ? options.on_layer : LmLayerVisitor{},
      first, options.layer_inputs);
  const TensorF final_x = parts.final_norm(x);
  require_finite_activation(final_x, "the final norm");
  vocabulary_head_into(result, final_x, *parts.head, tokens, options);
  require_finite_activation(result.logits, "the logits");
  return result;
}

Heads split_heads(const TensorF& qkv, std::size_t H, QkvLayout layout) {
  const std::size_t T = qkv.dim(0), E = qkv.dim(1) / 3, d = E / H;
  Heads heads{TensorF({H, T, d}, "q (H, T, d)"), TensorF({H, T, d}, "k (H, T, d)"),
              TensorF({H, T, d}, "v (H, T, d)")};
  // Where head h's q starts in a row, and how far its k and v lie beyond it.
  const std::size_t head_stride = layout == QkvLayout::kSideBySide ? d : 3 * d;
  const std::size_t part_stride = layout == QkvLayout::kSideBySide ? E : d;
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t h = 0; h < H; ++h) {
      const float* row = qkv.ptr() + t * 3 * E + h * head_stride;
      const std::size_t at = (h * T + t) * d;
      std::copy_n(row, d, heads.q.ptr() + at);
      std::copy_n(row + part_stride, d, heads.k.ptr() + at);
      std::copy_n(row + 2 * part_stride, d, heads.v.ptr() + at);
    }
  return heads;
}

TensorF heads_of(const TensorF& x, std::size_t n, const char* what) {
  const std::size_t T = x.dim(0), d = x.dim(1) / n;
  TensorF heads({n, T, d}, what);
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t h = 0; h < n; ++h) {
      std::copy_n(x.ptr() + t * n * d + h * d, d, heads.ptr() + (h * T + t) * d);
    }
  return heads;
}

TensorF repeat_heads(const TensorF& x, std::size_t g) {
  if (g == 1) return x;
  const std::size_t K = x.dim(0), per_head = x.dim(1) * x.dim(2);
  TensorF out({K * g, x.dim(1), x.dim(2)}, "repeated kv heads (H, T, d)");
  for (std::size_t h = 0; h < K * g; ++h) {
    std::copy_n(x.ptr() + (h / g) * per_head, per_head, out.ptr() + h * per_head);
  }
  return out;
}

void rotate(Heads& heads, const RopeOptions& rope, Precision precision, long long offset) {
  if (precision == Precision::kFloat) {
    heads.q = fast::rope_apply(std::move(heads.q), rope, offset);
    heads.k = fast::rope_apply(std::move(heads.k), rope, offset);
  } else {
    heads.q = rope_apply(heads.q, rope, offset);
    heads.k = rope_apply(heads.k, rope, offset);
  }
}

namespace {

// Head h of (n, T, d) copied from head `from` of `source`.
void copy_head(TensorF& to, std::size_t h, const TensorF& source, std::size_t from) {
  const std::size_t per_head = to.dim(1) * to.dim(2);
  std::copy_n(source.ptr() + from * per_head, per_head, to.ptr() + h * per_head);
}

// The columns of head h in merged (T, H·d) set to 0.
void zero_head(TensorF& merged, std::size_t h, std::size_t d) {
  const std::size_t T = merged.dim(0), width = merged.dim(1);
  for (std::size_t t = 0; t < T; ++t) std::fill_n(merged.ptr() + t * width + h * d, d, 0.0f);
}

}  // namespace

TensorF rope_attention(Heads heads, const RopeOptions& rope, const RopeLmOptions& options,
                       std::size_t layer, LmLayerTrace* trace, long long window, double scale,
                       bool nope) {
  const std::size_t H = heads.q.dim(0), d = heads.q.dim(2), g = H / heads.k.dim(0);
  LayerSurgery surgery = layer_surgery(options.surgery, layer, H);
  surgery.nope = surgery.nope || nope;  // the model's own NoPE layer: the same path
  // A NoPE head reads q and k as they were before the rotation.
  const std::optional<Heads> plain =
      surgery.nope_heads.empty() ? std::nullopt : std::optional<Heads>(heads);
  // k rotated before repeat_kv: K heads of work. A NoPE layer skips the rotation.
  if (!surgery.nope && options.positions.empty()) {
    rotate(heads, rope, options.precision, options.position_offset);
  } else if (!surgery.nope) {
    rotate(heads, rope, options.positions);
  }
  if (g > 1) {  // grouped-query attention (Llama family)
    heads.k = repeat_heads(heads.k, g);
    heads.v = repeat_heads(heads.v, g);
  }
  for (std::size_t h = 0; h < surgery.nope_heads.size(); ++h) {
    if (!surgery.nope_heads[h]) continue;
    copy_head(heads.q, h, plain->q, h);
    copy_head(heads.k, h, plain->k, h / g);  // its own copy of the shared k
  }
  TensorF merged = causal_attention(heads, nullptr, options.precision,
                                    trace ? &trace->attention : nullptr, window, scale);
  for (std::size_t h = 0; h < surgery.ablated.size(); ++h) {
    if (surgery.ablated[h]) zero_head(merged, h, d);
  }
  if (trace && options.pair_energy) {
    const long long R = rope_frequencies(heads.q.dim(2), rope).rotary_dim;
    trace->pair_energy = rope_pair_energy(heads.q, heads.k, trace->attention, R, rope.style);
  }
  return merged;
}

void rotate(Heads& heads, const RopeOptions& rope, const std::vector<long long>& positions) {
  heads.q = rope_apply(heads.q, rope, positions);
  heads.k = rope_apply(heads.k, rope, positions);
}

TensorF causal_attention(const Heads& heads, const TensorF* bias, Precision precision,
                         TensorF* weights, long long window, double scale) {
  AttentionOptions options;  // default scale 1/√d, as most models
  if (scale > 0.0) options.scale = scale;
  options.mask = window > 0 ? Mask{MaskKind::kSlidingWindow, window} : Mask{MaskKind::kCausal, 0};
  options.bias = bias;
  options.return_weights = weights != nullptr;
  AttentionResult result = attention(heads.q, heads.k, heads.v, options, precision);
  const std::size_t H = heads.q.dim(0), T = heads.q.dim(1), d = heads.q.dim(2), E = H * d;
  TensorF merged({T, E}, "attention output (T, E)");
  for (std::size_t h = 0; h < H; ++h)
    for (std::size_t t = 0; t < T; ++t) {
      std::copy_n(result.output.ptr() + (h * T + t) * d, d, merged.ptr() + t * E + h * d);
    }
  if (weights) *weights = std::move(result.weights);
  return merged;
}

TensorF layer_norm(const TensorF& x, const StoredTensor& weight, const StoredTensor& bias,
                   double eps) {
  const TensorF gamma = weight.to_float(), beta = bias.to_float();
  return poslab::layer_norm(x, eps, &gamma, &beta);
}

std::function<TensorF(const TensorF&)> layer_norm_op(const StoredTensor& weight,
                                                     const StoredTensor& bias, double eps) {
  return [&weight, &bias, eps](const TensorF& x) { return layer_norm(x, weight, bias, eps); };
}

TensorF rms_norm(const TensorF& x, const StoredTensor& weight, double eps, double gain_offset) {
  TensorF gamma = weight.to_float();
  if (gain_offset != 0.0) {
    for (float& g : gamma.data) g = static_cast<float>(g + gain_offset);
  }
  return poslab::rms_norm(x, eps, &gamma);
}

std::function<TensorF(const TensorF&)> rms_norm_op(const StoredTensor& weight, double eps,
                                                   double gain_offset) {
  return [&weight, eps, gain_offset](const TensorF& x) {
    return rms_norm(x, weight, eps, gain_offset);
  };
}

namespace {

// The message of require_finite_activation, out of the hot path.
[[noreturn, gnu::cold, gnu::noinline]] void throw_overflow(const TensorF& x, std::size_t at,
                                                           const std::string& what) {
  const std::size_t row = x.ndim() > 1 ? x.size() / x.dim(0) : 1;
  throw Error("the forward pass overflows float32 at " + what + " (position " +
                  std::to_string(at / row) + ", element " + std::to_string(at % row) + ": " +
                  format_number(double(x.data[at])) + "): a weight or the input is too large there",
              "weights");
}

// The index of the first value of `x` that is not finite, or its size.
std::size_t first_non_finite(const TensorF& x) {
  return poslab::first_non_finite(x.ptr(), x.size());
}

}  // namespace

void require_finite_activation(const TensorF& x, const std::string& what) {
  const std::size_t at = first_non_finite(x);
  if (at < x.size()) throw_overflow(x, at, what);
}

// Not inlined into decoder_layers' try block, where every call would become an invoke
// through the JS-based exceptions of the threaded wasm build.
[[gnu::noinline]] TensorF decoder_layer(const TensorF& x, const DecoderLayer& layer,
                                        LmLayerTrace* trace, std::size_t index) {
  // Checked as each is made, so the message names the first tensor that went non-finite.
  const auto checked = [index](TensorF t, const char* what) {
    const std::size_t at = first_non_finite(t);
    if (at < t.size()) throw_overflow(t, at, "layer " + std::to_string(index) + "'s " + what);
    return t;
  };
  const TensorF attn =
      checked(layer.attention(checked(layer.norm_1(x), "first norm"), trace), "attention output");
  const bool parallel = layer.residual == Residual::kParallel;
  // h = x + attn: the MLP's input in a sequential layer, only traced in a parallel one.
  std::optional<TensorF> h;
  if (!parallel || trace) h = checked(sum({&x, &attn}), "residual after attention");
  const TensorF& mlp_input = parallel ? x : *h;
  const TensorF out =
      checked(layer.mlp(checked(layer.norm_2(mlp_input), "second norm")), "MLP output");
  TensorF next = checked(parallel ? sum({&x, &attn, &out}) : sum({&*h, &out}), "output");
  if (trace) {
    NormStats s1 = layer_norm_stats(x), s2 = layer_norm_stats(mlp_input);
    trace->ln_1_mean = std::move(s1.mean);
    trace->ln_1_variance = std::move(s1.variance);
    trace->ln_2_mean = std::move(s2.mean);
    trace->ln_2_variance = std::move(s2.variance);
    trace->resid_attn_norm = row_norms(*h);
    trace->resid_mlp_norm = row_norms(next);
  }
  return next;
}

TensorF decoder_layers(TensorF x, std::size_t n,
                       const std::function<DecoderLayer(std::size_t)>& layer_of,
                       std::vector<LmLayerTrace>* traces, const LmLayerVisitor& on_layer,
                       std::size_t first, std::vector<TensorF>* inputs) {
  const bool traced = traces != nullptr || bool(on_layer);
  for (std::size_t i = first; i < n; ++i) {
    if (inputs) inputs->push_back(x);
    LmLayerTrace trace;
    try {
      x = decoder_layer(x, layer_of(i), traced ? &trace : nullptr, i);
    } catch (const Error& e) {
      // A check inside the layer (attention's score overflow) does not know which layer it is.
      if (std::string(e.what()).rfind("the forward pass", 0) == 0) throw;
      throw Error("the forward pass fails at layer " + std::to_string(i) + ": " + e.what(),
                  e.field());
    }
    if (on_layer) {
      on_layer(i, trace);
    } else if (traces) {
      traces->push_back(std::move(trace));
    }
  }
  if (inputs) inputs->push_back(x);
  return x;
}

}  // namespace poslab::model

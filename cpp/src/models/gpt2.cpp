// The GPT-2 forward pass over one sequence, built from the core's own LayerNorm and attention
// (so the model view shows exactly what the other views compute) and the models' shared
// blocks (model_ops.hpp) in the precision asked for: float32 SIMD products by default, or
// products accumulated in double (the reference). Tensors between steps are float32, as in
// the released fp32 model.
// Shapes: T tokens, E width, H heads, d = E/H, V vocabulary.
#include "poslab/models/gpt2.hpp"

#include <algorithm>
#include <cmath>

#include "models/decoder.hpp"
#include "models/model_ops.hpp"
#include "poslab/models/lm.hpp"
#include "poslab/positions/alibi.hpp"
#include "poslab/positions/sinusoidal.hpp"

namespace poslab {
namespace {

// Causal self-attention of one block: qkv (T, 3E) = a·c_attn, [q | k | v] side by side; RoPE
// rotates q and k, ALiBi adds `alibi` (H, T, T); heads merged and projected with c_proj.
TensorF self_attention(const TensorF& a, const Gpt2Block& block, std::size_t H,
                       const std::vector<long long>& positions, const TensorF* alibi,
                       const Gpt2Options& options, TensorF* weights) {
  const Precision precision = options.precision;
  const TensorF qkv =
      model::linear(a, block.attn_c_attn_weight, &block.attn_c_attn_bias, precision, "qkv (T, 3E)");
  model::Heads heads = model::split_heads(qkv, H, model::QkvLayout::kSideBySide);
  if (options.position == Gpt2Position::kRope) {
    if (options.positions.empty()) {
      model::rotate(heads, RopeOptions{}, precision, options.position_offset);
    } else {
      model::rotate(heads, RopeOptions{}, positions);
    }
  }
  const TensorF merged = model::causal_attention(heads, alibi, precision, weights);
  return model::linear(merged, block.attn_c_proj_weight, &block.attn_c_proj_bias, precision,
                       "attention (T, E)");
}

// mlp.c_proj(gelu_tanh(mlp.c_fc(a))): (T, E) → (T, 4E) → (T, E).
TensorF mlp(const TensorF& a, const Gpt2Block& block, Precision precision) {
  TensorF hidden = model::linear(a, block.mlp_c_fc_weight, &block.mlp_c_fc_bias, precision,
                                 "MLP hidden (T, 4E)");
  model::gelu_tanh(hidden, precision);
  return model::linear(hidden, block.mlp_c_proj_weight, &block.mlp_c_proj_bias, precision,
                       "MLP output (T, E)");
}

}  // namespace

Gpt2Position parse_gpt2_position(const std::string& name) {
  return parse_position_method(name, kSupportGpt2Swap, "GPT-2 position method", "position");
}

namespace {

// What GPT-2 computes with each method swapped in for its learned positions.
struct Gpt2PositionNote {
  Gpt2Position position;
  const char* note;
};
constexpr Gpt2PositionNote kGpt2PositionNotes[] = {
    {Gpt2Position::kLearned, "Learned absolute positions (wpe), as GPT-2 was trained."},
    {Gpt2Position::kSinusoidal,
     "Exploration: sinusoidal positions replace wpe. GPT-2 was trained with learned positions, "
     "so these outputs are not what the model computes."},
    {Gpt2Position::kRope,
     "Exploration: wpe is dropped and RoPE rotates every head's q and k. GPT-2 was trained with "
     "learned positions, so these outputs are not what the model computes."},
    {Gpt2Position::kAlibi,
     "Exploration: wpe is dropped and ALiBi biases every head's scores. GPT-2 was trained with "
     "learned positions, so these outputs are not what the model computes."},
    {Gpt2Position::kNone,
     "Exploration: wpe is dropped (NoPE); order reaches the model only through the causal mask. "
     "GPT-2 was trained with learned positions, so these outputs are not what the model "
     "computes."}};
static_assert(std::size(kGpt2PositionNotes) == std::size(kGpt2PositionNames),
              "a note for every method GPT-2 can take");

}  // namespace

const char* gpt2_position_note(Gpt2Position position) {
  for (const Gpt2PositionNote& n : kGpt2PositionNotes) {
    if (n.position == position) return n.note;
  }
  return "";  // not swappable into GPT-2 (parse_gpt2_position refuses it)
}

Gpt2Result gpt2_forward(const Gpt2Weights& weights, const std::vector<long long>& tokens,
                        const Gpt2Options& options) {
  check_lm_weights(weights);
  const Gpt2Config& c = weights.config;
  model::check_tokens(tokens, c.dims.vocab_size, std::size_t(c.dims.context), "GPT-2",
                      "n_positions " + std::to_string(c.dims.context));
  require(options.top_k >= 0, "topK", "top_k must be non-negative");
  require(supports(options.position, kSupportGpt2Swap), "position",
          std::string("GPT-2 cannot take ") + to_string(options.position) + " positions");
  const long long offset = options.position_offset;
  require(offset >= 0 && offset <= c.dims.context - (long long)tokens.size(), "positionOffset",
          "the position offset must be in [0, n_positions − T] = [0, " +
              std::to_string(c.dims.context - (long long)tokens.size()) + "] (got " +
              std::to_string(offset) + ")");
  const std::size_t T = tokens.size(), E = std::size_t(c.dims.width), H = std::size_t(c.dims.heads);
  // Token t's position: offset + t, or positions[t] when given one by one.
  std::vector<long long> positions = options.positions;
  if (positions.empty()) {
    for (std::size_t t = 0; t < T; ++t) positions.push_back(offset + (long long)t);
  } else {
    require(offset == 0, "positions", "give the positions one by one or an offset, not both");
    require(positions.size() == T, "positions",
            "one position per token: " + std::to_string(T) + " tokens, " +
                std::to_string(positions.size()) + " positions");
    for (const long long p : positions) {
      require(p >= 0 && p < c.dims.context, "positions",
              "positions must be in [0, n_positions) = [0, " + std::to_string(c.dims.context) +
                  ") (got " + std::to_string(p) + ")");
    }
  }
  const long long last = *std::max_element(positions.begin(), positions.end());
  const double eps = c.layer_norm_epsilon;
  Gpt2Result result;

  // x[t] = wte[token t] + position[t]                                    (T, E)
  // position: wpe[t] as trained, a sinusoidal PE[t] swapped in, or nothing (RoPE, ALiBi and
  // NoPE put position into the attention instead).
  TensorF x({T, E}, "residual stream (T, E)");
  const TensorF sinusoidal =
      options.position == Gpt2Position::kSinusoidal ? sinusoidal_table(last + 1, E) : TensorF();
  std::vector<double> te(E), pe(E);
  for (std::size_t t = 0; t < T; ++t) {
    weights.wte.widen(std::size_t(tokens[t]) * E, E, te.data());
    if (options.position == Gpt2Position::kLearned) {
      weights.wpe.widen(std::size_t(positions[t]) * E, E, pe.data());
    } else if (options.position == Gpt2Position::kSinusoidal) {
      std::copy_n(sinusoidal.ptr() + std::size_t(positions[t]) * E, E, pe.begin());
    }
    for (std::size_t j = 0; j < E; ++j) x.data[t * E + j] = float(te[j] + pe[j]);
  }
  // ALiBi's bias −m_h·|p_i − p_j| (relative: the same at every offset).
  const TensorF alibi =
      options.position == Gpt2Position::kAlibi ? alibi_bias(c.dims.heads, positions) : TensorF();
  const TensorF* alibi_bias = alibi.size() ? &alibi : nullptr;
  const auto layer_of = [&](std::size_t i) {
    const Gpt2Block* block = &weights.blocks[i];
    return model::DecoderLayer{
        model::layer_norm_op(block->ln_1_weight, block->ln_1_bias, eps),
        model::layer_norm_op(block->ln_2_weight, block->ln_2_bias, eps),
        [&options, block, H, &positions, alibi_bias](const TensorF& a, LmLayerTrace* t) {
          return self_attention(a, *block, H, positions, alibi_bias, options,
                                t ? &t->attention : nullptr);
        },
        [block, &options](const TensorF& m) { return mlp(m, *block, options.precision); },
        model::Residual::kSequential};
  };
  x = model::decoder_layers(std::move(x), weights.blocks.size(), layer_of,
                            options.trace ? &result.layers : nullptr,
                            options.trace ? options.on_layer : LmLayerVisitor{});

  const TensorF final_x = model::layer_norm(x, weights.ln_f_weight, weights.ln_f_bias, eps);
  model::require_finite_activation(final_x, "the final norm");
  // Tied to the token embedding: logits = x · wteᵀ, wte (V, E) read as an (out, in) weight.
  result.logits = model::linear(final_x, weights.wte, nullptr, options.precision, "logits (T, V)");
  model::require_finite_activation(result.logits, "the logits");
  // The next token after the last position.
  const std::size_t V = result.logits.dim(1);
  TopK top = top_k(result.logits.ptr() + (T - 1) * V, V, std::size_t(options.top_k));
  result.top_ids = std::move(top.ids);
  result.top_probs = std::move(top.probs);
  return result;
}

}  // namespace poslab

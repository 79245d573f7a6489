// The GPT-2 forward pass over one sequence, built from the core's own LayerNorm and attention
// (so the model view shows exactly what the other views compute) and the models' shared
// blocks (model_ops.hpp) in the precision asked for: float32 SIMD products by default, or
// products accumulated in double (the reference). Tensors between steps are float32, as in
// the released fp32 model.
// Shapes: T tokens, E width, H heads, d = E/H, V vocabulary.
#include "poslab/models/gpt2.hpp"

#include <algorithm>
#include <cmath>

#include "models/model_ops.hpp"
#include "poslab/fast/fast.hpp"
#include "poslab/layers/attention.hpp"
#include "poslab/layers/norm.hpp"
#include "poslab/models/lm.hpp"
#include "poslab/positions/alibi.hpp"
#include "poslab/positions/rope.hpp"
#include "poslab/positions/sinusoidal.hpp"

namespace poslab {
namespace {

// Causal self-attention of one block: qkv (T, 3E) = ln_1(x)·c_attn, split into q, k, v of
// (H, T, d) each (head h takes columns h·d..h·d+d−1 of its third), attend, merge heads back
// to (T, E) and project with c_proj. RoPE rotates q and k; ALiBi adds `alibi` (H, T, T).
TensorF self_attention(const TensorF& a, const Gpt2Block& block, std::size_t H,
                       Gpt2Position position, const TensorF* alibi, bool trace, TensorF* weights,
                       Precision precision) {
  const TensorF qkv = model::linear(a, block.attn_c_attn_weight, &block.attn_c_attn_bias,
                                    model::Layout::kInOut, precision, "qkv (T, 3E)");
  const std::size_t T = a.dim(0), E = a.dim(1), d = E / H;
  TensorF q({H, T, d}, "q (H, T, d)"), k({H, T, d}, "k (H, T, d)"), v({H, T, d}, "v (H, T, d)");
  for (std::size_t h = 0; h < H; ++h)
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t j = 0; j < d; ++j) {
        const float* row = qkv.ptr() + t * 3 * E + h * d + j;
        const std::size_t at = (h * T + t) * d + j;
        q.data[at] = row[0];
        k.data[at] = row[E];
        v.data[at] = row[2 * E];
      }
  if (position == Gpt2Position::kRope && precision == Precision::kDouble) {
    q = rope_apply(q, RopeOptions{});
    k = rope_apply(k, RopeOptions{});
  } else if (position == Gpt2Position::kRope) {
    q = fast::rope_apply(std::move(q), RopeOptions{});
    k = fast::rope_apply(std::move(k), RopeOptions{});
  }
  AttentionOptions options;
  options.mask = Mask{MaskKind::kCausal, 0};  // default scale 1/√d, as GPT-2
  options.bias = alibi;
  options.return_weights = trace;
  AttentionResult result = model::attention(q, k, v, options, precision);
  TensorF merged({T, E}, "attention output (T, E)");
  for (std::size_t h = 0; h < H; ++h)
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t j = 0; j < d; ++j) {
        merged.data[t * E + h * d + j] = result.output.data[(h * T + t) * d + j];
      }
  if (trace) *weights = std::move(result.weights);
  return model::linear(merged, block.attn_c_proj_weight, &block.attn_c_proj_bias,
                       model::Layout::kInOut, precision, "attention (T, E)");
}

// mlp.c_proj(gelu_tanh(mlp.c_fc(a))): (T, E) → (T, 4E) → (T, E).
TensorF mlp(const TensorF& a, const Gpt2Block& block, Precision precision) {
  TensorF hidden = model::linear(a, block.mlp_c_fc_weight, &block.mlp_c_fc_bias,
                                 model::Layout::kInOut, precision, "MLP hidden (T, 4E)");
  model::gelu_tanh(hidden, precision);
  return model::linear(hidden, block.mlp_c_proj_weight, &block.mlp_c_proj_bias,
                       model::Layout::kInOut, precision, "MLP output (T, E)");
}

}  // namespace

Gpt2Position parse_gpt2_position(const std::string& name) {
  return parse_position_method(name, kSupportGpt2Swap, "GPT-2 position method", "position");
}

const char* gpt2_position_note(Gpt2Position position) {
  switch (position) {
    case Gpt2Position::kLearned:
      return "Learned absolute positions (wpe), as GPT-2 was trained.";
    case Gpt2Position::kSinusoidal:
      return "Exploration: sinusoidal positions replace wpe. GPT-2 was trained with learned "
             "positions, so these outputs are not what the model computes.";
    case Gpt2Position::kRope:
      return "Exploration: wpe is dropped and RoPE rotates every head's q and k. GPT-2 was "
             "trained with learned positions, so these outputs are not what the model computes.";
    case Gpt2Position::kAlibi:
      return "Exploration: wpe is dropped and ALiBi biases every head's scores. GPT-2 was "
             "trained with learned positions, so these outputs are not what the model computes.";
    case Gpt2Position::kNone:
      return "Exploration: wpe is dropped (NoPE); order reaches the model only through the "
             "causal mask. GPT-2 was trained with learned positions, so these outputs are not "
             "what the model computes.";
    default:  // not swappable into GPT-2 (parse_gpt2_position refuses them)
      return "";
  }
}

Gpt2Result gpt2_forward(const Gpt2Weights& weights, const std::vector<long long>& tokens,
                        const Gpt2Options& options) {
  check_gpt2_weights(weights);
  const Gpt2Config& c = weights.config;
  require(!tokens.empty(), "GPT-2 needs at least one token");
  require(tokens.size() <= std::size_t(c.n_positions), std::to_string(tokens.size()) +
                                                           " tokens exceed n_positions " +
                                                           std::to_string(c.n_positions));
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    require(tokens[t] >= 0 && tokens[t] < c.vocab_size,
            "token " + std::to_string(tokens[t]) + " at position " + std::to_string(t) +
                " is outside the vocabulary [0, " + std::to_string(c.vocab_size) + ")");
  }
  require(options.top_k >= 0, "topK", "top_k must be non-negative");
  require(supports(options.position, kSupportGpt2Swap), "position",
          std::string("GPT-2 cannot take ") + to_string(options.position) + " positions");

  const std::size_t T = tokens.size(), E = std::size_t(c.n_embd), H = std::size_t(c.n_head);
  const double eps = c.layer_norm_epsilon;
  Gpt2Result result;

  // x[t] = wte[token t] + position[t]                                    (T, E)
  // position: wpe[t] as trained, a sinusoidal PE[t] swapped in, or nothing (RoPE, ALiBi and
  // NoPE put position into the attention instead).
  TensorF x({T, E}, "residual stream (T, E)");
  const TensorF sinusoidal =
      options.position == Gpt2Position::kSinusoidal ? sinusoidal_table(T, E) : TensorF();
  std::vector<double> te(E), pe(E);
  for (std::size_t t = 0; t < T; ++t) {
    weights.wte.widen(std::size_t(tokens[t]) * E, E, te.data());
    if (options.position == Gpt2Position::kLearned) {
      weights.wpe.widen(t * E, E, pe.data());
    } else if (options.position == Gpt2Position::kSinusoidal) {
      std::copy_n(sinusoidal.ptr() + t * E, E, pe.begin());
    }
    for (std::size_t j = 0; j < E; ++j) x.data[t * E + j] = float(te[j] + pe[j]);
  }
  const TensorF alibi = options.position == Gpt2Position::kAlibi
                            ? alibi_bias(c.n_head, (long long)T, (long long)T)
                            : TensorF();

  for (const Gpt2Block& block : weights.blocks) {
    Gpt2LayerTrace layer;
    const TensorF ln_1_weight = block.ln_1_weight.to_float(),
                  ln_1_bias = block.ln_1_bias.to_float();
    const TensorF ln_2_weight = block.ln_2_weight.to_float(),
                  ln_2_bias = block.ln_2_bias.to_float();
    const TensorF a = layer_norm(x, eps, &ln_1_weight, &ln_1_bias);
    const TensorF attn_out =
        self_attention(a, block, H, options.position, alibi.size() ? &alibi : nullptr,
                       options.trace, &layer.attention, options.precision);
    const TensorF h = model::sum({&x, &attn_out});
    const TensorF m = layer_norm(h, eps, &ln_2_weight, &ln_2_bias);
    const TensorF mlp_out = mlp(m, block, options.precision);
    TensorF next = model::sum({&h, &mlp_out});
    if (options.trace) {
      NormStats s1 = layer_norm_stats(x), s2 = layer_norm_stats(h);
      layer.ln_1_mean = std::move(s1.mean);
      layer.ln_1_variance = std::move(s1.variance);
      layer.ln_2_mean = std::move(s2.mean);
      layer.ln_2_variance = std::move(s2.variance);
      layer.resid_attn_norm = model::row_norms(h);
      layer.resid_mlp_norm = model::row_norms(next);
      result.layers.push_back(std::move(layer));
    }
    x = std::move(next);
  }

  const TensorF ln_f_weight = weights.ln_f_weight.to_float();
  const TensorF ln_f_bias = weights.ln_f_bias.to_float();
  const TensorF final_x = layer_norm(x, eps, &ln_f_weight, &ln_f_bias);
  // Tied to the token embedding: logits = x · wteᵀ, wte (V, E) read as an (out, in) weight.
  result.logits = model::linear(final_x, weights.wte, nullptr, model::Layout::kOutIn,
                                options.precision, "logits (T, V)");
  // The next token after the last position.
  const std::size_t V = result.logits.dim(1);
  TopK top = top_k(result.logits.ptr() + (T - 1) * V, V, std::size_t(options.top_k));
  result.top_ids = std::move(top.ids);
  result.top_probs = std::move(top.probs);
  return result;
}

}  // namespace poslab

// The trainer's attention against the core's multi-head attention, for every position method
// (FIRE, CoPE and FoX, trainer only: the core's attention with their term added, written out
// here):
// both read one set of formulas (RoPE frequencies and rotation, the sinusoidal table, ALiBi
// slopes, T5 buckets) and one mask rule, and this shows they compute the same weights.
//
// The first layer's input is rebuilt with the core (s·wte[token] + the position table, then
// LayerNorm with the layer's ln_1) and attended with the core's multihead_attention, its Q, K
// and V projections sliced from the layer's c_attn. Tolerance: the float trainer against the
// core's double accumulation, 1e-5 absolute on weights in [0, 1] (the float policy of the
// models' attention, docs/ARCHITECTURE.md section 2).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "poslab/base/random.hpp"
#include "poslab/layers/attention.hpp"
#include "poslab/layers/multihead.hpp"
#include "poslab/layers/norm.hpp"
#include "poslab/positions/learned.hpp"
#include "poslab/positions/sinusoidal.hpp"
#include "poslab/train/model.hpp"

namespace poslab::train {
namespace {

constexpr std::size_t kLength = 11, kWidth = 16, kHeads = 4;
constexpr std::uint64_t kT5Seed = 5;

ModelConfig config_for(PositionMethod method) {
  ModelConfig c;
  c.n_layer = 1;
  c.n_embd = kWidth;
  c.n_head = kHeads;
  c.n_inner = 4 * kWidth;
  c.vocab_size = 9;
  c.n_positions = 32;
  c.position = method;
  c.embed_scale = 2.0;
  if (method == PositionMethod::kPRope) c.keep_fraction = 0.5;  // one of the two pairs zeroed
  if (method == PositionMethod::kCope) c.cope_npos_max = 4;     // the longer rows clipped at 3
  return c;
}

// Columns [first, first + count) of a (rows, cols) row-major matrix.
TensorF columns(const float* m, std::size_t rows, std::size_t cols, std::size_t first,
                std::size_t count) {
  TensorF out({rows, count});
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < count; ++c) out.data[r * count + c] = m[r * cols + first + c];
  }
  return out;
}

TensorF vector_of(const float* v, std::size_t n) {
  return TensorF({n}, std::vector<float>(v, v + n));
}

// FIRE's bias (H, T, T) of the first layer at positions 0..T−1, written from the paper's
// formula in double (never through the trainer's ops): u = log(|c|·(i − j) + 1) /
// (log(|c|·max(|s|·512, i + 1) + 1) + 1e-6), bias_h = (ReLU(fc1(u))·W2)_h; 0 above the diagonal.
TensorF naive_fire_bias(const ModelConfig& c, const Parameters& p, std::size_t T) {
  const double abs_c = std::fabs(double(p.at("h.0.attn.fire.c")[0]));
  const double threshold = std::fabs(double(p.at("h.0.attn.fire.threshold_scale")[0])) * 512;
  const float* w1 = p.at("h.0.attn.fire.fc1.weight");  // (1, 32)
  const float* b1 = p.at("h.0.attn.fire.fc1.bias");
  const float* w2 = p.at("h.0.attn.fire.fc2.weight");  // (32, H)
  const std::size_t H = c.n_head, K = p.find("h.0.attn.fire.fc1.bias").numel;
  TensorF bias({H, T, T});
  for (std::size_t i = 0; i < T; ++i) {
    const double norm = std::max(threshold, double(i) + 1);
    for (std::size_t j = 0; j <= i; ++j) {
      const double u = std::log(abs_c * double(i - j) + 1) / (std::log(abs_c * norm + 1) + 1e-6);
      for (std::size_t h = 0; h < H; ++h) {
        double value = 0;
        for (std::size_t k = 0; k < K; ++k) {
          value += std::max(0.0, double(w1[k]) * u + b1[k]) * double(w2[k * H + h]);
        }
        bias.data[(h * T + i) * T + j] = static_cast<float>(value);
      }
    }
  }
  return bias;
}

// FoX's bias (H, T, T) of the first layer, from its definition in double (Lin et al. 2025):
// Σ_{t=j+1..i} log σ(w_h·x_t + b_h) over the layer's normalised input x (T, E); 0 above the
// diagonal.
TensorF naive_fox_bias(const ModelConfig& c, const Parameters& p, const TensorF& x) {
  const std::size_t H = c.n_head, T = x.dim(0), E = c.n_embd;
  const float* w = p.at("h.0.attn.fox_w");  // (H, E)
  const float* b = p.at("h.0.attn.fox_b");
  TensorF bias({H, T, T});
  for (std::size_t h = 0; h < H; ++h) {
    std::vector<double> log_f(T);
    for (std::size_t t = 0; t < T; ++t) {
      double z = b[h];
      for (std::size_t e = 0; e < E; ++e) z += double(w[h * E + e]) * x.data[t * E + e];
      log_f[t] = std::log(1 / (1 + std::exp(-z)));
    }
    for (std::size_t i = 0; i < T; ++i) {
      for (std::size_t j = 0; j <= i; ++j) {
        double sum = 0;
        for (std::size_t t = j + 1; t <= i; ++t) sum += log_f[t];
        bias.data[(h * T + i) * T + j] = static_cast<float>(sum);
      }
    }
  }
  return bias;
}

// CoPE's term (H, T, T) of the first layer from the authors' code, in double: over each head's
// q, k (T, d), gates σ(q_i·k_j/√d) for j ≤ i, positions p_ij = Σ_{t=j..i} gates clipped at
// P − 1, and q_i·E interpolated at p_ij; 0 above the diagonal.
TensorF naive_cope_bias(const ModelConfig& c, const Parameters& p, const TensorF& q,
                        const TensorF& k) {
  const std::size_t H = q.dim(0), T = q.dim(1), d = q.dim(2), P = c.cope_npos_max;
  const float* emb = p.at("h.0.attn.cope_pos_emb");  // (d, P)
  TensorF bias({H, T, T});
  for (std::size_t h = 0; h < H; ++h) {
    for (std::size_t i = 0; i < T; ++i) {
      const float* qi = q.ptr() + (h * T + i) * d;
      std::vector<double> z(P, 0.0), gate(i + 1);
      for (std::size_t m = 0; m < P; ++m) {
        for (std::size_t e = 0; e < d; ++e) z[m] += double(qi[e]) * emb[e * P + m];
      }
      for (std::size_t j = 0; j <= i; ++j) {
        double s = 0;
        for (std::size_t e = 0; e < d; ++e) s += double(qi[e]) * k.ptr()[(h * T + j) * d + e];
        gate[j] = 1 / (1 + std::exp(-s / std::sqrt(double(d))));
      }
      for (std::size_t j = 0; j <= i; ++j) {
        double pos = 0;
        for (std::size_t t = j; t <= i; ++t) pos += gate[t];
        pos = std::min(pos, double(P - 1));
        const double w = pos - std::floor(pos);
        bias.data[(h * T + i) * T + j] = static_cast<float>(
            z[std::size_t(std::ceil(pos))] * w + z[std::size_t(std::floor(pos))] * (1 - w));
      }
    }
  }
  return bias;
}

// The core's attention weights (H, T, T) for one sequence of the model's first layer.
TensorF core_attention(const ModelConfig& c, const Parameters& p,
                       const std::vector<std::int32_t>& tokens) {
  const std::size_t T = tokens.size(), E = c.n_embd;
  TensorF x({T, E});
  const TensorF table =
      c.position == PositionMethod::kSinusoidal
          ? sinusoidal_table(static_cast<long long>(T), static_cast<long long>(E), c.base)
          : TensorF();
  for (std::size_t t = 0; t < T; ++t) {
    for (std::size_t i = 0; i < E; ++i) {
      double value = c.embed_scale * p.at("wte.weight")[std::size_t(tokens[t]) * E + i];
      if (has_learned_table(c.position)) value += p.at("wpe.weight")[t * E + i];
      if (c.position == PositionMethod::kSinusoidal) value += table.data[t * E + i];
      x.data[t * E + i] = static_cast<float>(value);
    }
  }
  const TensorF gamma = vector_of(p.at("h.0.ln_1.weight"), E);
  const TensorF beta = vector_of(p.at("h.0.ln_1.bias"), E);
  const TensorF normed = layer_norm(x, c.layer_norm_epsilon, &gamma, &beta);

  const float* w = p.at("h.0.attn.c_attn.weight");  // (E, 3E): q, k, v side by side
  const float* b = p.at("h.0.attn.c_attn.bias");
  MultiHeadWeights weights;
  weights.wq = columns(w, E, 3 * E, 0, E);
  weights.wk = columns(w, E, 3 * E, E, E);
  weights.wv = columns(w, E, 3 * E, 2 * E, E);
  weights.wo = TensorF({E, E});
  weights.bq = vector_of(b, E);
  weights.bk = vector_of(b + E, E);
  weights.bv = vector_of(b + 2 * E, E);

  MultiHeadOptions options;
  options.num_heads = static_cast<long long>(c.n_head);
  options.mask = Mask{MaskKind::kCausal, 0};
  if (position_method_info(c.position).kind == PositionKind::kRotation) {
    RopeOptions rope = rotation_defaults(c.position);
    rope.base = c.base;
    rope.keep_fraction = c.keep_fraction;
    options.rope = rope;
  }
  // A score bias of the core takes the trainer's parameters of layer 0.
  if (c.position != PositionMethod::kNone && supports(c.position, kSupportBias)) {
    options.bias = score_bias_defaults(c.position);
    if (c.position == PositionMethod::kT5) {
      options.bias.options = {double(c.t5_num_buckets), double(c.t5_max_distance)};
    }
    for (const std::string& name : score_bias_tensors(c, 0)) {
      options.bias.parameters.insert(options.bias.parameters.end(), p.at(name),
                                     p.at(name) + p.find(name).numel);
    }
  }
  const MultiHeadResult heads = multihead_attention(normed, weights, options);
  const PositionMethod m = c.position;
  if (m != PositionMethod::kFire && m != PositionMethod::kFox && m != PositionMethod::kCope) {
    return heads.weights;
  }
  // FIRE, FoX and CoPE: the core's attention over the same heads, the naive term added to the
  // scores.
  const TensorF bias = m == PositionMethod::kFire  ? naive_fire_bias(c, p, T)
                       : m == PositionMethod::kFox ? naive_fox_bias(c, p, normed)
                                                   : naive_cope_bias(c, p, heads.q, heads.k);
  AttentionOptions fire;
  fire.mask = Mask{MaskKind::kCausal, 0};
  fire.bias = &bias;
  return attention(heads.q, heads.k, heads.v, fire).weights;
}

TEST(TrainAttention, MatchesTheCoresMultiHeadAttentionForEveryMethod) {
  for (const Named<PositionMethod>& entry : kPositionMethodNames) {
    const PositionMethod method = entry.value;
    SCOPED_TRACE(entry.name);
    const ModelConfig c = config_for(method);
    Parameters p(c);
    init_parameters(p, 3, 0.0);
    // Biases and gains away from 0 and 1, so they are checked too.
    Rng rng(11);
    for (const char* key : {"h.0.attn.c_attn.bias", "h.0.ln_1.weight", "h.0.ln_1.bias"}) {
      float* v = p.at(key);
      for (std::size_t i = 0; i < p.find(key).numel; ++i) v[i] += 0.1f * float(rng.normal());
    }
    if (method == PositionMethod::kCope) {
      // Embeddings away from their zero start (config_for clips positions at 3).
      float* e = p.at("h.0.attn.cope_pos_emb");
      for (std::size_t i = 0; i < p.find("h.0.attn.cope_pos_emb").numel; ++i) {
        e[i] = float(rng.normal());
      }
    }
    if (method == PositionMethod::kFox) {
      // Gates that differ by head and by token: f from about 0.1 to 0.9.
      for (const char* key : {"h.0.attn.fox_w", "h.0.attn.fox_b"}) {
        float* v = p.at(key);
        for (std::size_t i = 0; i < p.find(key).numel; ++i) v[i] = float(0.5 * rng.normal());
      }
    }
    if (method == PositionMethod::kT5) {
      // A table far from the trainer's N(0, 0.02) init, so the bias shows in the weights.
      const TensorF table = learned_table(static_cast<long long>(c.t5_num_buckets),
                                          static_cast<long long>(c.n_head), kT5Seed, 1.0);
      std::copy(table.data.begin(), table.data.end(), p.at("rel_bias.weight"));
    }
    if (method == PositionMethod::kFire) {
      // c and L where both sides of max(L, i + 1) occur within the 11 positions (L = 6.1).
      p.at("h.0.attn.fire.c")[0] = -0.7f;
      p.at("h.0.attn.fire.threshold_scale")[0] = 0.012f;
    }
    Batch batch;
    batch.batch = 2;
    batch.length = kLength;
    for (std::size_t r = 0; r < batch.batch * kLength; ++r) {
      batch.tokens.push_back(static_cast<std::int32_t>(rng.next_u64() % c.vocab_size));
      batch.positions.push_back(static_cast<std::int32_t>(r % kLength));
    }
    batch.targets = batch.tokens;
    batch.loss_mask.assign(batch.tokens.size(), 1.0f);

    Model model(c);
    for (std::size_t s = 0; s < batch.batch; ++s) {
      const TensorF got = model.attention_maps(p, batch, s);  // (1, H, T, T)
      const std::vector<std::int32_t> tokens(batch.tokens.begin() + s * kLength,
                                             batch.tokens.begin() + (s + 1) * kLength);
      const TensorF want = core_attention(c, p, tokens);
      ASSERT_EQ(got.size(), want.size());
      double worst = 0;
      for (std::size_t e = 0; e < got.size(); ++e) {
        worst = std::max(worst, std::fabs(double(got.data[e]) - double(want.data[e])));
      }
      EXPECT_LE(worst, 1e-5) << "sequence " << s;
    }
  }
}

}  // namespace
}  // namespace poslab::train

// The position lens's measures on attention maps built by hand, one head per role: each is
// classified as built, and the distance profile and scores are the definitions' values.
#include "poslab/analysis/lens.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>

#include "poslab/analysis/lens_report.hpp"
#include "poslab/base/errors.hpp"
#include "poslab/models/gpt2.hpp"
#include "poslab/models/gpt_neox.hpp"
#include "poslab/models/llama.hpp"
#include "poslab/models/lm_lens.hpp"
#include "poslab/models/lm_weights.hpp"

namespace poslab {
namespace {

constexpr std::size_t T = 12;

// (H, T, T) from one row rule per head: weight(h, i, j) for j <= i, rows normalised.
TensorF layer(std::size_t H, std::size_t length,
              const std::function<double(std::size_t, std::size_t, std::size_t)>& weight) {
  TensorF a({H, length, length});
  for (std::size_t h = 0; h < H; ++h) {
    for (std::size_t i = 0; i < length; ++i) {
      double sum = 0.0;
      for (std::size_t j = 0; j <= i; ++j) sum += weight(h, i, j);
      for (std::size_t j = 0; j <= i; ++j) {
        a.data[(h * length + i) * length + j] = float(weight(h, i, j) / sum);
      }
    }
  }
  return a;
}

enum Head : std::size_t { kSinkHead, kPrevious, kInductionHead, kLocalHead, kBroadHead, kHeads };
constexpr std::size_t kPeriod = 6;  // the repeated sequence: 6 random tokens, twice

// The text's rule per head; on the repeated sequence only the induction head differs.
double text_weight(std::size_t h, std::size_t i, std::size_t j) {
  switch (h) {
    case kSinkHead:
      return j == 0 ? 1.0 : 0.0;
    case kPrevious:
      return j + 1 == i || (i == 0 && j == 0) ? 1.0 : 0.0;
    case kLocalHead:
      return i - j < 3 ? 1.0 : 0.0;  // uniform over the last 3 tokens
    default:
      return 1.0;  // uniform: broad (and the induction head on plain text)
  }
}

double repeated_weight(std::size_t h, std::size_t i, std::size_t j) {
  if (h == kInductionHead && i >= kPeriod) return j == i - kPeriod + 1 ? 1.0 : 0.0;
  return text_weight(h, i, j);
}

TEST(Lens, EachHandBuiltHeadGetsItsRole) {
  const TensorF text = layer(kHeads, T, text_weight);
  const TensorF repeated = layer(kHeads, 2 * kPeriod, repeated_weight);
  const HeadRoleThresholds t;
  const std::vector<HeadScores> s = head_scores(text, repeated, kPeriod, t);
  ASSERT_EQ(s.size(), std::size_t(kHeads));
  EXPECT_EQ(head_role(s[kSinkHead], t), HeadRole::kSink);
  EXPECT_EQ(head_role(s[kPrevious], t), HeadRole::kPreviousToken);
  EXPECT_EQ(head_role(s[kInductionHead], t), HeadRole::kInduction);
  EXPECT_EQ(head_role(s[kLocalHead], t), HeadRole::kLocal);
  EXPECT_EQ(head_role(s[kBroadHead], t), HeadRole::kBroad);
  // The definitions' values: a pure previous-token head puts 1 on i − 1 and is local too.
  EXPECT_DOUBLE_EQ(s[kPrevious].previous_token, 1.0);
  EXPECT_DOUBLE_EQ(s[kPrevious].local, 1.0);
  EXPECT_DOUBLE_EQ(s[kSinkHead].sink, 1.0);
  EXPECT_DOUBLE_EQ(s[kInductionHead].induction, 1.0);
  // Uniform over the last 3: 1/3 on i − 1 (rows i >= 2), 1/2 on row 1.
  EXPECT_NEAR(s[kLocalHead].previous_token, (0.5 + 10.0 / 3.0) / 11.0, 1e-7);
  // Broad: mean over rows i >= 1 of 1/(i + 1) on token 0.
  double sink = 0.0;
  for (std::size_t i = 1; i < T; ++i) sink += 1.0 / double(i + 1);
  EXPECT_NEAR(s[kBroadHead].sink, sink / double(T - 1), 1e-7);
  // Without the repeated pass no head is an induction head.
  EXPECT_EQ(head_scores(text, TensorF{}, 0, t)[kInductionHead].induction, 0.0);
}

TEST(Lens, AttentionByDistanceIsTheMeanAlongEachDiagonal) {
  const TensorF a = layer(kHeads, T, text_weight);
  const TensorF d = attention_by_distance(a);
  ASSERT_EQ(d.shape, (Shape{kHeads, T}));
  const float* previous = d.ptr() + kPrevious * T;
  EXPECT_NEAR(previous[0], 1.0 / double(T), 1e-7);  // only row 0 attends to itself
  EXPECT_FLOAT_EQ(previous[1], 1.0f);
  for (std::size_t k = 2; k < T; ++k) EXPECT_FLOAT_EQ(previous[k], 0.0f);
  // The sink head: distance d holds row d's weight on token 0 alone.
  EXPECT_FLOAT_EQ(d.data[kSinkHead * T + (T - 1)], 1.0f);
}

TEST(Lens, ShapesAndPeriodAreChecked) {
  const TensorF a = layer(2, 4, text_weight);
  EXPECT_THROW(attention_by_distance(TensorF({2, 4, 3})), Error);
  EXPECT_THROW(head_scores(a, layer(3, 4, text_weight), 2), Error);  // heads differ
  EXPECT_THROW(head_scores(a, layer(2, 4, text_weight), 3), Error);  // 2n > T
  EXPECT_THROW(head_scores(a, layer(2, 4, text_weight), 0), Error);
  HeadRoleThresholds t;
  t.local_window = 0;
  EXPECT_THROW(head_scores(a, TensorF{}, 0, t), Error);
}

// A real forward pass with heads wired by hand. GPT-2, E = 4, two heads of width 2; the tokens
// add nothing (wte = 0) and position p is x_p = (cos pω, sin pω, −cos pω, −sin pω), which
// LayerNorm keeps (mean 0, the same norm at every p). Head 0: q_i = s·R(−ω)(x0, x1), k_j =
// (x0, x1), so q_i·k_j ∝ cos((i − 1 − j)ω): the previous token. Head 1: q = (s, 0) from the
// bias, k_j = (x0, x1), so q·k_j ∝ cos(jω): the first token. The lens must name them.
TEST(Lens, HeadsWiredInAGpt2AreNamedByTheirRoles) {
  Gpt2Config c;
  c.dims = {8, 32, 4, 1, 2};
  Gpt2Weights w = lm_random_weights(c, 1);
  constexpr double kOmega = 0.15, kScale = 400.0;
  TensorF wpe({32, 4});
  for (std::size_t p = 0; p < 32; ++p) {
    const double a = double(p) * kOmega;
    const float row[4] = {float(std::cos(a)), float(std::sin(a)), float(-std::cos(a)),
                          float(-std::sin(a))};
    std::copy(row, row + 4, wpe.data.begin() + std::ptrdiff_t(4 * p));
  }
  w.wpe = StoredTensor::from(wpe);
  w.wte = StoredTensor::from(TensorF({8, 4}));
  Gpt2Block& b = w.blocks[0];
  TensorF gain({4});
  std::fill(gain.data.begin(), gain.data.end(), 1.0f);
  b.ln_1_weight = StoredTensor::from(gain);
  b.ln_1_bias = StoredTensor::from(TensorF({4}));
  // Conv1D: out[o] = Σ_in x[in]·W[in, o] + bias[o]; columns 0–3 are q, 4–7 k, 8–11 v.
  TensorF W({4, 12});
  TensorF bias({12});
  const auto set = [&](std::size_t in, std::size_t out, double v) {
    W.data[in * 12 + out] = float(v);
  };
  set(0, 0, kScale * std::cos(kOmega));  // head 0's q: s·R(−ω)(x0, x1)
  set(1, 0, kScale * std::sin(kOmega));
  set(0, 1, -kScale * std::sin(kOmega));
  set(1, 1, kScale * std::cos(kOmega));
  bias.data[2] = float(kScale);  // head 1's q: (s, 0)
  set(0, 4, 1.0);                // head 0's k: (x0, x1)
  set(1, 5, 1.0);
  set(0, 6, 1.0);  // head 1's k: (x0, x1)
  set(1, 7, 1.0);
  b.attn_c_attn_weight = transposed(StoredTensor::from(W));  // held (out, in)
  b.attn_c_attn_bias = StoredTensor::from(bias);

  const std::vector<long long> tokens{1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0};
  Gpt2Options o;
  o.top_k = 1;
  o.precision = Precision::kDouble;
  const TensorF attention = gpt2_forward(w, tokens, o).layers[0].attention;
  const std::vector<HeadScores> s = head_scores(attention, attention, 8);
  EXPECT_EQ(head_role(s[0]), HeadRole::kPreviousToken);
  EXPECT_GT(s[0].previous_token, 0.99);
  EXPECT_EQ(head_role(s[1]), HeadRole::kSink);
  EXPECT_GT(s[1].sink, 0.95);  // row 1 gives j = 1 a little: cos ω is close to 1
}

// The shift check's premise: a RoPE model's logits depend on relative positions only, so moving
// every position by k changes nothing — to 1e-6 of the largest |logit| on the double path (the
// logits are stored in float), to 1e-4 in float — unless the scaling depends on the length
// (dynamic NTK), which the lens reports as not expected to be invariant.
TEST(Lens, RopeLogitsDoNotMoveWithThePositions) {
  LlamaConfig c = LlamaConfig::from_json(
      R"({"model_type": "llama", "vocab_size": 50, "hidden_size": 32, "num_hidden_layers": 2,
          "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 48,
          "max_position_embeddings": 16})",
      "c");
  const LlamaWeights w = lm_random_weights(c, 3);
  const std::vector<long long> tokens{1, 7, 3, 3, 9, 40, 2, 11, 5, 8};
  const auto largest_change = [&](const LlamaWeights& weights, Precision precision, long long k) {
    LlamaOptions o;
    o.precision = precision;
    const TensorF a = llama_forward(weights, tokens, o).logits;
    o.position_offset = k;
    return logit_change(a, llama_forward(weights, tokens, o).logits).relative();
  };
  EXPECT_LT(largest_change(w, Precision::kDouble, 1000), 1e-6);
  EXPECT_LT(largest_change(w, Precision::kFloat, 1000), 1e-4);
  LlamaWeights dynamic = w;
  dynamic.config.rope_scaling = RopeScaling::kDynamic;
  dynamic.config.rope_factor = 4.0;
  // 10 tokens at offset 30 make S = 40 > N = 16: the base grows, the logits move.
  EXPECT_GT(largest_change(dynamic, Precision::kDouble, 30), 1e-4);
  LlamaOptions bad;
  bad.position_offset = -1;
  EXPECT_THROW(llama_forward(w, tokens, bad), Error);
  // Positions one by one (the lens's shuffle): rising ones are the plain pass, within the float
  // tolerance (the rotation then runs in double); all 0 moves the logits.
  for (const Precision precision : {Precision::kDouble, Precision::kFloat}) {
    LlamaOptions o;
    o.precision = precision;
    const TensorF plain = llama_forward(w, tokens, o).logits;
    for (std::size_t t = 0; t < tokens.size(); ++t) o.positions.push_back((long long)t);
    EXPECT_LT(logit_change(plain, llama_forward(w, tokens, o).logits).relative(),
              precision == Precision::kDouble ? 1e-6 : 1e-4);
    o.positions.assign(tokens.size(), 0);
    EXPECT_GT(logit_change(plain, llama_forward(w, tokens, o).logits).relative(), 1e-3);
  }
  // A visitor gets each layer's trace as it is made, the same as the kept trace, and the result
  // keeps none (the lens holds one layer's (H, T, T) at a time).
  LlamaOptions kept;
  kept.trace = true;
  const LlamaResult whole = llama_forward(w, tokens, kept);
  LlamaOptions visited = kept;
  std::size_t seen = 0;
  visited.on_layer = [&](std::size_t layer, LmLayerTrace& trace) {
    EXPECT_EQ(layer, seen++);
    EXPECT_EQ(trace.attention.data, whole.layers[layer].attention.data);
  };
  EXPECT_TRUE(llama_forward(w, tokens, visited).layers.empty());
  EXPECT_EQ(seen, 2u);
  LlamaOptions both;
  both.position_offset = 1;
  both.positions.assign(tokens.size(), 0);
  EXPECT_THROW(llama_forward(w, tokens, both), Error);
  both.position_offset = 0;
  both.positions.pop_back();
  EXPECT_THROW(llama_forward(w, tokens, both), Error);
}

// GPT-2 moved by k: its learned and sinusoidal positions change the logits; RoPE, ALiBi and
// NoPE swapped in leave them (double path, 1e-6 of the largest |logit|); k + T past n_positions
// is refused.
TEST(Lens, Gpt2ShiftMovesOnlyAbsolutePositions) {
  Gpt2Config c;
  c.dims = {40, 24, 32, 2, 4};
  const Gpt2Weights w = lm_random_weights(c, 5);
  const std::vector<long long> tokens{3, 1, 4, 1, 5, 9, 2, 6};
  const auto relative_change = [&](Gpt2Position position) {
    Gpt2Options o;
    o.precision = Precision::kDouble;
    o.trace = false;
    o.position = position;
    const TensorF a = gpt2_forward(w, tokens, o).logits;
    o.position_offset = 16;  // 16 + 8 = n_positions
    return logit_change(a, gpt2_forward(w, tokens, o).logits).relative();
  };
  EXPECT_GT(relative_change(Gpt2Position::kLearned), 1e-3);
  EXPECT_GT(relative_change(Gpt2Position::kSinusoidal), 1e-3);
  for (Gpt2Position p : {Gpt2Position::kRope, Gpt2Position::kAlibi, Gpt2Position::kNone}) {
    EXPECT_LT(relative_change(p), 1e-6) << to_string(p);
  }
  Gpt2Options past;
  past.position_offset = 17;
  EXPECT_THROW(gpt2_forward(w, tokens, past), Error);
  // Positions one by one (the lens's shuffle): offset + t given as a list is the offset pass
  // for every swap; all 0 moves every swap but NoPE.
  for (Gpt2Position p : {Gpt2Position::kLearned, Gpt2Position::kSinusoidal, Gpt2Position::kRope,
                         Gpt2Position::kAlibi, Gpt2Position::kNone}) {
    Gpt2Options o;
    o.precision = Precision::kDouble;
    o.trace = false;
    o.position = p;
    o.position_offset = 5;
    const TensorF moved = gpt2_forward(w, tokens, o).logits;
    o.position_offset = 0;
    for (std::size_t t = 0; t < tokens.size(); ++t) o.positions.push_back(5 + (long long)t);
    EXPECT_LT(logit_change(moved, gpt2_forward(w, tokens, o).logits).relative(), 1e-12)
        << to_string(p);
    o.positions.assign(tokens.size(), 0);
    const double flat = logit_change(moved, gpt2_forward(w, tokens, o).logits).relative();
    if (p == Gpt2Position::kNone) {
      EXPECT_EQ(flat, 0.0);
    } else {
      EXPECT_GT(flat, 1e-3) << to_string(p);
    }
  }
  Gpt2Options beyond;
  beyond.positions.assign(tokens.size(), 24);  // n_positions 24
  EXPECT_THROW(gpt2_forward(w, tokens, beyond), Error);
}

// (H, T, d) with every row of head h the same vector rows[h].
TensorF constant_heads(std::size_t length, const std::vector<std::vector<float>>& rows) {
  const std::size_t H = rows.size(), d = rows[0].size();
  TensorF x({H, length, d});
  for (std::size_t h = 0; h < H; ++h)
    for (std::size_t t = 0; t < length; ++t)
      std::copy_n(rows[h].data(), d, x.ptr() + (h * length + t) * d);
  return x;
}

// Hand-built q = k: each pair's term c_p = q[a]·k[a] + q[b]·k[b] is known, so each head's
// energy is too: neox pairs (p, p + R/2), gptj (2p, 2p + 1), the dims past R as one last term.
TEST(Lens, PairEnergyIsEachPairsShareOfTheScore) {
  const TensorF uniform = layer(3, T, [](std::size_t, std::size_t, std::size_t) { return 1.0; });
  // Head 0 only in pair 1 (neox: dims 1 and 5); head 1 pair 0 at magnitude 1 and pair 2 at 2
  // (terms 1 and 4); head 2 all zero.
  const TensorF x = constant_heads(
      T, {{0, 1, 0, 0, 0, 1, 0, 0}, {1, 0, 2, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0}});
  const TensorF neox = rope_pair_energy(x, x, uniform, 8, RopeStyle::kNeox);
  ASSERT_EQ(neox.shape, (Shape{3, 5}));
  const std::vector<float> want{0, 1, 0, 0, 0, 0.2f, 0, 0.8f, 0, 0, 0, 0, 0, 0, 0};
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(neox.data[i], want[i], 1e-6) << i;
  // gptj pairs (0, 1), (2, 3), ...: head 0's dims 1 and 5 are pairs 0 and 2, one each.
  const TensorF gptj = rope_pair_energy(x, x, uniform, 8, RopeStyle::kGptj);
  EXPECT_NEAR(gptj.data[0], 0.5, 1e-6);
  EXPECT_NEAR(gptj.data[2], 0.5, 1e-6);
  // R = 4: dims 4..7 are not rotated and count as one term (head 0: dim 5 there).
  const TensorF partial = rope_pair_energy(x, x, uniform, 4, RopeStyle::kNeox);
  ASSERT_EQ(partial.shape, (Shape{3, 3}));
  EXPECT_NEAR(partial.data[1], 0.5, 1e-6);  // dims 1 and 3: only dim 1 is set
  EXPECT_NEAR(partial.data[2], 0.5, 1e-6);
  // Weighted by the head's attention: mass on i itself only still sees q_i·k_i.
  const TensorF self =
      layer(3, T, [](std::size_t, std::size_t i, std::size_t j) { return i == j ? 1.0 : 0.0; });
  EXPECT_NEAR(rope_pair_energy(x, x, self, 8, RopeStyle::kNeox).data[7], 0.8, 1e-6);
  // Wavelengths 2π, 20π, 200π against N = 100: the first two pairs turn within N.
  const float row[4] = {0.1f, 0.2f, 0.3f, 0.4f};
  EXPECT_NEAR(turning_pair_share(row, {1.0, 0.1, 0.01}, 100), 0.3, 1e-6);
  EXPECT_THROW(rope_pair_energy(x, x, uniform, 9, RopeStyle::kNeox), Error);
  EXPECT_THROW(rope_pair_energy(x, x, uniform, 10, RopeStyle::kNeox), Error);
  EXPECT_THROW(rope_pair_energy(x, constant_heads(T, {{1, 0}}), uniform, 2, RopeStyle::kNeox),
               Error);
}

// A Llama whose head 0 reads q and k from one rotation pair only (its q_proj and k_proj rows
// for the other dims zeroed; with GQA it shares kv head 0 with head 1): through the real forward
// pass, the lens puts all of head 0's energy on that pair, positional for the fastest pair and
// semantic for the slowest.
TEST(Lens, AHeadWiredToOnePairIsFoundOnIt) {
  LlamaConfig c = LlamaConfig::from_json(
      R"({"model_type": "llama", "vocab_size": 50, "hidden_size": 32, "num_hidden_layers": 1,
          "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 48,
          "max_position_embeddings": 16, "rope_theta": 10000})",
      "c");
  const std::vector<long long> tokens{1, 7, 3, 3, 9, 40, 2, 11, 5, 8, 13, 21};
  const std::size_t d = 8, P = d / 2;  // head_dim 32 / 4
  for (const std::size_t pair : {std::size_t(0), P - 1}) {
    LlamaWeights w = lm_random_weights(c, 5);
    for (StoredTensor* proj : {&w.layers[0].q_proj_weight, &w.layers[0].k_proj_weight}) {
      TensorF m = proj->to_float();  // (out, in): row r is output dim r; head 0 is rows 0..d−1
      for (std::size_t r = 0; r < d; ++r) {
        if (r == pair || r == pair + P) continue;  // neox pair (p, p + d/2)
        std::fill_n(m.ptr() + r * m.dim(1), m.dim(1), 0.0f);
      }
      *proj = StoredTensor::from(m, StoredDType::kF32);
    }
    LlamaOptions o;
    o.precision = Precision::kDouble;
    o.trace = true;
    o.pair_energy = true;
    const LlamaResult r = llama_forward(w, tokens, o);
    const TensorF& e = r.layers[0].pair_energy;
    ASSERT_EQ(e.shape, (Shape{4, P + 1}));
    for (std::size_t p = 0; p <= P; ++p) EXPECT_NEAR(e.data[p], p == pair ? 1.0 : 0.0, 1e-6) << p;
    for (std::size_t h = 1; h < 4; ++h) {
      double sum = 0;
      for (std::size_t p = 0; p <= P; ++p) sum += e.data[h * (P + 1) + p];
      EXPECT_NEAR(sum, 1.0, 1e-5) << h;
    }
    // θ_0 = 1 turns within N = 16; θ_3 = 10000^(−3/4) = 0.001 does not.
    const std::vector<double> inv_freq = rope_frequencies(long(d), c.rope()).inv_freq;
    EXPECT_NEAR(turning_pair_share(e.ptr(), inv_freq, 16), pair == 0 ? 1.0 : 0.0, 1e-6);
  }
}

// An induction circuit wired by hand in a two-layer Llama, run through the real forward pass in
// double. The residual holds a constant (dim 0), the token's one-hot (1..32) and a slot for the
// previous token's (33..64). Layer 0's head 0 is a previous-token head: a constant q and k on
// rotation pair 5 (θ ≈ 0.115), k turned one step ahead, so q_i·k_j peaks at j = i − 1; its v
// and o copy the token into the previous-token slot. Layer 1's head 0 matches the token's
// one-hot (q) against that slot (k) on the slow pairs 16..31, which barely turn within 16
// positions: it attends to the token after the previous occurrence of its own. Every other
// weight is 0 (the MLPs add nothing), the norms' gains 1. The lens names L0H0 previous-token,
// L1H0 induction, and the two idle heads (uniform over the keys) broad.
TEST(Lens, AnInductionCircuitWiredInTwoLayersIsNamed) {
  LlamaConfig c = LlamaConfig::from_json(
      R"({"model_type": "llama", "vocab_size": 32, "hidden_size": 128, "num_hidden_layers": 2,
          "num_attention_heads": 2, "num_key_value_heads": 2, "head_dim": 64,
          "intermediate_size": 8, "max_position_embeddings": 64, "rope_theta": 1000000,
          "tie_word_embeddings": true})",
      "c");
  LlamaWeights w = lm_random_weights(c, 1);
  const auto set = [](StoredTensor& t, const std::function<void(TensorF&)>& fill) {
    TensorF m = t.to_float();
    std::fill(m.data.begin(), m.data.end(), 0.0f);
    fill(m);
    t = StoredTensor::from(m, StoredDType::kF32);
  };
  const auto ones = [](TensorF& m) { std::fill(m.data.begin(), m.data.end(), 1.0f); };
  const std::size_t E = 128, V = 32, d = 64, half = 32;
  set(w.embed_tokens, [&](TensorF& m) {
    for (std::size_t t = 0; t < V; ++t) m.data[t * E] = m.data[t * E + 1 + t] = 1.0f;
  });
  set(w.norm_weight, ones);
  // Token t's slot in a head: the slow pairs 16..31, first members then second members.
  const auto slot = [&](std::size_t t) { return t < 16 ? 16 + t : 16 + (t - 16) + half; };
  const double theta = rope_frequencies(long(d), c.rope()).inv_freq[5];
  const double a = 20.0, b = 3.0;
  for (LlamaLayer& l : w.layers) {
    for (StoredTensor* t : {&l.q_proj_weight, &l.k_proj_weight, &l.v_proj_weight, &l.o_proj_weight,
                            &l.gate_proj_weight, &l.up_proj_weight, &l.down_proj_weight}) {
      set(*t, [](TensorF&) {});
    }
    set(l.input_layernorm_weight, ones);
    set(l.post_attention_layernorm_weight, ones);
  }
  LlamaLayer& l0 = w.layers[0];
  set(l0.q_proj_weight, [&](TensorF& m) { m.data[5 * E] = float(a); });
  set(l0.k_proj_weight, [&](TensorF& m) {
    m.data[5 * E] = float(a * std::cos(theta));
    m.data[(5 + half) * E] = float(a * std::sin(theta));
  });
  set(l0.v_proj_weight, [&](TensorF& m) {
    for (std::size_t t = 0; t < V; ++t) m.data[t * E + 1 + t] = 1.0f;
  });
  // The normalised one-hot entry is 8 (RMS of a constant and one 1 over 128 dims): 1/8 brings
  // the previous-token slot to 1.
  set(l0.o_proj_weight, [&](TensorF& m) {
    for (std::size_t t = 0; t < V; ++t) m.data[(33 + t) * (2 * d) + t] = 0.125f;
  });
  LlamaLayer& l1 = w.layers[1];
  set(l1.q_proj_weight, [&](TensorF& m) {
    for (std::size_t t = 0; t < V; ++t) m.data[slot(t) * E + 1 + t] = float(b);
  });
  set(l1.k_proj_weight, [&](TensorF& m) {
    for (std::size_t t = 0; t < V; ++t) m.data[slot(t) * E + 33 + t] = float(b);
  });

  LlamaOptions o;
  o.precision = Precision::kDouble;
  o.trace = true;
  const std::vector<long long> text{5, 9, 2, 30, 17, 4, 11, 23, 8, 0, 27, 14, 6, 19, 3, 12};
  const std::vector<long long> repeated{7, 21, 2, 15, 28, 10, 1, 26, 7, 21, 2, 15, 28, 10, 1, 26};
  const LlamaResult on_text = llama_forward(w, text, o);
  const LlamaResult on_repeat = llama_forward(w, repeated, o);
  std::vector<std::vector<HeadRole>> roles;
  for (std::size_t layer = 0; layer < 2; ++layer) {
    const std::vector<HeadScores> s =
        head_scores(on_text.layers[layer].attention, on_repeat.layers[layer].attention, 8);
    roles.push_back({head_role(s[0]), head_role(s[1])});
    if (layer == 0) {
      EXPECT_GT(s[0].previous_token, 0.99);
    } else {
      // 15/16: at i = 8 the first token also matches, its previous-token slot holding itself
      // (position 0 has no earlier key), so that row splits its weight over j = 0 and 1.
      EXPECT_NEAR(s[0].induction, 0.9375, 1e-6);
    }
  }
  EXPECT_EQ(roles, (std::vector<std::vector<HeadRole>>{{HeadRole::kPreviousToken, HeadRole::kBroad},
                                                       {HeadRole::kInduction, HeadRole::kBroad}}));
}

// The whole report over a model that hands the lens the hand-built layers: the repeated
// sequence (2n tokens) gets the induction rule, the text the others; every head gets its role,
// the counts add up, and a model without logits or losses has no shift or shuffle.
// A layer that does not rotate — SmolLM3's NoPE layer from its config, or one made NoPE by
// position surgery, in the Llama family and GPT-NeoX alike — is read against pairs that never
// turn (every θ_i 0 in rope_bands.layers): its heads' score energy still splits over the pairs,
// but none of it turns, so none of them reads as positional; the rotating layers keep the
// model's pairs.
TEST(Lens, ANopeLayersHeadsAreNotReadAsPositional) {
  const std::vector<long long> tokens{1, 7, 3, 3, 9, 40, 2, 11, 5, 8, 13, 21, 4, 6, 30, 31};
  const auto check = [&](const LensModel& model, const std::vector<bool>& nope) {
    ASSERT_EQ(model.layer_inv_freq.size(), nope.size());
    for (std::size_t l = 0; l < nope.size(); ++l) {
      for (const double theta : model.layer_inv_freq[l]) EXPECT_EQ(theta == 0.0, nope[l]) << l;
      if (!nope[l]) {
        EXPECT_EQ(model.layer_inv_freq[l], model.inv_freq) << l;
      }
    }
    LensSettings settings;
    settings.period = 4;
    const LensReport r = lens_report(model, tokens, settings);
    ASSERT_TRUE(r.bands.has_value());
    int positional = 0;
    for (const LensHead& h : r.heads) {
      ASSERT_EQ(h.pair_energy.size(), model.inv_freq.size() + 1);
      double sum = 0;
      for (const float e : h.pair_energy) sum += e;
      EXPECT_NEAR(sum, 1.0, 1e-5);
      if (nope[h.layer]) {
        EXPECT_EQ(h.turning_share, 0.0) << h.layer << ":" << h.head;
        EXPECT_FALSE(h.positional) << h.layer << ":" << h.head;
      }
      positional += h.positional;
    }
    EXPECT_EQ(r.bands->positional_heads, positional);
    EXPECT_EQ(r.bands->of_layer(1).uniform_share, nope[1] ? 0.0 : r.bands->uniform_share);
  };
  const LlamaConfig smol = LlamaConfig::from_json(
      R"({"model_type": "smollm3", "vocab_size": 50, "hidden_size": 32, "num_hidden_layers": 3,
          "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 48,
          "max_position_embeddings": 16, "rope_theta": 100, "no_rope_layers": [1, 0, 1]})",
      "c");
  const LlamaWeights w = lm_random_weights(smol, 7);
  check(lens_model(w, Precision::kDouble), {false, true, false});
  PositionSurgery surgery;
  surgery.nope_layers = {2};
  check(lens_model(w, Precision::kDouble, std::nullopt, surgery), {false, true, true});
  // Without a NoPE layer, one list for the whole model.
  LlamaWeights llama = w;
  llama.config.model_type = LmArchitecture::kLlama;
  llama.config.nope_layers.clear();
  EXPECT_TRUE(lens_model(llama, Precision::kDouble).layer_inv_freq.empty());
  const GptNeoxWeights neox = lm_random_weights(
      GptNeoxConfig::from_json(R"({"model_type": "gpt_neox", "vocab_size": 50, "hidden_size": 32,
          "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 48,
          "max_position_embeddings": 16, "rotary_pct": 0.5})",
                               "c"),
      8);
  EXPECT_TRUE(lens_model(neox, Precision::kDouble).layer_inv_freq.empty());
  surgery.nope_layers = {1};
  check(lens_model(neox, Precision::kDouble, std::nullopt, surgery), {false, true});
}

TEST(Lens, ReportOfAHandBuiltModel) {
  LensModel model;
  model.vocab = 50;
  model.visit = [](const std::vector<long long>& tokens, bool, bool, const LensLayerReader& read) {
    const bool repeated = tokens.size() == 2 * kPeriod;
    read(0, layer(kHeads, tokens.size(), repeated ? repeated_weight : text_weight), nullptr);
    return LensOutputs{};
  };
  LensSettings settings;
  settings.period = kPeriod;
  settings.weights = "hand-built";
  const std::vector<long long> text(T + 2, 7);
  const nlohmann::json j = nlohmann::json::parse(lens_json(lens_report(model, text, settings)));
  ASSERT_EQ(j["heads"].size(), std::size_t(kHeads));
  const char* roles[] = {"sink", "previous-token", "induction", "local", "broad"};
  for (std::size_t h = 0; h < kHeads; ++h) EXPECT_EQ(j["heads"][h]["role"], roles[h]) << h;
  for (const char* role : roles) EXPECT_EQ(j["role_counts"][role], 1) << role;
  EXPECT_EQ(j["heads"][0]["distance_profile"].size(), T + 2);
  EXPECT_EQ(j["weights"], "hand-built");
  EXPECT_EQ(j["induction"]["period"], long(kPeriod));
  EXPECT_TRUE(j["shift"].is_null());
  EXPECT_TRUE(j["shuffle"].is_null());
  EXPECT_TRUE(j["rope_bands"].is_null());

  // Refusals name their field, before any pass runs.
  const auto field_of = [&](const std::vector<long long>& tokens, const LensSettings& s) {
    try {
      lens_report(model, tokens, s);
    } catch (const Error& e) {
      return e.field();
    }
    return std::string("none");
  };
  EXPECT_EQ(field_of({1, 2, 3}, settings), "tokens");  // not longer than W = 4
  LensSettings too_long = settings;
  too_long.period = 8;  // 2n = 16 > 14
  EXPECT_EQ(field_of(text, too_long), "period");
  model.max_positions = 16;  // a shift of 3 would read position 16
  model.logits = [](const std::vector<long long>& t, long long) {
    return TensorF({t.size(), std::size_t(50)});
  };
  LensSettings shifted = settings;
  shifted.shift = 3;
  EXPECT_EQ(field_of(text, shifted), "shift");
}

}  // namespace
}  // namespace poslab

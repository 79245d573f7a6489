// The trainer's model as a whole: its backward pass against central finite differences in
// double for every position method (randomised positions too), the float engine against the
// double one, determinism, and the parameter layout.
//
// Tolerance policy: in double, a central difference with h = 1e-5 has truncation error
// O(h²·f''') and rounding error O(ε/h), both below 1e-9 for these O(1) losses; each gradient
// must match within 1e-7 + 1e-5·|fd|. Float against double: the loss within 1e-5 relative and
// each gradient within 1e-4 of its tensor's largest entry (float32 rounding over a few hundred
// products per element).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <vector>

#include "poslab/base/random.hpp"
#include "poslab/train/model.hpp"
#include "train/engine.hpp"

namespace poslab::train {
namespace {

ModelConfig tiny_config(PositionMethod method) {
  ModelConfig c;
  c.n_layer = 2;
  c.n_embd = 8;
  c.n_head = 2;
  c.n_inner = 32;
  c.vocab_size = 7;
  c.n_positions = 48;
  c.position = method;
  c.embed_scale = 1.5;
  return c;
}

// B = 3 sequences of T = 6: random tokens and targets, a mask with some zeros; positions
// 0..T−1 or sorted distinct samples from [0, 40).
Batch random_batch(const ModelConfig& c, bool randomized, std::uint64_t seed) {
  Rng rng(seed);
  Batch b;
  b.batch = 3;
  b.length = 6;
  const std::size_t n = b.batch * b.length;
  for (std::size_t r = 0; r < n; ++r) {
    b.tokens.push_back(static_cast<std::int32_t>(rng.next_u64() % c.vocab_size));
    b.targets.push_back(static_cast<std::int32_t>(rng.next_u64() % c.vocab_size));
    b.loss_mask.push_back(r % 4 == 1 ? 0.0f : 1.0f);
  }
  for (std::size_t s = 0; s < b.batch; ++s) {
    std::vector<std::int32_t> pos;
    if (randomized) {
      std::vector<std::int32_t> all(40);
      for (int i = 0; i < 40; ++i) all[i] = i;
      for (std::size_t i = 0; i < b.length; ++i) {
        std::swap(all[i], all[i + rng.next_u64() % (40 - i)]);
      }
      pos.assign(all.begin(), all.begin() + static_cast<long>(b.length));
      std::sort(pos.begin(), pos.end());
    } else {
      for (std::size_t t = 0; t < b.length; ++t) pos.push_back(static_cast<std::int32_t>(t));
    }
    b.positions.insert(b.positions.end(), pos.begin(), pos.end());
  }
  return b;
}

// Parameters large enough that every path carries signal (the 0.02 init leaves attention
// nearly uniform): every entry N(0, 0.4), LayerNorm gains around 1.
Parameters random_parameters(const ModelConfig& c, std::uint64_t seed) {
  Parameters p(c);
  Rng rng(seed);
  for (const ParamInfo& info : p.info()) {
    const bool gain =
        info.name.find("ln_") != std::string::npos && info.name.find("weight") != std::string::npos;
    for (std::size_t i = 0; i < info.numel; ++i) {
      p.data()[info.offset + i] = static_cast<float>((gain ? 1.0 : 0.0) + 0.4 * rng.normal());
    }
  }
  return p;
}

double loss_double(Engine<double>& e, const std::vector<double>& p, const Batch& batch) {
  e.forward(p.data(), batch);
  return e.loss(batch);
}

// The float Model against Engine<double> on the same parameters and batch.
void expect_float_matches_double(const ModelConfig& c, bool randomized) {
  const Parameters params = random_parameters(c, 3);
  const Batch batch = random_batch(c, randomized, 5);
  Model model(c);
  Parameters grads(c);
  const double loss = model.forward_backward(params, batch, grads);

  std::vector<double> p(params.data(), params.data() + params.size());
  Engine<double> e(c, params.info());
  const double ref = loss_double(e, p, batch);
  std::vector<double> g(p.size(), 0.0);
  e.backward(p.data(), g.data());

  EXPECT_NEAR(loss, ref, 1e-5 * std::abs(ref));
  for (const ParamInfo& info : params.info()) {
    double peak = 0;
    for (std::size_t i = 0; i < info.numel; ++i)
      peak = std::max(peak, std::abs(g[info.offset + i]));
    for (std::size_t i = 0; i < info.numel; ++i) {
      ASSERT_NEAR(grads.data()[info.offset + i], g[info.offset + i], 1e-4 * peak + 1e-12)
          << info.name << "[" << i << "]";
    }
  }
}

// What a case adds to its method: options every method takes (attention sinks), a rotation's
// NoPE layers (the second of two), and Llama 4's temperature on them (floor scale 2, so the
// queries' scale changes within these positions: 1 + 0.5·log(⌊(p + 1)/2⌋ + 1)).
// CoPE's positions clipped at 2 (npos_max 3) as well as far from it.
enum class Variant { kPlain, kSinks, kNope, kTempered, kClipped };

struct Case {
  PositionMethod method;
  bool randomized;
  Variant variant = Variant::kPlain;
};

ModelConfig case_config(const Case& c) {
  ModelConfig config = tiny_config(c.method);
  config.sinks = c.variant == Variant::kSinks;
  if (c.variant == Variant::kNope || c.variant == Variant::kTempered) config.nope_every = 2;
  if (c.variant == Variant::kTempered) {
    config.attn_floor_scale = 2;
    config.attn_scale = 0.5;
  }
  if (c.variant == Variant::kClipped) config.cope_npos_max = 3;
  return config;
}

class TrainModelGradient : public ::testing::TestWithParam<Case> {};

TEST_P(TrainModelGradient, BackwardMatchesFiniteDifferencesInDouble) {
  const ModelConfig c = case_config(GetParam());
  const Parameters init = random_parameters(c, 7);
  const Batch batch = random_batch(c, GetParam().randomized, 11);
  std::vector<double> p(init.data(), init.data() + init.size());
  Engine<double> e(c, init.info());
  loss_double(e, p, batch);
  std::vector<double> g(p.size(), 0.0);
  e.backward(p.data(), g.data());

  const double h = 1e-5;
  double worst = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double keep = p[i];
    p[i] = keep + h;
    const double up = loss_double(e, p, batch);
    p[i] = keep - h;
    const double down = loss_double(e, p, batch);
    p[i] = keep;
    const double fd = (up - down) / (2 * h);
    const double err = std::abs(g[i] - fd);
    worst = std::max(worst, err / (1e-7 + 1e-5 * std::abs(fd)));
    ASSERT_LE(err, 1e-7 + 1e-5 * std::abs(fd)) << "parameter element " << i;
  }
  EXPECT_LE(worst, 1.0);
}

TEST_P(TrainModelGradient, FloatEngineMatchesDouble) {
  expect_float_matches_double(case_config(GetParam()), GetParam().randomized);
}

// The default model's head width (16) runs attention's fixed-width loops; the tiny config's
// (4) the generic ones.
TEST(TrainModel, FloatEngineMatchesDoubleAtHeadWidth16) {
  ModelConfig c = tiny_config(PositionMethod::kRope);
  c.n_embd = 32;
  c.n_inner = 128;
  expect_float_matches_double(c, true);
}

const Case kCases[] = {{PositionMethod::kNone, false},
                       {PositionMethod::kLearned, false},
                       {PositionMethod::kSinusoidal, false},
                       {PositionMethod::kRope, false},
                       {PositionMethod::kAlibi, false},
                       {PositionMethod::kT5, false},
                       {PositionMethod::kLearned, true},
                       {PositionMethod::kRope, true},
                       {PositionMethod::kAlibi, true},
                       {PositionMethod::kT5, true},
                       {PositionMethod::kXpos, false},
                       {PositionMethod::kXpos, true},
                       {PositionMethod::kFire, false},
                       {PositionMethod::kFire, true},
                       {PositionMethod::kNone, false, Variant::kSinks},
                       {PositionMethod::kRope, true, Variant::kSinks},
                       {PositionMethod::kAlibi, false, Variant::kSinks},
                       {PositionMethod::kRope, false, Variant::kNope},
                       {PositionMethod::kXpos, true, Variant::kNope},
                       {PositionMethod::kRope, false, Variant::kTempered},
                       {PositionMethod::kPRope, true, Variant::kTempered},
                       {PositionMethod::kCope, false},
                       {PositionMethod::kCope, false, Variant::kClipped},
                       {PositionMethod::kCope, false, Variant::kSinks},
                       {PositionMethod::kFox, false},
                       {PositionMethod::kFox, false, Variant::kSinks}};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name = to_string(info.param.method);  // the method table's name, capitalised
  name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
  name.erase(std::remove(name.begin(), name.end(), '-'), name.end());  // p-rope: PRope
  const char* variants[] = {"", "Sinks", "NopeEvery2", "NopeEvery2Tempered", "Clipped"};
  return name + (info.param.randomized ? "RandomPositions" : "") +
         variants[static_cast<int>(info.param.variant)];
}

INSTANTIATE_TEST_SUITE_P(Methods, TrainModelGradient, ::testing::ValuesIn(kCases), case_name);

TEST(TrainModel, SameInputsGiveBitIdenticalLossAndGradients) {
  const ModelConfig c = tiny_config(PositionMethod::kT5);
  const Parameters params = random_parameters(c, 1);
  const Batch batch = random_batch(c, true, 2);
  Model a(c), b(c);
  Parameters ga(c), gb(c), gc(c);
  const double la = a.forward_backward(params, batch, ga);
  const double lb = b.forward_backward(params, batch, gb);
  const double lc = a.forward_backward(params, batch, gc);  // reused workspace
  EXPECT_EQ(la, lb);
  EXPECT_EQ(la, lc);
  EXPECT_TRUE(std::equal(ga.data(), ga.data() + ga.size(), gb.data()));
  EXPECT_TRUE(std::equal(ga.data(), ga.data() + ga.size(), gc.data()));
}

TEST(TrainModel, ThreadsShardTheBatchWithinFloatRounding) {
  const ModelConfig c = tiny_config(PositionMethod::kAlibi);
  const Parameters params = random_parameters(c, 4);
  const Batch batch = random_batch(c, true, 9);
  Model one(c, 1), two(c, 2), three(c, 3);
  Parameters g1(c), g2(c), g2again(c), g3(c);
  const double l1 = one.forward_backward(params, batch, g1);
  const double l2 = two.forward_backward(params, batch, g2);
  EXPECT_EQ(l2, two.forward_backward(params, batch, g2again));  // the same bits per count
  EXPECT_TRUE(std::equal(g2.data(), g2.data() + g2.size(), g2again.data()));
  const double l3 = three.forward_backward(params, batch, g3);
  EXPECT_NEAR(l2, l1, 1e-6 * std::abs(l1));
  EXPECT_NEAR(l3, l1, 1e-6 * std::abs(l1));
  for (std::size_t i = 0; i < g1.size(); ++i) {
    ASSERT_NEAR(g2.data()[i], g1.data()[i], 1e-5 * (1 + std::abs(g1.data()[i]))) << i;
    ASSERT_NEAR(g3.data()[i], g1.data()[i], 1e-5 * (1 + std::abs(g1.data()[i]))) << i;
  }
}

TEST(TrainModel, LayoutFollowsTheDumpNamesAndShapes) {
  ModelConfig c = tiny_config(PositionMethod::kT5);
  const Parameters p(c);
  EXPECT_EQ(p.info().front().name, "wte.weight");
  EXPECT_EQ(p.info()[1].name, "rel_bias.weight");
  EXPECT_EQ(p.info()[1].shape, (Shape{32, 2}));
  EXPECT_EQ(p.find("h.1.attn.c_attn.weight").shape, (Shape{8, 24}));
  EXPECT_TRUE(p.find("h.1.attn.c_attn.weight").decay);
  EXPECT_FALSE(p.find("h.1.attn.c_attn.bias").decay);
  EXPECT_EQ(p.find("h.0.mlp.c_proj.weight").shape, (Shape{32, 8}));
  EXPECT_EQ(p.info().back().name, "ln_f.bias");
  EXPECT_THROW(p.find("wpe.weight"), Error);
  c.position = PositionMethod::kLearned;
  EXPECT_EQ(Parameters(c).find("wpe.weight").shape, (Shape{48, 8}));
}

TEST(TrainModel, InitIsSeededWithUnitGainsAndZeroBiases) {
  const ModelConfig c = tiny_config(PositionMethod::kLearned);
  Parameters a(c), b(c), other(c);
  init_parameters(a, 5, 0.0);
  init_parameters(b, 5, 0.0);
  init_parameters(other, 6, 0.0);
  EXPECT_TRUE(std::equal(a.data(), a.data() + a.size(), b.data()));
  EXPECT_FALSE(std::equal(a.data(), a.data() + a.size(), other.data()));
  EXPECT_EQ(a.at("h.0.ln_1.weight")[3], 1.0f);
  EXPECT_EQ(a.at("h.0.attn.c_attn.bias")[3], 0.0f);
  EXPECT_EQ(a.at("ln_f.bias")[0], 0.0f);
  double sq = 0;
  const ParamInfo& w = a.find("h.0.mlp.c_fc.weight");
  for (std::size_t i = 0; i < w.numel; ++i) sq += a.data()[w.offset + i] * a.data()[w.offset + i];
  EXPECT_NEAR(std::sqrt(sq / w.numel), 0.02, 0.004);
}

// FIRE's parameters per layer, after the MLP's, and their start: c = 0.1, threshold scale 1,
// the position MLP uniform within nn.Linear's bounds (1 for fc1, 1/√32 for fc2); fc2 has no
// bias (the softmax ignores a constant per head).
TEST(TrainModel, FireLayoutAndInitFollowThePaper) {
  const ModelConfig c = tiny_config(PositionMethod::kFire);
  Parameters p(c);
  init_parameters(p, 4, 0.0);
  const char* names[] = {"c", "threshold_scale", "fc1.weight", "fc1.bias", "fc2.weight"};
  const Shape shapes[] = {{1},
                          {1},
                          {1, score_bias::kFireHidden},
                          {score_bias::kFireHidden},
                          {score_bias::kFireHidden, c.n_head}};
  for (std::size_t l = 0; l < c.n_layer; ++l) {
    const std::string h = "h." + std::to_string(l) + ".";
    std::size_t next = p.find(h + "mlp.c_proj.bias").offset + c.n_embd;
    for (std::size_t k = 0; k < 5; ++k) {
      const ParamInfo& info = p.find(h + "attn.fire." + names[k]);
      EXPECT_EQ(info.offset, next) << info.name;
      EXPECT_EQ(info.shape, shapes[k]) << info.name;
      EXPECT_FALSE(info.decay) << info.name;
      next += info.numel;
    }
    EXPECT_EQ(p.at(h + "attn.fire.c")[0], float(score_bias::kFireInitC));
    EXPECT_EQ(p.at(h + "attn.fire.threshold_scale")[0], 1.0f);
    for (const char* mlp : {"fc1.weight", "fc1.bias", "fc2.weight"}) {
      const ParamInfo& info = p.find(h + "attn.fire." + mlp);
      const double bound = mlp[2] == '1' ? 1.0 : 1 / std::sqrt(double(score_bias::kFireHidden));
      double largest = 0;
      for (std::size_t i = 0; i < info.numel; ++i) {
        largest = std::max(largest, std::abs(double(p.data()[info.offset + i])));
      }
      EXPECT_LE(largest, bound) << info.name;
      EXPECT_GT(largest, bound / 4) << info.name;  // spread over the range, not N(0, 0.02)
    }
  }
}

// Attention sinks: one (H,) tensor per layer after the layer's MLP, drawn N(0, 0.02) as
// gpt-oss's _init_weights, without weight decay; absent unless asked for.
TEST(TrainModel, SinksLayoutAndInitFollowGptOss) {
  ModelConfig c = tiny_config(PositionMethod::kRope);
  EXPECT_THROW(Parameters(c).find("h.0.attn.sinks"), Error);
  c.sinks = true;
  c.n_head = 4;
  Parameters p(c);
  init_parameters(p, 2, 0.0);
  double sq = 0;
  for (std::size_t l = 0; l < c.n_layer; ++l) {
    const std::string h = "h." + std::to_string(l) + ".";
    const ParamInfo& info = p.find(h + "attn.sinks");
    EXPECT_EQ(info.shape, (Shape{c.n_head}));
    EXPECT_EQ(info.offset, p.find(h + "mlp.c_proj.bias").offset + c.n_embd);
    EXPECT_FALSE(info.decay);
    for (std::size_t i = 0; i < info.numel; ++i) {
      const double v = p.data()[info.offset + i];
      EXPECT_NE(v, 0.0);
      EXPECT_LT(std::abs(v), 0.1);
      sq += v * v;
    }
  }
  EXPECT_NEAR(std::sqrt(sq / 8), 0.02, 0.012);
}

// --nope-every's layers are position surgery's NoPE layers (one mechanism,
// Engine::plan_surgery): a model with NoPE layer 2 computes what the plain model does with
// that layer under surgery, bit for bit; the temperature then changes only that layer.
TEST(TrainModel, NopeLayersAreSurgerysNopeLayers) {
  ModelConfig plain = tiny_config(PositionMethod::kRope);
  ModelConfig nope = plain;
  nope.nope_every = 2;
  const Parameters params = random_parameters(plain, 6);
  const Batch batch = random_batch(plain, true, 8);
  Model a(plain), b(nope);
  PositionSurgery second;
  second.nope_layers = {1};
  a.set_surgery(second);
  EXPECT_EQ(a.logits(params, batch).data, b.logits(params, batch).data);
  const TensorF first = b.attention_maps(params, batch, 0);
  nope.attn_floor_scale = 2;
  nope.attn_scale = 0.5;
  Model tempered(nope);
  const TensorF warm = tempered.attention_maps(params, batch, 0);
  const std::size_t layer = first.size() / 2;  // layer 0's maps, then layer 1's
  EXPECT_TRUE(std::equal(first.data.begin(), first.data.begin() + layer, warm.data.begin()));
  EXPECT_FALSE(std::equal(first.data.begin() + layer, first.data.end(), warm.data.begin() + layer));
}

// FoX's forget gate per layer after the MLP's tensors: fox_w (H, E) N(0, 0.02) with weight
// decay, as nn.Linear's weight under the authors' _init_weights, fox_b (H,) zero without a
// largest decay time (the next test has it).
TEST(TrainModel, FoxLayoutAndInitFollowTheAuthors) {
  ModelConfig c = tiny_config(PositionMethod::kFox);
  c.n_embd = 32;
  Parameters p(c);
  init_parameters(p, 3, 0.0);
  for (std::size_t l = 0; l < c.n_layer; ++l) {
    const std::string h = "h." + std::to_string(l) + ".attn.";
    const ParamInfo& w = p.find(h + "fox_w");
    const ParamInfo& b = p.find(h + "fox_b");
    EXPECT_EQ(w.shape, (Shape{c.n_head, c.n_embd}));
    EXPECT_EQ(b.shape, (Shape{c.n_head}));
    EXPECT_EQ(w.offset, p.find("h." + std::to_string(l) + ".mlp.c_proj.bias").offset + c.n_embd);
    EXPECT_EQ(b.offset, w.offset + w.numel);
    EXPECT_TRUE(w.decay);
    EXPECT_FALSE(b.decay);
    double sq = 0;
    for (std::size_t i = 0; i < w.numel; ++i)
      sq += double(p.data()[w.offset + i]) * p.data()[w.offset + i];
    EXPECT_NEAR(std::sqrt(sq / double(w.numel)), 0.02, 0.006);
    for (std::size_t i = 0; i < b.numel; ++i) EXPECT_EQ(p.data()[b.offset + i], 0.0f);
  }
}

// With a largest decay time T, FoX's heads start at decay times log-spaced from 2 to T (the
// authors' fgate_bias_init): σ(b_h)^T_h = e^−1, so a key T_h tokens back starts 1 below the
// query's own score; every layer alike.
TEST(TrainModel, FoxGateBiasesStartAtDecayTimesFromTwoToTheLargest) {
  ModelConfig c = tiny_config(PositionMethod::kFox);
  c.n_head = 4;
  Parameters p(c);
  init_parameters(p, 3, 64.0);
  const double decay[] = {2.0, 2.0 * std::cbrt(32.0), 2.0 * std::cbrt(32.0 * 32.0), 64.0};
  for (std::size_t l = 0; l < c.n_layer; ++l) {
    const float* b = p.at("h." + std::to_string(l) + ".attn.fox_b");
    for (std::size_t h = 0; h < c.n_head; ++h) {
      const double log_gate = -std::log1p(std::exp(-double(b[h])));  // log σ(b)
      EXPECT_NEAR(log_gate * decay[h], -1.0, 1e-6) << "layer " << l << " head " << h;
    }
  }
  EXPECT_NEAR(fox_gate_bias(0, 1, 64.0), -std::log(std::expm1(0.5)), 1e-12);  // one head: T = 2
  EXPECT_EQ(fox_gate_bias(3, 4, 0.0), 0.0);
}

// CoPE's embeddings per layer after the MLP's tensors, (head width, npos_max), zero as the
// authors' CoPE module starts them (torch.zeros), without weight decay.
TEST(TrainModel, CopeLayoutAndInitFollowTheAuthors) {
  ModelConfig c = tiny_config(PositionMethod::kCope);
  c.cope_npos_max = 10;
  Parameters p(c);
  init_parameters(p, 3, 0.0);
  for (std::size_t l = 0; l < c.n_layer; ++l) {
    const ParamInfo& e = p.find("h." + std::to_string(l) + ".attn.cope_pos_emb");
    EXPECT_EQ(e.shape, (Shape{c.n_embd / c.n_head, 10}));
    EXPECT_EQ(e.offset, p.find("h." + std::to_string(l) + ".mlp.c_proj.bias").offset + c.n_embd);
    EXPECT_FALSE(e.decay);
    for (std::size_t i = 0; i < e.numel; ++i) EXPECT_EQ(p.data()[e.offset + i], 0.0f);
  }
}

// model_score_bias (what the view draws): zero above the diagonal; bad positions and models
// without a score bias refused.
TEST(TrainModel, ScoreBiasIsZeroAboveTheDiagonalAndRefusesOtherModels) {
  const ModelConfig c = tiny_config(PositionMethod::kFire);
  const Parameters p = random_parameters(c, 9);
  const TensorF bias = model_score_bias(c, p, {0, 1, 2, 5});
  ASSERT_EQ(bias.shape, (Shape{c.n_layer, c.n_head, 4, 4}));
  double below = 0;
  for (std::size_t lh = 0; lh < c.n_layer * c.n_head; ++lh) {
    for (std::size_t i = 0; i < 4; ++i) {
      for (std::size_t j = 0; j < 4; ++j) {
        const float b = bias.data[(lh * 4 + i) * 4 + j];
        if (j > i)
          EXPECT_EQ(b, 0.0f);
        else
          below = std::max(below, double(std::abs(b)));
      }
    }
  }
  EXPECT_GT(below, 0.0);
  EXPECT_THROW(model_score_bias(c, p, {}), Error);
  EXPECT_THROW(model_score_bias(c, p, {3, 2}), Error);
  const ModelConfig rope = tiny_config(PositionMethod::kRope);
  EXPECT_THROW(model_score_bias(rope, Parameters(rope), {0, 1}), Error);
}

TEST(TrainModel, RefusesTokensAndPositionsOutsideTheModel) {
  const ModelConfig c = tiny_config(PositionMethod::kLearned);
  const Parameters params = random_parameters(c, 1);
  Model model(c);
  Batch batch = random_batch(c, false, 1);
  batch.tokens[2] = 7;
  EXPECT_THROW(model.loss(params, batch), Error);
  batch = random_batch(c, false, 1);
  batch.positions[5] = 48;
  EXPECT_THROW(model.loss(params, batch), Error);
}

}  // namespace
}  // namespace poslab::train

// Position surgery in the lab's model (Model::set_surgery, engine.hpp): every intervention against
// a naive float64 forward pass of the lab's model written here from model.hpp's description
// (never through the trainer's ops), which applies the change from its definition: zeroed pairs
// turn by angle 0, a NoPE layer or head is not rotated, an ablated head's output is 0 before
// c_proj, a base changes θ_i = base^(−2i/d). Tolerance: the float model against the double
// reference, 1e-4 of the largest logit (the models' float policy, ARCHITECTURE.md §2). Then: an
// ablated head of a score-bias model is its c_proj rows zeroed, rotation surgery is refused on
// a model without a rotation (naming the field), training refuses to run under surgery (one
// thread or sharded), and the lab checkpoint's SurgeryModel is its passes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "lm_reference.hpp"
#include "poslab/analysis/surgery_sweep.hpp"
#include "poslab/base/errors.hpp"
#include "poslab/base/random.hpp"
#include "poslab/models/lm.hpp"
#include "poslab/train/checkpoint.hpp"
#include "poslab/train/lab_surgery.hpp"
#include "poslab/train/model.hpp"
#include "surgery_fixture.hpp"

// Named, so that a unity build (cmake/TestBuild.cmake) keeps its helpers apart from another
// file's of the same name.
namespace train_surgery_test {
namespace {

using poslab::Error;
using poslab::PositionMethod;
using poslab::PositionSurgery;
using poslab::TensorF;
using poslab::train::Batch;
using poslab::train::Model;
using poslab::train::ModelConfig;
using poslab::train::Parameters;
using Mat = std::vector<double>;

constexpr std::size_t kVocab = 11, kWidth = 32, kHeads = 4, kLayers = 2;  // d = 8: 4 pairs
const std::vector<std::int32_t> kTokens{1, 7, 3, 3, 9, 0, 10, 4, 2, 8, 5, 6, 1, 1};

ModelConfig config_for(PositionMethod method, double keep_fraction = 1.0) {
  ModelConfig c;
  c.n_layer = kLayers;
  c.n_embd = kWidth;
  c.n_head = kHeads;
  c.n_inner = 2 * kWidth;
  c.vocab_size = kVocab;
  c.n_positions = 32;
  c.position = method;
  c.base = 100.0;
  c.keep_fraction = keep_fraction;
  c.embed_scale = 2.0;
  return c;
}

// Seeded parameters far from the trainer's small init, so that every position change shows:
// gains 1 ± 0.3, everything else ± 0.4.
Parameters parameters_for(const ModelConfig& c, std::uint64_t seed) {
  Parameters p(c);
  poslab::train::init_parameters(p, seed, 0.0);
  poslab::Rng rng(seed + 1);
  for (const poslab::train::ParamInfo& info : p.info()) {
    const bool gain =
        info.name.find("ln") != std::string::npos && info.name.find(".weight") != std::string::npos;
    float* v = p.data() + info.offset;
    for (std::size_t i = 0; i < info.numel; ++i) {
      const double u = 2.0 * rng.uniform() - 1.0;
      v[i] = static_cast<float>(gain ? 1.0 + 0.3 * u : 0.4 * u);
    }
  }
  return p;
}

Batch batch_of(const std::vector<std::int32_t>& tokens) {
  Batch b;
  b.batch = 1;
  b.length = tokens.size();
  b.tokens = tokens;
  b.targets = tokens;
  for (std::size_t t = 0; t < tokens.size(); ++t) b.positions.push_back(std::int32_t(t));
  b.loss_mask.assign(tokens.size(), 1.0f);
  return b;
}

// LayerNorm of each row of width E (biased variance), gain g and bias b.
Mat layer_norm(const Mat& x, std::size_t rows, std::size_t E, const float* g, const float* b,
               double eps) {
  Mat y(x.size());
  for (std::size_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (std::size_t c = 0; c < E; ++c) mean += x[r * E + c];
    mean /= double(E);
    for (std::size_t c = 0; c < E; ++c) var += (x[r * E + c] - mean) * (x[r * E + c] - mean);
    var /= double(E);
    for (std::size_t c = 0; c < E; ++c) {
      y[r * E + c] = (x[r * E + c] - mean) / std::sqrt(var + eps) * g[c] + b[c];
    }
  }
  return y;
}

// x (rows, in) · W (in, out) + b, W stored (in, out) as the lab stores its matrices.
Mat linear(const Mat& x, std::size_t rows, std::size_t in, std::size_t out, const float* w,
           const float* b) {
  Mat y(rows * out);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t o = 0; o < out; ++o) {
      double s = b[o];
      for (std::size_t i = 0; i < in; ++i) s += x[r * in + i] * double(w[i * out + o]);
      y[r * out + o] = s;
    }
  return y;
}

// The lab's RoPE model over one sequence at positions 0..T−1, in double, under `surgery`:
// logits (T, V). Rotation: neox pairs (x[i], x[i + d/2]) over the whole head, θ_i =
// base^(−2i/d) (the surgery's base if it sets one), pairs from ⌊keep_fraction·d/2⌋ on and the
// surgery's zeroed pairs turning by 0.
Mat reference_logits(const ModelConfig& c, const Parameters& p,
                     const std::vector<std::int32_t>& tokens, const PositionSurgery& surgery) {
  const std::size_t T = tokens.size(), E = c.n_embd, H = c.n_head, d = E / H, I = c.n_inner;
  const std::size_t half = d / 2;
  const double base = surgery.rope_base != 0.0 ? surgery.rope_base : c.base;
  std::vector<double> theta(half);
  for (std::size_t i = 0; i < half; ++i) {
    const bool kept = double(i) < std::floor(c.keep_fraction * double(half));
    theta[i] = kept ? std::pow(base, -2.0 * double(i) / double(d)) : 0.0;
  }
  for (const poslab::PairRange& r : surgery.rope_zero_pairs) {
    for (long long i = r.first; i < r.last; ++i) theta[std::size_t(i)] = 0.0;
  }
  const auto listed = [](const std::vector<poslab::HeadRef>& refs, std::size_t l, std::size_t h) {
    for (const poslab::HeadRef& r : refs) {
      if (r.layer == (long long)l && r.head == (long long)h) return true;
    }
    return false;
  };
  Mat x(T * E);
  const float* wte = p.at("wte.weight");
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t e = 0; e < E; ++e) x[t * E + e] = c.embed_scale * wte[tokens[t] * E + e];
  for (std::size_t l = 0; l < c.n_layer; ++l) {
    const std::string n = "h." + std::to_string(l) + ".";
    const auto at = [&](const std::string& name) { return p.at(n + name); };
    const Mat a = layer_norm(x, T, E, at("ln_1.weight"), at("ln_1.bias"), c.layer_norm_epsilon);
    Mat qkv = linear(a, T, E, 3 * E, at("attn.c_attn.weight"), at("attn.c_attn.bias"));
    bool nope_layer = false;
    for (const long long k : surgery.nope_layers) nope_layer = nope_layer || k == (long long)l;
    for (std::size_t h = 0; h < H; ++h) {
      if (nope_layer || listed(surgery.nope_heads, l, h)) continue;
      for (std::size_t t = 0; t < T; ++t) {
        for (const std::size_t part : {std::size_t{0}, E}) {  // q, then k
          double* v = &qkv[t * 3 * E + part + h * d];
          for (std::size_t i = 0; i < half; ++i) {
            const double cs = std::cos(double(t) * theta[i]), sn = std::sin(double(t) * theta[i]);
            const double x1 = v[i], x2 = v[i + half];
            v[i] = x1 * cs - x2 * sn;
            v[i + half] = x2 * cs + x1 * sn;
          }
        }
      }
    }
    Mat merged(T * E, 0.0);
    for (std::size_t h = 0; h < H; ++h) {
      if (listed(surgery.ablate_heads, l, h)) continue;  // its output stays 0
      for (std::size_t i = 0; i < T; ++i) {
        std::vector<double> s(i + 1);
        double mx = -INFINITY, total = 0;
        for (std::size_t j = 0; j <= i; ++j) {
          double dot = 0;
          for (std::size_t k = 0; k < d; ++k) {
            dot += qkv[i * 3 * E + h * d + k] * qkv[j * 3 * E + E + h * d + k];
          }
          s[j] = dot / std::sqrt(double(d));
          mx = std::max(mx, s[j]);
        }
        for (double& e : s) total += (e = std::exp(e - mx));
        for (std::size_t j = 0; j <= i; ++j) {
          for (std::size_t k = 0; k < d; ++k) {
            merged[i * E + h * d + k] += s[j] / total * qkv[j * 3 * E + 2 * E + h * d + k];
          }
        }
      }
    }
    const Mat attn = linear(merged, T, E, E, at("attn.c_proj.weight"), at("attn.c_proj.bias"));
    for (std::size_t i = 0; i < T * E; ++i) x[i] += attn[i];
    const Mat m = layer_norm(x, T, E, at("ln_2.weight"), at("ln_2.bias"), c.layer_norm_epsilon);
    Mat hidden = linear(m, T, E, I, at("mlp.c_fc.weight"), at("mlp.c_fc.bias"));
    for (double& v : hidden) {
      v = 0.5 * v *
          (1.0 + std::tanh(std::sqrt(2.0 / 3.14159265358979323846) * (v + 0.044715 * v * v * v)));
    }
    const Mat out = linear(hidden, T, I, E, at("mlp.c_proj.weight"), at("mlp.c_proj.bias"));
    for (std::size_t i = 0; i < T * E; ++i) x[i] += out[i];
  }
  const Mat f = layer_norm(x, T, E, p.at("ln_f.weight"), p.at("ln_f.bias"), c.layer_norm_epsilon);
  Mat logits(T * c.vocab_size, 0.0);
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t v = 0; v < c.vocab_size; ++v)
      for (std::size_t e = 0; e < E; ++e)
        logits[t * c.vocab_size + v] += f[t * E + e] * wte[v * E + e];
  return logits;
}

TensorF as_tensor(const Mat& m, std::size_t rows, std::size_t cols) {
  TensorF t({rows, cols});
  for (std::size_t i = 0; i < m.size(); ++i) t.data[i] = static_cast<float>(m[i]);
  return t;
}

TensorF model_logits(Model& model, const Parameters& p, const PositionSurgery& surgery) {
  model.set_surgery(surgery);
  TensorF logits = model.logits(p, batch_of(kTokens));
  logits.shape = {kTokens.size(), kVocab};
  return logits;
}

using surgery_fixture::zero;

std::vector<std::pair<std::string, PositionSurgery>> interventions() {
  std::vector<std::pair<std::string, PositionSurgery>> out;
  out.emplace_back("none", PositionSurgery{});
  out.emplace_back("zero the highest pair", zero({{0, 1}}));
  out.emplace_back("zero two bands", zero({{3, 4}, {1, 2}}));
  PositionSurgery s;
  s.nope_layers = {1};
  out.emplace_back("NoPE layer 1", s);
  s = {};
  s.nope_heads = {{0, 2}, {1, 0}};
  out.emplace_back("NoPE heads", s);
  s = {};
  s.ablate_heads = {{0, 1}, {1, 3}};
  out.emplace_back("ablated heads", s);
  s = {};
  s.rope_base = 1000.0;
  out.emplace_back("base 1000", s);
  s = zero({{2, 4}});
  s.nope_heads = {{1, 1}};
  s.ablate_heads = {{0, 0}};
  s.rope_base = 30.0;
  out.emplace_back("together", s);
  return out;
}

TEST(LabSurgery, EachInterventionMatchesTheNaiveDoubleForward) {
  for (const double keep : {1.0, 0.5}) {  // RoPE, and p-RoPE with its top half of pairs
    const ModelConfig c =
        config_for(keep == 1.0 ? PositionMethod::kRope : PositionMethod::kPRope, keep);
    const Parameters p = parameters_for(c, 3);
    Model model(c);
    const Mat plain = reference_logits(c, p, kTokens, {});
    for (const auto& [name, surgery] : interventions()) {
      SCOPED_TRACE(name + (keep == 1.0 ? " (rope)" : " (p-rope)"));
      const Mat want = reference_logits(c, p, kTokens, surgery);
      const TensorF got = model_logits(model, p, surgery);
      EXPECT_TRUE(lm_ref::WithinOfLargest(got, as_tensor(want, kTokens.size(), kVocab), 1e-4));
      // The change shows in the reference: a test that passed with the surgery ignored would
      // say nothing.
      double change = 0;
      for (std::size_t i = 0; i < want.size(); ++i) {
        change = std::max(change, std::fabs(want[i] - plain[i]));
      }
      EXPECT_EQ(change > 1e-3, !surgery.empty()) << "largest change " << change;
    }
  }
}

TEST(LabSurgery, EmptySurgeryIsTheModelBitForBitAndEndsAnEarlierOne) {
  const ModelConfig c = config_for(PositionMethod::kRope);
  const Parameters p = parameters_for(c, 5);
  Model model(c);
  const TensorF plain = model.logits(p, batch_of(kTokens));
  EXPECT_EQ(model_logits(model, p, zero({{2, 2}})).data, plain.data);
  PositionSurgery nope;
  nope.nope_layers = {0, 1};
  const TensorF no_rotation = model_logits(model, p, nope);
  EXPECT_NE(no_rotation.data, plain.data);
  // Every pair zeroed is every layer NoPE.
  EXPECT_EQ(model_logits(model, p, zero({{0, 4}})).data, no_rotation.data);
  EXPECT_EQ(model_logits(model, p, {}).data, plain.data);
  // NoPE every head of a layer is that layer NoPE.
  PositionSurgery heads;
  for (long long h = 0; h < (long long)kHeads; ++h) heads.nope_heads.push_back({1, h});
  PositionSurgery layer;
  layer.nope_layers = {1};
  EXPECT_EQ(model_logits(model, p, heads).data, model_logits(model, p, layer).data);
  // The attention maps follow the surgery: layer 0 of the NoPE-layer-1 model is the model's.
  model.set_surgery(layer);
  const TensorF maps = model.attention_maps(p, batch_of(kTokens), 0);
  model.set_surgery({});
  const TensorF plain_maps = model.attention_maps(p, batch_of(kTokens), 0);
  const std::size_t per_layer = maps.size() / kLayers;
  EXPECT_TRUE(
      std::equal(maps.data.begin(), maps.data.begin() + long(per_layer), plain_maps.data.begin()));
  EXPECT_FALSE(std::equal(maps.data.begin() + long(per_layer), maps.data.end(),
                          plain_maps.data.begin() + long(per_layer)));
}

// A score-bias model (ALiBi) takes head ablation: the same as its c_proj rows of that head
// zeroed (W stored (in, out): the rows the head's output multiplies).
TEST(LabSurgery, AblationOnAScoreBiasModelIsItsOutputRowsZeroed) {
  const ModelConfig c = config_for(PositionMethod::kAlibi);
  const Parameters p = parameters_for(c, 7);
  Model model(c);
  PositionSurgery s;
  s.ablate_heads = {{1, 2}};
  const TensorF ablated = model_logits(model, p, s);
  Parameters zeroed = p;
  const std::size_t d = kWidth / kHeads;
  std::fill_n(zeroed.at("h.1.attn.c_proj.weight") + 2 * d * kWidth, d * kWidth, 0.0f);
  model.set_surgery({});
  TensorF want = model.logits(zeroed, batch_of(kTokens));
  want.shape = ablated.shape;
  EXPECT_TRUE(lm_ref::WithinOfLargest(ablated, want, 1e-6));
  EXPECT_FALSE(lm_ref::WithinOfLargest(ablated, model.logits(p, batch_of(kTokens)), 1e-3));
}

TEST(LabSurgery, RotationSurgeryOnAModelWithoutRotationIsRefusedNamingTheField) {
  using surgery_fixture::one;
  Model alibi(config_for(PositionMethod::kAlibi)), rope(config_for(PositionMethod::kRope));
  EXPECT_EQ(alibi.surgery_target().rotary_pairs, 0);
  EXPECT_EQ(rope.surgery_target().rotary_pairs, 4);
  struct Case {
    Model* model;
    poslab::PositionSurgery surgery;
    const char* field;
  };
  // Every rotation field on ALiBi, ablation accepted; out of the model on RoPE, whose lab
  // model has no local layers.
  const Case cases[] = {{&alibi, one("ropeZeroPairs", 0, 1), "ropeZeroPairs"},
                        {&alibi, one("nopeLayers", 0), "nopeLayers"},
                        {&alibi, one("nopeHeads", 0, 0), "nopeHeads"},
                        {&alibi, one("ropeBase", 100), "ropeBase"},
                        {&alibi, one("ablateHeads", 1, 3), "accepted"},
                        {&rope, one("ropeZeroPairs", 0, 5), "ropeZeroPairs"},
                        {&rope, one("nopeLayers", 2), "nopeLayers"},
                        {&rope, one("ablateHeads", 0, 4), "ablateHeads"},
                        {&rope, one("ropeLocalBase", 100), "ropeLocalBase"},
                        {&rope, one("ropeBase", 1), "ropeBase"}};
  for (const Case& c : cases) {
    const auto set = [&c](const PositionSurgery& s) { c.model->set_surgery(s); };
    EXPECT_EQ(surgery_fixture::field_of(set, c.surgery), c.field) << poslab::describe(c.surgery);
  }
}

// Training under surgery is refused before any pass, with one thread or the batch sharded
// over several (a shard's engine threw on its own thread, which ended the process); once the
// surgery ends, the step is the plain model's.
TEST(LabSurgery, TrainingRefusesToRunUnderSurgery) {
  const ModelConfig c = config_for(PositionMethod::kRope);
  const Parameters p = parameters_for(c, 9);
  const Batch one = batch_of(kTokens);
  Batch batch = one;
  for (int r = 0; r < 3; ++r) {  // 4 sequences
    batch.tokens.insert(batch.tokens.end(), one.tokens.begin(), one.tokens.end());
    batch.targets.insert(batch.targets.end(), one.targets.begin(), one.targets.end());
    batch.positions.insert(batch.positions.end(), one.positions.begin(), one.positions.end());
    batch.loss_mask.insert(batch.loss_mask.end(), one.loss_mask.begin(), one.loss_mask.end());
  }
  batch.batch = 4;
  for (const unsigned threads : {1u, 2u}) {
    SCOPED_TRACE(threads);
    Model model(c, threads);
    Parameters grads(c), plain_grads(c);
    const double plain = Model(c, threads).forward_backward(p, batch, plain_grads);
    PositionSurgery s;
    s.ablate_heads = {{0, 0}};
    model.set_surgery(s);
    try {
      model.forward_backward(p, batch, grads);
      ADD_FAILURE() << "trained under surgery";
    } catch (const Error& e) {
      EXPECT_EQ(e.field(), "surgery") << e.what();
    }
    model.set_surgery({});
    EXPECT_EQ(model.forward_backward(p, batch, grads), plain);
    EXPECT_EQ(std::vector<float>(grads.data(), grads.data() + grads.size()),
              std::vector<float>(plain_grads.data(), plain_grads.data() + plain_grads.size()));
  }
}

// A lab checkpoint as the sweep sees it: its target, base and trained context, and losses that
// are the model's next-token losses under each surgery.
TEST(LabSurgery, TheCheckpointsSurgeryModelIsItsPasses) {
  poslab::train::LabCheckpoint checkpoint;
  checkpoint.model = config_for(PositionMethod::kRope);
  checkpoint.params = parameters_for(checkpoint.model, 11);
  checkpoint.train_len = 6;
  const poslab::SurgeryModel m = poslab::train::surgery_model(checkpoint);
  EXPECT_EQ(m.target.layers, 2);
  EXPECT_EQ(m.target.heads, 4);
  EXPECT_EQ(m.target.rotary_pairs, 4);
  EXPECT_FALSE(m.target.local_layers);
  EXPECT_EQ(m.base, 100.0);
  EXPECT_EQ(m.trained_context, 6);
  EXPECT_FALSE(m.reuses_prefix);
  const std::vector<long long> tokens(kTokens.begin(), kTokens.end());
  Model model(checkpoint.model);
  for (const auto& [name, surgery] : interventions()) {
    SCOPED_TRACE(name);
    const std::vector<double> got = m.losses(tokens, surgery, nullptr);
    const TensorF want =
        poslab::next_token_losses(model_logits(model, checkpoint.params, surgery), tokens);
    ASSERT_EQ(got.size(), tokens.size() - 1);
    for (std::size_t t = 0; t < got.size(); ++t) EXPECT_EQ(got[t], double(want.data[t])) << t;
  }
  // The sweep over it: heads without rotation on an ALiBi checkpoint, ablation only.
  poslab::train::LabCheckpoint alibi = checkpoint;
  alibi.model = config_for(PositionMethod::kAlibi);
  alibi.params = parameters_for(alibi.model, 12);
  poslab::SweepSettings s;
  s.kind = poslab::SweepKind::kHeads;
  const poslab::SurgeryReport r =
      poslab::surgery_sweep(poslab::train::surgery_model(alibi), tokens, s);
  EXPECT_EQ(r.interventions.size(), kLayers * kHeads);
  EXPECT_EQ(r.interventions[0].intervention.kind, "ablate_head");
  EXPECT_DOUBLE_EQ(r.forward_equivalents, 1.0 + 8.0);
  s.kind = poslab::SweepKind::kBands;
  EXPECT_THROW(poslab::surgery_sweep(poslab::train::surgery_model(alibi), tokens, s), Error);
  // A scaling is for a rotation's model.
  poslab::RopeOptions linear;
  linear.scaling = poslab::RopeScaling::kLinear;
  linear.factor = 2.0;
  EXPECT_THROW(poslab::train::surgery_model(alibi, linear), Error);
  EXPECT_NO_THROW(poslab::train::surgery_model(checkpoint, linear));
}

}  // namespace
}  // namespace train_surgery_test

// Position surgery (issue 49) in the RoPE language models and the sweep: every intervention
// (zeroed pairs, NoPE layers and heads, the bases, ablated heads, and a mix of them) against the
// naive double references of gpt_neox_reference.hpp and llama_reference.hpp, which apply the
// same change from its definition (lm_reference.hpp's Surgery), in every architecture: GPT-NeoX
// with a partial and a whole rotation, Llama with grouped-query heads, Qwen3 (q/k norms and a
// sliding layer), Mistral's window over one kv head, Gemma 3 (its full layers at rope_theta
// with a scaling, its sliding ones at rope_local_base_freq) and SmolLM3 (a NoPE layer of its own
// config, sliding). Tolerances as the models' own tests
// (ARCHITECTURE.md §2): double against the reference kAcceptance, float against double 1e-4 of
// the largest logit. Then the exact properties: no surgery and empty ranges are the model bit for
// bit, every pair zeroed is every layer NoPE, every head of a layer NoPE is that layer NoPE, an
// ablated head is its output projection's columns zeroed, prefix reuse gives a full pass's bits;
// every bad surgery refused naming its field; the sweep's interventions, bootstrap, context split,
// forward-equivalents and surgery.json; a model's own NoPE layers in the sweep.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpt_neox_reference.hpp"
#include "llama_reference.hpp"
#include "lm_fixture.hpp"
#include "lm_reference.hpp"
#include "poslab/analysis/surgery_sweep.hpp"
#include "poslab/models/gpt_neox.hpp"
#include "poslab/models/llama.hpp"
#include "poslab/models/lm_surgery.hpp"
#include "poslab/models/position_surgery.hpp"
#include "reference.hpp"
#include "surgery_fixture.hpp"

// Named, so that a unity build (cmake/TestBuild.cmake) keeps its helpers apart from another
// file's of the same name.
namespace surgery_test {
namespace {

using lm_ref::WithinOfLargest;
using poslab::Error;
using poslab::GptNeoxConfig;
using poslab::HeadRef;
using poslab::LlamaConfig;
using poslab::PositionSurgery;
using poslab::Precision;
using poslab::RopeLmOptions;
using poslab::RopeOptions;
using poslab::TensorF;
using Checkpoint = std::map<std::string, TensorF>;

constexpr std::size_t V = 97;
const std::vector<long long> kTokens{3, 96, 0, 42, 42, 17, 5, 61, 2, 2, 9, 30, 77, 8, 50, 13};

// The checkpoint of `config`, named as the core lays it out, filled as the models' tests fill
// theirs: gains in [0.5, 1.5], biases in ±0.2, embeddings in ±1, heads in ±0.5, the other
// matrices in ±0.3, so that every position change shows in the logits.
template <class Config>
Checkpoint checkpoint(const Config& c, std::uint64_t seed) {
  const auto layout = poslab::lm_random_weights(c, 0);
  Checkpoint t;
  std::uint64_t s = seed * 1000;
  for (const auto& [name, tensor] : poslab::lm_named_tensors(layout)) {
    const auto has = [&name = name](const char* part) {
      return name.find(part) != std::string::npos;
    };
    const bool bias = name.size() > 5 && name.compare(name.size() - 5, 5, ".bias") == 0;
    const double bound = bias                                     ? 0.2
                         : has("embed_tokens") || has("embed_in") ? 1.0
                         : has("lm_head") || has("embed_out")     ? 0.5
                         : has("norm")                            ? -1.0
                                                                  : 0.3;
    t[name] = bound < 0 ? ref::random_tensor(tensor->shape, ++s, 0.5, 1.5)
                        : ref::random_tensor(tensor->shape, ++s, -bound, bound);
  }
  return t;
}

// The test's own surgery in the reference's terms.
lm_ref::Surgery reference_surgery(const PositionSurgery& s) {
  lm_ref::Surgery out;
  for (const poslab::PairRange& r : s.rope_zero_pairs) {
    out.zero_pairs.emplace_back(std::size_t(r.first), std::size_t(r.last));
  }
  for (const long long l : s.nope_layers) out.nope_layers.push_back(std::size_t(l));
  for (const HeadRef& h : s.nope_heads) out.nope_heads.emplace_back(h.layer, h.head);
  for (const HeadRef& h : s.ablate_heads) out.ablated.emplace_back(h.layer, h.head);
  return out;
}

// One small model of an architecture: its forward pass in the core and in its reference.
struct Model {
  std::string name;
  long long layers = 0, heads = 0, pairs = 0;
  bool local = false;  // sliding layers turning at a base of their own (Gemma 3)
  std::function<poslab::RopeLmResult(const std::vector<long long>&, const RopeLmOptions&)> core;
  // The reference's logits under `s` (its rope_base and rope_local_base included).
  std::function<ref::Tensor(const std::vector<long long>&, const PositionSurgery& s)> reference;
  // The core model with o_proj's (dense's) input columns of head h of layer l zeroed.
  std::function<TensorF(const std::vector<long long>&, std::size_t l, std::size_t h, Precision)>
      without_output_columns;

  TensorF logits(const PositionSurgery& s, Precision precision,
                 const std::vector<long long>& tokens = kTokens) const {
    RopeLmOptions o;
    o.precision = precision;
    o.surgery = s;
    return core(tokens, o).logits;
  }
};

void PrintTo(const Model& m, std::ostream* os) { *os << m.name; }

// Columns [h·d, (h + 1)·d) of a (rows, H·d) (out, in) matrix set to 0.
void zero_columns(TensorF& w, std::size_t h, std::size_t d) {
  const std::size_t rows = w.shape[0], cols = w.shape[1];
  for (std::size_t r = 0; r < rows; ++r) std::fill_n(w.ptr() + r * cols + h * d, d, 0.0f);
}

Model neox_model(const char* name, double rotary_pct, bool parallel) {
  GptNeoxConfig c;
  c.dims = {(long long)V, 16, 48, 2, 3};  // d = 16
  c.intermediate_size = 80;
  c.rotary_pct = rotary_pct;
  c.use_parallel_residual = parallel;
  const auto t = std::make_shared<const Checkpoint>(checkpoint(c, 1));
  const auto w = std::make_shared<const poslab::GptNeoxWeights>(
      poslab::lm_weights_from_bytes(lm_fixture::encode(*t), c, "m"));
  Model m;
  m.name = name;
  m.layers = 2;
  m.heads = 3;
  m.pairs = (long long)(16 * rotary_pct) / 2;
  m.core = [w](const std::vector<long long>& tokens, const RopeLmOptions& o) {
    return poslab::gpt_neox_forward(*w, tokens, o);
  };
  m.reference = [t, c](const std::vector<long long>& tokens, const PositionSurgery& s) {
    RopeOptions rope = c.rope();
    if (s.rope_base != 0.0) rope.base = s.rope_base;
    const neox_ref::Config rc{lm_ref::dims_of(c.dims), std::size_t(c.intermediate_size),
                              c.rotary_pct, c.layer_norm_eps, c.use_parallel_residual};
    return neox_ref::forward(*t, rc, tokens, ref::rope_freqs(16, rope, (long long)tokens.size()),
                             lm_ref::iota_positions(tokens.size()), reference_surgery(s))
        .logits;
  };
  m.without_output_columns = [t, c](const std::vector<long long>& tokens, std::size_t l,
                                    std::size_t h, Precision precision) {
    Checkpoint changed = *t;
    zero_columns(changed.at("gpt_neox.layers." + std::to_string(l) + ".attention.dense.weight"), h,
                 16);
    RopeLmOptions o;
    o.precision = precision;
    return poslab::gpt_neox_forward(
               poslab::lm_weights_from_bytes(lm_fixture::encode(changed), c, "m"), tokens, o)
        .logits;
  };
  return m;
}

// A Llama-family member: vocabulary 97, 16 trained positions, width 48 unless head_dim says.
LlamaConfig llama_config(poslab::LmArchitecture type, long long layers, long long heads,
                         long long kv_heads, long long head_dim = 0, long long window = 0,
                         std::vector<bool> sliding = {}) {
  LlamaConfig c;
  c.model_type = type;
  c.dims = {(long long)V, 16, 48, layers, heads};
  c.num_key_value_heads = kv_heads;
  c.explicit_head_dim = head_dim;
  c.intermediate_size = 80;
  c.rope_theta = 10000.0;
  c.rms_norm_eps = 1e-5;
  c.tie_word_embeddings = type == poslab::LmArchitecture::kGemma3;
  c.sliding_window = window;
  c.sliding_layers = std::move(sliding);
  return c;
}

Model llama_model(const char* name, const LlamaConfig& c) {
  const auto t = std::make_shared<const Checkpoint>(checkpoint(c, 2));
  const auto w = std::make_shared<const poslab::LlamaWeights>(
      poslab::lm_weights_from_bytes(lm_fixture::encode(*t), c, "m"));
  const std::size_t d = std::size_t(c.head_dim());
  Model m;
  m.name = name;
  m.layers = c.dims.layers;
  m.heads = c.dims.heads;
  m.pairs = (long long)d / 2;
  m.local = c.has_local_rotation();
  m.core = [w](const std::vector<long long>& tokens, const RopeLmOptions& o) {
    return poslab::llama_forward(*w, tokens, o);
  };
  m.reference = [t, c, d](const std::vector<long long>& tokens, const PositionSurgery& s) {
    llama_ref::Config rc{lm_ref::dims_of(c.dims),
                         std::size_t(c.num_key_value_heads),
                         d,
                         std::size_t(c.intermediate_size),
                         c.rms_norm_eps,
                         c.tie_word_embeddings,
                         {},
                         c.gemma(),
                         c.query_pre_attn_scalar};
    for (std::size_t i = 0; i < std::size_t(c.dims.layers); ++i) {
      rc.windows.push_back(std::size_t(c.window_of(i)));
      // SmolLM3's no_rope_layers: 1 rotates, 0 does not.
      if (c.has_nope_layers()) rc.no_rope_layers.push_back(c.nope(i) ? 0 : 1);
    }
    const long long T = (long long)tokens.size();
    RopeOptions full = c.rope();
    if (s.rope_base != 0.0) full.base = s.rope_base;
    RopeOptions local;  // Gemma 3's sliding layers: rope_local_base_freq, unscaled
    local.base = s.rope_local_base != 0.0 ? s.rope_local_base : c.rope_local_base_freq;
    const ref::Freqs local_freqs = ref::rope_freqs(d, local, T);
    return llama_ref::forward(*t, rc, tokens, ref::rope_freqs(d, full, T),
                              lm_ref::iota_positions(tokens.size()), reference_surgery(s),
                              c.gemma() ? &local_freqs : nullptr)
        .logits;
  };
  m.without_output_columns = [t, c, d](const std::vector<long long>& tokens, std::size_t l,
                                       std::size_t h, Precision precision) {
    Checkpoint changed = *t;
    zero_columns(changed.at("model.layers." + std::to_string(l) + ".self_attn.o_proj.weight"), h,
                 d);
    RopeLmOptions o;
    o.precision = precision;
    return poslab::llama_forward(poslab::lm_weights_from_bytes(lm_fixture::encode(changed), c, "m"),
                                 tokens, o)
        .logits;
  };
  return m;
}

LlamaConfig gemma_config() {
  // Layers 0 and 2 slide (window 3) and turn at the local base, layer 1 is full and turns at
  // rope_theta with a linear scaling; 4 query heads over 2 kv heads of width 8.
  LlamaConfig c = llama_config(poslab::LmArchitecture::kGemma3, 3, 4, 2, 8, 3, {true, false, true});
  c.dims.width = 32;
  c.query_pre_attn_scalar = 24.0;
  c.rope_theta = 1000.0;
  c.rope_local_base_freq = 100.0;
  c.rope_scaling = poslab::RopeScaling::kLinear;
  c.rope_factor = 2.0;
  return c;
}

LlamaConfig smollm3_config() {
  // Layer 1 of 3 is NoPE (its config's no_rope_layers [1, 0, 1]) and slides (window 4, SmolLM3's
  // use_sliding_window); 4 query heads over 2 kv heads.
  LlamaConfig c =
      llama_config(poslab::LmArchitecture::kSmolLm3, 3, 4, 2, 0, 4, {false, true, false});
  c.nope_layers = {false, true, false};
  c.tie_word_embeddings = true;
  return c;
}

const std::vector<Model>& models() {
  using poslab::LmArchitecture;
  static const std::vector<Model> all = {
      neox_model("NeoxPartialRotary", 0.25, true),
      neox_model("NeoxWholeRotary", 1.0, false),
      llama_model("LlamaGqa", llama_config(LmArchitecture::kLlama, 2, 4, 2)),
      llama_model("Qwen3QkNormSlidingLayer",
                  llama_config(LmArchitecture::kQwen3, 2, 6, 3, 10, 3, {false, true})),
      llama_model("MistralWindowMqa",
                  llama_config(LmArchitecture::kMistral, 2, 4, 1, 0, 4, {true, true})),
      llama_model("SmolLm3OwnNopeLayer", smollm3_config()),
      llama_model("Gemma3LocalAndGlobal", gemma_config()),  // last: SurgeryGemma3 takes it
  };
  return all;
}

using surgery_fixture::zero;

// The interventions every model is checked under, from its sizes; `changes`: whether it must
// move the logits (an empty range does not).
struct Intervention {
  std::string name;
  PositionSurgery surgery;
  bool changes = true;
};

std::vector<Intervention> interventions(const Model& m) {
  const long long P = m.pairs, H = m.heads, last = m.layers - 1;
  std::vector<Intervention> out;
  out.push_back({"zero the highest pair", zero({{0, 1}})});
  out.push_back({"zero two bands", zero({{P / 2, P}, {0, 1}})});
  out.push_back({"zero every pair", zero({{0, P}})});
  PositionSurgery s;
  s.nope_layers = {last};
  out.push_back({"NoPE last layer", s});
  s = {};
  s.nope_heads = {{0, 1}, {last, H - 1}};  // with GQA: head 0 keeps reading the rotated kv head
  out.push_back({"NoPE heads", s});
  s = {};
  s.ablate_heads = {{0, 2}, {last, 0}};
  out.push_back({"ablate heads", s});
  s = {};
  s.rope_base = 500.0;
  out.push_back({"base 500", s});
  s = zero({{1, 2}});
  s.nope_heads = {{0, 0}};
  s.ablate_heads = {{last, 1}};
  s.rope_base = 2000.0;
  out.push_back({"pairs, NoPE head, ablation and base together", s});
  if (m.local) {
    s = {};
    s.rope_local_base = 30.0;
    out.push_back({"local base 30", s});
    s.rope_base = 50.0;
    s.nope_heads = {{1, 3}};
    out.push_back({"both bases and a NoPE head", s});
  }
  return out;
}

class Surgery : public ::testing::TestWithParam<Model> {};

TEST_P(Surgery, EachInterventionMatchesTheReferenceWithThatChangeInBothPrecisions) {
  const Model& m = GetParam();
  const ref::Tensor plain = m.reference(kTokens, {});
  ASSERT_TRUE(ref::AllClose(m.logits({}, Precision::kDouble), plain, ref::kAcceptance));
  for (const Intervention& i : interventions(m)) {
    SCOPED_TRACE(i.name);
    const ref::Tensor want = m.reference(kTokens, i.surgery);
    const TensorF exact = m.logits(i.surgery, Precision::kDouble);
    EXPECT_ALLCLOSE(exact, want, ref::kAcceptance);
    EXPECT_TRUE(WithinOfLargest(m.logits(i.surgery, Precision::kFloat), exact, 1e-4));
    // The change shows: a test that passed with the surgery ignored would say nothing.
    EXPECT_EQ(!ref::AllClose(want.data, plain.data, ref::kAcceptance), i.changes);
  }
}

// Gemma 3: rope_base turns the full layers only, rope_local_base the sliding ones only (the
// reference gets each base's frequencies for its own layers): each equals the reference with
// that base in that kind of layer, and the other kind's base left as the config's changes it.
TEST(SurgeryGemma3, EachBaseTurnsItsOwnLayersOnly) {
  const Model& m = models().back();
  ASSERT_TRUE(m.local);
  PositionSurgery global, local;
  global.rope_base = 50.0;
  local.rope_local_base = 30.0;
  // The reference given a base for the other kind of layer is a different model.
  PositionSurgery wrong_global = local, wrong_local = global;
  wrong_global.rope_base = 30.0;
  wrong_local.rope_local_base = 50.0;
  const TensorF g = m.logits(global, Precision::kDouble);
  const TensorF l = m.logits(local, Precision::kDouble);
  EXPECT_ALLCLOSE(g, m.reference(kTokens, global), ref::kAcceptance);
  EXPECT_ALLCLOSE(l, m.reference(kTokens, local), ref::kAcceptance);
  EXPECT_FALSE(ref::AllClose(g, m.reference(kTokens, wrong_local), ref::kAcceptance));
  EXPECT_FALSE(ref::AllClose(l, m.reference(kTokens, wrong_global), ref::kAcceptance));
  // A NoPE layer of each kind.
  for (const long long layer : {0LL, 1LL}) {
    PositionSurgery nope;
    nope.nope_layers = {layer};
    EXPECT_ALLCLOSE(m.logits(nope, Precision::kDouble), m.reference(kTokens, nope),
                    ref::kAcceptance)
        << "layer " << layer;
  }
}

TEST_P(Surgery, NoSurgeryAndEmptyRangesAreTheModelBitForBit) {
  const Model& m = GetParam();
  for (const Precision precision : {Precision::kFloat, Precision::kDouble}) {
    const TensorF plain = m.logits({}, precision);
    EXPECT_EQ(m.logits(zero({}), precision).data, plain.data);
    EXPECT_EQ(m.logits(zero({{0, 0}}), precision).data, plain.data);
    EXPECT_EQ(m.logits(zero({{1, 1}, {m.pairs, m.pairs}}), precision).data, plain.data);
    PositionSurgery none;  // empty lists of every kind
    none.nope_layers = {};
    none.nope_heads = {};
    none.ablate_heads = {};
    EXPECT_TRUE(none.empty());
    EXPECT_EQ(m.logits(none, precision).data, plain.data);
  }
}

TEST_P(Surgery, EveryPairZeroedIsEveryLayerNope) {
  const Model& m = GetParam();
  PositionSurgery all_nope;
  for (long long l = 0; l < m.layers; ++l) all_nope.nope_layers.push_back(l);
  for (const Precision precision : {Precision::kFloat, Precision::kDouble}) {
    // A zeroed pair turns by angle 0 whatever θ is, and no scaling here has an attention factor
    // (Gemma's linear one divides θ), so cos = 1 and sin = 0 exactly.
    EXPECT_EQ(m.logits(zero({{0, m.pairs}}), precision).data, m.logits(all_nope, precision).data);
    // Split in ranges, overlapping, in any order: the same pairs.
    EXPECT_EQ(m.logits(zero({{m.pairs / 2, m.pairs}, {0, m.pairs / 2 + 1}}), precision).data,
              m.logits(all_nope, precision).data);
  }
}

TEST_P(Surgery, EveryHeadOfALayerNopeIsThatLayerNope) {
  const Model& m = GetParam();
  for (long long l = 0; l < m.layers; ++l) {
    PositionSurgery layer, heads;
    layer.nope_layers = {l};
    for (long long h = 0; h < m.heads; ++h) heads.nope_heads.push_back({l, h});
    for (const Precision precision : {Precision::kFloat, Precision::kDouble}) {
      EXPECT_EQ(m.logits(heads, precision).data, m.logits(layer, precision).data) << "layer " << l;
    }
  }
}

TEST_P(Surgery, AnAblatedHeadIsItsOutputProjectionColumnsZeroed) {
  const Model& m = GetParam();
  for (const auto& [l, h] : {std::pair<long long, long long>{0, 0}, {m.layers - 1, m.heads - 1}}) {
    PositionSurgery s;
    s.ablate_heads = {{l, h}};
    for (const Precision precision : {Precision::kFloat, Precision::kDouble}) {
      EXPECT_TRUE(ref::AllClose(m.logits(s, precision),
                                m.without_output_columns(kTokens, l, h, precision),
                                ref::Tol{1e-6, 1e-6}))
          << l << ":" << h;
    }
  }
}

// The sweep's unmodified pass keeps the residual stream entering each layer; a pass under an
// intervention that first changes layer l starts there from it, and gives a full pass's bits.
TEST_P(Surgery, PrefixReuseGivesAFullPassBits) {
  const Model& m = GetParam();
  std::vector<Intervention> cases = interventions(m);
  cases.push_back({"none", {}});
  for (const Precision precision : {Precision::kFloat, Precision::kDouble}) {
    std::vector<TensorF> inputs;
    RopeLmOptions o;
    o.precision = precision;
    o.layer_inputs = &inputs;
    const TensorF plain = m.core(kTokens, o).logits;
    ASSERT_EQ(inputs.size(), std::size_t(m.layers + 1));
    EXPECT_EQ(plain.data, m.logits({}, precision).data);
    for (const Intervention& i : cases) {
      RopeLmOptions reuse;
      reuse.precision = precision;
      reuse.surgery = i.surgery;
      reuse.reuse_inputs = &inputs;
      std::vector<TensorF> again;
      reuse.layer_inputs = &again;  // a reusing pass still hands every layer's input on
      EXPECT_EQ(m.core(kTokens, reuse).logits.data, m.logits(i.surgery, precision).data)
          << i.name << ", first changed layer "
          << poslab::first_changed_layer(i.surgery, std::size_t(m.layers));
      EXPECT_EQ(again.size(), inputs.size()) << i.name;
    }
  }
}

TEST(SurgeryPrefix, ReuseOfAnotherPassIsRefused) {
  const Model& m = models()[2];
  std::vector<TensorF> inputs;
  RopeLmOptions o;
  o.layer_inputs = &inputs;
  m.core(kTokens, o);
  const auto expect_field = [&](const RopeLmOptions& options, const std::string& field) {
    try {
      m.core(kTokens, options);
      ADD_FAILURE() << "accepted; expected an error of " << field;
    } catch (const Error& e) {
      EXPECT_EQ(e.field(), field) << e.what();
    }
  };
  RopeLmOptions reuse;
  reuse.surgery.nope_layers = {1};
  std::vector<TensorF> short_list(inputs.begin(), inputs.end() - 1);
  reuse.reuse_inputs = &short_list;
  expect_field(reuse, "reuseInputs");
  std::vector<TensorF> other_tokens;
  o.layer_inputs = &other_tokens;
  m.core({1, 2, 3}, o);
  reuse.reuse_inputs = &other_tokens;
  expect_field(reuse, "reuseInputs");
  reuse.reuse_inputs = &inputs;
  reuse.trace = true;
  expect_field(reuse, "trace");
}

INSTANTIATE_TEST_SUITE_P(Models, Surgery, ::testing::ValuesIn(models()),
                         [](const ::testing::TestParamInfo<Model>& info) {
                           return info.param.name;
                         });

// ---------------------------------------------------------------------------------------------
// The checks: each bad surgery refused naming its field, by check_surgery and by the models.

void expect_refused(const PositionSurgery& s, const poslab::SurgeryTarget& t,
                    const std::string& field, const std::string& fragment) {
  try {
    poslab::check_surgery(s, t);
    ADD_FAILURE() << "accepted; expected an error of " << field;
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(SurgeryChecks, EachBadInputIsRefusedNamingItsField) {
  const poslab::SurgeryTarget llama{"Llama", 2, 4, 6, false};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  expect_refused(zero({{0, 7}}), llama, "ropeZeroPairs", "[0, R/2] = [0, 6]");
  expect_refused(zero({{-1, 2}}), llama, "ropeZeroPairs", "-1:2");
  expect_refused(zero({{0, 2}, {4, 3}}), llama, "ropeZeroPairs", "not be inverted");
  PositionSurgery s;
  for (const long long layer : {-1LL, 2LL}) {
    s = {};
    s.nope_layers = {0, layer};
    expect_refused(s, llama, "nopeLayers", "outside the model's 2 layers");
  }
  for (const HeadRef bad : {HeadRef{2, 0}, HeadRef{-1, 0}, HeadRef{0, 4}, HeadRef{1, -1}}) {
    s = {};
    s.nope_heads = {{0, 0}, bad};
    expect_refused(s, llama, "nopeHeads", "outside the model's");
    s = {};
    s.ablate_heads = {bad};
    expect_refused(s, llama, "ablateHeads", "outside the model's");
  }
  s = {};
  s.ablate_heads = {{0, 4}};  // 4 query heads: head 4 is past them even with 2 kv heads
  expect_refused(s, llama, "ablateHeads", "4 heads per layer");
  for (const double base : {1.0, 0.5, -10.0, nan, inf, -inf}) {
    s = {};
    s.rope_base = base;
    expect_refused(s, llama, "ropeBase", "finite number above 1");
    s = {};
    s.rope_local_base = base;
    expect_refused(s, {"Gemma 3", 2, 4, 6, true}, "ropeLocalBase", "finite number above 1");
  }
  s = {};
  s.rope_local_base = 100.0;
  expect_refused(s, llama, "ropeLocalBase", "no local (sliding-window) layers");
  // Rotation surgery on a model without a rotation names the first rotation field it was given;
  // ablation is for any model.
  const poslab::SurgeryTarget none{"an alibi model", 2, 4, 0, false};
  expect_refused(zero({{0, 0}}), none, "ropeZeroPairs", "an alibi model has no rotation");
  s = {};
  s.nope_layers = {0};
  expect_refused(s, none, "nopeLayers", "no rotation");
  s = {};
  s.nope_heads = {{0, 0}};
  expect_refused(s, none, "nopeHeads", "no rotation");
  s = {};
  s.rope_base = 100.0;
  expect_refused(s, none, "ropeBase", "no rotation");
  s = {};
  s.ablate_heads = {{1, 3}};
  EXPECT_NO_THROW(poslab::check_surgery(s, none));
  // What is fine: the edges of the ranges, every layer and head, base 0 (the model's).
  s = zero({{0, 6}, {6, 6}, {0, 0}});
  s.nope_layers = {0, 1};
  s.nope_heads = {{1, 3}};
  s.ablate_heads = {{1, 3}, {0, 0}};
  s.rope_base = 1.0001;
  EXPECT_NO_THROW(poslab::check_surgery(s, llama));
}

TEST(SurgeryChecks, TheModelsRefuseBeforeAnyWork) {
  using surgery_fixture::one;
  for (const Model& m : models()) {
    SCOPED_TRACE(m.name);
    const auto run = [&m](const PositionSurgery& s) { m.logits(s, Precision::kDouble); };
    const auto field_of = [&run](const PositionSurgery& s) {
      return surgery_fixture::field_of(run, s);
    };
    EXPECT_EQ(field_of(one("ropeZeroPairs", 0, m.pairs + 1)), "ropeZeroPairs");
    EXPECT_EQ(field_of(one("nopeLayers", m.layers)), "nopeLayers");
    EXPECT_EQ(field_of(one("nopeHeads", 0, m.heads)), "nopeHeads");
    EXPECT_EQ(field_of(one("ablateHeads", m.layers, 0)), "ablateHeads");
    EXPECT_EQ(field_of(one("ropeBase", 1)), "ropeBase");
    EXPECT_EQ(field_of(one("ropeLocalBase", 100)), m.local ? "accepted" : "ropeLocalBase");
  }
}

TEST(SurgeryPlan, FirstChangedLayerAndEachLayersShare) {
  PositionSurgery s;
  EXPECT_EQ(poslab::first_changed_layer(s, 4), 4u);
  s.ablate_heads = {{3, 0}};
  s.nope_heads = {{2, 1}};
  EXPECT_EQ(poslab::first_changed_layer(s, 4), 2u);
  s.nope_layers = {1, 3};
  EXPECT_EQ(poslab::first_changed_layer(s, 4), 1u);
  for (PositionSurgery every : {zero({{0, 1}}), zero({{2, 2}}), PositionSurgery{}}) {
    if (every.rope_zero_pairs.empty()) every.rope_local_base = 10.0;
    EXPECT_EQ(poslab::first_changed_layer(every, 4), 0u);
  }
  PositionSurgery base;
  base.rope_base = 10.0;
  EXPECT_EQ(poslab::first_changed_layer(base, 4), 0u);

  const poslab::LayerSurgery two = poslab::layer_surgery(s, 2, 3);
  EXPECT_FALSE(two.nope);
  EXPECT_EQ(two.nope_heads, (std::vector<char>{0, 1, 0}));
  EXPECT_TRUE(two.ablated.empty());
  const poslab::LayerSurgery three = poslab::layer_surgery(s, 3, 3);
  EXPECT_TRUE(three.nope);
  EXPECT_EQ(three.ablated, (std::vector<char>{1, 0, 0}));
  EXPECT_FALSE(poslab::layer_surgery(s, 0, 3).any_head_change());

  RopeOptions rope;
  rope.base = 1e4;
  s = zero({{1, 3}});
  s.rope_base = 50.0;
  s.rope_local_base = 20.0;
  EXPECT_EQ(poslab::surgery_rope(rope, s).base, 50.0);
  EXPECT_EQ(poslab::surgery_rope(rope, s, true).base, 20.0);
  EXPECT_EQ(poslab::surgery_rope(rope, s).zero_pairs, &s.rope_zero_pairs);
  EXPECT_EQ(poslab::surgery_rope(rope, PositionSurgery{}).base, 1e4);
  EXPECT_EQ(poslab::surgery_rope(rope, PositionSurgery{}).zero_pairs, nullptr);
  s.nope_layers = {3};
  s.ablate_heads = {{0, 1}};
  EXPECT_EQ(poslab::describe(s),
            "zero pairs 1:3; NoPE layers 3; base 50; local base 20; ablated heads 0:1");
  EXPECT_EQ(poslab::describe({}), "none");
}

// ---------------------------------------------------------------------------------------------
// The sweep, over a stand-in model whose losses are known, then over a real one.

// N layers of H heads and P pairs; the loss at position t of window w is 1 + (w + t)/100
// unmodified, plus a change by intervention: 0.1·(number of zeroed pairs), 0.5 per NoPE layer
// at positions past 3, 0.01·(h + 1) per ablated head, 0.2 for a new base.
poslab::SurgeryModel stand_in(
    long long N, long long H, long long P, long long context,
    std::vector<std::pair<PositionSurgery, std::size_t>>* passes = nullptr) {
  poslab::SurgeryModel m;
  m.target = {"the stand-in", N, H, P, false};
  m.base = P > 0 ? 10000.0 : 0.0;
  m.trained_context = context;
  m.losses = [passes](const std::vector<long long>& tokens, const PositionSurgery& s,
                      poslab::SurgeryPrefix* prefix) {
    if (passes) passes->emplace_back(s, prefix ? prefix->layer_inputs.size() : 0);
    if (prefix && s.empty()) prefix->layer_inputs.resize(1);  // marks the prefix filled
    double change = s.rope_base != 0.0 ? 0.2 : 0.0;
    for (const poslab::PairRange& r : s.rope_zero_pairs) change += 0.1 * double(r.last - r.first);
    for (const HeadRef& h : s.ablate_heads) change += 0.01 * double(h.head + 1);
    std::vector<double> out;
    for (std::size_t t = 0; t + 1 < tokens.size(); ++t) {
      const double late = t > 3 ? 0.5 * double(s.nope_layers.size()) : 0.0;
      out.push_back(1.0 + double(tokens[0] + (long long)t) / 100.0 + change + late);
    }
    return out;
  };
  return m;
}

// Token ids 0, 1, 2, ...: window w starts with id w·W.
std::vector<long long> iota_tokens(std::size_t T) {
  std::vector<long long> out(T);
  for (std::size_t t = 0; t < T; ++t) out[t] = (long long)t;
  return out;
}

// [[a, b]] as surgery.json writes a list of one range or head.
nlohmann::json one_pair(long long a, long long b) {
  return nlohmann::json::array({nlohmann::json::array({a, b})});
}

std::vector<std::string> names(const std::vector<poslab::Intervention>& list) {
  std::vector<std::string> out;
  for (const poslab::Intervention& i : list) out.push_back(i.name);
  return out;
}

void expect_sweep_refused(const poslab::SurgeryModel& m, const poslab::SweepSettings& s,
                          const std::string& field) {
  try {
    poslab::sweep_interventions(m, s);
    ADD_FAILURE() << "accepted; expected an error of " << field;
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), field) << e.what();
  }
}

TEST(SurgerySweep, InterventionsOfEachKind) {
  const poslab::SurgeryModel m = stand_in(3, 2, 8, 0);
  poslab::SweepSettings s;
  s.kind = poslab::SweepKind::kBands;  // group 0: as many as make 16 groups, here 1 pair each
  const std::vector<poslab::Intervention> bands = poslab::sweep_interventions(m, s);
  ASSERT_EQ(bands.size(), 8u + 5u);
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(bands[i].kind, "zero_pairs");
    EXPECT_EQ(bands[i].name, "zero pairs " + std::to_string(i) + ":" + std::to_string(i + 1));
    ASSERT_EQ(bands[i].surgery.rope_zero_pairs.size(), 1u);
    EXPECT_EQ(bands[i].surgery.rope_zero_pairs[0].first, (long long)i);
  }
  // Keep the top p: pairs [⌊p·P⌋, P) zeroed; p = 1 is the unmodified model, a control.
  const std::vector<std::pair<double, long long>> kept = {
      {1.0, 8}, {0.75, 6}, {0.5, 4}, {0.25, 2}, {0.0, 0}};
  for (std::size_t k = 0; k < kept.size(); ++k) {
    const poslab::Intervention& i = bands[8 + k];
    EXPECT_EQ(i.kind, "keep_top");
    EXPECT_EQ(i.fraction, kept[k].first);
    if (kept[k].second == 8) {
      EXPECT_TRUE(i.surgery.empty()) << i.name;
      continue;
    }
    ASSERT_EQ(i.surgery.rope_zero_pairs.size(), 1u) << i.name;
    EXPECT_EQ(i.surgery.rope_zero_pairs[0].first, kept[k].second) << i.name;
    EXPECT_EQ(i.surgery.rope_zero_pairs[0].last, 8) << i.name;
  }
  EXPECT_EQ(bands[8].name, "keep top 100%");
  EXPECT_EQ(bands[10].name, "keep top 50%");
  s.group = 3;
  const std::vector<std::string> threes = names(poslab::sweep_interventions(m, s));
  EXPECT_EQ(std::vector<std::string>(threes.begin(), threes.begin() + 3),
            (std::vector<std::string>{"zero pairs 0:3", "zero pairs 3:6", "zero pairs 6:8"}));
  s.group = 8;
  EXPECT_EQ(poslab::sweep_interventions(m, s).size(), 1u + 5u);
  for (const long long bad : {-1LL, 9LL}) {
    s.group = bad;
    expect_sweep_refused(m, s, "group");
  }

  s = {};
  s.kind = poslab::SweepKind::kLayers;
  EXPECT_EQ(names(poslab::sweep_interventions(m, s)),
            (std::vector<std::string>{"NoPE layer 0", "NoPE layer 1", "NoPE layer 2"}));
  EXPECT_EQ(poslab::sweep_interventions(m, s)[2].surgery.nope_layers, (std::vector<long long>{2}));

  s.kind = poslab::SweepKind::kHeads;
  const std::vector<poslab::Intervention> heads = poslab::sweep_interventions(m, s);
  ASSERT_EQ(heads.size(), 3u * 2u * 2u);  // NoPE and ablated, per head
  EXPECT_EQ(heads[0].name, "NoPE head 0:0");
  EXPECT_EQ(heads[0].kind, "nope_head");
  EXPECT_EQ(heads[1].name, "ablate head 0:0");
  EXPECT_EQ(heads[1].kind, "ablate_head");
  EXPECT_EQ(heads.back().name, "ablate head 2:1");
  EXPECT_EQ(heads.back().head->layer, 2);
  EXPECT_EQ(heads.back().head->head, 1);
  // Without a rotation: ablation only, and the rotation sweeps refused.
  const poslab::SurgeryModel plain = stand_in(3, 2, 0, 0);
  const std::vector<poslab::Intervention> ablations = poslab::sweep_interventions(plain, s);
  ASSERT_EQ(ablations.size(), 6u);
  for (const poslab::Intervention& i : ablations) EXPECT_EQ(i.kind, "ablate_head");
  for (const poslab::SweepKind kind :
       {poslab::SweepKind::kBands, poslab::SweepKind::kLayers, poslab::SweepKind::kBase}) {
    s.kind = kind;
    expect_sweep_refused(plain, s, "sweep");
  }

  s = {};
  s.kind = poslab::SweepKind::kBase;  // the model's 1e4 × 0.01, 0.1, 0.5, 2, 10
  EXPECT_EQ(names(poslab::sweep_interventions(m, s)),
            (std::vector<std::string>{"base 100", "base 1000", "base 5000", "base 20000",
                                      "base 100000"}));
  poslab::SurgeryModel small = m;
  small.base = 50.0;  // × 0.01 is 0.5, not a base: left out
  EXPECT_EQ(poslab::sweep_interventions(small, s).size(), 4u);
  s.bases = {2.5, 1e6};
  const std::vector<poslab::Intervention> given = poslab::sweep_interventions(m, s);
  ASSERT_EQ(given.size(), 2u);
  EXPECT_EQ(given[1].surgery.rope_base, 1e6);
  for (const double bad : {1.0, 0.0, std::numeric_limits<double>::quiet_NaN()}) {
    s.bases = {100.0, bad};
    expect_sweep_refused(m, s, "bases");
  }
}

TEST(SurgerySweep, DeltasBootstrapAndTheContextSplit) {
  // 4 layers, 2 heads, 8 pairs, trained on 5 positions; 24 tokens in 3 windows of 8.
  const poslab::SurgeryModel m = stand_in(4, 2, 8, 5);
  poslab::SweepSettings s;
  s.kind = poslab::SweepKind::kLayers;
  s.window = 8;
  const poslab::SurgeryReport r = poslab::surgery_sweep(m, iota_tokens(24), s);
  EXPECT_EQ(r.sweep, "layers");
  EXPECT_EQ(r.windows, 3);
  EXPECT_EQ(r.window, 8);
  EXPECT_EQ(r.trained_context, 5);
  EXPECT_EQ(r.ci_unit, "positions");  // fewer than 8 windows
  // Unmodified: the mean of 1 + (8w + t)/100 over w < 3, t < 7.
  EXPECT_NEAR(r.loss_mean, 1.0 + (8.0 + 3.0) / 100.0, 1e-12);
  ASSERT_EQ(r.loss_by_position.size(), 7u);
  EXPECT_NEAR(r.loss_by_position[0], 1.08, 1e-12);
  ASSERT_EQ(r.interventions.size(), 4u);
  for (const poslab::InterventionResult& i : r.interventions) {
    SCOPED_TRACE(i.intervention.name);
    // +0.5 at positions 4, 5, 6 of 7: within the trained context (t < 5) at t = 4 only.
    EXPECT_NEAR(i.delta_mean, 0.5 * 3.0 / 7.0, 1e-12);
    ASSERT_TRUE(i.delta_within_context && i.delta_past_context);
    EXPECT_NEAR(*i.delta_within_context, 0.5 / 5.0, 1e-12);
    EXPECT_NEAR(*i.delta_past_context, 0.5, 1e-12);
    EXPECT_NEAR(i.loss_mean, r.loss_mean + i.delta_mean, 1e-12);
    EXPECT_NEAR(i.loss_by_position[6], r.loss_by_position[6] + 0.5, 1e-12);
    EXPECT_LE(i.delta_ci_low, i.delta_mean);
    EXPECT_GE(i.delta_ci_high, i.delta_mean);
    EXPECT_GE(i.delta_ci_low, 0.0);  // every resampled delta is 0 or 0.5
    EXPECT_LE(i.delta_ci_high, 0.5);
  }
  // No trained context: no split.
  const poslab::SurgeryReport unknown =
      poslab::surgery_sweep(stand_in(4, 2, 8, 0), iota_tokens(24), s);
  EXPECT_FALSE(unknown.interventions[0].delta_within_context);
  EXPECT_FALSE(unknown.interventions[0].delta_past_context);
  // All within it: no past.
  const poslab::SurgeryReport inside =
      poslab::surgery_sweep(stand_in(4, 2, 8, 100), iota_tokens(24), s);
  EXPECT_TRUE(inside.interventions[0].delta_within_context);
  EXPECT_FALSE(inside.interventions[0].delta_past_context);
}

TEST(SurgerySweep, TheBootstrapIsSeededAndResamplesWindowsFromEight) {
  // Per-window deltas that differ: the ablated head's change times the window's first token.
  poslab::SurgeryModel m = stand_in(2, 2, 4, 0);
  const auto losses = m.losses;
  m.losses = [losses](const std::vector<long long>& tokens, const PositionSurgery& s,
                      poslab::SurgeryPrefix* prefix) {
    std::vector<double> out = losses(tokens, s, prefix);
    for (std::size_t t = 0; t < out.size(); ++t) {
      if (!s.ablate_heads.empty()) out[t] += 0.001 * double((tokens[0] * 7 + (long long)t) % 11);
    }
    return out;
  };
  poslab::SweepSettings s;
  s.kind = poslab::SweepKind::kHeads;
  s.window = 4;
  s.seed = 3;
  const auto ci = [&](const poslab::SweepSettings& settings, std::size_t T) {
    const poslab::SurgeryReport r = poslab::surgery_sweep(m, iota_tokens(T), settings);
    return std::make_pair(r.ci_unit, std::make_pair(r.interventions[1].delta_ci_low,
                                                    r.interventions[1].delta_ci_high));
  };
  const auto first = ci(s, 40);  // 10 windows
  EXPECT_EQ(first.first, "windows");
  EXPECT_EQ(ci(s, 40), first);
  EXPECT_LT(first.second.first, first.second.second);
  poslab::SweepSettings other = s;
  other.seed = 4;
  EXPECT_NE(ci(other, 40).second, first.second);
  EXPECT_EQ(ci(s, 28).first, "positions");  // 7 windows
  EXPECT_EQ(ci(s, 32).first, "windows");    // 8
  // The NoPE heads of the stand-in change nothing: a delta of exactly 0, interval [0, 0].
  const poslab::SurgeryReport r = poslab::surgery_sweep(m, iota_tokens(40), s);
  EXPECT_EQ(r.interventions[0].intervention.kind, "nope_head");
  EXPECT_EQ(r.interventions[0].delta_mean, 0.0);
  EXPECT_EQ(r.interventions[0].delta_ci_low, 0.0);
  EXPECT_EQ(r.interventions[0].delta_ci_high, 0.0);
}

// An intervention that is the unmodified pass: a change of exactly 0, its interval too.
void expect_unmodified(const poslab::InterventionResult& r, const poslab::SurgeryReport& report) {
  EXPECT_EQ(r.delta_mean, 0.0);
  EXPECT_EQ(r.delta_ci_low, 0.0);
  EXPECT_EQ(r.delta_ci_high, 0.0);
  EXPECT_EQ(r.loss_by_position, report.loss_by_position);
}

TEST(SurgerySweep, ForwardEquivalentsCountThePassesFromTheFirstChangedLayer) {
  std::vector<std::pair<PositionSurgery, std::size_t>> passes;
  poslab::SurgeryModel m = stand_in(4, 2, 8, 0, &passes);
  m.reuses_prefix = true;
  m.prefix_bytes = [](long long tokens) { return std::uint64_t(tokens) * 100; };
  poslab::SweepSettings s;
  s.kind = poslab::SweepKind::kLayers;
  s.window = 5;
  const poslab::SurgeryReport r = poslab::surgery_sweep(m, iota_tokens(10), s);
  EXPECT_TRUE(r.prefix_reused);
  EXPECT_EQ(r.forwards, 2 * (1 + 4));
  // Per window: the unmodified pass (1), then NoPE layer l from layer l: (4 − l)/4.
  EXPECT_DOUBLE_EQ(r.forward_equivalents, 1.0 + (4.0 + 3.0 + 2.0 + 1.0) / 4.0);
  // Each window's unmodified pass fills its prefix, which the later passes are handed.
  ASSERT_EQ(passes.size(), 10u);
  EXPECT_TRUE(passes[0].first.empty());
  EXPECT_EQ(passes[0].second, 0u);
  EXPECT_EQ(passes[2].second, 1u);
  EXPECT_TRUE(r.notes.empty());

  // Prefixes over the memory allowed: none kept, every pass whole, and a note says so.
  s.prefix_memory = 999;  // 2 windows × 500 bytes
  passes.clear();
  const poslab::SurgeryReport whole = poslab::surgery_sweep(m, iota_tokens(10), s);
  EXPECT_FALSE(whole.prefix_reused);
  EXPECT_DOUBLE_EQ(whole.forward_equivalents, 5.0);
  ASSERT_EQ(whole.notes.size(), 1u);
  EXPECT_NE(whole.notes[0].find("every pass ran from layer 0"), std::string::npos);
  EXPECT_EQ(passes[0].second, 0u);

  // Bands: every intervention changes every layer; the control (keep top 100%) is the
  // unmodified pass itself: no pass, no cost, a change of exactly 0.
  s = {};
  s.kind = poslab::SweepKind::kBands;
  s.group = 4;
  passes.clear();
  const poslab::SurgeryReport bands = poslab::surgery_sweep(m, iota_tokens(10), s);
  EXPECT_EQ(bands.interventions.size(), 2u + 5u);
  EXPECT_EQ(bands.forwards, 1 + 2 + 4);
  EXPECT_DOUBLE_EQ(bands.forward_equivalents, 1.0 + 2.0 + 4.0);
  EXPECT_EQ(bands.interventions[2].intervention.name, "keep top 100%");
  expect_unmodified(bands.interventions[2], bands);
}

TEST(SurgerySweep, BadSettingsAreRefusedNamingTheirField) {
  const poslab::SurgeryModel m = stand_in(2, 2, 4, 0);
  const auto field_of = [&](const poslab::SweepSettings& s, std::size_t T) -> std::string {
    try {
      poslab::surgery_sweep(m, iota_tokens(T), s);
    } catch (const Error& e) {
      return e.field();
    }
    return "accepted";
  };
  poslab::SweepSettings s;
  EXPECT_EQ(field_of(s, 1), "tokens");
  s.window = 1;
  EXPECT_EQ(field_of(s, 10), "tokens");
  s.window = -1;
  EXPECT_EQ(field_of(s, 10), "window");
  s.window = 100;  // longer than the text: the whole text
  EXPECT_EQ(field_of(s, 10), "accepted");
  s.resamples = 0;
  EXPECT_EQ(field_of(s, 10), "resamples");
}

// A real model: the sweep's numbers are its passes' (each intervention's losses are a full pass
// under it), and prefix reuse changes no bit of them.
TEST(SurgerySweep, ALanguageModelsSweepIsItsPassesWithOrWithoutReuse) {
  LlamaConfig c = llama_config(poslab::LmArchitecture::kLlama, 2, 4, 2);
  const poslab::LlamaWeights w =
      poslab::lm_weights_from_bytes(lm_fixture::encode(checkpoint(c, 3)), c, "m");
  const std::vector<long long> tokens = {5, 9, 1, 44, 3, 90, 7, 7, 12, 60, 31, 2, 8, 19, 27, 4};
  for (const Precision precision : {Precision::kFloat, Precision::kDouble}) {
    const poslab::SurgeryModel m = poslab::surgery_model(w, precision);
    EXPECT_EQ(m.target.rotary_pairs, 6);
    EXPECT_EQ(m.trained_context, 16);
    for (const poslab::SweepKind kind : {poslab::SweepKind::kHeads, poslab::SweepKind::kBands}) {
      poslab::SweepSettings s;
      s.kind = kind;
      s.window = 8;
      const poslab::SurgeryReport reused = poslab::surgery_sweep(m, tokens, s);
      s.prefix_memory = 0;
      const poslab::SurgeryReport whole = poslab::surgery_sweep(m, tokens, s);
      EXPECT_TRUE(reused.prefix_reused);
      EXPECT_FALSE(whole.prefix_reused);
      ASSERT_EQ(reused.interventions.size(), whole.interventions.size());
      EXPECT_EQ(reused.loss_by_position, whole.loss_by_position);
      if (kind == poslab::SweepKind::kHeads) {
        // Half the passes start at layer 1: 1 + 8·1 + 8·0.5 forward-equivalents.
        EXPECT_DOUBLE_EQ(reused.forward_equivalents, 13.0);
        EXPECT_DOUBLE_EQ(whole.forward_equivalents, 17.0);
      }
      for (std::size_t i = 0; i < reused.interventions.size(); ++i) {
        const poslab::InterventionResult& a = reused.interventions[i];
        SCOPED_TRACE(a.intervention.name);
        EXPECT_EQ(a.loss_by_position, whole.interventions[i].loss_by_position);
        EXPECT_EQ(a.delta_mean, whole.interventions[i].delta_mean);
        // Each position's loss is the mean of the two windows' own passes under that surgery.
        RopeLmOptions o;
        o.precision = precision;
        o.logits = false;
        o.loss_by_position = true;
        o.surgery = a.intervention.surgery;
        const std::vector<long long> first(tokens.begin(), tokens.begin() + 8);
        const std::vector<long long> second(tokens.begin() + 8, tokens.end());
        const TensorF one = poslab::llama_forward(w, first, o).losses;
        const TensorF two = poslab::llama_forward(w, second, o).losses;
        for (std::size_t t = 0; t < 7; ++t) {
          EXPECT_NEAR(a.loss_by_position[t], (double(one.data[t]) + double(two.data[t])) / 2.0,
                      1e-12);
        }
      }
    }
  }
}

// SmolLM3's own NoPE layer in the sweeps: the layers sweep still makes every layer NoPE, and the
// one that already is changes nothing — no pass runs for it (nor for a NoPE head there), its
// change is exactly 0, and a note says why; every other intervention is its pass, as for any
// model, and zeroed pairs leave the NoPE layer as it is.
TEST(SurgerySweep, AModelsOwnNopeLayersChangeNothing) {
  const LlamaConfig c = smollm3_config();
  const poslab::LlamaWeights w =
      poslab::lm_weights_from_bytes(lm_fixture::encode(checkpoint(c, 4)), c, "m");
  const std::vector<long long> tokens = {5, 9, 1, 44, 3, 90, 7, 7, 12, 60, 31, 2, 8, 19, 27, 4};
  const poslab::SurgeryModel m = poslab::surgery_model(w, Precision::kFloat);
  EXPECT_EQ(m.nope_layers, (std::vector<long long>{1}));
  EXPECT_EQ(m.target.model, "SmolLM3");
  poslab::SweepSettings s;
  s.kind = poslab::SweepKind::kLayers;
  s.window = 8;
  const poslab::SurgeryReport layers = poslab::surgery_sweep(m, tokens, s);
  ASSERT_EQ(layers.interventions.size(), 3u);
  EXPECT_EQ(layers.forwards, 2 * (1 + 2));  // per window: unmodified, NoPE layers 0 and 2
  // Per window: 1 + NoPE layer 0 from layer 0 (3/3) + NoPE layer 2 from layer 2 (1/3).
  EXPECT_DOUBLE_EQ(layers.forward_equivalents, 1.0 + 1.0 + 1.0 / 3.0);
  EXPECT_EQ(layers.interventions[1].intervention.name, "NoPE layer 1");
  expect_unmodified(layers.interventions[1], layers);
  EXPECT_NE(layers.interventions[0].delta_mean, 0.0);
  EXPECT_NE(layers.interventions[2].delta_mean, 0.0);
  ASSERT_EQ(layers.notes.size(), 1u);
  EXPECT_NE(layers.notes[0].find("the model's own NoPE layers (1) do not rotate"),
            std::string::npos)
      << layers.notes[0];
  // The pass it skipped is the unmodified pass: a NoPE layer 1 run anyway gives its bits.
  RopeLmOptions o;
  o.logits = false;
  o.loss_by_position = true;
  const TensorF plain = poslab::llama_forward(w, tokens, o).losses;
  o.surgery.nope_layers = {1};
  EXPECT_EQ(poslab::llama_forward(w, tokens, o).losses.data, plain.data);
  // Heads: the NoPE heads of layer 1 change nothing either, their ablation does.
  s.kind = poslab::SweepKind::kHeads;
  const poslab::SurgeryReport heads = poslab::surgery_sweep(m, tokens, s);
  for (const poslab::InterventionResult& r : heads.interventions) {
    SCOPED_TRACE(r.intervention.name);
    const bool nope_in_own = r.intervention.kind == "nope_head" && r.intervention.head->layer == 1;
    EXPECT_EQ(r.delta_mean == 0.0, nope_in_own);
  }
  // A single surgery that zeroes every pair is every rotating layer NoPE: the same losses as
  // NoPE layers 0 and 2.
  s = {};
  s.kind = poslab::SweepKind::kSingle;
  s.single = zero({{0, m.target.rotary_pairs}});
  const poslab::SurgeryReport pairs = poslab::surgery_sweep(m, tokens, s);
  s.single = {};
  s.single.nope_layers = {0, 2};
  EXPECT_EQ(pairs.interventions[0].loss_by_position,
            poslab::surgery_sweep(m, tokens, s).interventions[0].loss_by_position);
}

TEST(SurgerySweep, JsonHasItsKeys) {
  poslab::SurgeryModel m = stand_in(2, 2, 4, 3);
  m.precision = "double";
  poslab::SweepSettings s;
  s.kind = poslab::SweepKind::kBands;
  s.group = 2;
  s.seed = 9;
  s.resamples = 50;
  poslab::SurgeryReport r = poslab::surgery_sweep(m, iota_tokens(6), s);
  r.weights = "m.safetensors";
  const nlohmann::json j = nlohmann::json::parse(poslab::surgery_json(r));
  for (const char* key :
       {"format", "weights", "precision", "sweep", "tokens", "window", "windows", "group",
        "trained_context", "bootstrap", "forwards", "forward_equivalents", "prefix_reused",
        "baseline", "interventions", "notes"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["format"], "poslab-surgery/1");
  EXPECT_EQ(j["weights"], "m.safetensors");
  EXPECT_EQ(j["precision"], "double");
  EXPECT_EQ(j["sweep"], "bands");
  EXPECT_EQ(j["tokens"], 6);
  EXPECT_EQ(j["group"], 2);
  EXPECT_EQ(j["trained_context"], 3);
  EXPECT_EQ(j["bootstrap"],
            (nlohmann::json{{"unit", "positions"}, {"resamples", 50}, {"seed", 9}}));
  EXPECT_EQ(j["baseline"]["loss_by_position"].size(), 5u);
  ASSERT_EQ(j["interventions"].size(), 2u + 5u);
  const nlohmann::json& band = j["interventions"][1];
  for (const char* key : {"name", "kind", "params", "loss_mean", "delta_mean", "delta_ci",
                          "delta_within_context", "delta_past_context", "loss_by_position"}) {
    EXPECT_TRUE(band.contains(key)) << key;
  }
  EXPECT_EQ(band["name"], "zero pairs 2:4");
  EXPECT_EQ(band["kind"], "zero_pairs");
  EXPECT_EQ(band["params"], (nlohmann::json{{"rope_zero_pairs", one_pair(2, 4)}}));
  EXPECT_NEAR(band["delta_mean"].get<double>(), 0.2, 1e-12);
  EXPECT_EQ(band["delta_ci"].size(), 2u);
  EXPECT_NEAR(band["delta_past_context"].get<double>(), 0.2, 1e-12);
  const nlohmann::json& control = j["interventions"][2];
  EXPECT_EQ(control["kind"], "keep_top");
  EXPECT_EQ(control["params"], (nlohmann::json{{"fraction", 1.0}}));
  EXPECT_EQ(control["delta_mean"], 0.0);
  EXPECT_EQ(j["interventions"][6]["params"],
            (nlohmann::json{{"rope_zero_pairs", one_pair(0, 4)}, {"fraction", 0.0}}));
  // No trained context, a head sweep: null context numbers, a head's layer and head.
  s = {};
  s.kind = poslab::SweepKind::kHeads;
  const nlohmann::json heads = nlohmann::json::parse(
      poslab::surgery_json(poslab::surgery_sweep(stand_in(2, 2, 4, 0), iota_tokens(6), s)));
  EXPECT_TRUE(heads["trained_context"].is_null());
  EXPECT_TRUE(heads["group"].is_null());
  EXPECT_TRUE(heads["interventions"][0]["delta_within_context"].is_null());
  EXPECT_EQ(heads["interventions"][1]["params"],
            (nlohmann::json{{"ablate_heads", one_pair(0, 0)}, {"layer", 0}, {"head", 0}}));
  EXPECT_EQ(heads["interventions"][0]["params"],
            (nlohmann::json{{"nope_heads", one_pair(0, 0)}, {"layer", 0}, {"head", 0}}));
}

}  // namespace
}  // namespace surgery_test

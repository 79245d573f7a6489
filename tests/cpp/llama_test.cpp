// Llama-family forward pass of tiny random models (2 layers, vocabulary 97, 16 trained
// positions; grouped-query heads (4 query heads over 2 kv heads), multi-query (1 kv head) and
// multi-head with an explicit head_dim and attention biases; tied and untied heads; F32, F16
// and BF16 weights; qwen2's q/k/v biases, mistral's sliding window, qwen3's q/k norms with a
// sliding layer, smollm3's NoPE layers, one sliding) saved to .safetensors and loaded back,
// against the naive double reference of llama_reference.hpp; float against double; every RoPE
// scaling the config can name; smollm3's NoPE layers where its config.json puts them; the loss
// by position; bad checkpoints and configs refused naming their tensor or key.
#include "poslab/models/llama.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "llama_reference.hpp"
#include "lm_fixture.hpp"
#include "lm_reference.hpp"
#include "poslab/models/lm.hpp"
#include "reference.hpp"

namespace {

using lm_ref::iota_positions;
using lm_ref::max_abs;
using lm_ref::WithinOfLargest;
using poslab::Error;
using poslab::LlamaConfig;
using poslab::LlamaOptions;
using poslab::Precision;
using poslab::TensorF;

constexpr std::size_t V = 97, P = 16, E = 48, N = 2, I = 80;

// Grouped-query heads by default: H = 4 query heads of width 12 over K = 2 kv heads.
LlamaConfig tiny_config(long long heads = 4, long long kv_heads = 2, bool tied = false,
                        long long head_dim = 0, bool bias = false) {
  LlamaConfig c;
  c.dims = {(long long)V, (long long)P, (long long)E, (long long)N, heads};
  c.num_key_value_heads = kv_heads;
  c.explicit_head_dim = head_dim;
  c.intermediate_size = I;
  c.rope_theta = 10000.0;
  c.rms_norm_eps = 1e-5;
  c.tie_word_embeddings = tied;
  c.attention_bias = bias;
  return c;
}

// A member of the family: its model_type, and a sliding window W on the layers `sliding` marks.
LlamaConfig member(LlamaConfig c, poslab::LmArchitecture type, long long window = 0,
                   std::vector<bool> sliding = {}) {
  c.model_type = type;
  c.sliding_window = window;
  c.sliding_layers = std::move(sliding);
  return c;
}

// smollm3: NoPE layers where `nope` says (true: that layer does not rotate), and a sliding window
// W on those NoPE layers (use_sliding_window) when W > 0; attention biases with `bias`.
LlamaConfig smollm3(LlamaConfig c, std::vector<bool> nope, long long window = 0) {
  c.model_type = poslab::LmArchitecture::kSmolLm3;
  c.nope_layers = nope;
  if (window > 0) {
    c.sliding_window = window;
    c.sliding_layers = nope;
  }
  return c;
}

// HF's config.no_rope_layers (1: RoPE, 0: NoPE) from the core's NoPE layers.
std::vector<int> no_rope_layers(const LlamaConfig& c) {
  std::vector<int> out;
  for (std::size_t i = 0; i < std::size_t(c.dims.layers) && c.has_nope_layers(); ++i) {
    out.push_back(c.nope(i) ? 0 : 1);
  }
  return out;
}

llama_ref::Config ref_config(const LlamaConfig& c) {
  llama_ref::Config rc{lm_ref::dims_of(c.dims),
                       std::size_t(c.num_key_value_heads),
                       std::size_t(c.head_dim()),
                       std::size_t(c.intermediate_size),
                       c.rms_norm_eps,
                       c.tie_word_embeddings,
                       {}};
  for (std::size_t i = 0; i < std::size_t(c.dims.layers); ++i) {
    rc.windows.push_back(std::size_t(c.window_of(i)));
  }
  rc.no_rope_layers = no_rope_layers(c);
  return rc;
}

// The checkpoint written out name by name (not from the core's list), with gains away from 1
// so that every parameter moves the result.
llama_ref::Weights tiny_checkpoint(const LlamaConfig& c, std::uint64_t seed) {
  llama_ref::Weights t;
  std::uint64_t s = seed * 1000;
  const auto put = [&](const std::string& name, ref::Shape shape, double lo, double hi) {
    t[name] = ref::random_tensor(std::move(shape), ++s, lo, hi);
  };
  const std::size_t d = std::size_t(c.head_dim()), Q = std::size_t(c.dims.heads) * d;
  const std::size_t KV = std::size_t(c.num_key_value_heads) * d;
  put("model.embed_tokens.weight", {V, E}, -1.0, 1.0);
  for (std::size_t i = 0; i < N; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".";
    put(p + "input_layernorm.weight", {E}, 0.5, 1.5);
    put(p + "self_attn.q_proj.weight", {Q, E}, -0.3, 0.3);
    put(p + "self_attn.k_proj.weight", {KV, E}, -0.3, 0.3);
    put(p + "self_attn.v_proj.weight", {KV, E}, -0.3, 0.3);
    put(p + "self_attn.o_proj.weight", {E, Q}, -0.2, 0.2);
    if (c.qkv_bias()) {
      put(p + "self_attn.q_proj.bias", {Q}, -0.2, 0.2);
      put(p + "self_attn.k_proj.bias", {KV}, -0.2, 0.2);
      put(p + "self_attn.v_proj.bias", {KV}, -0.2, 0.2);
    }
    if (c.o_bias()) put(p + "self_attn.o_proj.bias", {E}, -0.1, 0.1);
    if (c.qk_norm()) {
      put(p + "self_attn.q_norm.weight", {d}, 0.5, 1.5);
      put(p + "self_attn.k_norm.weight", {d}, 0.5, 1.5);
    }
    put(p + "mlp.gate_proj.weight", {I, E}, -0.3, 0.3);
    put(p + "mlp.up_proj.weight", {I, E}, -0.3, 0.3);
    put(p + "mlp.down_proj.weight", {E, I}, -0.2, 0.2);
    put(p + "post_attention_layernorm.weight", {E}, 0.5, 1.5);
  }
  put("model.norm.weight", {E}, 0.5, 1.5);
  if (!c.tie_word_embeddings) put("lm_head.weight", {V, E}, -0.5, 0.5);
  return t;
}

std::string encode(const llama_ref::Weights& tensors,
                   poslab::StoredDType dtype = poslab::StoredDType::kF32) {
  return lm_fixture::encode(tensors, "", dtype);
}

// The weights as the checkpoint stores them (F16 and BF16 round), for the reference.
using lm_fixture::as_stored;

llama_ref::Result reference(const llama_ref::Weights& w, const LlamaConfig& c,
                            const std::vector<long long>& tokens) {
  return llama_ref::forward(
      w, ref_config(c), tokens,
      ref::rope_freqs(std::size_t(c.head_dim()), c.rope(), (long long)tokens.size()),
      iota_positions(tokens.size()));
}

const std::vector<long long> kTokens{3, 96, 0, 42, 42, 17, 5, 61, 2, 2, 9, 30, 77, 8};

std::vector<long long> long_tokens(std::size_t T) {
  std::vector<long long> tokens(T);
  for (std::size_t t = 0; t < T; ++t) tokens[t] = (long long)((t * 13 + 5) % V);
  return tokens;
}

// ---------------------------------------------------------------------------------------------
// Architectures: both precisions against the reference, with the trace.

struct Variant {
  const char* name;
  LlamaConfig config;
  poslab::StoredDType dtype;
};

// gtest prints a failing parameter with this: the variant's name, not its bytes.
void PrintTo(const Variant& v, std::ostream* os) { *os << v.name; }

class LlamaVariant : public ::testing::TestWithParam<Variant> {};

TEST_P(LlamaVariant, BothPrecisionsMatchTheDoubleReference) {
  const Variant& v = GetParam();
  const llama_ref::Weights checkpoint = tiny_checkpoint(v.config, 3);
  const poslab::LlamaWeights w =
      poslab::lm_weights_from_bytes(encode(checkpoint, v.dtype), v.config, "m");
  const llama_ref::Result want = reference(as_stored(checkpoint, v.dtype), v.config, kTokens);
  LlamaOptions options;
  options.precision = Precision::kDouble;
  options.trace = true;
  const poslab::LlamaResult got = poslab::llama_forward(w, kTokens, options);
  EXPECT_ALLCLOSE(got.logits, want.logits, ref::kAcceptance);
  ASSERT_EQ(got.layers.size(), N);
  for (std::size_t i = 0; i < N; ++i) {
    lm_ref::expect_layer_close(got.layers[i], want.layers[i], ref::kAcceptance, i);
  }
  options.precision = Precision::kFloat;
  const poslab::LlamaResult fast = poslab::llama_forward(w, kTokens, options);
  EXPECT_TRUE(WithinOfLargest(fast.logits, got.logits, 1e-4));
  for (std::size_t i = 0; i < N; ++i) {
    EXPECT_ALLCLOSE(fast.layers[i].attention, got.layers[i].attention, (ref::Tol{1e-5, 0}));
  }
  // The top-k of the last row, from the logits.
  const float* last = got.logits.ptr() + (kTokens.size() - 1) * V;
  EXPECT_EQ(got.top_ids.front(), std::max_element(last, last + V) - last);
}

INSTANTIATE_TEST_SUITE_P(
    Llama, LlamaVariant,
    ::testing::Values(
        Variant{"GqaUntiedF32", tiny_config(4, 2), poslab::StoredDType::kF32},
        Variant{"MqaTiedF16", tiny_config(4, 1, true), poslab::StoredDType::kF16},
        Variant{"GqaTiedBF16", tiny_config(4, 2, true), poslab::StoredDType::kBF16},
        Variant{"MhaHeadDimBias", tiny_config(4, 4, false, 8, true), poslab::StoredDType::kF32},
        Variant{"GqaTiedHeadDimF32", tiny_config(6, 3, true, 10), poslab::StoredDType::kF32},
        Variant{"Qwen2QkvBias", member(tiny_config(4, 2), poslab::LmArchitecture::kQwen2),
                poslab::StoredDType::kF32},
        Variant{"Qwen2QkvBiasBF16", member(tiny_config(4, 2), poslab::LmArchitecture::kQwen2),
                poslab::StoredDType::kBF16},
        Variant{"MistralWindow4F16",
                member(tiny_config(4, 1), poslab::LmArchitecture::kMistral, 4, {true, true}),
                poslab::StoredDType::kF16},
        Variant{
            "Qwen3QkNormSlidingLayer",
            member(tiny_config(6, 3, true, 10), poslab::LmArchitecture::kQwen3, 3, {false, true}),
            poslab::StoredDType::kF32},
        Variant{"SmolLm3NopeLastLayerTied", smollm3(tiny_config(4, 2, true), {false, true}),
                poslab::StoredDType::kF32},
        Variant{"SmolLm3NopeFirstLayerBF16", smollm3(tiny_config(4, 1), {true, false}),
                poslab::StoredDType::kBF16},
        Variant{"SmolLm3NopeSlidingLayerBias",
                smollm3(tiny_config(4, 4, false, 8, true), {false, true}, 3),
                poslab::StoredDType::kF32}),
    [](const ::testing::TestParamInfo<Variant>& info) { return std::string(info.param.name); });

TEST(LlamaWindow, AWindowAsLongAsTheSequenceIsFullAttention) {
  const LlamaConfig full = member(tiny_config(), poslab::LmArchitecture::kMistral);
  const llama_ref::Weights t = tiny_checkpoint(full, 13);
  const auto logits = [&](long long window) {
    const LlamaConfig c = member(full, poslab::LmArchitecture::kMistral, window,
                                 window > 0 ? std::vector<bool>(N, true) : std::vector<bool>{});
    LlamaOptions o;
    o.precision = Precision::kDouble;
    return poslab::llama_forward(poslab::lm_weights_from_bytes(encode(t), c, "m"), kTokens, o)
        .logits;
  };
  const long long T = (long long)kTokens.size();
  EXPECT_EQ(logits(T).data, logits(0).data);
  EXPECT_FALSE(ref::AllClose(logits(T - 1), logits(0), ref::kAcceptance));
}

TEST(LlamaHeads, GroupedQueriesShareTheirKvHead) {
  // With every kv head's weights equal, K = 2 and K = 1 are the same model: what repeat_kv
  // means. Which kv head a query head reads (h / g) is the reference's to check, in
  // LlamaVariant, where the kv heads differ.
  LlamaConfig gqa = tiny_config(4, 2), mqa = tiny_config(4, 1);
  llama_ref::Weights t = tiny_checkpoint(gqa, 5);
  llama_ref::Weights one = t;
  for (std::size_t i = 0; i < N; ++i) {
    for (const char* part : {".self_attn.k_proj.weight", ".self_attn.v_proj.weight"}) {
      const std::string name = "model.layers." + std::to_string(i) + part;
      TensorF& w = t[name];
      const std::size_t half = w.size() / 2;
      std::copy_n(w.ptr(), half, w.ptr() + half);  // kv head 1 = kv head 0
      one[name] = TensorF({half / E, E});
      std::copy_n(w.ptr(), half, one[name].ptr());
    }
  }
  const auto run = [](const llama_ref::Weights& w, const LlamaConfig& c) {
    LlamaOptions o;
    o.precision = Precision::kDouble;
    return poslab::llama_forward(poslab::lm_weights_from_bytes(encode(w), c, "m"), kTokens, o)
        .logits;
  };
  EXPECT_ALLCLOSE(run(t, gqa), run(one, mqa), ref::kAcceptance);
}

// ---------------------------------------------------------------------------------------------
// RoPE scalings named by config.json, against the reference's own frequencies.

TEST(LlamaRope, EveryScalingMatchesTheReferenceInBothPrecisions) {
  struct Scaling {
    poslab::RopeScaling kind;
    double factor;
    long long original;  // rope_scaling's original_max_position_embeddings, 0: none
  };
  const std::vector<long long> tokens = long_tokens(40);  // past the trained 16
  for (const Scaling s :
       {Scaling{poslab::RopeScaling::kLinear, 2.0, 0},
        Scaling{poslab::RopeScaling::kDynamic, 2.0, 0}, Scaling{poslab::RopeScaling::kYarn, 4.0, 8},
        Scaling{poslab::RopeScaling::kLlama3, 8.0, 8}}) {
    LlamaConfig c = tiny_config(4, 2);
    c.rope_theta = 500000.0;
    c.rope_scaling = s.kind;
    c.rope_factor = s.factor;
    c.rope_original_length = s.original;
    const llama_ref::Weights checkpoint = tiny_checkpoint(c, 7);
    const poslab::LlamaWeights w = poslab::lm_weights_from_bytes(encode(checkpoint), c, "m");
    LlamaOptions options;
    options.precision = Precision::kDouble;
    const TensorF got = poslab::llama_forward(w, tokens, options).logits;
    const llama_ref::Result want = reference(checkpoint, c, tokens);
    EXPECT_ALLCLOSE(got, want.logits, ref::kAcceptance) << poslab::to_string(s.kind);
    // The scaling changes the model: the unscaled reference is far off.
    EXPECT_FALSE(ref::AllClose(got, reference(checkpoint, tiny_config(4, 2), tokens).logits,
                               ref::kAcceptance))
        << poslab::to_string(s.kind);
    options.precision = Precision::kFloat;
    EXPECT_TRUE(WithinOfLargest(poslab::llama_forward(w, tokens, options).logits, got, 1e-4))
        << poslab::to_string(s.kind);
  }
}

TEST(LlamaRope, OriginalLengthFollowsTransformers) {
  LlamaConfig c = tiny_config();
  c.rope_scaling = poslab::RopeScaling::kYarn;
  c.rope_factor = 4.0;
  EXPECT_EQ(c.rope().original_length, (long long)P);  // max_position_embeddings
  c.original_max_position_embeddings = 4;             // the top-level key
  EXPECT_EQ(c.rope().original_length, 4);
  c.rope_original_length = 8;  // rope_scaling's own wins
  EXPECT_EQ(c.rope().original_length, 8);
  c.rope_scaling = poslab::RopeScaling::kDynamic;  // dynamic NTK divides by max_position
  EXPECT_EQ(c.rope().original_length, (long long)P);
}

// ---------------------------------------------------------------------------------------------
// SmolLM3's NoPE layers, where config.json puts them.

// config.no_rope_layers as SmolLM3Config.__post_init__ builds it, written here from the Python
// rather than read through the core's model-type table: the list when the config gives one, else
// int((i + 1) % no_rope_layer_interval != 0) for each layer i, the interval 4 when absent.
std::vector<int> transformers_no_rope_layers(const nlohmann::json& config) {
  if (config.contains("no_rope_layers") && !config["no_rope_layers"].is_null()) {
    return config["no_rope_layers"].get<std::vector<int>>();
  }
  const long long interval = config.value("no_rope_layer_interval", 4LL);
  std::vector<int> out;
  for (long long i = 0; i < config["num_hidden_layers"].get<long long>(); ++i) {
    out.push_back(int((i + 1) % interval != 0));
  }
  return out;
}

// Each way config.json may place the NoPE layers (the default interval, an interval, a list, a
// list beside an interval: the list wins): the core's NoPE layers are transformers' zeros, and
// its logits the reference's with transformers' list, double and float. The four placements of
// two layers are four different models, so a NoPE layer put anywhere else would show.
TEST(LlamaSmolLm3, NopeLayersWhereTheConfigSaysMatchTheReference) {
  const nlohmann::json sizes = nlohmann::json::parse(
      R"({"model_type": "smollm3", "vocab_size": 97, "max_position_embeddings": 16,
          "hidden_size": 48, "num_hidden_layers": 2, "num_attention_heads": 4,
          "num_key_value_heads": 2, "intermediate_size": 80, "rope_theta": 10000.0,
          "rms_norm_eps": 1e-5, "tie_word_embeddings": false})");
  const std::vector<nlohmann::json> placements = {
      nlohmann::json::object(),
      {{"no_rope_layer_interval", 2}},
      {{"no_rope_layer_interval", 1}},
      {{"no_rope_layers", {0, 1}}},
      {{"no_rope_layers", {1, 1}}, {"no_rope_layer_interval", 1}},
      {{"no_rope_layers", nullptr}, {"no_rope_layer_interval", 2}},
  };
  const llama_ref::Weights checkpoint = tiny_checkpoint(tiny_config(4, 2), 17);
  std::map<std::vector<int>, TensorF> models;
  for (const nlohmann::json& keys : placements) {
    SCOPED_TRACE(keys.dump());
    nlohmann::json config = sizes;
    config.update(keys);
    const LlamaConfig c = LlamaConfig::from_json(config.dump(), "config.json");
    const std::vector<int> rope_layers = transformers_no_rope_layers(config);
    for (std::size_t i = 0; i < N; ++i) EXPECT_EQ(c.nope(i), rope_layers[i] == 0) << i;
    const poslab::LlamaWeights w = poslab::lm_weights_from_bytes(encode(checkpoint), c, "m");
    llama_ref::Config rc = ref_config(tiny_config(4, 2));
    rc.no_rope_layers = rope_layers;
    const llama_ref::Result want =
        llama_ref::forward(checkpoint, rc, kTokens,
                           ref::rope_freqs(std::size_t(c.head_dim()), c.rope(), kTokens.size()),
                           iota_positions(kTokens.size()));
    LlamaOptions options;
    options.precision = Precision::kDouble;
    options.trace = true;
    const poslab::LlamaResult got = poslab::llama_forward(w, kTokens, options);
    EXPECT_ALLCLOSE(got.logits, want.logits, ref::kAcceptance);
    for (std::size_t i = 0; i < N; ++i) {
      lm_ref::expect_layer_close(got.layers[i], want.layers[i], ref::kAcceptance, i);
    }
    options.precision = Precision::kFloat;
    options.trace = false;
    EXPECT_TRUE(
        WithinOfLargest(poslab::llama_forward(w, kTokens, options).logits, got.logits, 1e-4));
    models[rope_layers] = got.logits;
  }
  ASSERT_EQ(models.size(), 4u);
  for (auto a = models.begin(); a != models.end(); ++a) {
    for (auto b = std::next(a); b != models.end(); ++b) {
      EXPECT_FALSE(ref::AllClose(a->second, b->second, ref::kAcceptance));
    }
  }
}

// A NoPE layer of the config is position surgery's NoPE layer (the one path in the core): the
// same bits as a llama of the same weights with that layer made NoPE, in both precisions; a
// surgery NoPE layer on top of it changes nothing. It does not see where the tokens are: all at
// position 0 leaves a model whose every layer is NoPE as it is.
TEST(LlamaSmolLm3, ANopeLayerIsTheSurgerysNopeLayer) {
  const LlamaConfig llama = tiny_config(4, 2, true);
  const LlamaConfig smol = smollm3(llama, {false, true});
  const llama_ref::Weights t = tiny_checkpoint(llama, 21);
  const poslab::LlamaWeights a = poslab::lm_weights_from_bytes(encode(t), smol, "m");
  const poslab::LlamaWeights b = poslab::lm_weights_from_bytes(encode(t), llama, "m");
  for (const Precision precision : {Precision::kDouble, Precision::kFloat}) {
    LlamaOptions o;
    o.precision = precision;
    o.trace = true;
    const poslab::LlamaResult own = poslab::llama_forward(a, kTokens, o);
    o.surgery.nope_layers = {1};
    EXPECT_EQ(own.logits.data, poslab::llama_forward(b, kTokens, o).logits.data);
    EXPECT_EQ(own.logits.data, poslab::llama_forward(a, kTokens, o).logits.data);
    o.surgery = {};
    EXPECT_NE(own.logits.data, poslab::llama_forward(b, kTokens, o).logits.data);
    // Layer 0 rotates as llama's does.
    EXPECT_EQ(own.layers[0].attention.data,
              poslab::llama_forward(b, kTokens, o).layers[0].attention.data);
  }
  const poslab::LlamaWeights all =
      poslab::lm_weights_from_bytes(encode(t), smollm3(llama, {true, true}), "m");
  LlamaOptions o;
  o.precision = Precision::kDouble;
  const TensorF plain = poslab::llama_forward(all, kTokens, o).logits;
  o.positions.assign(kTokens.size(), 0);
  EXPECT_EQ(poslab::llama_forward(all, kTokens, o).logits.data, plain.data);
}

// ---------------------------------------------------------------------------------------------
// The loss, the checkpoint's names.

TEST(LlamaLoss, IsMinusLogSoftmaxOfTheLogits) {
  const LlamaConfig c = tiny_config();
  const poslab::LlamaWeights w =
      poslab::lm_weights_from_bytes(encode(tiny_checkpoint(c, 9)), c, "m");
  LlamaOptions options;
  options.logits = false;
  options.loss_by_position = true;
  const TensorF losses = poslab::llama_forward(w, kTokens, options).losses;
  const TensorF want = poslab::next_token_losses(poslab::llama_forward(w, kTokens).logits, kTokens);
  EXPECT_ALLCLOSE(losses, want, ref::kAcceptance);
}

void expect_load_refused(const std::string& bytes, const std::string& fragment,
                         const LlamaConfig& config) {
  lm_fixture::expect_load_refused(
      bytes, fragment, [&](const std::string& path) { poslab::load_lm_weights(path, config); });
}

TEST(LlamaCheckpoint, NamesAsTransformersShipsThem) {
  const LlamaConfig untied = tiny_config(), tied = tiny_config(4, 2, true);
  const llama_ref::Weights checkpoint = tiny_checkpoint(untied, 11);
  const poslab::LlamaWeights w = poslab::lm_weights_from_bytes(encode(checkpoint), untied, "m");
  const auto named = poslab::lm_named_tensors(w);
  ASSERT_EQ(named.size(), checkpoint.size());
  for (const auto& [name, tensor] : named) {
    EXPECT_EQ(0, std::memcmp(tensor->raw(), checkpoint.at(name).ptr(), tensor->bytes())) << name;
  }
  EXPECT_EQ(named.front().first, "model.embed_tokens.weight");
  EXPECT_EQ(named.back().first, "lm_head.weight");
  EXPECT_EQ(
      poslab::lm_architecture_of_checkpoint(
          poslab::parse_safetensors_header(encode(checkpoint), encode(checkpoint).size(), "m"),
          "m"),
      poslab::LmArchitecture::kLlama);

  // Tied: an lm_head.weight in the file is skipped (transformers ties it), as are the rotary
  // buffers of older checkpoints for a layer the model has.
  llama_ref::Weights t = checkpoint;
  t["model.layers.1.self_attn.rotary_emb.inv_freq"] = TensorF({6});
  const poslab::LlamaWeights tied_w = poslab::lm_weights_from_bytes(encode(t), tied, "m");
  EXPECT_TRUE(tied_w.lm_head.f32.empty());
  t.erase("lm_head.weight");
  EXPECT_EQ(poslab::llama_forward(poslab::lm_weights_from_bytes(encode(t), tied, "m"), kTokens)
                .logits.data,
            poslab::llama_forward(tied_w, kTokens).logits.data);

  t = checkpoint;
  t.erase("lm_head.weight");
  expect_load_refused(encode(t), "missing tensor 'lm_head.weight'", untied);
  t = checkpoint;
  t["model.layers.0.self_attn.k_proj.weight"] = TensorF({E, E});  // a kv head per query head
  expect_load_refused(encode(t),
                      "tensor 'model.layers.0.self_attn.k_proj.weight' has shape (48, 48), the "
                      "config needs (24, 48)",
                      untied);
  t = checkpoint;
  t["model.layers.0.self_attn.q_proj.bias"] = TensorF({E});  // no attention_bias
  expect_load_refused(encode(t), "unexpected tensor 'model.layers.0.self_attn.q_proj.bias'",
                      untied);
  t = checkpoint;
  t["model.layers.2.self_attn.rotary_emb.inv_freq"] = TensorF({6});  // a layer it lacks
  expect_load_refused(encode(t), "unexpected tensor 'model.layers.2.self_attn.rotary_emb", untied);
  t = checkpoint;
  t["model.norm.weight"].data[3] = NAN;
  expect_load_refused(encode(t), "tensor 'model.norm.weight' contains NaN", untied);
  // Held as BF16, a NaN or an infinity is found by its exponent bits (0x7f80), not widened.
  expect_load_refused(encode(t, poslab::StoredDType::kBF16),
                      "tensor 'model.norm.weight' contains NaN", untied);
  t["model.norm.weight"].data[3] = -INFINITY;
  expect_load_refused(encode(t, poslab::StoredDType::kBF16),
                      "tensor 'model.norm.weight' contains NaN", untied);
  t["model.norm.weight"].data[3] = 3e38f;  // finite in BF16 (its largest is 3.39e38)
  EXPECT_NO_THROW(
      poslab::lm_weights_from_bytes(encode(t, poslab::StoredDType::kBF16), untied, "m"));
  lm_fixture::expect_streamed_load_contract<poslab::LlamaWeights>(
      encode(checkpoint, poslab::StoredDType::kF16), untied);
  lm_fixture::expect_streamed_load_contract<poslab::LlamaWeights>(
      encode(checkpoint, poslab::StoredDType::kBF16), untied);
}

// SmolLM2, Qwen2.5 and Llama ship BF16 checkpoints: held as BF16 (half the bytes), widened a
// panel at a time, they give exactly the logits of the BF16-rounded weights saved as F32.
TEST(LlamaCheckpoint, Bf16IsHeldAsBf16AndRunsAsItsRoundedWeights) {
  const LlamaConfig c = tiny_config(4, 2, true);
  llama_ref::Weights checkpoint = tiny_checkpoint(c, 5);
  checkpoint["model.norm.weight"].data[0] = 1e6f;  // past F16's range, within BF16's
  const llama_ref::Weights rounded = as_stored(checkpoint, poslab::StoredDType::kBF16);
  EXPECT_EQ(rounded.at("model.norm.weight").data[0], 999424.0f);  // the nearest bfloat16
  EXPECT_NE(rounded.at("model.embed_tokens.weight").data,
            checkpoint.at("model.embed_tokens.weight").data);  // rounding did something
  const poslab::LlamaWeights bf16 =
      poslab::lm_weights_from_bytes(encode(checkpoint, poslab::StoredDType::kBF16), c, "m");
  const poslab::LlamaWeights f32 = poslab::lm_weights_from_bytes(encode(rounded), c, "m");
  const auto named = poslab::lm_named_tensors(bf16);
  ASSERT_EQ(named.size(), rounded.size());
  for (const auto& [name, tensor] : named) {
    EXPECT_EQ(tensor->dtype, poslab::StoredDType::kBF16) << name;
    EXPECT_EQ(tensor->to_float().data, rounded.at(name).data) << name;
  }
  EXPECT_EQ(2 * bf16.bytes(), f32.bytes());
  for (const Precision precision : {Precision::kFloat, Precision::kDouble}) {
    LlamaOptions options;
    options.precision = precision;
    options.trace = true;
    EXPECT_EQ(poslab::llama_forward(bf16, kTokens, options).logits.data,
              poslab::llama_forward(f32, kTokens, options).logits.data);
  }
}

TEST(LlamaRandom, IsSeededAndSurvivesASaveAndLoad) {
  const LlamaConfig c = tiny_config(4, 2, true);
  const poslab::LlamaWeights a = poslab::lm_random_weights(c, 7);
  const poslab::LlamaWeights b = poslab::lm_random_weights(c, 7);
  EXPECT_EQ(a.embed_tokens.f32, b.embed_tokens.f32);
  EXPECT_NE(a.embed_tokens.f32, poslab::lm_random_weights(c, 8).embed_tokens.f32);
  const poslab::LlamaWeights loaded = poslab::lm_weights_from_bytes(
      poslab::encode_safetensors(poslab::lm_named_tensors(a)), c, "r");
  EXPECT_EQ(poslab::llama_forward(loaded, {1, 2, 3}).logits.data,
            poslab::llama_forward(a, {1, 2, 3}).logits.data);
}

// A checkpoint saved in shards, as Hugging Face saves large ones: model.safetensors.index.json
// and its shards beside it (here two, the second BF16) load into the same weights as the
// tensors they hold, and run the same.
class LlamaSharded : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "poslab-shards-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name() + "/";
    std::filesystem::create_directories(dir_);
    const auto named = poslab::lm_named_tensors(weights_);
    const std::size_t half = named.size() / 2;
    std::vector<std::pair<std::string, const TensorF*>> first, second;
    for (std::size_t k = 0; k < named.size(); ++k) {
      floats_.emplace_back(named[k].second->shape, named[k].second->f32);
    }
    for (std::size_t k = 0; k < named.size(); ++k) {
      (k < half ? first : second).emplace_back(named[k].first, &floats_[k]);
      shard_of_[named[k].first] = k < half ? kFirst : kSecond;
    }
    write(kFirst, poslab::encode_safetensors(first));
    write(kSecond, poslab::encode_safetensors(second, poslab::StoredDType::kBF16));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void write(const std::string& file, const std::string& bytes) {
    std::ofstream(dir_ + file, std::ios::binary) << bytes;
  }
  // An index of `map` (tensor → shard); its path.
  std::string index(const std::map<std::string, std::string>& map) {
    std::string json = R"({"metadata": {"total_size": 0}, "weight_map": {)";
    for (const auto& [tensor, shard] : map) {
      json += (json.back() == '{' ? "" : ", ") + ("\"" + tensor + "\": \"" + shard + "\"");
    }
    write("model.safetensors.index.json", json + "}}");
    return dir_ + "model.safetensors.index.json";
  }
  void expect_refused(const std::map<std::string, std::string>& map, const std::string& fragment) {
    try {
      poslab::load_lm_weights(index(map), config_);
      ADD_FAILURE() << "accepted; expected an error naming " << fragment;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  }

  static constexpr const char* kFirst = "model-00001-of-00002.safetensors";
  static constexpr const char* kSecond = "model-00002-of-00002.safetensors";
  const LlamaConfig config_ = tiny_config(4, 2);
  const poslab::LlamaWeights weights_ = poslab::lm_random_weights(config_, 11);
  std::vector<TensorF> floats_;
  std::map<std::string, std::string> shard_of_;
  std::string dir_;
};

TEST_F(LlamaSharded, IndexAndShardsLoadAsTheTensorsTheyHold) {
  const poslab::LlamaWeights loaded = poslab::load_lm_weights(index(shard_of_), config_);
  const auto want = poslab::lm_named_tensors(weights_);
  const auto got = poslab::lm_named_tensors(loaded);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    const bool bf16 = shard_of_.at(want[k].first) == kSecond;
    const TensorF stored = as_stored({{"t", floats_[k]}},
                                     bf16 ? poslab::StoredDType::kBF16 : poslab::StoredDType::kF32)
                               .at("t");
    EXPECT_EQ(got[k].second->dtype, bf16 ? poslab::StoredDType::kBF16 : poslab::StoredDType::kF32)
        << want[k].first;
    EXPECT_EQ(got[k].second->to_float().data, stored.data) << want[k].first;
  }
  const poslab::LlamaWeights single = poslab::lm_weights_from_bytes(
      poslab::encode_safetensors(poslab::lm_named_tensors(loaded)), config_, "single");
  EXPECT_EQ(poslab::llama_forward(loaded, {1, 2, 3}).logits.data,
            poslab::llama_forward(single, {1, 2, 3}).logits.data);
}

// An index that names no shard for a tensor, a tensor the model has not, a shard that is not
// there, a tensor in another shard than its own, a shard outside the index's folder and a
// weight_map that is not an object: each refused, naming what is wrong.
TEST_F(LlamaSharded, BadIndexesAreRefusedNamingTheTensorOrShard) {
  auto without = shard_of_;
  without.erase("lm_head.weight");
  expect_refused(without, "names no shard for tensor 'lm_head.weight'");
  auto extra = shard_of_;
  extra["model.layers.9.mlp.up_proj.weight"] = kFirst;
  expect_refused(extra, "unexpected tensor 'model.layers.9.mlp.up_proj.weight'");
  auto absent = shard_of_;
  absent["lm_head.weight"] = "model-00003-of-00003.safetensors";
  expect_refused(absent, "model-00003-of-00003.safetensors: cannot open");
  auto moved = shard_of_;
  moved["model.embed_tokens.weight"] = kSecond;  // it is in the first
  expect_refused(moved, "tensor 'model.embed_tokens.weight'");
  auto outside = shard_of_;
  outside["lm_head.weight"] = "../model.safetensors";
  expect_refused(outside, "without a directory");
  write("model.safetensors.index.json", R"({"weight_map": []})");
  try {
    poslab::load_lm_weights(dir_ + "model.safetensors.index.json", config_);
    ADD_FAILURE() << "a weight_map that is a list was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("\"weight_map\" must be"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// Configs

// HuggingFaceTB/SmolLM2-135M's config.json as released.
constexpr const char* kSmolLm2 = R"({
  "architectures": ["LlamaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "bos_token_id": 0, "eos_token_id": 0, "hidden_act": "silu", "hidden_size": 576,
  "initializer_range": 0.041666666666666664, "intermediate_size": 1536, "is_llama_config": true,
  "max_position_embeddings": 8192, "model_type": "llama", "num_attention_heads": 9,
  "num_hidden_layers": 30, "num_key_value_heads": 3, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
  "rope_interleaved": false, "rope_scaling": null, "rope_theta": 100000,
  "tie_word_embeddings": true, "torch_dtype": "bfloat16", "transformers_version": "4.42.3",
  "use_cache": true, "vocab_size": 49152})";

TEST(LlamaConfig, SmolLm2FromHuggingFaceJsonAndParameterCounts) {
  const LlamaConfig c = LlamaConfig::from_json(kSmolLm2, "config.json");
  EXPECT_EQ(c.to_json(), LlamaConfig::preset("smollm2-135m").to_json());
  EXPECT_EQ(c.head_dim(), 64);
  EXPECT_EQ(c.parameter_count(), 134515008u);  // SmolLM2-135M in transformers
  // TinyLlama-1.1B: 22 layers, 32 heads over 4 kv heads, untied.
  const LlamaConfig tiny = LlamaConfig::from_json(
      R"({"vocab_size": 32000, "hidden_size": 2048, "num_hidden_layers": 22,
          "num_attention_heads": 32, "num_key_value_heads": 4, "intermediate_size": 5632})",
      "c");
  EXPECT_EQ(tiny.parameter_count(), 1100048384u);
  EXPECT_EQ(tiny.rope().base, 10000.0);  // transformers' defaults
  EXPECT_EQ(tiny.rms_norm_eps, 1e-6);
  EXPECT_EQ(tiny.dims.context, 2048);
  EXPECT_THROW(LlamaConfig::preset("llama-7b"), Error);
}

TEST(LlamaConfig, FamilyMembersFromHuggingFaceJson) {
  // Qwen/Qwen2.5-0.5B's config.json as released (the keys that count).
  const LlamaConfig qwen = LlamaConfig::from_json(
      R"({"architectures": ["Qwen2ForCausalLM"], "hidden_act": "silu", "hidden_size": 896,
          "intermediate_size": 4864, "max_position_embeddings": 32768, "max_window_layers": 24,
          "model_type": "qwen2", "num_attention_heads": 14, "num_hidden_layers": 24,
          "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
          "sliding_window": 32768, "tie_word_embeddings": true, "use_sliding_window": false,
          "vocab_size": 151936})",
      "config.json");
  EXPECT_EQ(qwen.to_json(), LlamaConfig::preset("qwen2.5-0.5b").to_json());
  EXPECT_EQ(qwen.parameter_count(), 494032768u);  // Qwen2.5-0.5B in transformers
  EXPECT_TRUE(qwen.qkv_bias());
  EXPECT_FALSE(qwen.o_bias());
  EXPECT_TRUE(qwen.sliding_layers.empty());
  const std::string sizes =
      R"("vocab_size": 97, "hidden_size": 48, "num_hidden_layers": 2, "num_attention_heads": 4,
         "intermediate_size": 80)";
  // Mistral: 8 kv heads and a 4096 window when the keys are absent; null: none.
  const LlamaConfig mistral = LlamaConfig::from_json(
      R"({"model_type": "mistral", "vocab_size": 97, "hidden_size": 64, "num_hidden_layers": 2,
          "num_attention_heads": 8, "intermediate_size": 80})",
      "c");
  EXPECT_EQ(mistral.num_key_value_heads, 8);
  EXPECT_EQ(mistral.window_of(1), 4096);
  EXPECT_EQ(
      LlamaConfig::from_json("{" + sizes + R"(, "model_type": "mistral", "num_key_value_heads": 2,
                                    "sliding_window": null})",
                             "c")
          .window_of(0),
      0);
  // Qwen3: head_dim 128 when absent, q_norm and k_norm; windows from max_window_layers.
  const LlamaConfig qwen3 = LlamaConfig::from_json(
      "{" + sizes +
          R"(, "model_type": "qwen3", "num_key_value_heads": 2, "use_sliding_window": true,
              "sliding_window": 6, "max_window_layers": 1})",
      "c");
  EXPECT_EQ(qwen3.head_dim(), 128);
  EXPECT_TRUE(qwen3.qk_norm());
  EXPECT_EQ(qwen3.window_of(0), 0);
  EXPECT_EQ(qwen3.window_of(1), 6);
  // Every member reads back what it writes.
  for (const LlamaConfig& c :
       {qwen, mistral, qwen3,
        member(tiny_config(), poslab::LmArchitecture::kQwen2, 5, {true, false})}) {
    EXPECT_EQ(LlamaConfig::from_json(c.to_json(), "c").to_json(), c.to_json());
  }
}

TEST(LlamaConfig, RoundTripsThroughJsonWithItsRopeScaling) {
  LlamaConfig c = tiny_config(4, 1, true, 8, true);
  c.rope_scaling = poslab::RopeScaling::kLlama3;
  c.rope_factor = 8.0;
  c.rope_original_length = 8;
  c.rope_high_freq_factor = 2.0;
  const LlamaConfig back = LlamaConfig::from_json(c.to_json(), "c");
  EXPECT_EQ(back.to_json(), c.to_json());
  EXPECT_EQ(back.rope().high_freq_factor, 2.0);
  EXPECT_EQ(back.head_dim(), 8);
  // The legacy "type" key and a top-level original_max_position_embeddings.
  const LlamaConfig legacy = LlamaConfig::from_json(
      R"({"vocab_size": 97, "hidden_size": 48, "num_hidden_layers": 2, "num_attention_heads": 4,
          "intermediate_size": 80, "original_max_position_embeddings": 4,
          "rope_scaling": {"type": "yarn", "factor": 2.0}})",
      "c");
  EXPECT_EQ(legacy.rope().scaling, poslab::RopeScaling::kYarn);
  EXPECT_EQ(legacy.rope().original_length, 4);
  EXPECT_EQ(legacy.num_key_value_heads, 4);  // absent: one kv head per query head
}

// transformers 5 writes rope_parameters (rope_theta and the scaling in one object, or one per
// layer type) where transformers 4 wrote rope_theta and rope_scaling: the same model either way.
TEST(LlamaConfig, ReadsTransformers5RopeParameters) {
  const std::string sizes =
      R"("vocab_size": 97, "hidden_size": 48, "num_hidden_layers": 2, "num_attention_heads": 4,
         "intermediate_size": 80)";
  const LlamaConfig v4 = LlamaConfig::from_json(
      "{" + sizes + R"(, "rope_theta": 500000.0, "rope_scaling": {"rope_type": "llama3",
          "factor": 8.0, "original_max_position_embeddings": 8, "low_freq_factor": 1.0,
          "high_freq_factor": 4.0}})",
      "c");
  const std::string v5_rope = R"({"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0,
      "original_max_position_embeddings": 8, "low_freq_factor": 1.0, "high_freq_factor": 4.0})";
  for (const std::string& rope : {v5_rope, R"({"full_attention": )" + v5_rope +
                                               R"(, "sliding_attention": )" + v5_rope + "}"}) {
    const LlamaConfig v5 =
        LlamaConfig::from_json("{" + sizes + R"(, "rope_parameters": )" + rope + "}", "c");
    EXPECT_EQ(v5.to_json(), v4.to_json()) << rope;
    EXPECT_EQ(v5.rope().base, 500000.0);
  }
  const LlamaConfig plain = LlamaConfig::from_json(
      "{" + sizes + R"(, "rope_parameters": {"rope_type": "default", "rope_theta": 1e6}})", "c");
  EXPECT_EQ(plain.rope().base, 1e6);
  EXPECT_EQ(plain.rope().scaling, poslab::RopeScaling::kNone);
  lm_fixture::expect_configs_refused<LlamaConfig>({
      {"{" + sizes + R"(, "rope_parameters": {"full_attention": {"rope_theta": 1e6},
                                              "sliding_attention": {"rope_theta": 1e4}}})",
       "differs"},
      {"{" + sizes + R"(, "rope_parameters": {"rope_theta": 1e4, "partial_rotary_factor": 0.5}})",
       "partial_rotary_factor"},
      {"{" + sizes + R"(, "rope_parameters": {"rope_type": "yarn", "factor": 2, "mscale": 1}})",
       "\"mscale\""},
  });
}

// Phi-3's longrope: θ_i / short_factor[i] up to the original length, θ_i / long_factor[i] past
// it, cos and sin times √(1 + ln f / ln N) with f = max_position_embeddings / N.
TEST(LlamaConfig, LongropeFactorsAndAttentionFactor) {
  const std::string sizes =
      R"("vocab_size": 97, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
         "intermediate_size": 80, "max_position_embeddings": 32)";
  const LlamaConfig c = LlamaConfig::from_json(
      "{" + sizes + R"(, "original_max_position_embeddings": 8, "rope_scaling": {"type":
          "longrope", "short_factor": [1, 1.5, 2, 3], "long_factor": [1, 2, 4, 8]}})",
      "c");
  EXPECT_EQ(LlamaConfig::from_json(c.to_json(), "c").to_json(), c.to_json());
  const poslab::RopeOptions o = c.rope();
  EXPECT_EQ(o.original_length, 8);
  EXPECT_NEAR(o.attention_factor, std::sqrt(1.0 + std::log(4.0) / std::log(8.0)), 1e-15);
  const std::vector<double> short_f = {1, 1.5, 2, 3}, long_f = {1, 2, 4, 8};
  for (const long long S : {1LL, 8LL, 9LL, 40LL}) {
    const poslab::RopeFrequencies f = poslab::rope_frequencies(c.head_dim(), o, S);
    EXPECT_EQ(f.attention_factor, o.attention_factor);
    for (std::size_t i = 0; i < 4; ++i) {
      const double plain = std::pow(10000.0, -double(2 * i) / 8.0);
      EXPECT_NEAR(f.inv_freq[i], plain / (S > 8 ? long_f : short_f)[i], 1e-15) << S << " " << i;
    }
  }
  // A factor in the config sets the attention factor; an attention_factor overrides both.
  const LlamaConfig named =
      LlamaConfig::from_json("{" + sizes + R"(, "rope_scaling": {"type": "longrope", "factor": 16,
          "original_max_position_embeddings": 8, "attention_factor": 1.25,
          "short_factor": [1, 1, 1, 1], "long_factor": [1, 1, 1, 1]}})",
                             "c");
  EXPECT_EQ(named.rope().attention_factor, 1.25);
  lm_fixture::expect_configs_refused<LlamaConfig>({
      {"{" + sizes + R"(, "rope_scaling": {"type": "longrope", "short_factor": [1, 1],
                                          "long_factor": [1, 1]}})",
       "factor per rotary pair"},
      {"{" + sizes + R"(, "rope_scaling": {"type": "longrope", "short_factor": [1, 1, 1, 0],
                                          "long_factor": [1, 1, 1, 1]}})",
       "positive"},
      {"{" + sizes + R"(, "rope_scaling": {"type": "linear", "factor": 2,
                                          "long_factor": [1, 1, 1, 1]}})",
       "\"long_factor\""},
  });
}

// Gemma 3's text model: its defaults, its layer kinds (every sliding_window_pattern-th layer
// full, else sliding) and local base, and transformers 5's rope_parameters per layer type.
TEST(LlamaConfig, Gemma3TextFromHuggingFaceJson) {
  const std::string sizes =
      R"("model_type": "gemma3_text", "vocab_size": 97, "hidden_size": 32,
         "num_hidden_layers": 4, "num_attention_heads": 4, "intermediate_size": 80)";
  const LlamaConfig hub = LlamaConfig::from_json(
      "{" + sizes + R"(, "head_dim": 16, "num_key_value_heads": 1, "sliding_window": 3,
          "sliding_window_pattern": 2, "query_pre_attn_scalar": 24, "rope_theta": 1e6,
          "rope_local_base_freq": 1e4, "rope_scaling": {"rope_type": "linear", "factor": 8},
          "final_logit_softcapping": null, "hidden_activation": "gelu_pytorch_tanh"})",
      "c");
  EXPECT_TRUE(hub.gemma());
  EXPECT_TRUE(hub.tie_word_embeddings);  // Gemma's default
  EXPECT_EQ(hub.sliding_layers, (std::vector<bool>{true, false, true, false}));
  EXPECT_EQ(hub.window_of(0), 3);
  EXPECT_EQ(hub.attention_scale(), 1.0 / std::sqrt(24.0));
  EXPECT_EQ(hub.embedding_scale(), std::sqrt(32.0));
  EXPECT_EQ(hub.rope().scaling, poslab::RopeScaling::kLinear);
  EXPECT_EQ(hub.layer_rope(1, hub.rope()).base, 1e6);
  const poslab::RopeOptions local = hub.layer_rope(0, hub.rope());
  EXPECT_EQ(local.base, 1e4);
  EXPECT_EQ(local.scaling, poslab::RopeScaling::kNone);
  EXPECT_EQ(LlamaConfig::from_json(hub.to_json(), "c").to_json(), hub.to_json());
  const LlamaConfig v5 = LlamaConfig::from_json(
      "{" + sizes + R"(, "head_dim": 16, "num_key_value_heads": 1, "sliding_window": 3,
          "layer_types": ["sliding_attention", "full_attention", "sliding_attention",
                          "full_attention"], "query_pre_attn_scalar": 24,
          "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 8,
                                                 "rope_theta": 1e6},
                              "sliding_attention": {"rope_type": "default", "rope_theta": 1e4}}})",
      "c");
  EXPECT_EQ(v5.to_json(), hub.to_json());
  // Absent keys: Gemma3TextConfig's defaults (head_dim 256, 4 kv heads, pattern 6, θ 1e6).
  const LlamaConfig defaults = LlamaConfig::from_json(
      R"({"model_type": "gemma3_text", "vocab_size": 97, "hidden_size": 64,
          "num_hidden_layers": 6, "num_attention_heads": 8, "intermediate_size": 80})",
      "c");
  EXPECT_EQ(defaults.head_dim(), 256);
  EXPECT_EQ(defaults.num_key_value_heads, 4);
  EXPECT_EQ(defaults.rope().base, 1e6);
  EXPECT_EQ(defaults.sliding_layers, (std::vector<bool>{true, true, true, true, true, false}));
  EXPECT_EQ(defaults.attention_scale(), 1.0 / 16.0);  // query_pre_attn_scalar 256
  lm_fixture::expect_configs_refused<LlamaConfig>({
      {"{" + sizes + R"(, "hidden_activation": "gelu"})", "hidden_activation"},
      {"{" + sizes + R"(, "final_logit_softcapping": 30.0})", "final_logit_softcapping"},
      {"{" + sizes + R"(, "attn_logit_softcapping": 50.0})", "attn_logit_softcapping"},
      {"{" + sizes + R"(, "use_bidirectional_attention": true})", "use_bidirectional_attention"},
      {"{" + sizes + R"(, "query_pre_attn_scalar": 0})", "query_pre_attn_scalar"},
      {"{" + sizes + R"(, "rope_parameters": {"full_attention": {"rope_theta": 1e6},
          "sliding_attention": {"rope_type": "linear", "factor": 2, "rope_theta": 1e4}}})",
       "unscaled"},
  });
}

// HuggingFaceTB/SmolLM3-3B's config.json as released (web/src/content/rope-configs/
// smollm3-3b.json): the smollm3-3b preset, every fourth layer NoPE, pretraining_tp 2 (which
// modeling_smollm3 never reads) and Qwen's max_window_layers (nor that) accepted.
constexpr const char* kSmolLm3 = R"({
  "architectures": ["SmolLM3ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "hidden_act": "silu", "hidden_size": 2048, "intermediate_size": 11008,
  "max_position_embeddings": 65536, "max_window_layers": 28, "model_type": "smollm3",
  "no_rope_layer_interval": 4,
  "no_rope_layers": [1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0,
                     1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0],
  "num_attention_heads": 16, "num_hidden_layers": 36, "num_key_value_heads": 4,
  "pretraining_tp": 2, "rms_norm_eps": 1e-06, "rope_scaling": null, "rope_theta": 5000000.0,
  "sliding_window": null, "tie_word_embeddings": true, "torch_dtype": "bfloat16",
  "use_sliding_window": false, "vocab_size": 128256})";

TEST(LlamaConfig, SmolLm3FromHuggingFaceJson) {
  const LlamaConfig c = LlamaConfig::from_json(kSmolLm3, "config.json");
  EXPECT_EQ(c.to_json(), LlamaConfig::preset("smollm3-3b").to_json());
  EXPECT_TRUE(c.smollm3());
  EXPECT_EQ(c.head_dim(), 128);
  EXPECT_EQ(c.rope().base, 5e6);
  EXPECT_TRUE(c.sliding_layers.empty());
  for (std::size_t i = 0; i < 36; ++i) EXPECT_EQ(c.nope(i), i % 4 == 3) << i;
  // 36 × (q, o 2·2048² + k, v 2·2048·512 + MLP 3·2048·11008 + 2 gains) + tied 128256·2048 + 2048.
  EXPECT_EQ(c.parameter_count(), 3075098624u);
  EXPECT_EQ(LlamaConfig::from_json(c.to_json(), "c").to_json(), c.to_json());
  // SmolLM3Config's defaults: 4 kv heads, θ 2e6, 32768 positions, tied, every 4th layer NoPE.
  const std::string sizes =
      R"("model_type": "smollm3", "vocab_size": 97, "hidden_size": 48, "num_hidden_layers": 8,
         "num_attention_heads": 4, "intermediate_size": 80)";
  const LlamaConfig defaults = LlamaConfig::from_json("{" + sizes + "}", "c");
  EXPECT_EQ(defaults.num_key_value_heads, 4);
  EXPECT_EQ(defaults.rope().base, 2e6);
  EXPECT_EQ(defaults.dims.context, 32768);
  EXPECT_EQ(defaults.rms_norm_eps, 1e-6);
  EXPECT_TRUE(defaults.tie_word_embeddings);
  EXPECT_EQ(defaults.nope_layers,
            (std::vector<bool>{false, false, false, true, false, false, false, true}));
  EXPECT_TRUE(defaults.sliding_layers.empty());
  // With use_sliding_window and a sliding_window, the NoPE layers slide (layer_types); a window
  // alone, or the switch alone, slides none; layer_types, when given, decides.
  const LlamaConfig sliding =
      LlamaConfig::from_json("{" + sizes + R"(, "use_sliding_window": true, "sliding_window": 5,
                        "no_rope_layer_interval": 2, "attention_bias": true})",
                             "c");
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(sliding.window_of(i), i % 2 == 1 ? 5 : 0) << i;
    EXPECT_EQ(sliding.nope(i), i % 2 == 1) << i;
  }
  EXPECT_TRUE(sliding.o_bias());
  EXPECT_EQ(LlamaConfig::from_json(sliding.to_json(), "c").to_json(), sliding.to_json());
  EXPECT_TRUE(LlamaConfig::from_json("{" + sizes + R"(, "sliding_window": 5})", "c")
                  .sliding_layers.empty());
  EXPECT_TRUE(LlamaConfig::from_json("{" + sizes + R"(, "use_sliding_window": true})", "c")
                  .sliding_layers.empty());
  const LlamaConfig typed = LlamaConfig::from_json(
      "{" + sizes + R"(, "use_sliding_window": true, "sliding_window": 5, "layer_types":
          ["sliding_attention", "full_attention", "full_attention", "full_attention",
           "full_attention", "full_attention", "full_attention", "full_attention"]})",
      "c");
  EXPECT_EQ(typed.window_of(0), 5);
  EXPECT_EQ(typed.window_of(3), 0);
  EXPECT_TRUE(typed.nope(3));
  lm_fixture::expect_configs_refused<LlamaConfig>({
      {"{" + sizes + R"(, "no_rope_layers": [1, 0]})", "no_rope_layers"},
      {"{" + sizes + R"(, "no_rope_layers": [1, 1, 1, 2, 1, 1, 1, 1]})", "only 0 and 1"},
      {"{" + sizes + R"(, "no_rope_layer_interval": 0})", "no_rope_layer_interval"},
      {"{" + sizes + R"(, "layer_types": ["sliding_attention", "full_attention",
          "full_attention", "full_attention", "full_attention", "full_attention",
          "full_attention", "full_attention"]})",
       "sliding_window"},
      {"{" + sizes + R"(, "mlp_bias": true})", "mlp_bias"},
  });
  // Only smollm3 has NoPE layers of its own.
  LlamaConfig llama = tiny_config();
  llama.nope_layers = {false, true};
  EXPECT_THROW(llama.validate(), Error);
}

TEST(LlamaConfig, UnsupportedSettingsAreRefusedNamingTheKey) {
  const std::string sizes =
      R"("vocab_size": 97, "hidden_size": 48, "num_hidden_layers": 2, "num_attention_heads": 4,
         "intermediate_size": 80)";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"vocab_size": 97, "hidden_size": 48, "num_hidden_layers": 2,
           "num_attention_heads": 4})",
       "\"intermediate_size\""},
      {"{" + sizes + R"(, "model_type": "gpt_neox"})", "model_type"},
      {"{" + sizes + R"(, "num_attention_heads": 5})", "num_attention_heads"},
      {"{" + sizes + R"(, "num_key_value_heads": 3})", "num_key_value_heads"},
      {"{" + sizes + R"(, "num_key_value_heads": 0})", "num_key_value_heads"},
      {"{" + sizes + R"(, "head_dim": 7})", "head_dim"},
      {"{" + sizes + R"(, "hidden_act": "gelu"})", "hidden_act"},
      {"{" + sizes + R"(, "mlp_bias": true})", "mlp_bias"},
      {"{" + sizes + R"(, "pretraining_tp": 2})", "pretraining_tp"},
      {"{" + sizes + R"(, "partial_rotary_factor": 0.5})", "partial_rotary_factor"},
      {"{" + sizes + R"(, "rms_norm_eps": -1})", "rms_norm_eps"},
      {"{" + sizes + R"(, "rope_scaling": {"rope_type": "linear"}})", "\"factor\" is required"},
      {"{" + sizes + R"(, "rope_scaling": {"rope_type": "llama3", "factor": 8}})",
       "\"original_max_position_embeddings\" is required for llama3"},
      {"{" + sizes + R"(, "rope_scaling": {"rope_type": "longrope", "factor": 2}})", "longrope"},
      {"{" + sizes + R"(, "rope_scaling": {"type": "yarn", "rope_type": "linear"}})", "disagree"},
      {"{" + sizes + R"(, "model_type": "gemma"})", "model_type"},
      {"{" + sizes + R"(, "model_type": "mistral", "sliding_window": 0})", "sliding_window"},
      {"{" + sizes + R"(, "model_type": "qwen2", "num_key_value_heads": 2,
                         "use_sliding_window": true, "layer_types": ["full_attention"]})",
       "layer_types"},
      {"{" + sizes + R"(, "model_type": "qwen2", "num_key_value_heads": 2,
                         "use_sliding_window": true,
                         "layer_types": ["full_attention", "local"]})",
       "layer_types"},
  };
  lm_fixture::expect_configs_refused<LlamaConfig>(cases);
}

TEST(LlamaForward, BadTokensAreRefused) {
  const LlamaConfig c = tiny_config();
  const poslab::LlamaWeights w = poslab::lm_random_weights(c, 1);
  EXPECT_THROW(poslab::llama_forward(w, {}), Error);
  EXPECT_THROW(poslab::llama_forward(w, {1, (long long)V}), Error);
  LlamaOptions none;  // neither logits nor losses: the top-k after the last position alone
  none.logits = false;
  EXPECT_EQ(poslab::llama_forward(w, {1, 2}, none).top_ids,
            poslab::llama_forward(w, {1, 2}).top_ids);
  poslab::LlamaWeights broken = w;
  broken.layers.pop_back();
  EXPECT_THROW(poslab::llama_forward(broken, {1}), Error);
}

}  // namespace

// GPT-NeoX forward pass of tiny random models (2 layers, 3 heads of width 16, vocabulary 97,
// 16 trained positions; parallel and sequential residual, rotary_pct 0.25 and 1.0, F32, F16
// and BF16 weights) saved to .safetensors and loaded back, against the naive double reference of
// gpt_neox_reference.hpp; float against double; the loss by position; every bad checkpoint
// refused naming its tensor; RoPE scalings against the reference's own frequencies.
#include "poslab/models/gpt_neox.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "gpt_neox_reference.hpp"
#include "lm_fixture.hpp"
#include "lm_reference.hpp"
#include "poslab/models/lm.hpp"
#include "reference.hpp"

// Named, so that a unity build (cmake/TestBuild.cmake) keeps its helpers apart from
// another file's of the same name.
namespace gpt_neox_test {
namespace {

using poslab::Error;
using poslab::GptNeoxConfig;
using poslab::GptNeoxOptions;
using poslab::Precision;
using poslab::TensorF;

constexpr std::size_t V = 97, P = 16, E = 48, N = 2, H = 3, d = E / H, I = 80;

GptNeoxConfig tiny_config(bool parallel = true, double rotary_pct = 0.25) {
  GptNeoxConfig c;
  c.dims.vocab_size = V;
  c.dims.width = E;
  c.dims.layers = N;
  c.dims.heads = H;
  c.intermediate_size = I;
  c.dims.context = P;
  c.rotary_pct = rotary_pct;
  c.use_parallel_residual = parallel;
  return c;
}

neox_ref::Config ref_config(const GptNeoxConfig& c) {
  return {lm_ref::dims_of(c.dims), std::size_t(c.intermediate_size), c.rotary_pct, c.layer_norm_eps,
          c.use_parallel_residual};
}

// The checkpoint written out name by name (not from the core's list), with nonzero biases and
// gains so that every parameter moves the result.
neox_ref::Weights tiny_checkpoint(std::uint64_t seed, std::size_t vocab = V) {
  neox_ref::Weights t;
  std::uint64_t s = seed * 1000;
  const auto put = [&](const std::string& name, ref::Shape shape, double lo, double hi) {
    t[name] = ref::random_tensor(std::move(shape), ++s, lo, hi);
  };
  put("gpt_neox.embed_in.weight", {vocab, E}, -1.0, 1.0);
  for (std::size_t i = 0; i < N; ++i) {
    const std::string p = "gpt_neox.layers." + std::to_string(i) + ".";
    put(p + "input_layernorm.weight", {E}, 0.5, 1.5);
    put(p + "input_layernorm.bias", {E}, -0.2, 0.2);
    put(p + "post_attention_layernorm.weight", {E}, 0.5, 1.5);
    put(p + "post_attention_layernorm.bias", {E}, -0.2, 0.2);
    put(p + "attention.query_key_value.weight", {3 * E, E}, -0.3, 0.3);
    put(p + "attention.query_key_value.bias", {3 * E}, -0.2, 0.2);
    put(p + "attention.dense.weight", {E, E}, -0.2, 0.2);
    put(p + "attention.dense.bias", {E}, -0.1, 0.1);
    put(p + "mlp.dense_h_to_4h.weight", {I, E}, -0.3, 0.3);
    put(p + "mlp.dense_h_to_4h.bias", {I}, -0.2, 0.2);
    put(p + "mlp.dense_4h_to_h.weight", {E, I}, -0.15, 0.15);
    put(p + "mlp.dense_4h_to_h.bias", {E}, -0.1, 0.1);
  }
  put("gpt_neox.final_layer_norm.weight", {E}, 0.5, 1.5);
  put("gpt_neox.final_layer_norm.bias", {E}, -0.2, 0.2);
  put("embed_out.weight", {vocab, E}, -0.5, 0.5);
  return t;
}

std::string encode(const neox_ref::Weights& tensors,
                   poslab::StoredDType dtype = poslab::StoredDType::kF32) {
  return lm_fixture::encode(tensors, "", dtype);
}

using lm_fixture::temp_file;
using lm_ref::iota_positions;
using lm_ref::max_abs;
using lm_ref::WithinOfLargest;

neox_ref::Result reference(const neox_ref::Weights& w, const GptNeoxConfig& c,
                           const std::vector<long long>& tokens,
                           const poslab::RopeOptions* rope = nullptr) {
  const poslab::RopeOptions o = rope ? *rope : c.rope();
  return neox_ref::forward(w, ref_config(c), tokens,
                           ref::rope_freqs(std::size_t(c.head_dim()), o, (long long)tokens.size()),
                           iota_positions(tokens.size()));
}

const std::vector<long long> kTokens{3, 96, 0, 42, 42, 17, 5, 61, 2, 2, 9, 30, 77, 8};

// ---------------------------------------------------------------------------------------------

struct Variant {
  bool parallel;
  double rotary_pct;
  poslab::StoredDType dtype;
};

class GptNeoxVariant : public ::testing::TestWithParam<Variant> {};

TEST_P(GptNeoxVariant, BothPrecisionsMatchTheDoubleReference) {
  const Variant v = GetParam();
  const GptNeoxConfig config = tiny_config(v.parallel, v.rotary_pct);
  neox_ref::Weights checkpoint = tiny_checkpoint(v.parallel ? 1 : 2);
  const std::string path = temp_file(encode(checkpoint, v.dtype));
  const poslab::GptNeoxWeights w = poslab::load_lm_weights(path, config);
  std::remove(path.c_str());
  // A half or bfloat16 checkpoint holds the rounded values, and stays 16-bit in memory.
  checkpoint = lm_fixture::as_stored(checkpoint, v.dtype);
  EXPECT_EQ(w.embed_out.dtype, v.dtype);
  for (const std::size_t T : {std::size_t{1}, std::size_t{7}, kTokens.size()}) {
    const std::vector<long long> tokens(kTokens.begin(), kTokens.begin() + T);
    const neox_ref::Result want = reference(checkpoint, config, tokens);
    GptNeoxOptions options;
    options.trace = true;
    options.precision = Precision::kDouble;
    const poslab::GptNeoxResult exact = poslab::gpt_neox_forward(w, tokens, options);
    options.precision = Precision::kFloat;
    const poslab::GptNeoxResult fast = poslab::gpt_neox_forward(w, tokens, options);
    EXPECT_ALLCLOSE(exact.logits, want.logits, ref::kAcceptance) << "T=" << T;
    EXPECT_TRUE(WithinOfLargest(fast.logits, exact.logits, 1e-4)) << "T=" << T;
    ASSERT_EQ(exact.layers.size(), N);
    ASSERT_EQ(fast.layers.size(), N);
    for (std::size_t i = 0; i < N; ++i) {
      const poslab::GptNeoxLayerTrace& g = exact.layers[i];
      lm_ref::expect_layer_close(g, want.layers[i], ref::kAcceptance, i);
      // Float attention maps within 1e-5 of the double ones.
      EXPECT_ALLCLOSE(fast.layers[i].attention, g.attention, (ref::Tol{1e-5, 0})) << "layer " << i;
      EXPECT_EQ(g.attention.shape, (poslab::Shape{H, T, T}));
    }
    // Top-k: the same ranking of the last row in both precisions.
    EXPECT_EQ(fast.top_ids, exact.top_ids);
    ASSERT_EQ(exact.top_ids.size(), 10u);
    EXPECT_GE(exact.top_probs[0], exact.top_probs[9]);
  }
}

INSTANTIATE_TEST_SUITE_P(GptNeox, GptNeoxVariant,
                         ::testing::Values(Variant{true, 0.25, poslab::StoredDType::kF32},
                                           Variant{false, 0.25, poslab::StoredDType::kF32},
                                           Variant{true, 1.0, poslab::StoredDType::kF32},
                                           Variant{false, 1.0, poslab::StoredDType::kF16},
                                           Variant{true, 0.25, poslab::StoredDType::kF16},
                                           Variant{false, 0.25, poslab::StoredDType::kBF16}),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           const Variant& v = info.param;
                           return std::string(v.parallel ? "Parallel" : "Sequential") +
                                  (v.rotary_pct < 1.0 ? "Rotary25" : "Rotary100") +
                                  poslab::dtype_name(v.dtype);
                         });

class GptNeoxTiny : public ::testing::Test {
 protected:
  void SetUp() override {
    checkpoint_ = tiny_checkpoint(1);
    weights_ = poslab::lm_weights_from_bytes(encode(checkpoint_), tiny_config(), "m");
  }
  neox_ref::Weights checkpoint_;
  poslab::GptNeoxWeights weights_;
};

TEST_F(GptNeoxTiny, LoadsEveryTensorBitIdentically) {
  const auto named = poslab::lm_named_tensors(weights_);
  ASSERT_EQ(named.size(), checkpoint_.size());
  for (const auto& [name, tensor] : named) {
    const TensorF& want = checkpoint_.at(name);
    EXPECT_EQ(tensor->shape, want.shape) << name;
    EXPECT_EQ(0, std::memcmp(tensor->raw(), want.ptr(), want.size() * sizeof(float))) << name;
  }
  EXPECT_EQ(named.front().first, "gpt_neox.embed_in.weight");
  EXPECT_EQ(named.back().first, "embed_out.weight");
}

TEST_F(GptNeoxTiny, LossByPositionIsMinusLogSoftmaxOfTheLogits) {
  for (const Precision precision : {Precision::kDouble, Precision::kFloat}) {
    GptNeoxOptions options;
    options.precision = precision;
    options.loss_by_position = true;
    const poslab::GptNeoxResult both = poslab::gpt_neox_forward(weights_, kTokens, options);
    ASSERT_EQ(both.losses.shape, (poslab::Shape{kTokens.size() - 1}));
    // Against the core's own full logits, and against the reference.
    EXPECT_ALLCLOSE(both.losses, poslab::next_token_losses(both.logits, kTokens), ref::kTight);
    EXPECT_ALLCLOSE(
        both.losses,
        neox_ref::losses(reference(checkpoint_, tiny_config(), kTokens).logits, kTokens),
        ref::kAcceptance);
    options.logits = false;  // the long-context form: the same losses, no (T, V)
    const poslab::GptNeoxResult only = poslab::gpt_neox_forward(weights_, kTokens, options);
    EXPECT_EQ(only.logits.size(), 0u);
    EXPECT_EQ(only.losses.data, both.losses.data);
    EXPECT_EQ(only.top_ids, both.top_ids);
  }
  GptNeoxOptions options;
  options.loss_by_position = true;
  EXPECT_THROW(poslab::gpt_neox_forward(weights_, {5}, options), Error);  // no next token
  // Neither: the next tokens after the last position alone, from that one row of the head.
  options.logits = false;
  options.loss_by_position = false;
  const poslab::GptNeoxResult top = poslab::gpt_neox_forward(weights_, {5, 6}, options);
  GptNeoxOptions full;
  const poslab::GptNeoxResult all = poslab::gpt_neox_forward(weights_, {5, 6}, full);
  EXPECT_EQ(top.logits.size(), 0u);
  EXPECT_EQ(top.losses.size(), 0u);
  EXPECT_EQ(top.top_ids, all.top_ids);
  for (std::size_t i = 0; i < top.top_probs.size(); ++i) {
    EXPECT_NEAR(top.top_probs[i], all.top_probs[i], 1e-6) << i;
  }
}

TEST(GptNeoxHead, LossIsTheSameWhenTheVocabularyComesInSeveralPanels) {
  // V = 5000 and T = 900: the head takes the vocabulary in panels of 4660 columns.
  GptNeoxConfig c = tiny_config();
  c.dims.vocab_size = 5000;
  const poslab::GptNeoxWeights w = poslab::lm_random_weights(c, 3);
  std::vector<long long> tokens(900);
  for (std::size_t t = 0; t < tokens.size(); ++t) tokens[t] = (long long)((t * 7919) % 5000);
  GptNeoxOptions options;
  options.loss_by_position = true;
  const poslab::GptNeoxResult both = poslab::gpt_neox_forward(w, tokens, options);
  EXPECT_ALLCLOSE(both.losses, poslab::next_token_losses(both.logits, tokens), ref::kTight);
  options.logits = false;
  EXPECT_EQ(poslab::gpt_neox_forward(w, tokens, options).losses.data, both.losses.data);
}

TEST_F(GptNeoxTiny, SequenceMayRunPastTheTrainedLength) {
  // RoPE has no table: 40 tokens through a model trained on 16, as the reference computes them.
  std::vector<long long> tokens(40);
  for (std::size_t t = 0; t < tokens.size(); ++t) tokens[t] = (long long)((t * 31) % V);
  GptNeoxOptions options;
  options.precision = Precision::kDouble;
  EXPECT_ALLCLOSE(poslab::gpt_neox_forward(weights_, tokens, options).logits,
                  reference(checkpoint_, tiny_config(), tokens).logits, ref::kAcceptance);
}

TEST_F(GptNeoxTiny, BadTokensAreRefused) {
  EXPECT_THROW(poslab::gpt_neox_forward(weights_, {}), Error);
  EXPECT_THROW(poslab::gpt_neox_forward(weights_, {1, 97}), Error);
  EXPECT_THROW(poslab::gpt_neox_forward(weights_, {-1}), Error);
  try {
    poslab::gpt_neox_forward(weights_, std::vector<long long>(poslab::kMaxRopeLmTokens + 1, 0));
    ADD_FAILURE() << "accepted 65537 tokens";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "tokens");
    EXPECT_NE(std::string(e.what()).find("65536"), std::string::npos) << e.what();
  }
}

TEST(GptNeoxSizes, LogitsAndTracePastTheCapAreRefusedBeforeAnyWork) {
  // Pythia's vocabulary: (6000, 50304) logits pass the element cap; the losses do not.
  GptNeoxConfig c = tiny_config();
  c.dims.vocab_size = 50304;
  c.dims.layers = 1;
  c.dims.width = 16;
  c.dims.heads = 1;
  c.intermediate_size = 16;
  const poslab::GptNeoxWeights w = poslab::lm_random_weights(c, 1);
  const std::vector<long long> tokens(6000, 1);
  try {
    poslab::gpt_neox_forward(w, tokens);
    ADD_FAILURE() << "(6000, 50304) logits were allocated";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("loss by position"), std::string::npos) << e.what();
  }
  GptNeoxOptions options;
  options.trace = true;
  options.logits = false;
  options.loss_by_position = true;
  try {
    poslab::gpt_neox_forward(w, std::vector<long long>(20000, 1), options);
    ADD_FAILURE() << "a (1, 1, 20000, 20000) trace was allocated";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "trace");
    EXPECT_NE(std::string(e.what()).find("(N, H, T, T)"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// RoPE scaling

TEST_F(GptNeoxTiny, LinearScalingRotatesAtPositionOverFactor) {
  // Position interpolation: θ_i/f at position p is θ_i at p/f — so the scaled model equals the
  // reference run at positions 0, 1/f, 2/f, ...
  for (const double f : {2.0, 4.0}) {
    GptNeoxOptions options;
    options.precision = Precision::kDouble;
    options.rope = tiny_config().rope();
    options.rope->scaling = poslab::RopeScaling::kLinear;
    options.rope->factor = f;
    const TensorF got = poslab::gpt_neox_forward(weights_, kTokens, options).logits;
    poslab::RopeOptions unscaled = tiny_config().rope();
    const neox_ref::Result want =
        neox_ref::forward(checkpoint_, ref_config(tiny_config()), kTokens,
                          ref::rope_freqs(d, unscaled), iota_positions(kTokens.size(), 1.0 / f));
    EXPECT_ALLCLOSE(got, want.logits, ref::kAcceptance) << "f=" << f;
    // The same scaling given by config.json's rope_scaling.
    GptNeoxConfig scaled = tiny_config();
    scaled.rope_scaling = poslab::RopeScaling::kLinear;
    scaled.rope_factor = f;
    poslab::GptNeoxWeights w = weights_;
    w.config = scaled;
    options.rope.reset();
    EXPECT_EQ(poslab::gpt_neox_forward(w, kTokens, options).logits.data, got.data);
  }
}

TEST_F(GptNeoxTiny, DynamicScalingStartsPastTheTrainedLength) {
  GptNeoxOptions options;
  options.precision = Precision::kDouble;
  options.rope = tiny_config().rope();
  options.rope->scaling = poslab::RopeScaling::kDynamic;
  options.rope->factor = 2.0;  // original length: max_position_embeddings = 16
  // Up to 16 tokens: exactly the unscaled model.
  const std::vector<long long> short_tokens(kTokens.begin(), kTokens.end());
  GptNeoxOptions plain = options;
  plain.rope.reset();
  EXPECT_EQ(poslab::gpt_neox_forward(weights_, short_tokens, options).logits.data,
            poslab::gpt_neox_forward(weights_, short_tokens, plain).logits.data);
  // 24 tokens: every position rotated with the base the whole length S = 24 gives.
  std::vector<long long> tokens(24);
  for (std::size_t t = 0; t < tokens.size(); ++t) tokens[t] = (long long)((t * 13) % V);
  const TensorF got = poslab::gpt_neox_forward(weights_, tokens, options).logits;
  EXPECT_ALLCLOSE(got, reference(checkpoint_, tiny_config(), tokens, &*options.rope).logits,
                  ref::kAcceptance);
  EXPECT_FALSE(
      ref::AllClose(got, reference(checkpoint_, tiny_config(), tokens).logits, ref::kAcceptance));
}

TEST_F(GptNeoxTiny, OtherScalingsMatchTheReferenceFrequencies) {
  std::vector<long long> tokens(32);
  for (std::size_t t = 0; t < tokens.size(); ++t) tokens[t] = (long long)((t * 11) % V);
  for (const poslab::RopeScaling s :
       {poslab::RopeScaling::kNtk, poslab::RopeScaling::kYarn, poslab::RopeScaling::kLlama3}) {
    GptNeoxConfig c = tiny_config(true, 1.0);  // R = 16: room for the yarn ramp
    poslab::GptNeoxWeights w = poslab::lm_weights_from_bytes(encode(checkpoint_), c, "m");
    GptNeoxOptions options;
    options.precision = Precision::kDouble;
    options.rope = c.rope();
    options.rope->scaling = s;
    options.rope->factor = 4.0;
    const TensorF got = poslab::gpt_neox_forward(w, tokens, options).logits;
    EXPECT_ALLCLOSE(got, reference(checkpoint_, c, tokens, &*options.rope).logits, ref::kAcceptance)
        << poslab::to_string(s);
    options.precision = Precision::kFloat;
    EXPECT_TRUE(WithinOfLargest(poslab::gpt_neox_forward(w, tokens, options).logits, got, 1e-4));
  }
}

TEST_F(GptNeoxTiny, BadRotationIsRefusedWithItsField) {
  GptNeoxOptions options;
  options.rope = tiny_config().rope();
  options.rope->scaling = poslab::RopeScaling::kLinear;
  options.rope->factor = 0.5;
  try {
    poslab::gpt_neox_forward(weights_, {1, 2}, options);
    ADD_FAILURE() << "factor 0.5 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "factor");
  }
}

// ---------------------------------------------------------------------------------------------
// Checkpoints

void expect_load_refused(const std::string& bytes, const std::string& fragment,
                         const GptNeoxConfig& config = tiny_config()) {
  lm_fixture::expect_load_refused(bytes, fragment, [&](const std::string& path) {
    return poslab::load_lm_weights(path, config);
  });
}

// A safetensors file by hand: one entry of the given dtype text and byte count, the rest F32.
std::string with_raw_entry(const neox_ref::Weights& tensors, const std::string& name,
                           const std::string& dtype, const ref::Shape& shape,
                           std::size_t byte_count) {
  nlohmann::json header;
  std::string data;
  for (const auto& [n, t] : tensors) {
    header[n] = {{"dtype", "F32"},
                 {"shape", t.shape},
                 {"data_offsets", {data.size(), data.size() + t.size() * 4}}};
    data.append(reinterpret_cast<const char*>(t.ptr()), t.size() * 4);
  }
  header[name] = {{"dtype", dtype},
                  {"shape", shape},
                  {"data_offsets", {data.size(), data.size() + byte_count}}};
  data.append(byte_count, '\0');
  const std::string text = header.dump();
  std::string out(8, '\0');
  const std::uint64_t n = text.size();
  std::memcpy(&out[0], &n, 8);
  return out + text + data;
}

TEST_F(GptNeoxTiny, EveryBadCheckpointIsRefusedNamingTheTensor) {
  auto t = checkpoint_;
  t.erase("gpt_neox.layers.1.mlp.dense_h_to_4h.bias");
  expect_load_refused(encode(t), "missing tensor 'gpt_neox.layers.1.mlp.dense_h_to_4h.bias'");
  t = checkpoint_;
  t.erase("embed_out.weight");
  expect_load_refused(encode(t), "missing tensor 'embed_out.weight'");
  t = checkpoint_;
  t["gpt_neox.layers.2.input_layernorm.weight"] = TensorF({E});  // a third layer
  expect_load_refused(encode(t), "unexpected tensor 'gpt_neox.layers.2.input_layernorm.weight'");
  t = checkpoint_;
  t["lm_head.weight"] = TensorF({V, E});  // GPT-2's name, not GPT-NeoX's
  expect_load_refused(encode(t), "unexpected tensor 'lm_head.weight'");
  t = checkpoint_;
  t["gpt_neox.layers.0.attention.query_key_value.weight"] = TensorF({E, 3 * E});  // transposed
  expect_load_refused(encode(t),
                      "tensor 'gpt_neox.layers.0.attention.query_key_value.weight' has shape "
                      "(48, 144), the config needs (144, 48)");
  t = checkpoint_;
  t["gpt_neox.final_layer_norm.bias"].data[5] = NAN;
  expect_load_refused(encode(t), "tensor 'gpt_neox.final_layer_norm.bias' contains NaN");
  t = checkpoint_;
  t["gpt_neox.layers.0.mlp.dense_4h_to_h.weight"].data[0] = INFINITY;
  expect_load_refused(encode(t, poslab::StoredDType::kF16),
                      "'gpt_neox.layers.0.mlp.dense_4h_to_h.weight' contains NaN or infinity");
  // A dtype the core does not read, on a weight and on a buffer.
  t = checkpoint_;
  t.erase("gpt_neox.layers.0.attention.dense.bias");
  expect_load_refused(
      with_raw_entry(t, "gpt_neox.layers.0.attention.dense.bias", "F64", {E}, E * 8),
      "tensor 'gpt_neox.layers.0.attention.dense.bias': dtype \"F64\" is not supported");
  // A BF16 entry among F32 ones loads, held as BF16; one of the wrong byte length (an F32 tensor's,
  // or an odd count) is refused naming it.
  t = checkpoint_;
  t.erase("gpt_neox.final_layer_norm.bias");
  const poslab::GptNeoxWeights mixed = poslab::lm_weights_from_bytes(
      with_raw_entry(t, "gpt_neox.final_layer_norm.bias", "BF16", {E}, E * 2), tiny_config(),
      "mixed.safetensors");
  EXPECT_EQ(mixed.final_layer_norm_bias.dtype, poslab::StoredDType::kBF16);
  EXPECT_EQ(mixed.final_layer_norm_bias.to_float().data, std::vector<float>(E, 0.0f));
  EXPECT_EQ(mixed.embed_out.f32, checkpoint_.at("embed_out.weight").data);
  for (const std::size_t byte_count : {E * 4, E * 2 + 1}) {
    expect_load_refused(
        with_raw_entry(t, "gpt_neox.final_layer_norm.bias", "BF16", {E}, byte_count),
        "tensor 'gpt_neox.final_layer_norm.bias': shape (48,) of BF16 needs 96 bytes, "
        "data_offsets span " +
            std::to_string(byte_count));
  }
  // A BOOL causal-mask buffer (older Pythia checkpoints keep attention.bias as BOOL) is
  // skipped and the weights load as without it; a BOOL weight is refused naming it.
  const poslab::GptNeoxWeights masked = poslab::lm_weights_from_bytes(
      with_raw_entry(checkpoint_, "gpt_neox.layers.0.attention.bias", "BOOL", {1, 1, P, P}, P * P),
      tiny_config(), "mask.safetensors");
  EXPECT_EQ(masked.embed_out.f32, checkpoint_.at("embed_out.weight").data);
  t = checkpoint_;
  t.erase("gpt_neox.final_layer_norm.bias");
  expect_load_refused(with_raw_entry(t, "gpt_neox.final_layer_norm.bias", "BOOL", {E}, E),
                      "tensor 'gpt_neox.final_layer_norm.bias': dtype \"BOOL\" is not supported");
  // Truncated: the data ends before the header says.
  const std::string bytes = encode(checkpoint_);
  expect_load_refused(bytes.substr(0, bytes.size() - 100), "truncated");
  // A buffer for a layer the model does not have is not skipped.
  t = checkpoint_;
  t["gpt_neox.layers.2.attention.rotary_emb.inv_freq"] = TensorF({2});
  expect_load_refused(encode(t), "unexpected tensor 'gpt_neox.layers.2.attention.rotary_emb");
  // A checkpoint of another width.
  expect_load_refused(encode(tiny_checkpoint(1)), "has shape (97, 48), the config needs (97, 24)",
                      [] {
                        GptNeoxConfig c = tiny_config();
                        c.dims.width = 24;
                        return c;
                      }());
}

TEST_F(GptNeoxTiny, BuffersOfOlderCheckpointsAreSkipped) {
  auto t = checkpoint_;
  t["gpt_neox.layers.0.attention.rotary_emb.inv_freq"] = TensorF({2});
  t["gpt_neox.layers.1.attention.bias"] = TensorF({1, 1, P, P});
  t["gpt_neox.layers.1.attention.masked_bias"] = TensorF({1});
  t["gpt_neox.rotary_emb.inv_freq"] = TensorF({2});
  const poslab::GptNeoxWeights w = poslab::lm_weights_from_bytes(encode(t), tiny_config(), "m");
  EXPECT_EQ(poslab::gpt_neox_forward(w, kTokens).logits.data,
            poslab::gpt_neox_forward(weights_, kTokens).logits.data);
}

// The streamed loader's contract (lm_fixture.hpp), with skipped bytes between the weights.
TEST_F(GptNeoxTiny, StreamedLoadKeepsTheLoadersContract) {
  auto t = checkpoint_;
  t["gpt_neox.layers.1.attention.bias"] = TensorF({1, 1, P, P});
  lm_fixture::expect_streamed_load_contract<poslab::GptNeoxWeights>(
      encode(t, poslab::StoredDType::kF16), tiny_config());
  lm_fixture::expect_streamed_load_contract<poslab::GptNeoxWeights>(
      encode(t, poslab::StoredDType::kBF16), tiny_config());
}

TEST(GptNeoxRandom, IsSeededAndSurvivesASaveAndLoad) {
  const poslab::GptNeoxWeights a = poslab::lm_random_weights(tiny_config(), 7);
  const poslab::GptNeoxWeights b = poslab::lm_random_weights(tiny_config(), 7);
  const poslab::GptNeoxWeights c = poslab::lm_random_weights(tiny_config(), 8);
  EXPECT_EQ(a.embed_out.f32, b.embed_out.f32);
  EXPECT_NE(a.embed_in.f32, c.embed_in.f32);
  EXPECT_TRUE(std::all_of(a.layers[1].input_layernorm_weight.f32.begin(),
                          a.layers[1].input_layernorm_weight.f32.end(),
                          [](float v) { return v == 1.0f; }));
  double sq = 0;
  for (float v : a.embed_in.f32) sq += double(v) * v;
  EXPECT_NEAR(std::sqrt(sq / double(a.embed_in.size())), 0.02, 0.002);
  const poslab::GptNeoxWeights loaded = poslab::lm_weights_from_bytes(
      poslab::encode_safetensors(poslab::lm_named_tensors(a)), tiny_config(), "r");
  EXPECT_EQ(poslab::gpt_neox_forward(loaded, {1, 2, 3}).logits.data,
            poslab::gpt_neox_forward(a, {1, 2, 3}).logits.data);
  poslab::GptNeoxWeights broken = a;
  broken.layers.pop_back();
  EXPECT_THROW(poslab::gpt_neox_forward(broken, {1}), Error);
}

// ---------------------------------------------------------------------------------------------
// Configs

// EleutherAI/pythia-70m's config.json as released.
constexpr const char* kPythia70m = R"({
  "architectures": ["GPTNeoXForCausalLM"], "bos_token_id": 0, "eos_token_id": 0,
  "hidden_act": "gelu", "hidden_size": 512, "initializer_range": 0.02,
  "intermediate_size": 2048, "layer_norm_eps": 1e-05, "max_position_embeddings": 2048,
  "model_type": "gpt_neox", "num_attention_heads": 8, "num_hidden_layers": 6,
  "rotary_emb_base": 10000, "rotary_pct": 0.25, "tie_word_embeddings": false,
  "torch_dtype": "float16", "transformers_version": "4.24.0", "use_cache": true,
  "use_parallel_residual": true, "vocab_size": 50304})";

TEST(GptNeoxConfig, PythiaFromHuggingFaceJsonAndParameterCounts) {
  const GptNeoxConfig c = GptNeoxConfig::from_json(kPythia70m, "config.json");
  const GptNeoxConfig preset = GptNeoxConfig::preset("pythia-70m");
  EXPECT_EQ(c.to_json(), preset.to_json());
  EXPECT_EQ(c.head_dim(), 64);
  EXPECT_EQ(poslab::rope_frequencies(c.head_dim(), c.rope()).rotary_dim, 16);
  EXPECT_EQ(c.parameter_count(), 70426624u);  // GPTNeoXForCausalLM pythia-70m in transformers
  EXPECT_EQ(GptNeoxConfig::preset("pythia-160m").parameter_count(), 162322944u);
  EXPECT_THROW(GptNeoxConfig::preset("pythia-1b"), Error);
}

TEST(GptNeoxConfig, RoundTripsThroughJsonWithItsRopeScaling) {
  GptNeoxConfig c = tiny_config(false, 1.0);
  c.rope_scaling = poslab::RopeScaling::kYarn;
  c.rope_factor = 4.0;
  c.rope_beta_fast = 16.0;
  const GptNeoxConfig back = GptNeoxConfig::from_json(c.to_json(), "c");
  EXPECT_EQ(back.to_json(), c.to_json());
  EXPECT_FALSE(back.use_parallel_residual);
  EXPECT_EQ(back.rope().scaling, poslab::RopeScaling::kYarn);
  EXPECT_EQ(back.rope().beta_fast, 16.0);
  EXPECT_EQ(back.rope().original_length, (long long)P);
  // transformers' spellings: {"type": ...}, rope_theta, partial_rotary_factor.
  const GptNeoxConfig hf = GptNeoxConfig::from_json(
      R"({"vocab_size": 97, "hidden_size": 48, "num_hidden_layers": 2, "num_attention_heads": 3,
          "intermediate_size": 80, "rope_theta": 500, "partial_rotary_factor": 0.5,
          "rope_scaling": {"type": "dynamic", "factor": 2.0}})",
      "c");
  EXPECT_EQ(hf.rope().base, 500.0);
  EXPECT_EQ(hf.rope().rotary_fraction, 0.5);
  EXPECT_EQ(hf.rope().scaling, poslab::RopeScaling::kDynamic);
  EXPECT_EQ(hf.rope().original_length, 2048);
  // transformers 5 moves the base and the rotated fraction into rope_parameters.
  const GptNeoxConfig v5 = GptNeoxConfig::from_json(
      R"({"vocab_size": 97, "hidden_size": 48, "num_hidden_layers": 2, "num_attention_heads": 3,
          "intermediate_size": 80, "rope_parameters": {"rope_type": "default",
          "rope_theta": 500, "partial_rotary_factor": 0.5}})",
      "c");
  EXPECT_EQ(v5.rope().base, 500.0);
  EXPECT_EQ(v5.rope().rotary_fraction, 0.5);
  EXPECT_EQ(v5.rope().scaling, poslab::RopeScaling::kNone);
}

TEST(GptNeoxConfig, UnsupportedSettingsAreRefusedNamingTheKey) {
  const std::string sizes =
      R"("vocab_size": 97, "hidden_size": 48, "num_hidden_layers": 2, "num_attention_heads": 3,
         "intermediate_size": 80)";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"hidden_size": 48})", "\"vocab_size\""},
      {"{" + sizes + R"(, "hidden_act": "gelu_new"})", "hidden_act"},
      {"{" + sizes + R"(, "tie_word_embeddings": true})", "tie_word_embeddings"},
      {"{" + sizes + R"(, "attention_bias": false})", "attention_bias"},
      {"{" + sizes + R"(, "model_type": "llama"})", "model_type"},
      {"{" + sizes + R"(, "rotary_pct": 0.2})", "rotary_pct"},
      {"{" + sizes + R"(, "rotary_pct": 0.25, "partial_rotary_factor": 0.5})", "disagree"},
      {"{" + sizes + R"(, "rope_scaling": {"type": "longrope", "factor": 2}})", "longrope"},
      {"{" + sizes + R"(, "rope_scaling": {"type": "yarn", "factor": 2, "mscale": 1}})",
       "\"mscale\""},
      {"{" + sizes + R"(, "rope_scaling": {"type": "linear", "factor": 0.5}})", "factor"},
      {"{" + sizes + R"(, "rope_scaling": {"factor": 2}})", "rope_type"},
      {"{" + sizes + R"(, "num_attention_heads": 5})", "num_attention_heads"},
      {R"({"vocab_size": 50304, "hidden_size": 65536, "num_hidden_layers": 100,
           "num_attention_heads": 64, "intermediate_size": 4})",
       "parameters"},
  };
  lm_fixture::expect_configs_refused<GptNeoxConfig>(cases);
}

}  // namespace
}  // namespace gpt_neox_test

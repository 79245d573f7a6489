// The RoPE inspector: each scaling's θ_i against a float64 reference written here from
// transformers' modeling_rope_utils.py, the per-layer schemes of each family's rules, and the
// refusals.
#include "poslab/models/rope_config.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "poslab/base/errors.hpp"

namespace poslab {
namespace {

constexpr double kPi = 3.14159265358979323846;

std::vector<double> default_inv_freq(double base, int dim) {
  std::vector<double> out;
  for (int i = 0; i < dim; i += 2) out.push_back(1.0 / std::pow(base, double(i) / dim));
  return out;
}

void expect_near_all(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-12 * std::abs(want[i])) << "pair " << i;
  }
}

std::string message_of(const std::string& config) {
  try {
    inspect_rope_config(config, "c.json");
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "config");
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << config;
  return "";
}

const char* kLlama31 = R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
  "num_key_value_heads": 8, "num_hidden_layers": 32, "max_position_embeddings": 131072,
  "rope_theta": 500000.0, "vocab_size": 128256, "rope_scaling": {"factor": 8.0,
  "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192,
  "rope_type": "llama3"}})";

TEST(RopeConfig, Llama3MatchesTransformersFormula) {
  const RopeConfigReport r = inspect_rope_config(kLlama31);
  ASSERT_EQ(r.schemes.size(), 1u);
  const RopeScheme& s = r.schemes[0];
  EXPECT_EQ(s.scaling, "llama3");
  EXPECT_EQ(s.rotary_dim, 128);
  EXPECT_EQ(s.trained_context, 8192);
  EXPECT_EQ(s.trained_context_from, "rope_scaling.original_max_position_embeddings");
  EXPECT_EQ(s.reaches, 65536);
  EXPECT_EQ(s.attention_factor, 1.0);
  // _compute_llama3_parameters, in double.
  std::vector<double> want = default_inv_freq(500000.0, 128);
  int rotating = 0;
  for (double& f : want) {
    const double wavelen = 2 * kPi / f;
    if (wavelen <= 8192) ++rotating;
    if (wavelen > 8192 / 1.0) {
      f /= 8.0;
    } else if (wavelen >= 8192 / 4.0) {
      const double smooth = (8192 / wavelen - 1.0) / (4.0 - 1.0);
      f = (1 - smooth) * f / 8.0 + smooth * f;
    }
  }
  expect_near_all(s.inv_freq_scaled, want);
  expect_near_all(s.inv_freq, default_inv_freq(500000.0, 128));
  EXPECT_EQ(s.rotating_pairs, rotating);
  EXPECT_EQ(r.kv_heads, 8);
  ASSERT_EQ(r.layers.size(), 32u);
  for (const RopeLayer& l : r.layers) {
    EXPECT_EQ(l.attention, "full");
    EXPECT_EQ(l.scheme, 0);
  }
  EXPECT_EQ(s.max_distance, 65535);
  EXPECT_EQ(r.ignored_keys, std::vector<std::string>{"vocab_size"});
}

// gpt-oss: YaRN without rounding the ramp's ends (truncate false), on alternating layers.
TEST(RopeConfig, YarnWithoutTruncationOnAlternatingLayers) {
  const RopeConfigReport r = inspect_rope_config(R"({"model_type": "gpt_oss",
    "hidden_size": 2880, "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64,
    "num_hidden_layers": 4, "max_position_embeddings": 131072, "rope_theta": 150000,
    "sliding_window": 128, "layer_types": ["sliding_attention", "full_attention",
    "sliding_attention", "full_attention"], "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0,
    "factor": 32.0, "original_max_position_embeddings": 4096, "rope_type": "yarn",
    "truncate": false}})");
  ASSERT_EQ(r.schemes.size(), 1u);
  const RopeScheme& s = r.schemes[0];
  EXPECT_NEAR(s.attention_factor, 0.1 * std::log(32.0) + 1.0, 1e-15);
  EXPECT_EQ(s.reaches, 131072);
  // _compute_yarn_parameters with truncate False.
  const double dim = 64, base = 150000, N = 4096;
  auto correction = [&](double rotations) {
    return dim * std::log(N / (rotations * 2 * kPi)) / (2 * std::log(base));
  };
  const double low = std::max(correction(32.0), 0.0), high = std::min(correction(1.0), dim - 1);
  std::vector<double> want = default_inv_freq(base, 64);
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double ramp = std::clamp((double(i) - low) / (high - low), 0.0, 1.0);
    const double extrapolation = 1 - ramp;
    want[i] = want[i] / 32.0 * (1 - extrapolation) + want[i] * extrapolation;
  }
  expect_near_all(s.inv_freq_scaled, want);
  EXPECT_EQ(r.layers[0].attention, "sliding");
  EXPECT_EQ(r.layers[0].window, 128);
  EXPECT_EQ(r.layers[1].attention, "full");
  EXPECT_EQ(s.max_distance, 131071);
  EXPECT_FALSE(r.notes.empty());  // the sinks
}

TEST(RopeConfig, YarnAttentionFactorFromMscales) {
  const RopeConfigReport r = inspect_rope_config(R"({"model_type": "x", "hidden_size": 64,
    "num_attention_heads": 2, "num_hidden_layers": 1, "max_position_embeddings": 163840,
    "rope_scaling": {"type": "yarn", "factor": 40, "mscale": 1.0, "mscale_all_dim": 0.707,
    "original_max_position_embeddings": 4096}})");
  const double m = [](double s) { return 0.1 * s * std::log(40.0) + 1.0; }(1.0);
  const double all = 0.1 * 0.707 * std::log(40.0) + 1.0;
  EXPECT_NEAR(r.schemes[0].attention_factor, m / all, 1e-15);
  // rope_theta absent: the common default, said so.
  EXPECT_EQ(r.schemes[0].base, 10000.0);
  bool said = false;
  for (const std::string& note : r.notes) said |= note.find("\"rope_theta\" absent") == 0;
  EXPECT_TRUE(said);
}

// Gemma 3: multimodal (text_config), five local layers to one global, two bases, sparse keys
// filled from Gemma3TextConfig's defaults and said so.
TEST(RopeConfig, GemmaLocalAndGlobalLayersFromTextConfig) {
  const RopeConfigReport r = inspect_rope_config(R"({"model_type": "gemma3",
    "text_config": {"model_type": "gemma3_text", "hidden_size": 2560, "num_hidden_layers": 12,
    "rope_scaling": {"factor": 8.0, "rope_type": "linear"}, "sliding_window": 1024},
    "vision_config": {"model_type": "siglip_vision_model"}})");
  EXPECT_TRUE(r.text_config);
  EXPECT_EQ(r.model_type, "gemma3_text");
  EXPECT_EQ(r.head_dim, 256);
  ASSERT_EQ(r.schemes.size(), 2u);
  const RopeScheme& local = r.schemes[0];
  const RopeScheme& global = r.schemes[1];
  EXPECT_EQ(local.name, "local");
  EXPECT_EQ(local.base, 10000.0);
  EXPECT_EQ(local.scaling, "none");
  expect_near_all(local.inv_freq_scaled, default_inv_freq(10000.0, 256));
  EXPECT_EQ(local.max_distance, 1023);
  EXPECT_EQ(global.name, "global");
  EXPECT_EQ(global.base, 1e6);
  EXPECT_EQ(global.trained_context, 16384);  // max_position_embeddings / factor
  EXPECT_EQ(global.reaches, 131072);
  std::vector<double> want = default_inv_freq(1e6, 256);
  for (double& f : want) f /= 8.0;
  expect_near_all(global.inv_freq_scaled, want);
  for (std::size_t i = 0; i < r.layers.size(); ++i) {
    const bool is_global = (i + 1) % 6 == 0;
    EXPECT_EQ(r.layers[i].scheme, is_global ? 1 : 0) << i;
    EXPECT_EQ(r.layers[i].window, is_global ? 0 : 1024) << i;
  }
  EXPECT_EQ(r.ignored_keys, std::vector<std::string>{"vision_config"});
  int defaults = 0;
  for (const std::string& note : r.notes)
    defaults += note.find("gemma3_text's default") != std::string::npos;
  EXPECT_EQ(defaults, 7)
      << "heads, kv heads, head_dim, max_position_embeddings, rope_theta, pattern, local base";
}

TEST(RopeConfig, LongropeShortAndLongFactors) {
  std::string shorts, longs;
  std::vector<double> s, l;
  for (int i = 0; i < 4; ++i) {
    s.push_back(1.0 + 0.1 * i);
    l.push_back(2.0 + i);
    shorts += (i ? "," : "") + std::to_string(s.back());
    longs += (i ? "," : "") + std::to_string(l.back());
  }
  const RopeConfigReport r = inspect_rope_config(
      R"({"model_type": "phi3", "hidden_size": 32, "num_attention_heads": 4,
      "num_hidden_layers": 2, "max_position_embeddings": 131072,
      "original_max_position_embeddings": 4096, "rope_scaling": {"type": "longrope",
      "short_factor": [)" +
      shorts + R"(], "long_factor": [)" + longs + "]}}");
  const RopeScheme& sc = r.schemes[0];
  EXPECT_EQ(sc.trained_context, 4096);
  EXPECT_EQ(sc.factor, 32.0);
  EXPECT_NEAR(sc.attention_factor, std::sqrt(1 + std::log(32.0) / std::log(4096.0)), 1e-15);
  const std::vector<double> theta = default_inv_freq(10000.0, 8);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(sc.inv_freq_scaled[i], theta[i] / s[i], 1e-15);
    EXPECT_NEAR(sc.inv_freq_long[i], theta[i] / l[i], 1e-15);
  }
  EXPECT_NE(message_of(R"({"hidden_size": 32, "num_attention_heads": 4, "num_hidden_layers": 1,
      "max_position_embeddings": 8, "rope_scaling": {"type": "longrope", "short_factor": [1, 1],
      "long_factor": [1, 1, 1, 1]}})")
                .find("short_factor has 2 entries; it needs one per rotary pair, 4"),
            std::string::npos);
}

TEST(RopeConfig, NopeLayersAndChunks) {
  // SmolLM3: the list says 1 for RoPE, 0 for NoPE.
  RopeConfigReport r = inspect_rope_config(R"({"model_type": "smollm3", "hidden_size": 32,
    "num_attention_heads": 2, "num_key_value_heads": 2, "num_hidden_layers": 4,
    "max_position_embeddings": 65536, "rope_theta": 5000000.0, "no_rope_layers": [1, 1, 1, 0]})");
  EXPECT_EQ(r.layers[2].scheme, 0);
  EXPECT_EQ(r.layers[3].scheme, -1);
  // Llama 4: an empty list means every 4th layer NoPE; RoPE layers attend in chunks.
  r = inspect_rope_config(R"({"model_type": "llama4", "text_config": {"model_type":
    "llama4_text", "hidden_size": 32, "num_attention_heads": 2, "num_key_value_heads": 1,
    "num_hidden_layers": 8,
    "max_position_embeddings": 10485760, "rope_theta": 500000.0, "no_rope_layers": [],
    "attention_chunk_size": 8192}})");
  for (std::size_t i = 0; i < 8; ++i) {
    const bool nope = (i + 1) % 4 == 0;
    EXPECT_EQ(r.layers[i].scheme, nope ? -1 : 0) << i;
    EXPECT_EQ(r.layers[i].attention, nope ? "full" : "chunked") << i;
    EXPECT_EQ(r.layers[i].window, nope ? 0 : 8192) << i;
  }
}

TEST(RopeConfig, FamilyWindowRules) {
  // Qwen2: sliding only with use_sliding_window, from max_window_layers on.
  RopeConfigReport r = inspect_rope_config(R"({"model_type": "qwen2", "hidden_size": 32,
    "num_attention_heads": 2, "num_key_value_heads": 2, "num_hidden_layers": 3, "use_sliding_window": true,
    "max_window_layers": 2, "sliding_window": 64})");
  EXPECT_EQ(r.layers[1].attention, "full");
  EXPECT_EQ(r.layers[2].attention, "sliding");
  r = inspect_rope_config(R"({"model_type": "qwen2", "hidden_size": 32, "num_attention_heads": 2,
    "num_key_value_heads": 2, "num_hidden_layers": 3, "use_sliding_window": false, "sliding_window": 64})");
  EXPECT_EQ(r.layers[2].attention, "full");
  // Mistral: every layer, 4096 when absent, none when null.
  r = inspect_rope_config(R"({"model_type": "mistral", "hidden_size": 32,
    "num_attention_heads": 8, "num_hidden_layers": 2})");
  EXPECT_EQ(r.kv_heads, 8) << "MistralConfig's default";
  EXPECT_EQ(r.layers[1].window, 4096);
  r = inspect_rope_config(R"({"model_type": "mistral", "hidden_size": 32,
    "num_attention_heads": 2, "num_key_value_heads": null, "num_hidden_layers": 2,
    "sliding_window": null})");
  EXPECT_EQ(r.layers[1].attention, "full");
}

// transformers 5 writes rope_parameters, with rope_theta inside, or one per layer type.
TEST(RopeConfig, RopeParametersPerLayerType) {
  const RopeConfigReport r = inspect_rope_config(R"({"model_type": "gemma3_text",
    "hidden_size": 32, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 16,
    "num_hidden_layers": 2,
    "max_position_embeddings": 1024, "sliding_window": 8,
    "layer_types": ["sliding_attention", "full_attention"], "rope_parameters": {
    "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
    "full_attention": {"rope_type": "linear", "factor": 2.0, "rope_theta": 1000000.0}}})");
  ASSERT_EQ(r.schemes.size(), 2u);
  EXPECT_EQ(r.schemes[0].name, "sliding_attention");
  EXPECT_EQ(r.schemes[0].base, 1e4);
  EXPECT_EQ(r.schemes[1].scaling, "linear");
  EXPECT_EQ(r.schemes[1].base, 1e6);
}

// _compute_yarn_parameters (truncate true) on `dim` rotated dims, in double.
std::vector<double> yarn_reference(double base, int dim, double factor, double N) {
  auto correction = [&](double rotations) {
    return dim * std::log(N / (rotations * 2 * kPi)) / (2 * std::log(base));
  };
  const double low = std::max(std::floor(correction(32.0)), 0.0);
  const double high = std::min(std::ceil(correction(1.0)), double(dim - 1));
  std::vector<double> want = default_inv_freq(base, dim);
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double ramp = std::clamp((double(i) - low) / (high - low), 0.0, 1.0);
    want[i] = want[i] / factor * ramp + want[i] * (1 - ramp);
  }
  return want;
}

bool has_note(const RopeConfigReport& r, const std::string& fragment) {
  for (const std::string& note : r.notes) {
    if (note.find(fragment) != std::string::npos) return true;
  }
  return false;
}

// DeepSeek-V3's keys: MLA heads of 128 + 64 dims of which the 64 rotate; YaRN on those 64,
// its cos/sin factor mscale(40, 1) / mscale(40, 1) = 1 and its softmax scale
// 192^(-1/2) · mscale(40, 1)² (modeling_deepseek_v3.py), apart.
TEST(RopeConfig, DeepSeekMlaRotatesQkRopeHeadDimWithItsYarn) {
  const std::string mla = R"("model_type": "deepseek_v3", "hidden_size": 7168,
    "num_attention_heads": 128, "num_key_value_heads": 128, "num_hidden_layers": 61,
    "max_position_embeddings": 163840, "kv_lora_rank": 512, "q_lora_rank": 1536,
    "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "rope_theta": 10000,)";
  const RopeConfigReport r = inspect_rope_config("{" + mla + R"("rope_scaling": {"beta_fast": 32,
    "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
    "original_max_position_embeddings": 4096, "type": "yarn"}})");
  ASSERT_TRUE(r.mla.has_value());
  EXPECT_EQ(r.head_dim, 192);
  EXPECT_EQ(r.mla->qk_head_dim, 192);
  EXPECT_EQ(r.mla->kv_lora_rank, 512);
  EXPECT_EQ(r.mla->q_lora_rank, 1536);
  EXPECT_EQ(r.mla->v_head_dim, 128);
  EXPECT_TRUE(r.mla->interleaved);
  ASSERT_EQ(r.schemes.size(), 1u);
  const RopeScheme& s = r.schemes[0];
  EXPECT_EQ(s.rotary_dim, 64);
  EXPECT_EQ(s.trained_context, 4096);
  EXPECT_EQ(s.reaches, 163840);
  expect_near_all(s.inv_freq_scaled, yarn_reference(10000.0, 64, 40.0, 4096.0));
  const double m = 0.1 * std::log(40.0) + 1.0;
  EXPECT_NEAR(s.attention_factor, 1.0, 1e-15);
  EXPECT_NEAR(r.mla->softmax_mscale, m, 1e-15);
  EXPECT_NEAR(r.mla->softmax_scale, m * m / std::sqrt(192.0), 1e-15);
  EXPECT_TRUE(has_note(r, "\"rope_interleave\" absent: true"));
  for (const std::string& key : r.ignored_keys) EXPECT_NE(key, "qk_rope_head_dim");

  // DeepSeek-V2-Lite's keys: no query LoRA; mscale 0.707 in both places (cos/sin factor 1).
  const RopeConfigReport lite = inspect_rope_config(R"({"model_type": "deepseek_v2",
    "hidden_size": 2048, "num_attention_heads": 16, "num_hidden_layers": 27,
    "max_position_embeddings": 163840, "q_lora_rank": null, "rope_scaling": {"beta_fast": 32,
    "beta_slow": 1, "factor": 40, "mscale": 0.707, "mscale_all_dim": 0.707,
    "original_max_position_embeddings": 4096, "type": "yarn"}})");
  EXPECT_EQ(lite.mla->q_lora_rank, 0);
  EXPECT_EQ(lite.kv_heads, 16);  // None → H
  const double m2 = 0.1 * 0.707 * std::log(40.0) + 1.0;
  EXPECT_NEAR(lite.schemes[0].attention_factor, 1.0, 1e-15);
  EXPECT_NEAR(lite.mla->softmax_scale, m2 * m2 / std::sqrt(192.0), 1e-15);
  EXPECT_TRUE(has_note(lite, "\"qk_rope_head_dim\" absent: 64 (deepseek_v2's default)"));
  EXPECT_TRUE(has_note(lite, "DeepseekV2Attention scales scores by qk_head_dim^-1/2 alone"));
  // Different mscales: the cos/sin factor is their ratio, the softmax reads mscale_all_dim.
  const RopeConfigReport ratio = inspect_rope_config("{" + mla + R"("rope_scaling": {
    "factor": 40, "mscale": 1.0, "mscale_all_dim": 0.5, "original_max_position_embeddings": 4096,
    "type": "yarn"}})");
  const double all = 0.1 * 0.5 * std::log(40.0) + 1.0;
  EXPECT_NEAR(ratio.schemes[0].attention_factor, m / all, 1e-15);
  EXPECT_NEAR(ratio.mla->softmax_scale, all * all / std::sqrt(192.0), 1e-15);
  // No scaling: qk_head_dim^(-1/2) alone.
  const RopeConfigReport plain = inspect_rope_config("{" + mla + R"("rope_scaling": null})");
  EXPECT_NEAR(plain.mla->softmax_scale, 1.0 / std::sqrt(192.0), 1e-15);
}

// Llama-4-Scout-17B-16E's rope_scaling (factor 16, low = high = 1, as transformers accepts):
// no pair is smoothed; its NoPE layers' queries scaled by 1 + 0.1 ln(1 + floor((p+1)/8192)).
TEST(RopeConfig, LlamaFourEqualBandFactorsAndNopeTemperature) {
  const std::string scout = R"({"model_type": "llama4", "text_config": {"model_type":
    "llama4_text", "hidden_size": 5120, "num_attention_heads": 40, "num_key_value_heads": 8,
    "head_dim": 128, "num_hidden_layers": 48, "max_position_embeddings": 262144,
    "no_rope_layers": [], "attention_chunk_size": 8192, "rope_theta": 500000.0,
    "use_qk_norm": true, "rope_scaling": {"factor": 16.0, "high_freq_factor": 1.0,
    "low_freq_factor": 1.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"})";
  const RopeConfigReport r = inspect_rope_config(scout + "}}");
  ASSERT_EQ(r.schemes.size(), 1u);
  std::vector<double> want = default_inv_freq(500000.0, 128);
  for (double& f : want) {
    if (2 * kPi / f > 8192.0) f /= 16.0;
  }
  expect_near_all(r.schemes[0].inv_freq_scaled, want);
  ASSERT_TRUE(r.temperature.has_value());
  const RopeTemperature& t = *r.temperature;
  EXPECT_EQ(t.floor_scale, 8192.0);
  EXPECT_EQ(t.attn_scale, 0.1);
  ASSERT_EQ(t.positions.size(), 33u);  // 0, then the first position of each of 32 steps
  EXPECT_EQ(t.positions[0], 0);
  EXPECT_EQ(t.positions[1], 8191);
  EXPECT_EQ(t.positions.back(), 262143);
  for (std::size_t i = 0; i < t.positions.size(); ++i) {
    const double p = double(t.positions[i]);
    EXPECT_NEAR(t.scales[i], 1.0 + 0.1 * std::log(1.0 + std::floor((p + 1.0) / 8192.0)), 1e-15);
  }
  EXPECT_TRUE(has_note(r, "\"attn_temperature_tuning\" absent: true (llama4_text's default)"));
  EXPECT_TRUE(has_note(r, "\"text_config.use_qk_norm\" not modelled"));
  for (const char* key : {"attn_temperature_tuning", "floor_scale", "attn_scale"}) {
    for (const std::string& ignored : r.ignored_keys)
      EXPECT_EQ(ignored.find(key), std::string::npos);
  }
  // Given: attn_temperature_tuning 4 (the first release's) reads as true, said so; false: off.
  const RopeConfigReport four = inspect_rope_config(
      scout + R"(, "attn_temperature_tuning": 4, "floor_scale": 4096, "attn_scale": 0.2}})");
  EXPECT_EQ(four.temperature->floor_scale, 4096.0);
  EXPECT_NEAR(four.temperature->scales[1], 1.0 + 0.2 * std::log(2.0), 1e-15);
  EXPECT_TRUE(has_note(four, "\"attn_temperature_tuning\" 4 read as true"));
  EXPECT_FALSE(inspect_rope_config(scout + R"(, "attn_temperature_tuning": false}})").temperature);
  // Misordered band factors stay refused.
  EXPECT_NE(message_of(R"({"hidden_size": 32, "num_attention_heads": 4, "num_hidden_layers": 1,
      "max_position_embeddings": 64, "rope_scaling": {"rope_type": "llama3", "factor": 8,
      "low_freq_factor": 4, "high_freq_factor": 1, "original_max_position_embeddings": 16}})")
                .find("low_freq_factor <= high_freq_factor"),
            std::string::npos);
}

// get_rope_index (modeling_qwen2_vl.py) for text, one image (t = 1, h, w patches) and text,
// written here the way transformers walks it.
struct ThreeIds {
  std::vector<long long> t, h, w;
};
ThreeIds get_rope_index(long long before, long long h, long long w, long long after,
                        long long merge) {
  ThreeIds ids;
  const auto append = [&](long long t, long long hh, long long ww) {
    ids.t.push_back(t);
    ids.h.push_back(hh);
    ids.w.push_back(ww);
  };
  long long st_idx = 0;
  for (long long i = 0; i < before; ++i) append(st_idx + i, st_idx + i, st_idx + i);
  const long long grid_h = h / merge, grid_w = w / merge, text_len = before;
  long long largest = before - 1;
  for (long long k = 0; k < grid_h * grid_w; ++k) {
    const long long t_index = 0, h_index = k / grid_w, w_index = k % grid_w;
    append(t_index + text_len + st_idx, h_index + text_len + st_idx, w_index + text_len + st_idx);
    largest = std::max({largest, ids.t.back(), ids.h.back(), ids.w.back()});
  }
  st_idx = largest + 1;
  for (long long i = 0; i < after; ++i) append(st_idx + i, st_idx + i, st_idx + i);
  return ids;
}

TEST(RopeConfig, MropeAxesAndTheSamplePromptsPositions) {
  // Qwen2-VL: blocks of 16, 24, 24 pairs (apply_multimodal_rotary_pos_emb's split of cos, twice).
  const std::string qwen2 = R"({"model_type": "qwen2_vl", "hidden_size": 3584,
    "num_attention_heads": 28, "num_key_value_heads": 4, "num_hidden_layers": 28,
    "max_position_embeddings": 32768, "rope_theta": 1000000.0, "use_sliding_window": false,
    "vision_config": {"spatial_merge_size": 2},
    "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}})";
  RopeConfigReport r = inspect_rope_config(qwen2);
  ASSERT_TRUE(r.mrope.has_value());
  EXPECT_FALSE(r.mrope->interleaved);
  EXPECT_EQ(r.mrope->axes, std::string(16, 't') + std::string(24, 'h') + std::string(24, 'w'));
  EXPECT_EQ(r.schemes[0].scaling, "none");
  for (const std::string& key : r.ignored_keys) EXPECT_NE(key, "vision_config");
  const RopeSample sample;  // 3 text, 6 × 8 patches, 2 text
  ThreeIds want = get_rope_index(3, 6, 8, 2, 2);
  EXPECT_EQ(r.mrope->t, want.t);
  EXPECT_EQ(r.mrope->h, want.h);
  EXPECT_EQ(r.mrope->w, want.w);
  EXPECT_EQ(r.mrope->tokens, "TTT" + std::string(12, 'I') + "TT");
  EXPECT_EQ(r.mrope->delta, 9 - 17);  // the last id 8, 17 tokens
  // Another sample: 5 text, 4 × 14 patches (2 × 7 tokens), 3 text; a merge of 1.
  r = inspect_rope_config(qwen2, "c", RopeSample{5, 4, 14, 3});
  want = get_rope_index(5, 4, 14, 3, 2);
  EXPECT_EQ(r.mrope->w, want.w);
  EXPECT_EQ(r.mrope->t, want.t);
  // Qwen3-VL: interleaved t h w t h w …, [24, 20, 20] by default (apply_interleaved_mrope).
  r = inspect_rope_config(R"({"model_type": "qwen3_vl", "text_config": {"model_type":
    "qwen3_vl_text", "hidden_size": 2048, "num_attention_heads": 16, "num_hidden_layers": 2},
    "vision_config": {"spatial_merge_size": 2}})");
  ASSERT_TRUE(r.mrope.has_value());
  EXPECT_TRUE(r.mrope->interleaved);
  std::string axes(64, 't');
  for (int i = 1; i < 60; i += 3) axes[std::size_t(i)] = 'h';
  for (int i = 2; i < 60; i += 3) axes[std::size_t(i)] = 'w';
  EXPECT_EQ(r.mrope->axes, axes);
  EXPECT_TRUE(has_note(r, "\"rope_scaling.mrope_section\" absent: [24, 20, 20]"));
  // Blocks must cover the pairs; the image must make one merged token at least.
  EXPECT_NE(message_of(R"({"model_type": "qwen2_vl", "hidden_size": 64,
      "num_attention_heads": 2, "num_hidden_layers": 1, "rope_scaling": {"type": "mrope",
      "mrope_section": [4, 4, 4]}})")
                .find("mrope_section sums to 12 pairs; the rotary dim has 16"),
            std::string::npos);
  try {
    inspect_rope_config(qwen2, "c", RopeSample{1, 1, 8, 1});
    ADD_FAILURE() << "a sample under one merged token was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "sample");
  }
}

TEST(RopeConfig, KeysThatChangePositionMathAreSaidNotModelled) {
  const RopeConfigReport r = inspect_rope_config(R"({"hidden_size": 32,
    "num_attention_heads": 4, "num_hidden_layers": 1, "max_position_embeddings": 64,
    "use_qk_norm": true, "clip_qkv": 8, "rotary_dim": 4, "vocab_size": 10,
    "rope_scaling": {"rope_type": "yarn", "factor": 4, "attn_factor": 0.9}})");
  for (const char* key : {"use_qk_norm", "clip_qkv", "rotary_dim", "rope_scaling.attn_factor"}) {
    EXPECT_TRUE(has_note(r, "\"" + std::string(key) + "\" not modelled")) << key;
  }
  EXPECT_FALSE(has_note(r, "vocab_size"));
}

TEST(RopeConfig, BadConfigsAreRefusedNamingTheKey) {
  const std::string sizes =
      R"("hidden_size": 32, "num_attention_heads": 4, "num_hidden_layers": 2, "max_position_embeddings": 64)";
  auto refused = [&](const std::string& more, const std::string& fragment) {
    const std::string message = message_of("{" + sizes + more + "}");
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
  };
  EXPECT_NE(message_of("not json").find("not valid JSON"), std::string::npos);
  EXPECT_NE(message_of("[1]").find("JSON object"), std::string::npos);
  EXPECT_NE(message_of(R"({"num_attention_heads": 4})").find("hidden_size"), std::string::npos);
  refused(R"(, "rope_scaling": {"rope_type": "magic", "factor": 2})", "rope type \"magic\"");
  refused(R"(, "rope_scaling": {"rope_type": "linear", "factor": 0})", "\"factor\"");
  refused(R"(, "rope_scaling": {"rope_type": "linear"})", "\"factor\" is required");
  refused(R"(, "rope_scaling": {"rope_type": "llama3", "factor": 8})",
          "original_max_position_embeddings");
  refused(R"(, "num_key_value_heads": 3)", "does not divide");
  refused(R"(, "head_dim": 7)", "even");
  refused(R"(, "layer_types": ["full_attention"])", "layer_types");
  refused(R"(, "no_rope_layers": [1, 2])", "no_rope_layers");
  refused(R"(, "layer_types": ["sliding_attention", "full_attention"])", "sliding_window");
  EXPECT_NE(message_of(R"({"model_type": "gpt2", "n_embd": 8})").find("learns absolute"),
            std::string::npos);
}

}  // namespace
}  // namespace poslab

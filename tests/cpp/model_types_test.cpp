// The model-type table (poslab/models/model_types.hpp): the runtime (LlamaConfig::from_json,
// GptNeoxConfig::from_json) and the RoPE inspector read the same config.json to the same
// heads, kv heads, head width, bases, context, rotated dims, sliding layers and windows and NoPE
// layers — for every model type the runtime runs, with and without each optional key — and each
// type's defaults are transformers' (configuration_<type>.py), the inspector-only types included.
#include "poslab/models/model_types.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "poslab/base/errors.hpp"
#include "poslab/models/gpt_neox.hpp"
#include "poslab/models/llama.hpp"
#include "poslab/models/rope_config.hpp"
#include "poslab/positions/rope.hpp"

namespace poslab {
namespace {

using Json = nlohmann::json;

// What both readers say of a config: one line per fact, so a disagreement prints as a diff.
struct Facts {
  long long heads = 0, kv_heads = 0, head_dim = 0, context = 0, rotary_dim = 0;
  std::vector<double> base;       // per layer; 0 for NoPE
  std::vector<long long> window;  // per layer; 0 for full
  std::string text() const {
    std::ostringstream out;
    out << "heads " << heads << ", kv_heads " << kv_heads << ", head_dim " << head_dim
        << ", context " << context << ", rotary_dim " << rotary_dim << "\nbase";
    for (double b : base) out << ' ' << b;
    out << "\nwindow";
    for (long long w : window) out << ' ' << w;
    return out.str();
  }
};

Facts inspected(const std::string& text) {
  const RopeConfigReport r = inspect_rope_config(text, "c");
  Facts f{r.heads, r.kv_heads, r.head_dim, r.max_position_embeddings, 0, {}, {}};
  for (const RopeLayer& layer : r.layers) {
    const RopeScheme* s = layer.scheme < 0 ? nullptr : &r.schemes[std::size_t(layer.scheme)];
    f.base.push_back(s ? s->base : 0.0);
    f.window.push_back(layer.attention == "sliding" ? layer.window : 0);
    if (s) f.rotary_dim = s->rotary_dim;
  }
  return f;
}

Facts run_llama(const std::string& text) {
  const LlamaConfig c = LlamaConfig::from_json(text, "c");
  Facts f{c.dims.heads, c.num_key_value_heads, c.head_dim(), c.dims.context, 0, {}, {}};
  f.rotary_dim = rope_frequencies(c.head_dim(), c.rope()).rotary_dim;
  for (std::size_t i = 0; i < std::size_t(c.dims.layers); ++i) {
    f.base.push_back(c.nope(i) ? 0.0 : c.layer_rope(i, c.rope()).base);
    f.window.push_back(c.window_of(i));
  }
  return f;
}

Facts run_gpt_neox(const std::string& text) {
  const GptNeoxConfig c = GptNeoxConfig::from_json(text, "c");
  Facts f{c.dims.heads, c.dims.heads, c.head_dim(), c.dims.context, 0, {}, {}};
  f.rotary_dim = rope_frequencies(c.head_dim(), c.rope()).rotary_dim;
  f.base.assign(std::size_t(c.dims.layers), c.rope().base);
  f.window.assign(std::size_t(c.dims.layers), 0);
  return f;
}

// The message of what `read` throws, or "" when it reads.
std::string refusal(const std::function<Facts()>& read, Facts& out) {
  try {
    out = read();
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

// A config.json's optional keys: each key's variants (absent is always one of them).
struct Option {
  const char* key;
  std::vector<Json> values;
};

// Every combination of `options` (absent or one of its values) on top of `base`.
void for_each_config(const Json& base, const std::vector<Option>& options,
                     const std::function<void(const Json&)>& visit, std::size_t k = 0) {
  if (k == options.size()) return visit(base);
  for_each_config(base, options, visit, k + 1);  // absent
  for (const Json& v : options[k].values) {
    Json with = base;
    with[options[k].key] = v;
    for_each_config(with, options, visit, k + 1);
  }
}

// 32 heads over 256 (d = 8) and 7 layers: every type's default kv heads divide the heads, and
// Gemma's default pattern of 6 leaves one full layer.
Json sizes(const char* model_type) {
  return {{"model_type", model_type}, {"vocab_size", 16},          {"hidden_size", 256},
          {"num_hidden_layers", 7},   {"num_attention_heads", 32}, {"intermediate_size", 16}};
}

const Json kNull = nullptr;
const Json kLayerTypes = {"sliding_attention", "full_attention",    "sliding_attention",
                          "full_attention",    "sliding_attention", "sliding_attention",
                          "full_attention"};

// Both readers on every combination; returns how many configs both accepted.
int expect_agreement(const char* model_type, const std::vector<Option>& options,
                     const std::function<Facts(const std::string&)>& run) {
  int accepted = 0, disagreements = 0;
  for_each_config(sizes(model_type), options, [&](const Json& config) {
    const std::string text = config.dump();
    Facts runtime, inspector;
    const std::string a = refusal([&] { return run(text); }, runtime);
    const std::string b = refusal([&] { return inspected(text); }, inspector);
    // The inspector may read what the runtime refuses (a setting this forward pass does not
    // compute); the converse, or two readings that differ, is a disagreement.
    const bool agree = a.empty() ? b.empty() && runtime.text() == inspector.text() : true;
    accepted += a.empty() && b.empty();
    if (!agree && ++disagreements <= 3) {
      ADD_FAILURE() << text << "\nruntime:   " << (a.empty() ? runtime.text() : a)
                    << "\ninspector: " << (b.empty() ? inspector.text() : b);
    }
  });
  EXPECT_EQ(disagreements, 0) << model_type;
  return accepted;
}

const std::vector<Option> kCommon = {
    {"num_key_value_heads", {2, kNull}},
    {"head_dim", {16, kNull}},
    {"max_position_embeddings", {512}},
    {"rope_theta", {500000.0}},
};

std::vector<Option> with(std::vector<Option> options, const std::vector<Option>& more) {
  options.insert(options.end(), more.begin(), more.end());
  return options;
}

TEST(ModelTypes, RuntimeAndInspectorAgreeOnLlama) {
  // Keys llama does not read must change neither reading.
  EXPECT_EQ(
      expect_agreement(
          "llama", with(kCommon, {{"sliding_window", {64, kNull}}, {"layer_types", {kLayerTypes}}}),
          run_llama),
      3 * 3 * 2 * 2 * 3 * 2);
}

TEST(ModelTypes, RuntimeAndInspectorAgreeOnMistral) {
  EXPECT_GT(expect_agreement(
                "mistral",
                with(kCommon, {{"sliding_window", {64, kNull}}, {"layer_types", {kLayerTypes}}}),
                run_llama),
            0);
}

TEST(ModelTypes, RuntimeAndInspectorAgreeOnQwen) {
  for (const char* type : {"qwen2", "qwen3"}) {
    EXPECT_GT(expect_agreement(type,
                               with(kCommon, {{"sliding_window", {64, kNull}},
                                              {"use_sliding_window", {true, false}},
                                              {"max_window_layers", {3}},
                                              {"layer_types", {kLayerTypes}}}),
                               run_llama),
              0)
        << type;
  }
}

TEST(ModelTypes, RuntimeAndInspectorAgreeOnGemma3Text) {
  EXPECT_GT(expect_agreement("gemma3_text",
                             with(kCommon, {{"sliding_window", {64, kNull}},
                                            {"sliding_window_pattern", {3}},
                                            {"_sliding_window_pattern", {2}},
                                            {"rope_local_base_freq", {20000.0}},
                                            {"layer_types", {kLayerTypes}}}),
                             run_llama),
            0);
}

TEST(ModelTypes, RuntimeAndInspectorAgreeOnSmolLM3) {
  // NoPE layers from no_rope_layers (1 rotates, 0 not; the list wins over the interval) or every
  // no_rope_layer_interval-th; with use_sliding_window and a sliding_window the NoPE layers slide
  // unless layer_types says; a sliding layer without a window is refused by both.
  const Json kNoRopeLayers = {1, 0, 1, 1, 0, 1, 1};
  EXPECT_GT(expect_agreement("smollm3",
                             with(kCommon, {{"no_rope_layers", {kNoRopeLayers, kNull}},
                                            {"no_rope_layer_interval", {2}},
                                            {"use_sliding_window", {true, false}},
                                            {"sliding_window", {64, kNull}},
                                            {"layer_types", {kLayerTypes}}}),
                             run_llama),
            0);
}

TEST(ModelTypes, RuntimeAndInspectorAgreeOnGptNeox) {
  // GPT-NeoX reads neither num_key_value_heads nor head_dim; two spellings of base and fraction.
  EXPECT_GT(expect_agreement("gpt_neox",
                             {{"num_key_value_heads", {2}},
                              {"head_dim", {16}},
                              {"max_position_embeddings", {512}},
                              {"rotary_emb_base", {500000.0}},
                              {"rope_theta", {500000.0, 20000.0}},
                              {"rotary_pct", {0.5}},
                              {"partial_rotary_factor", {0.5, 1.0}}},
                             run_gpt_neox),
            0);
}

// Each type's defaults as transformers' configuration_<type>.py sets them, through the
// inspector (every row) and the runtime (the rows it runs).
struct Expected {
  const char* model_type;
  long long kv_heads, head_dim, context;
  double base, local_base;
  std::vector<long long> window;  // the 7 layers'
  std::vector<bool> nope;         // empty: none
};

TEST(ModelTypes, DefaultsAreTransformers) {
  const std::vector<long long> none(7, 0), every(7, 4096);
  const std::vector<Expected> types = {
      {"llama", 32, 8, 2048, 1e4, 0, none, {}},
      {"mistral", 8, 8, 131072, 1e4, 0, every, {}},  // MistralConfig: 8 kv heads
      {"qwen2", 32, 8, 32768, 1e4, 0, none, {}},     // use_sliding_window false
      {"qwen3", 32, 128, 32768, 1e4, 0, none, {}},
      {"gemma3_text", 4, 256, 131072, 1e6, 1e4, {4096, 4096, 4096, 4096, 4096, 0, 4096}, {}},
      {"gpt_neox", 32, 8, 2048, 1e4, 0, none, {}},
      {"smollm3", 4, 8, 32768, 2e6, 0, none, {0, 0, 0, 1, 0, 0, 0}},
      {"llama4_text", 8, 128, 131072, 5e5, 0, none, {0, 0, 0, 1, 0, 0, 0}},
      {"gpt_oss", 8, 64, 131072, 150000, 0, {128, 0, 128, 0, 128, 0, 128}, {}},
      // MLA: qk_nope_head_dim 128 + qk_rope_head_dim 64; DeepseekV3Config's 128 kv heads.
      {"deepseek_v2", 32, 192, 2048, 1e4, 0, none, {}},
      {"deepseek_v3", 128, 192, 4096, 1e4, 0, none, {}},
      {"qwen2_vl_text", 8, 8, 32768, 1e6, 0, none, {}},  // use_sliding_window false
      {"qwen2_5_vl_text", 8, 8, 32768, 1e6, 0, none, {}},
      {"qwen3_vl_text", 32, 128, 128000, 5e6, 0, none, {}},
  };
  ASSERT_EQ(types.size(), model_types().count) << "one expectation per row";
  for (const Expected& t : types) {
    SCOPED_TRACE(t.model_type);
    const std::string text = sizes(t.model_type).dump();
    const RopeConfigReport r = inspect_rope_config(text, "c");
    EXPECT_EQ(r.kv_heads, t.kv_heads);
    EXPECT_EQ(r.head_dim, t.head_dim);
    EXPECT_EQ(r.max_position_embeddings, t.context);
    for (std::size_t i = 0; i < 7; ++i) {
      const bool nope = !t.nope.empty() && t.nope[i];
      ASSERT_EQ(r.layers[i].scheme < 0, nope) << i;
      if (nope) continue;
      const bool sliding = t.window[i] > 0;
      EXPECT_EQ(r.layers[i].attention == "sliding" ? r.layers[i].window : 0, t.window[i]) << i;
      const double base = sliding && t.local_base > 0 ? t.local_base : t.base;
      EXPECT_EQ(r.schemes[std::size_t(r.layers[i].scheme)].base, base) << i;
    }
    const bool runs =
        t.model_type != std::string("llama4_text") && t.model_type != std::string("gpt_oss");
    if (runs && find_model_type(t.model_type)->extra == ModelTypeExtra::kNone) {
      const bool neox = t.model_type == std::string("gpt_neox");
      EXPECT_EQ(inspected(text).text(), (neox ? run_gpt_neox(text) : run_llama(text)).text());
    }
  }
  // GPT-NeoX rotates a quarter of each head (rotary_pct 0.25); Llama 4 chunks its RoPE layers.
  EXPECT_EQ(inspected(sizes("gpt_neox").dump()).rotary_dim, 2);
  const RopeConfigReport llama4 = inspect_rope_config(sizes("llama4_text").dump(), "c");
  EXPECT_EQ(llama4.layers[0].attention, "chunked");
  EXPECT_EQ(llama4.layers[0].window, 8192);
}

TEST(ModelTypes, OneRowPerTypeAndWrappersFindTheirText) {
  std::vector<std::string> names;
  for (const ModelType& t : model_types()) {
    for (const std::string& seen : names) EXPECT_NE(seen, t.name);
    names.push_back(t.name);
    EXPECT_EQ(find_model_type(t.name), &t);
  }
  EXPECT_EQ(find_model_type("gemma3")->name, std::string("gemma3_text"));
  EXPECT_EQ(find_model_type("llama4")->name, std::string("llama4_text"));
  EXPECT_EQ(find_model_type("qwen2_vl")->name, std::string("qwen2_vl_text"));
  EXPECT_EQ(find_model_type("qwen2_5_vl")->name, std::string("qwen2_5_vl_text"));
  EXPECT_EQ(find_model_type("qwen3_vl")->name, std::string("qwen3_vl_text"));
  EXPECT_EQ(find_model_type("phi3"), nullptr);
  EXPECT_EQ(&model_type_row("phi3"), &generic_model_type());
  // Every runtime architecture but GPT-2 (learned positions) has its row.
  for (const auto& entry : kLmArchitectureNames) {
    if (entry.value != LmArchitecture::kGpt2) {
      EXPECT_NE(find_model_type(entry.name), nullptr) << entry.name;
    }
  }
  const Json json = Json::parse(model_types_json());
  ASSERT_EQ(json.size(), model_types().count);
  EXPECT_EQ(json[1]["name"], "mistral");
  EXPECT_EQ(json[1]["sizes"]["kv_heads"], 8);
  EXPECT_EQ(json[2]["layers"]["sliding"], "from");
  EXPECT_EQ(json[2]["layers"]["use_sliding_window"], "off");
  EXPECT_EQ(json[4]["rotation"]["local_base"], 1e4);
  EXPECT_EQ(json[0]["extra"], "none");
  EXPECT_EQ(json[7]["extra"], "temperature");
}

}  // namespace
}  // namespace poslab

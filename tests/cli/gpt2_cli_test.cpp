// `poslab gpt2` end to end: a tiny model from config.json, random init and a checkpoint
// written by the test; logits equal to the core's forward pass; the trace directory and its
// index; bad token ids, missing files and conflicting options refused cleanly.
#include <nlohmann/json.hpp>

#include "fixtures.hpp"
#include "poslab/io/npy.hpp"
#include "poslab/io/safetensors.hpp"
#include "poslab/models/gpt2.hpp"

namespace poslab::test {
namespace {

constexpr const char* kTinyConfig =
    R"({"vocab_size": 100, "n_positions": 16, "n_embd": 32, "n_layer": 2, "n_head": 4,
        "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"})";

class Gpt2Cli : public Cli {
 protected:
  void SetUp() override {
    Cli::SetUp();
    put("tiny.json", kTinyConfig);
  }
  Gpt2Config tiny() const { return Gpt2Config::from_json(kTinyConfig, "tiny.json"); }
};

TEST_F(Gpt2Cli, RandomInitMatchesTheCoreAndIsSeeded) {
  const TensorF logits = run_npy({"gpt2", "--config", "tiny.json", "--tokens", "3,14,15,92",
                                  "--seed", "5", "-o", "logits.npy"},
                                 "logits.npy");
  ASSERT_EQ(logits.shape, (Shape{4, 100}));
  const Gpt2Result core = gpt2_forward(lm_random_weights(tiny(), 5), {3, 14, 15, 92});
  EXPECT_EQ(logits.data, core.logits.data);
  const TensorF other = run_npy(
      {"gpt2", "--config", "tiny.json", "--tokens", "3,14,15,92", "--seed", "6", "-o", "b.npy"},
      "b.npy");
  EXPECT_NE(other.data, logits.data);
}

TEST_F(Gpt2Cli, CheckpointIsLoadedAndTraced) {
  const Gpt2Weights weights = lm_random_weights(tiny(), 11);
  put("model.safetensors", encode_safetensors(lm_named_tensors(weights)));
  const TensorF logits =
      run_npy({"gpt2", "--weights", "model.safetensors", "--config", "tiny.json", "--tokens",
               "1,2,3", "--trace", "trace", "--top-k", "5", "-o", "logits.npy"},
              "logits.npy");
  const Gpt2Result core = gpt2_forward(weights, {1, 2, 3});
  EXPECT_EQ(logits.data, core.logits.data);

  const nlohmann::json index = nlohmann::json::parse(read_file(path("trace/index.json")));
  EXPECT_EQ(index["model"]["n_layer"], 2);
  EXPECT_EQ(index["tokens"], (std::vector<int>{1, 2, 3}));
  std::set<std::string> names;
  for (const auto& entry : index["tensors"]) {
    names.insert(entry["name"].get<std::string>());
    // Every listed file exists with the listed shape.
    const TensorF t = read_npy(path("trace/" + entry["file"].get<std::string>()));
    EXPECT_EQ(t.shape, entry["shape"].get<Shape>()) << entry["file"];
  }
  for (const char* name :
       {"attention_layer0", "attention_layer1", "ln_1_mean", "ln_1_variance", "ln_2_mean",
        "ln_2_variance", "resid_attn_norm", "resid_mlp_norm", "top_k_ids", "top_k_probs"}) {
    EXPECT_EQ(names.count(name), 1u) << name;
  }
  EXPECT_EQ(read_npy(path("trace/attention_layer1.npy")).data, core.layers[1].attention.data);
  EXPECT_EQ(read_npy(path("trace/attention_layer0.npy")).shape, (Shape{4, 3, 3}));
  EXPECT_EQ(read_npy(path("trace/resid_mlp_norm.npy")).shape, (Shape{2, 3}));
  const TensorF ids = read_npy(path("trace/top_k_ids.npy"));
  ASSERT_EQ(ids.shape, (Shape{5}));
  for (std::size_t k = 0; k < 5; ++k) EXPECT_EQ(ids.data[k], float(core.top_ids[k]));
}

TEST_F(Gpt2Cli, Fp16CheckpointWithTransformerPrefixLoads) {
  const Gpt2Weights weights = lm_random_weights(tiny(), 3);
  std::vector<TensorF> values;
  std::vector<std::pair<std::string, const TensorF*>> named;
  for (const auto& [name, tensor] : lm_named_tensors(weights)) values.push_back(tensor->to_float());
  for (const auto& [name, tensor] : lm_named_tensors(weights)) {
    named.emplace_back("transformer." + name, &values[named.size()]);
  }
  put("half.safetensors", encode_safetensors(named, StoredDType::kF16));
  const TensorF logits = run_npy({"gpt2", "--weights", "half.safetensors", "--config", "tiny.json",
                                  "--tokens", "7", "-o", "l.npy"},
                                 "l.npy");
  EXPECT_EQ(logits.shape, (Shape{1, 100}));
}

TEST_F(Gpt2Cli, BadTokenIdsAreRefused) {
  expect_refused_saying({"gpt2", "--config", "tiny.json", "--tokens", "1,100", "-o", "l.npy"},
                        "vocabulary");
  expect_usage_error({"gpt2", "--config", "tiny.json", "--tokens", "1,-2", "-o", "l.npy"});
  expect_usage_error({"gpt2", "--config", "tiny.json", "--tokens", "1,,2", "-o", "l.npy"});
  expect_usage_error({"gpt2", "--config", "tiny.json", "--tokens", "abc", "-o", "l.npy"});
  expect_refused_saying({"gpt2", "--config", "tiny.json", "--tokens",
                         "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", "-o", "l.npy"},
                        "n_positions");
}

TEST_F(Gpt2Cli, MissingOrBadFilesAreRefused) {
  expect_refused_saying({"gpt2", "--weights", "nope.safetensors", "--config", "tiny.json",
                         "--tokens", "1", "-o", "l.npy"},
                        "nope.safetensors");
  expect_refused_saying({"gpt2", "--config", "missing.json", "--tokens", "1", "-o", "l.npy"},
                        "missing.json");
  put("junk.safetensors", "this is not a safetensors file");
  expect_refused_saying({"gpt2", "--weights", "junk.safetensors", "--config", "tiny.json",
                         "--tokens", "1", "-o", "l.npy"},
                        "junk.safetensors");
  // A checkpoint of another size: the message names the tensor.
  Gpt2Config wider = tiny();
  wider.dims.width = 64;
  const Gpt2Weights w = lm_random_weights(wider, 1);
  put("wide.safetensors", encode_safetensors(lm_named_tensors(w)));
  expect_refused_saying({"gpt2", "--weights", "wide.safetensors", "--config", "tiny.json",
                         "--tokens", "1", "-o", "l.npy"},
                        "tensor 'h.0.attn.c_attn.bias' has shape (192,)");
}

TEST_F(Gpt2Cli, ConflictingOptionsAreUsageErrors) {
  put("m.safetensors", "");
  expect_usage_error({"gpt2", "--weights", "m.safetensors", "--seed", "1", "--config", "tiny.json",
                      "--tokens", "1", "-o", "l.npy"});
  expect_usage_error(
      {"gpt2", "--preset", "medium", "--config", "tiny.json", "--tokens", "1", "-o", "l.npy"});
  expect_usage_error({"gpt2", "--preset", "large", "--tokens", "1", "-o", "l.npy"});
  expect_usage_error({"gpt2", "--config", "tiny.json", "-o", "l.npy"});
  expect_usage_error(
      {"gpt2", "--config", "tiny.json", "--tokens", "1", "--position", "t5", "-o", "l.npy"});
  expect_usage_error(
      {"gpt2", "--config", "tiny.json", "--tokens", "1", "--precision", "half", "-o", "l.npy"});
}

TEST_F(Gpt2Cli, PrecisionPicksTheForwardPath) {
  const std::vector<long long> tokens{3, 1, 4, 1, 5, 9, 2, 6};
  const Gpt2Weights weights = lm_random_weights(tiny(), 0);
  Gpt2Options options;
  for (const Precision precision : {Precision::kFloat, Precision::kDouble}) {
    options.precision = precision;
    const TensorF logits =
        run_npy({"gpt2", "--config", "tiny.json", "--tokens", "3,1,4,1,5,9,2,6", "--precision",
                 to_string(precision), "--trace", "trace", "-o", "logits.npy"},
                "logits.npy");
    EXPECT_EQ(logits.data, gpt2_forward(weights, tokens, options).logits.data)
        << to_string(precision);
    const nlohmann::json index = nlohmann::json::parse(read_file(path("trace/index.json")));
    EXPECT_EQ(index["precision"], to_string(precision));
  }
  // float is the default.
  options.precision = Precision::kFloat;
  EXPECT_EQ(
      run_npy({"gpt2", "--config", "tiny.json", "--tokens", "3,1,4,1,5,9,2,6", "-o", "default.npy"},
              "default.npy")
          .data,
      gpt2_forward(weights, tokens, options).logits.data);
}

TEST_F(Gpt2Cli, SwappedPositionMethodIsLabelled) {
  const RunResult r = run({"gpt2", "--config", "tiny.json", "--tokens", "3,1,4,1,5", "--position",
                           "rope", "--trace", "trace", "-o", "logits.npy"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("poslab: note: Exploration"), std::string::npos) << r.err;
  const nlohmann::json index = nlohmann::json::parse(read_file(path("trace/index.json")));
  EXPECT_EQ(index["position"]["method"], "rope");
  Gpt2Options options;
  options.position = Gpt2Position::kRope;
  EXPECT_EQ(read_npy(path("logits.npy")).data,
            gpt2_forward(lm_random_weights(tiny(), 0), {3, 1, 4, 1, 5}, options).logits.data);
}

TEST_F(Gpt2Cli, ConfigIsReadOffTheCheckpointWithoutConfigOrPreset) {
  Gpt2Config two_heads = tiny();
  two_heads.dims.width = 128;
  two_heads.dims.heads = 2;
  const Gpt2Weights weights = lm_random_weights(two_heads, 4);
  put("m.safetensors", encode_safetensors(lm_named_tensors(weights)));
  const TensorF logits =
      run_npy({"gpt2", "--weights", "m.safetensors", "--tokens", "5,6", "-o", "l.npy"}, "l.npy");
  EXPECT_EQ(logits.data, gpt2_forward(weights, {5, 6}).logits.data);
  // Width 32 does not say how many heads there are.
  put("t.safetensors", encode_safetensors(lm_named_tensors(lm_random_weights(tiny(), 4))));
  expect_refused_saying({"gpt2", "--weights", "t.safetensors", "--tokens", "1", "-o", "l.npy"},
                        "config.json");
}

}  // namespace
}  // namespace poslab::test

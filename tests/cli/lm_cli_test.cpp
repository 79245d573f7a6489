// `poslab lm` and `poslab lm-random` end to end: tiny GPT-NeoX and GPT-2 checkpoints written by
// lm-random, the logits equal to the core's forward pass in either precision, the architecture
// read off config.json or the tensor names, --tokens-file, --loss-by-position, the trace, RoPE
// scaling (GPT-NeoX only), SmolLM3 with its NoPE layers through lm, lens and surgery, and bad
// inputs refused with `poslab: error: ...`.
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "fixtures.hpp"
#include "poslab/io/npy.hpp"
#include "poslab/io/safetensors.hpp"
#include "poslab/models/gpt2.hpp"
#include "poslab/models/gpt_neox.hpp"
#include "poslab/models/llama.hpp"
#include "poslab/models/lm.hpp"

namespace poslab::test {
namespace {

constexpr const char* kNeox =
    R"({"model_type": "gpt_neox", "vocab_size": 97, "hidden_size": 48, "num_hidden_layers": 2,
        "num_attention_heads": 3, "intermediate_size": 80, "max_position_embeddings": 16,
        "use_parallel_residual": false})";
// n_embd 64 with one 64-wide head: readable off the tensor names alone.
constexpr const char* kGpt2 =
    R"({"model_type": "gpt2", "vocab_size": 100, "n_positions": 16, "n_embd": 64, "n_layer": 2,
        "n_head": 1})";

const std::vector<long long> kTokens{3, 14, 15, 92, 65, 35};

// An int64 .npy of token ids, as numpy.save writes one.
std::string ids_npy(const std::vector<long long>& ids) {
  std::vector<std::int64_t> values(ids.begin(), ids.end());
  return npy_file(npy_dict("<i8", "(" + std::to_string(ids.size()) + ",)"), raw(values));
}

class LmCli : public Cli {
 protected:
  void SetUp() override {
    Cli::SetUp();
    put("neox.json", kNeox);
    put("gpt2.json", kGpt2);
    ASSERT_EQ(run({"lm-random", "--config", "neox.json", "--seed", "4", "-o", "neox"}).status, 0);
    ASSERT_EQ(run({"lm-random", "--config", "gpt2.json", "--seed", "5", "-o", "gpt2"}).status, 0);
  }
  GptNeoxWeights neox() const { return lm_random_weights(GptNeoxConfig::from_json(kNeox, "c"), 4); }
  Gpt2Weights gpt2() const { return lm_random_weights(Gpt2Config::from_json(kGpt2, "c"), 5); }
  std::vector<std::string> lm_neox(std::vector<std::string> more) const {
    std::vector<std::string> args{"lm", "--weights", "neox/model.safetensors", "--config",
                                  "neox/config.json"};
    args.insert(args.end(), more.begin(), more.end());
    return args;
  }
};

TEST_F(LmCli, NeoxLogitsAreTheCoresInEitherPrecision) {
  const TensorF logits = run_npy(lm_neox({"--tokens", "3,14,15,92,65,35", "-o", "l.npy"}), "l.npy");
  EXPECT_EQ(logits.shape, (Shape{6, 97}));
  EXPECT_EQ(logits.data, gpt_neox_forward(neox(), kTokens).logits.data);
  const TensorF exact = run_npy(
      lm_neox({"--tokens", "3,14,15,92,65,35", "--precision", "double", "-o", "d.npy"}), "d.npy");
  GptNeoxOptions options;
  options.precision = Precision::kDouble;
  EXPECT_EQ(exact.data, gpt_neox_forward(neox(), kTokens, options).logits.data);
  EXPECT_NE(exact.data, logits.data);  // two arithmetics, not one path twice
}

// A GPT-NeoX checkpoint saved in two shards with model.safetensors.index.json: --weights takes
// the index, reads the architecture off its names and gives the single file's logits.
TEST_F(LmCli, ShardedCheckpointThroughItsIndex) {
  const GptNeoxWeights w = neox();
  const auto named = lm_named_tensors(w);
  const std::size_t half = named.size() / 2;
  std::vector<std::pair<std::string, const StoredTensor*>> first(named.begin(),
                                                                 named.begin() + half);
  std::vector<std::pair<std::string, const StoredTensor*>> second(named.begin() + half,
                                                                  named.end());
  std::filesystem::create_directories(path("sharded"));
  put("sharded/model-00001-of-00002.safetensors", encode_safetensors(first));
  put("sharded/model-00002-of-00002.safetensors", encode_safetensors(second));
  nlohmann::json index;
  for (std::size_t k = 0; k < named.size(); ++k) {
    index["weight_map"][named[k].first] =
        k < half ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
  }
  put("sharded/model.safetensors.index.json", index.dump());
  const TensorF logits =
      run_npy({"lm", "--weights", "sharded/model.safetensors.index.json", "--config",
               "neox/config.json", "--tokens", "3,14,15,92,65,35", "-o", "s.npy"},
              "s.npy");
  EXPECT_EQ(logits.data, gpt_neox_forward(w, kTokens).logits.data);
  // GPT-2's config is read off its tensors: a sharded one is refused, saying why.
  expect_refused_saying(
      {"gpt2", "--weights", "sharded/model.safetensors.index.json", "--tokens", "3", "-o", "g.npy"},
      "a sharded checkpoint is read with its config.json");
}

TEST_F(LmCli, Gpt2IsReadOffTheTensorNamesOrItsConfig) {
  const TensorF bare = run_npy(
      {"lm", "--weights", "gpt2/model.safetensors", "--tokens", "3,14,15,92,65,35", "-o", "a.npy"},
      "a.npy");
  const TensorF with_config =
      run_npy({"lm", "--weights", "gpt2/model.safetensors", "--config", "gpt2/config.json",
               "--tokens", "3,14,15,92,65,35", "-o", "b.npy"},
              "b.npy");
  Gpt2Options options;
  options.trace = false;
  EXPECT_EQ(bare.data, gpt2_forward(gpt2(), kTokens, options).logits.data);
  EXPECT_EQ(with_config.data, bare.data);
  // `poslab gpt2` keeps giving the same numbers.
  EXPECT_EQ(run_npy({"gpt2", "--weights", "gpt2/model.safetensors", "--tokens", "3,14,15,92,65,35",
                     "-o", "c.npy"},
                    "c.npy")
                .data,
            bare.data);
}

TEST_F(LmCli, LossByPositionForBothArchitectures) {
  put("ids.npy", ids_npy(kTokens));
  const TensorF neox_loss = run_npy(
      lm_neox({"--tokens-file", "ids.npy", "--loss-by-position", "-o", "loss.npy"}), "loss.npy");
  EXPECT_EQ(neox_loss.shape, (Shape{5}));
  const TensorF neox_logits = gpt_neox_forward(neox(), kTokens).logits;
  const TensorF want = next_token_losses(neox_logits, kTokens);
  for (std::size_t t = 0; t < 5; ++t) EXPECT_NEAR(neox_loss.data[t], want.data[t], 1e-5) << t;
  const TensorF gpt2_loss = run_npy({"lm", "--weights", "gpt2/model.safetensors", "--tokens-file",
                                     "ids.npy", "--loss-by-position", "-o", "g.npy"},
                                    "g.npy");
  EXPECT_EQ(gpt2_loss.data, next_token_losses(gpt2_forward(gpt2(), kTokens).logits, kTokens).data);
  expect_refused_saying(lm_neox({"--tokens", "5", "--loss-by-position", "-o", "l.npy"}),
                        "at least 2 tokens");
}

TEST_F(LmCli, NeoxTraceHasEveryLayerAndTheRotation) {
  ASSERT_EQ(
      run(lm_neox({"--tokens", "3,14,15,92,65,35", "--trace", "tr", "--top-k", "4", "-o", "l.npy"}))
          .status,
      0);
  const nlohmann::json index = nlohmann::json::parse(read_file(path("tr/index.json")));
  EXPECT_EQ(index["architecture"], "gpt_neox");
  EXPECT_EQ(index["precision"], "float");
  EXPECT_EQ(index["model"]["use_parallel_residual"], false);
  EXPECT_EQ(index["rope"]["rotary_dim"], 4);
  for (const auto& entry : index["tensors"]) {
    const TensorF t = read_npy(path("tr/" + entry["file"].get<std::string>()));
    EXPECT_EQ(t.shape, entry["shape"].get<Shape>()) << entry["file"];
  }
  GptNeoxOptions options;
  options.trace = true;
  options.top_k = 4;
  const GptNeoxResult core = gpt_neox_forward(neox(), kTokens, options);
  EXPECT_EQ(read_npy(path("tr/attention_layer1.npy")).data, core.layers[1].attention.data);
  EXPECT_EQ(read_npy(path("tr/resid_mlp_norm.npy")).shape, (Shape{2, 6}));
  EXPECT_EQ(read_npy(path("tr/top_k_ids.npy")).shape, (Shape{4}));
}

TEST_F(LmCli, RopeScalingAppliesToNeoxAndIsRefusedForGpt2) {
  const TensorF scaled = run_npy(lm_neox({"--tokens", "3,14,15,92,65,35", "--rope-scaling",
                                          "linear", "--rope-factor", "2", "-o", "s.npy"}),
                                 "s.npy");
  GptNeoxOptions options;
  options.rope = neox().config.rope();
  options.rope->scaling = RopeScaling::kLinear;
  options.rope->factor = 2.0;
  EXPECT_EQ(scaled.data, gpt_neox_forward(neox(), kTokens, options).logits.data);
  EXPECT_NE(scaled.data, gpt_neox_forward(neox(), kTokens).logits.data);
  // dynamic: N defaults to max_position_embeddings (16), so 6 tokens are not scaled at all.
  const TensorF dynamic = run_npy(lm_neox({"--tokens", "3,14,15,92,65,35", "--rope-scaling",
                                           "dynamic", "--rope-factor", "4", "-o", "d.npy"}),
                                  "d.npy");
  EXPECT_EQ(dynamic.data, gpt_neox_forward(neox(), kTokens).logits.data);
  const RunResult r = expect_refused({"lm", "--weights", "gpt2/model.safetensors", "--tokens",
                                      "1,2", "--rope-scaling", "linear", "-o", "l.npy"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("learned (wpe)"), std::string::npos) << r.err;
  expect_usage_error(lm_neox({"--tokens", "1,2", "--rope-factor", "2", "-o", "l.npy"}));
  expect_usage_error(lm_neox({"--tokens", "1,2", "--rope-scaling", "longrope", "-o", "l.npy"}));
  expect_refused_saying(lm_neox({"--tokens", "1,2", "--rope-scaling", "linear", "--rope-factor",
                                 "0.5", "-o", "l.npy"}),
                        "factor >= 1");
}

TEST_F(LmCli, NeoxWithoutConfigIsRefusedNamingIt) {
  expect_refused_saying(
      {"lm", "--weights", "neox/model.safetensors", "--tokens", "1", "-o", "l.npy"}, "--config");
  // A config of the other architecture.
  expect_refused_saying({"lm", "--weights", "neox/model.safetensors", "--config",
                         "gpt2/config.json", "--tokens", "1", "-o", "l.npy"},
                        "describes a gpt2 model");
}

TEST_F(LmCli, BadInputsAreRefused) {
  expect_refused_saying(lm_neox({"--tokens", "1,97", "-o", "l.npy"}), "vocabulary");
  expect_usage_error(lm_neox({"--tokens", "1,x", "-o", "l.npy"}));
  expect_usage_error(lm_neox({"-o", "l.npy"}));  // no tokens
  put("ids.npy", ids_npy({1, 2}));
  expect_usage_error(lm_neox({"--tokens", "1", "--tokens-file", "ids.npy", "-o", "l.npy"}));
  put("half.npy", npy_f4(1, 2, {1.0f, 2.5f}));
  expect_refused_saying(lm_neox({"--tokens-file", "half.npy", "-o", "l.npy"}), "1-D");
  put("frac.npy", npy_file(npy_dict("<f4", "(2,)"), raw(std::vector<float>{1.0f, 2.5f})));
  expect_refused_saying(lm_neox({"--tokens-file", "frac.npy", "-o", "l.npy"}),
                        "frac.npy[1] is 2.5");
  expect_usage_error(lm_neox({"--tokens", "1", "--precision", "half", "-o", "l.npy"}));
  expect_refused_saying({"lm", "--weights", "nope.safetensors", "--tokens", "1", "-o", "l.npy"},
                        "nope.safetensors");
  put("junk.safetensors", "not a checkpoint");
  expect_refused_saying({"lm", "--weights", "junk.safetensors", "--tokens", "1", "-o", "l.npy"},
                        "junk.safetensors");
  put("t5.json", R"({"model_type": "t5"})");
  expect_refused_saying({"lm", "--weights", "neox/model.safetensors", "--config", "t5.json",
                         "--tokens", "1", "-o", "l.npy"},
                        "\"model_type\" \"t5\" is not supported");
  put("llama.json", R"({"model_type": "llama"})");
  expect_refused_saying({"lm", "--weights", "neox/model.safetensors", "--config", "llama.json",
                         "--tokens", "1", "-o", "l.npy"},
                        "llama.json describes a llama model, but neox/model.safetensors holds "
                        "gpt_neox tensors");
  // A checkpoint of another shape: the message names the tensor.
  GptNeoxConfig wider = GptNeoxConfig::from_json(kNeox, "c");
  wider.intermediate_size = 96;
  put("wide.safetensors", encode_safetensors(lm_named_tensors(lm_random_weights(wider, 1))));
  expect_refused_saying({"lm", "--weights", "wide.safetensors", "--config", "neox.json", "--tokens",
                         "1", "-o", "l.npy"},
                        "has shape (48, 96), the config needs (48, 80)");
}

// Wide enough that the products and attention split across threads (base/threads.hpp).
TEST_F(LmCli, ThreadsGiveTheSameLogits) {
  put("wide.json",
      R"({"model_type": "llama", "vocab_size": 2000, "hidden_size": 128, "num_hidden_layers": 2,
          "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 512,
          "max_position_embeddings": 128, "rope_theta": 10000, "rms_norm_eps": 1e-5,
          "tie_word_embeddings": true})");
  ASSERT_EQ(run({"lm-random", "--config", "wide.json", "--seed", "6", "-o", "wide"}).status, 0);
  std::string tokens;
  for (int i = 0; i < 128; ++i) tokens += (i ? "," : "") + std::to_string((i * 37 + 11) % 2000);
  const auto lm = [&](const std::string& threads, const std::string& out) {
    return run_npy({"lm", "--weights", "wide/model.safetensors", "--config", "wide/config.json",
                    "--tokens", tokens, "--threads", threads, "-o", out},
                   out);
  };
  const TensorF one = lm("1", "one.npy");
  EXPECT_EQ(lm("2", "two.npy").data, one.data);
  expect_usage_error(lm_neox({"--tokens", "1", "--threads", "0", "-o", "l.npy"}));
}

TEST_F(LmCli, RandomCheckpointsInHalfAndTheirConfigs) {
  ASSERT_EQ(run({"lm-random", "--config", "neox.json", "--dtype", "F16", "-o", "half"}).status, 0);
  const std::string bytes = read_file(path("half/model.safetensors"));
  EXPECT_NE(bytes.find("\"F16\""), std::string::npos);
  EXPECT_EQ(bytes.find("\"F32\""), std::string::npos);
  EXPECT_EQ(GptNeoxConfig::from_json(read_file(path("half/config.json")), "c").to_json(),
            GptNeoxConfig::from_json(kNeox, "c").to_json());
  const TensorF logits = run_npy({"lm", "--weights", "half/model.safetensors", "--config",
                                  "half/config.json", "--tokens", "1,2,3", "-o", "l.npy"},
                                 "l.npy");
  EXPECT_EQ(logits.shape, (Shape{3, 97}));
  expect_usage_error({"lm-random", "--preset", "pythia-70m", "-o", "x"});  // which architecture?
  expect_usage_error({"lm-random", "--arch", "gpt_neox", "-o", "x"});      // which shape?
  expect_usage_error({"lm-random", "--arch", "bert", "--preset", "small", "-o", "x"});
  expect_refused_saying({"lm-random", "--arch", "gpt_neox", "--preset", "small", "-o", "x"},
                        "unknown GPT-NeoX preset 'small'");
  expect_refused_saying({"lm-random", "--arch", "gpt2", "--config", "neox.json", "-o", "x"},
                        "describes a gpt_neox model");
  expect_refused_saying(
      {"lm-random", "--arch", "gemma3_text", "--preset", "smollm2-135m", "-o", "x"},
      "--preset smollm2-135m is a llama shape, not --arch gemma3_text");
  put("file", "x");
  expect_refused_saying({"lm-random", "--config", "neox.json", "-o", "file"},
                        "-o must name a directory");
}

// SmolLM3: lm-random --arch smollm3 over a config.json without a model_type writes a smollm3
// checkpoint whose config.json spells out its NoPE layers (no_rope_layer_interval 2: layer 1);
// `poslab lm` gives the core's logits in both precisions (the core is checked against the
// float64 reference in tests/cpp/llama_test.cpp), with no note for the NoPE keys it reads; the
// lens reads the NoPE layer's heads against pairs that never turn, so none is positional; the
// layers sweep finds that layer NoPE already (a change of 0, said in a note).
TEST_F(LmCli, SmolLm3RunsWithItsNopeLayers) {
  put("smol.json",
      R"({"vocab_size": 97, "hidden_size": 48, "num_hidden_layers": 2, "num_attention_heads": 4,
          "num_key_value_heads": 2, "intermediate_size": 80, "max_position_embeddings": 16,
          "rope_theta": 10000.0, "no_rope_layer_interval": 2})");
  ASSERT_EQ(
      run({"lm-random", "--arch", "smollm3", "--config", "smol.json", "--seed", "6", "-o", "smol"})
          .status,
      0);
  const std::string config_text = read_file(path("smol/config.json"));
  const nlohmann::json written = nlohmann::json::parse(config_text);
  EXPECT_EQ(written["model_type"], "smollm3");
  EXPECT_EQ(written["architectures"], nlohmann::json::array({"SmolLM3ForCausalLM"}));
  EXPECT_EQ(written["no_rope_layers"], nlohmann::json::array({1, 0}));
  const LlamaWeights w = lm_random_weights(LlamaConfig::from_json(config_text, "c"), 6);
  ASSERT_TRUE(w.config.nope(1));
  const std::vector<std::string> lm{
      "lm",       "--weights",       "smol/model.safetensors", "--config", "smol/config.json",
      "--tokens", "3,14,15,92,65,35"};
  const auto with = [&lm](std::vector<std::string> more) {
    std::vector<std::string> args = lm;
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  const RunResult r = run(with({"--trace", "tr", "-o", "s.npy"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("note"), std::string::npos) << r.err;
  EXPECT_EQ(read_npy(path("s.npy")).data, llama_forward(w, kTokens).logits.data);
  const nlohmann::json index = nlohmann::json::parse(read_file(path("tr/index.json")));
  EXPECT_EQ(index["architecture"], "smollm3");
  EXPECT_TRUE(index["notes"].empty());
  EXPECT_EQ(index["model"]["no_rope_layers"], nlohmann::json::array({1, 0}));
  LlamaOptions exact;
  exact.precision = Precision::kDouble;
  EXPECT_EQ(run_npy(with({"--precision", "double", "-o", "d.npy"}), "d.npy").data,
            llama_forward(w, kTokens, exact).logits.data);

  ASSERT_EQ(run({"lens", "--weights", "smol/model.safetensors", "--config", "smol/config.json",
                 "--tokens", "3,14,15,92,65,35,8,9,7,26", "--period", "3", "-o", "lens.json"})
                .status,
            0);
  const nlohmann::json report = nlohmann::json::parse(read_file(path("lens.json")));
  const nlohmann::json& layers = report["rope_bands"]["layers"];
  ASSERT_EQ(layers.size(), 2u);
  EXPECT_EQ(layers[0]["inv_freq"], report["rope_bands"]["inv_freq"]);
  for (const auto& theta : layers[1]["inv_freq"]) EXPECT_EQ(theta.get<double>(), 0.0);
  for (const auto& head : report["heads"]) {
    if (head["layer"] != 1) continue;
    EXPECT_EQ(head["turning_share"].get<double>(), 0.0);
    EXPECT_EQ(head["bands"], "semantic");
  }

  const RunResult sweep =
      run({"surgery", "--weights", "smol/model.safetensors", "--config", "smol/config.json",
           "--tokens", "3,14,15,92,65,35,8,9,7,26", "--sweep", "layers", "-o", "s.json"});
  ASSERT_EQ(sweep.status, 0) << sweep.err;
  const nlohmann::json surgery = nlohmann::json::parse(read_file(path("s.json")));
  ASSERT_EQ(surgery["interventions"].size(), 2u);
  EXPECT_NE(surgery["interventions"][0]["delta_mean"].get<double>(), 0.0);
  EXPECT_EQ(surgery["interventions"][1]["delta_mean"].get<double>(), 0.0);
  ASSERT_EQ(surgery["notes"].size(), 1u);
  EXPECT_NE(surgery["notes"][0].get<std::string>().find("own NoPE layers (1) do not rotate"),
            std::string::npos);
  expect_refused_saying({"lm-random", "--arch", "smollm3", "--preset", "smollm2-135m", "-o", "x"},
                        "--preset smollm2-135m is a llama shape, not --arch smollm3");
}

// The position lens: one entry per layer × head with its role, scores and distance profile;
// the role counts add up; GPT-2 reads its shape off the checkpoint; bad requests refused.
TEST_F(LmCli, LensReportsEveryHeadsRole) {
  const RunResult r =
      run({"lens", "--weights", "neox/model.safetensors", "--config", "neox/config.json",
           "--tokens", "3,14,15,92,65,35,8,9", "--period", "3", "-o", "lens.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("6 heads: "), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(read_file(path("lens.json")));
  ASSERT_EQ(j["heads"].size(), 6u);  // 2 layers × 3 heads
  int total = 0;
  for (const auto& [role, n] : j["role_counts"].items()) total += n.get<int>();
  EXPECT_EQ(total, 6);
  EXPECT_EQ(j["heads"][5]["layer"], 1);
  EXPECT_EQ(j["heads"][5]["head"], 2);
  EXPECT_EQ(j["heads"][0]["distance_profile"].size(), 8u);
  EXPECT_EQ(j["induction"]["period"], 3);
  EXPECT_EQ(j["thresholds"]["local_window"], 4);
  // Positions shuffled and all 0: each pass's loss at every position but the last.
  for (const char* pass : {"index", "shuffled", "constant"}) {
    EXPECT_EQ(j["shuffle"]["loss_by_position"][pass].size(), 7u) << pass;
  }
  // RoPE's bands: every head's energy over its R/2 pairs and the unrotated dims sums to 1.
  const auto& bands = j["rope_bands"];
  ASSERT_FALSE(bands.is_null());
  const std::size_t pairs = bands["inv_freq"].size();
  EXPECT_EQ(bands["positional_heads"].get<int>() + bands["semantic_heads"].get<int>(), 6);
  for (const auto& head : j["heads"]) {
    ASSERT_EQ(head["pair_energy"].size(), pairs + 1);
    double sum = 0;
    for (const auto& e : head["pair_energy"]) sum += e.get<double>();
    EXPECT_NEAR(sum, 1.0, 1e-5);
    EXPECT_TRUE(head["bands"] == "positional" || head["bands"] == "semantic");
  }
  // The shift check (RoPE models): the whole text moved by its own length, logits unchanged.
  EXPECT_EQ(j["shift"]["k"], 8);
  EXPECT_EQ(j["shift"]["invariant_expected"], true);
  EXPECT_LT(j["shift"]["relative_change"].get<double>(), 1e-4);
  for (const char* key : {"sink", "previous_token", "induction", "local"}) {
    const double v = j["heads"][0]["scores"][key];
    EXPECT_TRUE(v >= 0.0 && v <= 1.0 + 1e-6) << key;
  }
  ASSERT_EQ(run({"lens", "--weights", "gpt2/model.safetensors", "--tokens", "1,2,3,4,5,6", "-o",
                 "g.json"})
                .status,
            0);
  // GPT-2's learned positions: moved by 6 (room left in n_positions 16: 10), the logits move.
  EXPECT_TRUE(nlohmann::json::parse(read_file(path("g.json")))["rope_bands"].is_null());
  // GPT-2's learned positions shuffled: the loss moves.
  const auto gs = nlohmann::json::parse(read_file(path("g.json")))["shuffle"]["mean_loss"];
  EXPECT_NE(gs["index"].get<double>(), gs["shuffled"].get<double>());
  const auto g = nlohmann::json::parse(read_file(path("g.json")))["shift"];
  EXPECT_EQ(g["k"], 6);
  EXPECT_EQ(g["invariant_expected"], false);
  EXPECT_GT(g["relative_change"].get<double>(), 1e-3);
  expect_refused_saying({"lens", "--weights", "gpt2/model.safetensors", "--tokens", "1,2,3,4,5,6",
                         "--shift", "11", "-o", "g2.json"},
                        "past n_positions");
  expect_refused_saying({"lens", "--weights", "neox/model.safetensors", "--config",
                         "neox/config.json", "--tokens", "1,2,3,4,5,6", "-o", "l.npy"},
                        "must end in .json");
  expect_refused_saying(
      {"lens", "--weights", "neox/model.safetensors", "--config", "neox/config.json", "--tokens",
       "1,2,3,4,5,6", "--period", "4", "-o", "l2.json"},
      "at most half");
  expect_refused_saying(
      {"lens", "--weights", "neox/model.safetensors", "--tokens", "1,2,3,4,5,6", "-o", "l3.json"},
      "give its config.json");
}

// The lens with a scaling in place of the config's (--rope-*): linear by 2 halves every θ the
// bands are read against; a static scaling keeps the shift check invariant, dynamic does not
// promise it; GPT-2 has no rotation to scale.
TEST_F(LmCli, LensWithARopeScaling) {
  const std::vector<std::string> base{
      "lens",     "--weights",           "neox/model.safetensors", "--config", "neox/config.json",
      "--tokens", "3,14,15,92,65,35,8,9"};
  auto with = [&](std::vector<std::string> extra, const char* out) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"-o", out});
    const RunResult r = run(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(read_file(path(out)));
  };
  const auto plain = with({}, "plain.json");
  const auto linear = with({"--rope-scaling", "linear", "--rope-factor", "2"}, "linear.json");
  const auto& f0 = plain["rope_bands"]["inv_freq"];
  const auto& f1 = linear["rope_bands"]["inv_freq"];
  ASSERT_EQ(f0.size(), f1.size());
  for (std::size_t i = 0; i < f0.size(); ++i) {
    EXPECT_NEAR(f1[i].get<double>(), f0[i].get<double>() / 2, 1e-12) << i;
  }
  EXPECT_EQ(linear["shift"]["invariant_expected"], true);
  EXPECT_LT(linear["shift"]["relative_change"].get<double>(), 1e-4);
  const auto dynamic = with({"--rope-scaling", "dynamic", "--rope-factor", "2"}, "dynamic.json");
  EXPECT_EQ(dynamic["shift"]["invariant_expected"], false);
  expect_refused_saying({"lens", "--weights", "gpt2/model.safetensors", "--tokens", "1,2,3,4,5,6",
                         "--rope-scaling", "linear", "-o", "g.json"},
                        "--rope-* is for RoPE models");
}

// longrope turns by its long factors once the sequence passes the original length, so the
// lens does not expect a shift to leave the logits alone (transformers' own longrope checkpoint:
// 6 tokens within N = 8, shifted by 6 past it); Gemma 3's local and global layers are
// relative-only.
TEST_F(LmCli, LensExpectsLongropeToMoveWithAShift) {
  const std::string fixtures = POSLAB_TRANSFORMERS_FIXTURES;
  auto lens = [&](const std::string& name) {
    const std::string dir = fixtures + "/" + name + "/";
    const RunResult r =
        run({"lens", "--weights", dir + "model.safetensors", "--config", dir + "config.json",
             "--tokens", "3,14,15,9,26,5", "-o", name + ".json"});
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(read_file(path(name + ".json")))["shift"];
  };
  const auto longrope = lens("llama-longrope");
  EXPECT_EQ(longrope["invariant_expected"], false);
  EXPECT_GT(longrope["relative_change"].get<double>(), 1e-2);
  const auto gemma = lens("gemma3-text");
  EXPECT_EQ(gemma["invariant_expected"], true);
  EXPECT_LT(gemma["relative_change"].get<double>(), 1e-4);
}

// Gemma 3's sliding layers turn at rope_local_base_freq, unscaled: the lens reads their heads
// against those pairs (rope_bands.layers), not the full-attention layers' scaled global ones.
TEST_F(LmCli, LensReadsGemmasSlidingLayersAgainstTheirOwnPairs) {
  const std::string dir = std::string(POSLAB_TRANSFORMERS_FIXTURES) + "/gemma3-text/";
  const RunResult r =
      run({"lens", "--weights", dir + "model.safetensors", "--config", dir + "config.json",
           "--tokens", "3,14,15,9,26,5,35,8,9,7", "-o", "gemma-lens.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json report = nlohmann::json::parse(read_file(path("gemma-lens.json")));
  const nlohmann::json& bands = report["rope_bands"];
  const auto global = bands["inv_freq"].get<std::vector<double>>();
  ASSERT_EQ(global.size(), 8u);  // head_dim 16
  ASSERT_EQ(bands["layers"].size(), 3u);
  const double context = bands["trained_context"].get<double>();
  for (std::size_t layer = 0; layer < 3; ++layer) {
    const nlohmann::json& own = bands["layers"][layer];
    const auto inv_freq = own["inv_freq"].get<std::vector<double>>();
    const bool sliding = layer != 1;  // layer_types: sliding, full, sliding
    for (std::size_t i = 0; i < 8; ++i) {
      // Global: θ = 10⁶ with linear factor 8; local: θ = 10⁴, unscaled.
      const double want = sliding ? std::pow(1e4, -double(2 * i) / 16.0)
                                  : std::pow(1e6, -double(2 * i) / 16.0) / 8.0;
      EXPECT_NEAR(inv_freq[i], want, 1e-12 * want) << layer << " " << i;
      if (!sliding) {
        EXPECT_EQ(inv_freq[i], global[i]);
      }
    }
    for (const nlohmann::json& head : report["heads"]) {
      if (head["layer"] != layer) continue;
      const auto energy = head["pair_energy"].get<std::vector<double>>();
      double turning = 0.0;
      for (std::size_t i = 0; i < 8; ++i) {
        if (2.0 * M_PI / inv_freq[i] <= context) turning += energy[i];
      }
      EXPECT_NEAR(head["turning_share"].get<double>(), turning, 1e-6);
      EXPECT_EQ(head["bands"] == "positional",
                head["turning_share"].get<double>() >= own["positional_share"].get<double>());
    }
  }
  // A model whose layers all turn alike reports no per-layer lists.
  ASSERT_EQ(run({"lens", "--weights", dir + "../qwen3-qk-norm/model.safetensors", "--config",
                 dir + "../qwen3-qk-norm/config.json", "--tokens", "3,14,15,9,26,5", "-o",
                 "qwen-lens.json"})
                .status,
            0);
  EXPECT_TRUE(
      nlohmann::json::parse(read_file(path("qwen-lens.json")))["rope_bands"]["layers"].is_null());
}

}  // namespace
}  // namespace poslab::test

// Position surgery from the command line: `poslab surgery` writes surgery.json for each sweep
// (bands, layers, heads, base) over tiny GPT-NeoX and Llama checkpoints written by lm-random,
// equal byte for byte to the core's sweep of the same model (surgery_sweep, surgery_json), its
// options carried (--group, --bases, --window, --seed, --precision), the shipped lab model
// web/src/content/text-rope.safetensors over a text's bytes, a lab ALiBi model that takes the
// heads sweep's ablation only; `poslab lm` and `poslab lens` with the surgery flags on RoPE
// models (the core's logits under that surgery) and refused on GPT-2 naming the flag. The bad
// values of each flag are rows of bad_input_test.cpp.
#include <nlohmann/json.hpp>

#include "fixtures.hpp"
#include "poslab/analysis/surgery_sweep.hpp"
#include "poslab/models/gpt_neox.hpp"
#include "poslab/models/llama.hpp"
#include "poslab/models/lm_surgery.hpp"

namespace poslab::test {
namespace {

// d = 16 with rotary_pct 0.25: R = 4, two pairs.
constexpr const char* kSurgeryNeox =
    R"({"model_type": "gpt_neox", "vocab_size": 97, "hidden_size": 48, "num_hidden_layers": 2,
        "num_attention_heads": 3, "intermediate_size": 80, "max_position_embeddings": 16})";
// 4 query heads over 2 kv heads of width 12: six pairs.
constexpr const char* kSurgeryLlama =
    R"({"model_type": "llama", "vocab_size": 97, "hidden_size": 48, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 80,
        "max_position_embeddings": 16})";

std::vector<long long> surgery_tokens() {
  std::vector<long long> ids;
  for (int t = 0; t < 40; ++t) ids.push_back((t * 29 + 3) % 97);
  return ids;
}

std::string comma_separated(const std::vector<long long>& ids) {
  std::string out;
  for (const long long id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

class SurgeryCli : public Cli {
 protected:
  void SetUp() override {
    Cli::SetUp();
    // Each model's config as NAME.json, its random checkpoint (seed 2, 3) in NAME/.
    for (const auto& [name, config] :
         {std::pair<std::string, const char*>{"neox", kSurgeryNeox}, {"llama", kSurgeryLlama}}) {
      put(name + ".json", config);
      const std::string seed = name == "neox" ? "2" : "3";
      ASSERT_EQ(run({"lm-random", "--config", name + ".json", "--seed", seed, "-o", name}).status,
                0);
    }
    std::vector<std::int64_t> ids(kIds.begin(), kIds.end());
    put("ids.npy", npy_file(npy_dict("<i8", "(" + std::to_string(ids.size()) + ",)"), raw(ids)));
  }
  GptNeoxWeights neox() const {
    return lm_random_weights(GptNeoxConfig::from_json(kSurgeryNeox, "c"), 2);
  }
  LlamaWeights llama() const {
    return lm_random_weights(LlamaConfig::from_json(kSurgeryLlama, "c"), 3);
  }
  // `poslab surgery` on the tiny GPT-NeoX over ids.npy with `more`; its surgery.json.
  nlohmann::json neox_sweep(const std::vector<std::string>& more) const {
    std::vector<std::string> args{"surgery",
                                  "--weights",
                                  "neox/model.safetensors",
                                  "--config",
                                  "neox/config.json",
                                  "--tokens-file",
                                  "ids.npy",
                                  "-o",
                                  "s.json"};
    args.insert(args.end(), more.begin(), more.end());
    const RunResult r = run(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(read_file(path("s.json")));
  }
  const std::vector<long long> kIds = surgery_tokens();
};

// Bands, layers and base: the file is the core's sweep of the same model and text, byte for
// byte; the heads sweep's numbers are too, with each head's lens role beside them.
TEST_F(SurgeryCli, EachSweepWritesTheCoresReport) {
  const GptNeoxWeights w = neox();
  const SurgeryModel model = surgery_model(w, Precision::kFloat);
  const std::vector<std::pair<const char*, SweepKind>> sweeps = {{"bands", SweepKind::kBands},
                                                                 {"layers", SweepKind::kLayers},
                                                                 {"heads", SweepKind::kHeads},
                                                                 {"base", SweepKind::kBase}};
  for (const auto& [name, kind] : sweeps) {
    SCOPED_TRACE(name);
    const RunResult r =
        run({"surgery", "--weights", "neox/model.safetensors", "--config", "neox/config.json",
             "--tokens-file", "ids.npy", "--sweep", name, "-o", "s.json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find(std::string(name) + " sweep: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("prefix reused"), std::string::npos) << r.out;
    SweepSettings settings;
    settings.kind = kind;
    SurgeryReport want = surgery_sweep(model, kIds, settings);
    want.weights = "neox/model.safetensors";
    const nlohmann::json got = nlohmann::json::parse(read_file(path("s.json")));
    if (kind != SweepKind::kHeads) {
      EXPECT_EQ(read_file(path("s.json")), surgery_json(want));
      continue;
    }
    ASSERT_EQ(got["interventions"].size(), 2u * 3u * 2u);
    for (std::size_t i = 0; i < want.interventions.size(); ++i) {
      const nlohmann::json& one = got["interventions"][i];
      EXPECT_EQ(one["name"], want.interventions[i].intervention.name);
      EXPECT_EQ(one["delta_mean"].get<double>(), want.interventions[i].delta_mean);
      EXPECT_TRUE(one["lens"]["role"].is_string()) << one["name"];
    }
  }
  // What each sweep holds, by the file: two pairs in groups of one and the five kept fractions.
  const nlohmann::json bands = neox_sweep({"--sweep", "bands"});
  EXPECT_EQ(bands["format"], "poslab-surgery/1");
  EXPECT_EQ(bands["group"], 1);
  EXPECT_EQ(bands["trained_context"], 16);
  ASSERT_EQ(bands["interventions"].size(), 2u + 5u);
  EXPECT_EQ(bands["interventions"][2]["name"], "keep top 100%");
  EXPECT_EQ(bands["interventions"][2]["delta_mean"], 0.0);
  // 40 tokens past the trained 16: the change split within and past it.
  EXPECT_TRUE(bands["interventions"][0]["delta_within_context"].is_number());
  EXPECT_TRUE(bands["interventions"][0]["delta_past_context"].is_number());
  // Layers: the unmodified pass, layer 0 from the start, layer 1 from the stored layer 1.
  const nlohmann::json layers = neox_sweep({"--sweep", "layers"});
  EXPECT_EQ(layers["prefix_reused"], true);
  EXPECT_EQ(layers["forwards"], 3);
  EXPECT_EQ(layers["forward_equivalents"], 2.5);
}

TEST_F(SurgeryCli, OptionsAreCarried) {
  const nlohmann::json grouped = neox_sweep({"--sweep", "bands", "--group", "2"});
  EXPECT_EQ(grouped["group"], 2);
  EXPECT_EQ(grouped["interventions"][0]["name"], "zero pairs 0:2");
  EXPECT_EQ(grouped["interventions"].size(), 1u + 5u);
  const nlohmann::json bases = neox_sweep({"--sweep", "base", "--bases", "100,1e6"});
  ASSERT_EQ(bases["interventions"].size(), 2u);
  EXPECT_EQ(bases["interventions"][0]["name"], "base 100");
  EXPECT_EQ(bases["interventions"][1]["name"], "base 1000000");
  EXPECT_EQ(bases["interventions"][1]["params"]["rope_base"], 1e6);
  // 40 tokens in windows of 5: 8 windows, so the interval resamples windows.
  const nlohmann::json windows = neox_sweep({"--sweep", "layers", "--window", "5", "--seed", "7"});
  EXPECT_EQ(windows["windows"], 8);
  EXPECT_EQ(windows["window"], 5);
  EXPECT_EQ(windows["bootstrap"]["unit"], "windows");
  EXPECT_EQ(windows["bootstrap"]["seed"], 7);
  const std::string seeded = read_file(path("s.json"));
  neox_sweep({"--sweep", "layers", "--window", "5", "--seed", "7"});
  EXPECT_EQ(read_file(path("s.json")), seeded);  // the same seed, the same file
  neox_sweep({"--sweep", "layers", "--window", "5", "--seed", "8"});
  EXPECT_NE(read_file(path("s.json")), seeded);
  const nlohmann::json exact = neox_sweep({"--sweep", "layers", "--precision", "double"});
  EXPECT_EQ(exact["precision"], "double");
  // --tokens gives the same text as the file.
  const nlohmann::json from_file = neox_sweep({"--sweep", "layers"});
  const RunResult r =
      run({"surgery", "--weights", "neox/model.safetensors", "--config", "neox/config.json",
           "--tokens", comma_separated(kIds), "--sweep", "layers", "-o", "t.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(read_file(path("t.json"))), from_file);
}

// Llama with grouped-query heads: NoPE and ablation of every query head; the numbers are the
// core's.
TEST_F(SurgeryCli, LlamaHeadsSweep) {
  const RunResult r =
      run({"surgery", "--weights", "llama/model.safetensors", "--config", "llama/config.json",
           "--tokens-file", "ids.npy", "--sweep", "heads", "--window", "20", "-o", "s.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(read_file(path("s.json")));
  ASSERT_EQ(j["interventions"].size(), 2u * 4u * 2u);
  SweepSettings settings;
  settings.kind = SweepKind::kHeads;
  settings.window = 20;
  const LlamaWeights w = llama();
  const SurgeryReport want = surgery_sweep(surgery_model(w, Precision::kFloat), kIds, settings);
  for (std::size_t i = 0; i < want.interventions.size(); ++i) {
    EXPECT_EQ(j["interventions"][i]["loss_by_position"].get<std::vector<double>>(),
              want.interventions[i].loss_by_position);
  }
  EXPECT_EQ(j["interventions"][15]["name"], "ablate head 1:3");
}

// The shipped lab model (a RoPE text model) over a text's bytes, every sweep; then a lab ALiBi
// model, which takes the heads sweep's ablation only.
TEST_F(SurgeryCli, LabCheckpoints) {
  put("rope.safetensors", read_file(POSLAB_SOURCE_DIR "/web/src/content/text-rope.safetensors"));
  std::string text;
  for (int i = 0; text.size() < 400; ++i) text += "the line " + std::to_string(i % 7) + " of it\n";
  put("t.txt", text);
  for (const char* sweep : {"bands", "layers", "heads", "base"}) {
    SCOPED_TRACE(sweep);
    const RunResult r = run({"surgery", "--weights", "rope.safetensors", "--text-file", "t.txt",
                             "--sweep", sweep, "--window", "100", "-o", "lab.json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(read_file(path("lab.json")));
    EXPECT_EQ(j["sweep"], sweep);
    EXPECT_EQ(j["windows"], 4);
    EXPECT_EQ(j["precision"], "float");
    EXPECT_EQ(j["prefix_reused"], false);  // the lab's model runs every pass whole
    EXPECT_GT(j["interventions"].size(), 0u);
    EXPECT_GT(j["trained_context"].get<long long>(), 0);
  }
  ASSERT_EQ(run({"train",
                 "--task",
                 "copy",
                 "--position",
                 "alibi",
                 "--train-len",
                 "4",
                 "--steps",
                 "1",
                 "--layers",
                 "1",
                 "--width",
                 "16",
                 "--heads",
                 "2",
                 "-q",
                 "-o",
                 "r.json",
                 "--checkpoint",
                 "alibi.safetensors"})
                .status,
            0);
  const RunResult heads = run({"surgery", "--weights", "alibi.safetensors", "--tokens",
                               "1,2,3,4,5,6,7,8", "--sweep", "heads", "-o", "alibi.json"});
  ASSERT_EQ(heads.status, 0) << heads.err;
  const nlohmann::json j = nlohmann::json::parse(read_file(path("alibi.json")));
  ASSERT_EQ(j["interventions"].size(), 2u);  // 1 layer × 2 heads, ablated
  EXPECT_EQ(j["interventions"][0]["kind"], "ablate_head");
  const RunResult bands = expect_refused({"surgery", "--weights", "alibi.safetensors", "--tokens",
                                          "1,2,3,4,5,6,7,8", "--sweep", "bands", "-o", "x.json"});
  EXPECT_NE(bands.err.find("--sweep: the bands sweep changes the rotation, and an alibi model "
                           "has none"),
            std::string::npos)
      << bands.err;
  expect_refused_saying({"lens", "--weights", "alibi.safetensors", "--tokens", "1,2,3,4,5,6,7,8",
                         "--nope-layers", "0", "-o", "x.json"},
                        "--nope-layers: an alibi model has no rotation of q and k");
  ASSERT_EQ(run({"lens", "--weights", "alibi.safetensors", "--tokens", "1,2,3,4,5,6,7,8",
                 "--ablate-heads", "0:1", "-o", "lens.json"})
                .status,
            0);
  // A window too short for the lens: the sweep runs, its heads without roles, and says why.
  const RunResult short_window =
      run({"surgery", "--weights", "alibi.safetensors", "--tokens", "1,2,3,4,5,6,7,8", "--sweep",
           "heads", "--window", "3", "-o", "alibi.json"});
  ASSERT_EQ(short_window.status, 0) << short_window.err;
  EXPECT_NE(short_window.err.find("no head roles beside the sweep"), std::string::npos);
  EXPECT_FALSE(
      nlohmann::json::parse(read_file(path("alibi.json")))["interventions"][0].contains("lens"));
}

// `poslab lm` with the surgery flags: the core's logits under that surgery; on GPT-2, refused
// naming the flag.
TEST_F(SurgeryCli, LmFlagsGiveTheCoresLogitsUnderSurgery) {
  const std::vector<long long> tokens(kIds.begin(), kIds.begin() + 12);
  const auto lm = [&](const char* model, std::vector<std::string> flags) {
    std::vector<std::string> args{"lm",
                                  "--weights",
                                  std::string(model) + "/model.safetensors",
                                  "--config",
                                  std::string(model) + "/config.json",
                                  "--tokens",
                                  comma_separated(tokens),
                                  "-o",
                                  "l.npy"};
    args.insert(args.end(), flags.begin(), flags.end());
    return run_npy(args, "l.npy");
  };
  RopeLmOptions options;
  const TensorF plain = gpt_neox_forward(neox(), tokens, options).logits;
  options.surgery.ablate_heads = {{1, 2}, {0, 0}};
  EXPECT_EQ(lm("neox", {"--ablate-heads", "1:2,0:0"}).data,
            gpt_neox_forward(neox(), tokens, options).logits.data);
  options.surgery = {};
  options.surgery.rope_zero_pairs = {{0, 1}};
  const TensorF zeroed = lm("neox", {"--rope-zero-pairs", "0:1"});
  EXPECT_EQ(zeroed.data, gpt_neox_forward(neox(), tokens, options).logits.data);
  EXPECT_NE(zeroed.data, plain.data);
  EXPECT_EQ(lm("neox", {"--rope-zero-pairs", "1:1"}).data, plain.data);  // an empty range
  options.surgery = {};
  options.surgery.nope_heads = {{0, 1}};
  options.surgery.nope_layers = {1};
  options.surgery.rope_base = 500.0;
  options.precision = Precision::kDouble;
  EXPECT_EQ(lm("llama", {"--nope-heads", "0:1", "--nope-layers", "1", "--rope-base", "500",
                         "--precision", "double"})
                .data,
            llama_forward(llama(), tokens, options).logits.data);
  // The trace's index says what was done.
  ASSERT_EQ(run({"lm", "--weights", "neox/model.safetensors", "--config", "neox/config.json",
                 "--tokens", "1,2,3", "--ablate-heads", "0:1", "--trace", "tr", "-o", "l.npy"})
                .status,
            0);
  EXPECT_EQ(nlohmann::json::parse(read_file(path("tr/index.json")))["surgery"],
            "ablated heads 0:1");
  // GPT-2's positions are learned: refused, naming the first flag given.
  put("gpt2.json", R"({"model_type": "gpt2", "vocab_size": 100, "n_positions": 16, "n_embd": 64,
                        "n_layer": 2, "n_head": 1})");
  ASSERT_EQ(run({"lm-random", "--config", "gpt2.json", "-o", "gpt2"}).status, 0);
  const RunResult r = expect_refused({"lm", "--weights", "gpt2/model.safetensors", "--tokens",
                                      "1,2", "--ablate-heads", "0:0", "-o", "g.npy"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--ablate-heads: gpt2/model.safetensors is a GPT-2 checkpoint"),
            std::string::npos)
      << r.err;
  expect_refused_saying({"lm", "--weights", "gpt2/model.safetensors", "--tokens", "1,2",
                         "--rope-zero-pairs", "0:1", "-o", "g.npy"},
                        "--rope-zero-pairs: gpt2/model.safetensors is a GPT-2 checkpoint");
}

TEST_F(SurgeryCli, LensUnderSurgerySaysSoInItsNotes) {
  const RunResult r = run({"lens", "--weights", "neox/model.safetensors", "--config",
                           "neox/config.json", "--tokens-file", "ids.npy", "--rope-zero-pairs",
                           "0:1", "--ablate-heads", "1:2", "-o", "lens.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(read_file(path("lens.json")));
  EXPECT_EQ(j["notes"].back(), "position surgery: zero pairs 0:1; ablated heads 1:2");
  ASSERT_EQ(run({"lens", "--weights", "neox/model.safetensors", "--config", "neox/config.json",
                 "--tokens-file", "ids.npy", "-o", "plain.json"})
                .status,
            0);
  EXPECT_NE(nlohmann::json::parse(read_file(path("plain.json")))["heads"], j["heads"]);
}

}  // namespace
}  // namespace poslab::test

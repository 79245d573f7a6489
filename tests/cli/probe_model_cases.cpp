// The probe's table of the language-model and lab-model surfaces (reliability round three):
// outputs that meet through ".", ".." and links; config.json cut at a NUL byte; a value present
// but invalid (never replaced by its default); one config read alike by `lm` and
// `rope-config`; overflow inside the forward pass named where it appears; lab checkpoints'
// configs; keys the runtime does not read, said; inputs that are not regular files; working
// sets refused up front; messages that name the key or option. Fixtures are made with the
// core's own functions (random weights, a fresh trainer's checkpoint), then broken.
#include <functional>
#include <nlohmann/json.hpp>
#include <tuple>

#include "poslab/io/safetensors.hpp"
#include "poslab/models/llama.hpp"
#include "poslab/models/lm_weights.hpp"
#include "poslab/train/trainer.hpp"
#include "probe_cases.hpp"

namespace poslab::test::probe {
namespace {

using Json = nlohmann::json;

// A tiny Llama: 2 layers, 2 heads of width 4, one kv head; context 16.
Json llama_config() {
  return Json::parse(R"({"model_type": "llama", "vocab_size": 12, "hidden_size": 8,
      "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1,
      "intermediate_size": 16, "max_position_embeddings": 16})");
}

std::string llama_checkpoint(const Json& config = llama_config(),
                             const std::function<void(LlamaWeights&)>& edit = {}) {
  LlamaWeights w = lm_random_weights(LlamaConfig::from_json(config.dump(), "c.json"), 1);
  if (edit) edit(w);
  return encode_safetensors(lm_named_tensors(w));
}

// llama_config() with `changes` in place of (or beside) its keys; null values are kept.
std::string llama_with(const Json& changes) {
  Json c = llama_config();
  c.update(changes);
  return c.dump();
}

// The lm sandbox: c.json (`config`), m.safetensors and the previous out.npy, and `more`.
std::function<Files()> lm_files(std::string config, Files more = {}) {
  return [config, more] {
    Files f{{"c.json", config, ""},
            {"m.safetensors", llama_checkpoint(), ""},
            {"out.npy", kPrevious, ""}};
    f.insert(f.end(), more.begin(), more.end());
    return f;
  };
}

const std::vector<std::string> kLm = {
    "lm", "--weights", "m.safetensors", "--config", "c.json", "--tokens", "1,2,3", "-o", "out.npy"};

std::vector<std::string> with(std::vector<std::string> args, std::vector<std::string> more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// A lab checkpoint of a fresh byte-level text model (2 layers, width 16, 2 heads, RoPE),
// with its config's `changes` merged in.
std::string lab_checkpoint(const Json& changes = Json::object()) {
  train::TrainConfig c;
  c.task = train::Task::kText;
  c.position = PositionMethod::kRope;
  c.text = std::make_shared<const std::string>(std::string(400, 'a') + std::string(400, 'b'));
  c.train_len = 16;
  c.test_len = 16;
  c.width = 16;
  c.heads = 2;
  c.steps = 0;
  const std::string file = train::Trainer(c).checkpoint();
  if (changes.empty()) return file;
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(file[std::size_t(i)]);
  Json header = Json::parse(file.substr(8, n));
  Json config = Json::parse(header["__metadata__"]["config"].get<std::string>());
  config.merge_patch(changes);
  header["__metadata__"]["config"] = config.dump();
  std::string text = header.dump();
  text.resize(((text.size() + 7) / 8) * 8, ' ');
  std::string length(8, '\0');
  for (int i = 0; i < 8; ++i) length[std::size_t(i)] = char((text.size() >> (8 * i)) & 0xff);
  return length + text + file.substr(8 + n);
}

void outputs(std::vector<ProbeCase>& cases) {
  const std::string same = "name the same file";
  const std::vector<std::string> dump = {"train",      "-q",   "--task",      "copy",
                                         "--position", "rope", "--train-len", "4",
                                         "--steps",    "0",    "--dump",      "d"};
  for (const auto& [name, out] :
       std::vector<std::pair<const char*, const char*>>{{"DotDot", "d/../d/config.json"},
                                                        {"Dot", "d/./config.json"},
                                                        {"Link", "dl/config.json"}}) {
    cases.push_back({std::string("TrainDumpAndOutThrough") + name,
                     [] {
                       return Files{{"d/", "", ""}, {"dl", "", "d"}};
                     },
                     with(dump, {"-o", out}),
                     {},
                     refused(2, {"--dump and -o " + same})});
  }
  cases.push_back({"LmTraceAndOutThroughDotDot",
                   lm_files(llama_config().dump(), {{"tr/", "", ""}}),
                   {"lm", "--weights", "m.safetensors", "--config", "c.json", "--tokens", "1,2,3",
                    "--trace", "tr", "-o", "tr/../tr/attention_layer0.npy"},
                   {},
                   refused(2, {"-o and --trace " + same})});
  cases.push_back({"LmTraceAndOutThroughLink",
                   lm_files(llama_config().dump(), {{"tr/", "", ""}, {"tl", "", "tr"}}),
                   {"lm", "--weights", "m.safetensors", "--config", "c.json", "--tokens", "1,2,3",
                    "--trace", "tr", "-o", "tl/index.json"},
                   {},
                   refused(2, {"-o and --trace " + same})});
}

void configs(std::vector<ProbeCase>& cases) {
  const auto lm_refused = [&](const std::string& name, const std::string& config,
                              std::vector<std::string> patterns, int status = 1) {
    cases.push_back({"Lm" + name, lm_files(config), kLm, {}, refused(status, patterns)});
    cases.push_back({"RopeConfig" + name,
                     [config] {
                       return Files{{"c.json", config, ""}, {"r.json", kPrevious, ""}};
                     },
                     {"rope-config", "--config", "c.json", "-o", "r.json"},
                     {},
                     refused(status, patterns)});
  };
  // Item 2: read to the NUL and the rest dropped, before.
  std::string nul = llama_config().dump();
  nul.pop_back();
  nul += std::string("}\0, \"rope_scaling\": {\"rope_type\": \"linear\", \"factor\": 2}}", 58);
  lm_refused("ConfigWithANulByte", nul, {R"(c\.json: not valid JSON: a NUL byte at offset \d+)"});
  lm_refused("ConfigWithTextAfterTheObject", llama_config().dump() + " {}",
             {R"(c\.json: not valid JSON)"});
  // Items 3 and 4: present but invalid, refused by both commands alike.
  const Json yarn = {{"rope_type", "yarn"}, {"factor", 4}};
  for (const auto& [label, key, value] : std::vector<std::tuple<const char*, const char*, Json>>{
           {"YarnAttentionFactorZero", "attention_factor", 0},
           {"YarnAttentionFactorNegative", "attention_factor", -1},
           {"YarnMscaleNegative", "mscale", -1},
           {"YarnMscaleAllDimNegative", "mscale_all_dim", -0.5}}) {
    Json s = yarn;
    s[key] = value;
    lm_refused(label, llama_with({{"rope_scaling", s}}),
               {std::string(R"(c\.json: rope_scaling: ")") + key + R"(" must be )"});
  }
  const Json longrope = {{"rope_type", "longrope"},
                         {"short_factor", {1, 1}},
                         {"long_factor", {2, 2}},
                         {"original_max_position_embeddings", 8},
                         {"attention_factor", 0}};
  lm_refused("LongropeAttentionFactorZero", llama_with({{"rope_scaling", longrope}}),
             {R"(c\.json: rope_scaling: "attention_factor" must be positive and finite, got 0)"});
  // Item 11: a factor whose reach overflows, in the inspector (the runtime's dynamic scaling
  // reads the factor only past N, where the base's overflow is named).
  cases.push_back({"RopeConfigDynamicFactorOverflowsTheReach",
                   [] {
                     return Files{{"c.json",
                                   llama_with({{"max_position_embeddings", 131072},
                                               {"rope_scaling",
                                                {{"rope_type", "dynamic"}, {"factor", 1e300}}}}),
                                   ""}};
                   },
                   {"rope-config", "--config", "c.json", "-o", "r.json"},
                   {},
                   refused(1, {R"(c\.json: rope_scaling "factor" 1e\+300 times the trained )"
                               R"(context 131072 overflows a position count)"})});
  // Item 6: a sliding layer with a null window; two rotation objects that disagree.
  const std::string gemma = llama_with({{"model_type", "gemma3_text"},
                                        {"head_dim", 4},
                                        {"sliding_window", nullptr},
                                        {"layer_types", {"sliding_attention", "full_attention"}}});
  lm_refused("Gemma3SlidingLayerWithANullWindow", gemma,
             {R"(c\.json: layer 0 is a sliding layer but "sliding_window" is null)"});
  lm_refused("RopeScalingAndRopeParametersDisagree",
             llama_with({{"rope_scaling", {{"rope_type", "linear"}, {"factor", 2}}},
                         {"rope_parameters", {{"rope_type", "linear"}, {"factor", 4}}}}),
             {R"(rope_scaling and rope_parameters disagree on "factor" \(2 and 4\))"});
}

void forwards(std::vector<ProbeCase>& cases) {
  // Item 5: a norm's gains of 1e38 overflow the forward pass, which names the layer.
  const auto huge_norm = [] {
    return llama_checkpoint(llama_config(), [](LlamaWeights& w) {
      for (float& g : w.layers[1].post_attention_layernorm_weight.f32) g = 1e38f;
    });
  };
  cases.push_back(
      {"LmNormGainsOverflow",
       [huge_norm] {
         return Files{{"c.json", llama_config().dump(), ""}, {"m.safetensors", huge_norm(), ""}};
       },
       kLm,
       {},
       refused(1, {R"(layer 1's (second norm|MLP|output|attention))", "float32"})});
  cases.push_back(
      {"LensNormGainsOverflow",
       [huge_norm] {
         return Files{{"c.json", llama_config().dump(), ""}, {"m.safetensors", huge_norm(), ""}};
       },
       {"lens", "--weights", "m.safetensors", "--config", "c.json", "--tokens",
        "1,2,3,4,5,6,7,8,9,10,11,1,2,3", "-o", "l.json"},
       {},
       refused(1, {R"(layer 1's)", "float32"})});
  // Attention's own overflow check (q·k past float32) is named with its layer.
  cases.push_back(
      {"LmAttentionScoresOverflow",
       [] {
         return Files{{"c.json", llama_config().dump(), ""},
                      {"m.safetensors",
                       llama_checkpoint(llama_config(),
                                        [](LlamaWeights& w) {
                                          for (float& g : w.layers[0].input_layernorm_weight.f32)
                                            g = 1e38f;
                                        }),
                       ""}};
       },
       kLm,
       {},
       refused(1, {R"(the forward pass fails at layer 0: attention scores overflow)"})});
  // Item 13: a k_proj of another head width names head_dim.
  cases.push_back(
      {"LmKProjOfAnotherHeadWidth",
       [] {
         return Files{
             {"c.json", llama_config().dump(), ""},
             {"m.safetensors", llama_checkpoint(Json::parse(llama_with({{"head_dim", 8}}))), ""}};
       },
       kLm,
       {},
       refused(1, {R"(_proj\.weight' has shape)", R"(head_dim 4)"})});
  // Item 9: keys other architectures read, said once on stderr and in the trace's notes.
  cases.push_back(
      {"LmLlamaWithKeysItDoesNotRead",
       lm_files(llama_with({{"no_rope_layers", {1, 0}}, {"sinks", true}, {"sliding_window", 4}})),
       with(kLm, {"--trace", "tr"}),
       {},
       Accepted{{"out.npy", "tr"},
                [](const std::string& dir, const RunResult&) {
                  const Json index = Json::parse(read_file(dir + "/tr/index.json"));
                  ASSERT_EQ(index["notes"].size(), 1u);
                  EXPECT_NE(index["notes"][0].get<std::string>().find(
                                "no_rope_layers, sinks, sliding_window"),
                            std::string::npos);
                },
                R"(c\.json: not read by the llama runtime .*: no_rope_layers, sinks, )"
                R"(sliding_window\n$)"}});
  cases.push_back({"LmLlamaWithNullAndFalseKeys",
                   lm_files(llama_with({{"sliding_window", nullptr}, {"attention_sink", false}})),
                   kLm,
                   {},
                   Accepted{{"out.npy"}, nullptr, ""}});
  // Item 12: working sets refused before any pass.
  cases.push_back({"LmTraceBeyondTheLimit",
                   lm_files(llama_config().dump()),
                   with(kLm, {"--trace", "tr"}),
                   {"POSLAB_TRACE_MEMORY_LIMIT=64"},
                   refused(1, {R"(--trace over T = 3 tokens would hold 2 layers x 2 heads)"})});
}

void lab_checkpoints(std::vector<ProbeCase>& cases) {
  const std::vector<std::string> lens = {"lens",  "--weights", "lab.safetensors", "--text-file",
                                         "t.txt", "-o",        "l.json"};
  const auto lab_files = [](Json changes, std::string text) {
    return [changes, text] {
      return Files{{"lab.safetensors", lab_checkpoint(changes), ""},
                   {"t.txt", text, ""},
                   {"l.json", kPrevious, ""}};
    };
  };
  const std::string text(64, 'a');
  // Item 7: values the model cannot have.
  for (const auto& [label, changes, pattern] :
       std::vector<std::tuple<const char*, Json, const char*>>{
           {"NPositionsZero", {{"n_positions", 0}}, R"(n_positions 0 is outside \[1, )"},
           {"SymbolsNotTheTasks",
            {{"symbols", 1000}},
            R"(symbols 1000 are not its task's \(256\))"},
           {"EmbedScaleOverflows",
            {{"embed_scale", 1e39}},
            R"(embedding scale 1e\+39 overflows)"}}) {
    cases.push_back({std::string("LensLab") + label,
                     lab_files(changes, text),
                     lens,
                     {},
                     refused(1, {R"(lab\.safetensors)", pattern})});
  }
  // Item 8: a lab checkpoint carries its config: --config is refused, even a missing one.
  cases.push_back({"LensLabWithConfig",
                   lab_files(Json::object(), text),
                   with(lens, {"--config", "missing.json"}),
                   {},
                   refused(2, {R"(--config: lab\.safetensors is a lab checkpoint)"})});
  // Item 12: 24 KB of text is 24000 tokens of (H, T, T) maps.
  cases.push_back({"LensLabTextBeyondTheLimit",
                   lab_files(Json::object(), std::string(24000, 'a')),
                   lens,
                   {},
                   refused(1, {R"(T = 24000 tokens)", "--text-file", "POSLAB_LENS_MEMORY_LIMIT"})});
  cases.push_back({"LensLabReadsItsText",
                   lab_files(Json::object(), text),
                   lens,
                   {},
                   Accepted{{"l.json"}, [](const std::string& dir, const RunResult&) {
                              const Json r = Json::parse(read_file(dir + "/l.json"));
                              EXPECT_EQ(r["tokens"], 64);
                              EXPECT_EQ(r["notes"], Json::array());
                            }}});
}

void not_files(std::vector<ProbeCase>& cases) {
  // Item 10: a FIFO would block the open forever; a device or directory is no file.
  const auto fifo = [&](const std::string& name, std::vector<std::string> args,
                        const std::string& option, Files more) {
    cases.push_back({name,
                     [more] {
                       Files f{{"p", "", kFifo}, {"out.npy", kPrevious, ""}};
                       f.insert(f.end(), more.begin(), more.end());
                       return f;
                     },
                     std::move(args),
                     {},
                     refused(2, {option + ": 'p' is a FIFO, not a regular file"})});
  };
  const Files model{{"c.json", llama_config().dump(), ""},
                    {"m.safetensors", llama_checkpoint(), ""}};
  fifo("LmConfigIsAFifo",
       {"lm", "--weights", "m.safetensors", "--config", "p", "--tokens", "1", "-o", "out.npy"},
       "--config", model);
  fifo("LmWeightsIsAFifo",
       {"lm", "--weights", "p", "--config", "c.json", "--tokens", "1", "-o", "out.npy"},
       "--weights", model);
  fifo("LmTokensFileIsAFifo",
       {"lm", "--weights", "m.safetensors", "--config", "c.json", "--tokens-file", "p", "-o",
        "out.npy"},
       "--tokens-file", model);
  fifo("RopeConfigIsAFifo", {"rope-config", "--config", "p", "-o", "r.json"}, "--config", {});
  fifo("TrainTextFileIsAFifo",
       {"train", "--task", "text", "--position", "rope", "--text-file", "p", "-o", "r.json"},
       "--text-file", {});
  fifo("RopeInIsAFifo", {"rope", "--in", "p", "-o", "out.npy"}, "--in", {});
  cases.push_back({"TrainTextFileIsADevice",
                   nullptr,
                   {"train", "--task", "text", "--position", "rope", "--text-file", "/dev/null",
                    "-o", "r.json"},
                   {},
                   refused(2, {"--text-file: '/dev/null' is a device, not a regular file"})});
  // Item 13: an empty text names its file.
  cases.push_back({"TrainTextFileEmpty",
                   [] {
                     return Files{{"t.txt", "", ""}};
                   },
                   {"train", "--task", "text", "--position", "rope", "--train-len", "8",
                    "--text-file", "t.txt", "-o", "r.json"},
                   {},
                   refused(1, {R"(t\.txt \(--text-file\) is empty)"})});
}

void train_ranges(std::vector<ProbeCase>& cases) {
  // Item 14: 0 is off, and the message says so with the range the other values must take.
  struct Range {
    const char *name, *task, *position, *train_len, *option, *message, *least;
  };
  for (const Range& r : {Range{"TrainRandomizedPositionsBelowTheLongest", "copy", "rope", "8",
                               "--randomized-positions", "randomised positions MAX", "67"},
                         Range{"TrainCoupledPositionsBelowTheDigits", "addition", "learned", "5",
                               "--coupled-positions", "coupled positions MAX", "23"}}) {
    cases.push_back({r.name,
                     nullptr,
                     {"train", "-q", "--task", r.task, "--position", r.position, "--train-len",
                      r.train_len, r.option, "5", "-o", "r.json"},
                     {},
                     refused(1, {std::string(r.message) + R"( must be 0 \(off\) or in \[)" +
                                 r.least + R"(, 1048576\])"})});
  }
}

}  // namespace

std::vector<ProbeCase> model_cases() {
  std::vector<ProbeCase> cases;
  outputs(cases);
  configs(cases);
  forwards(cases);
  lab_checkpoints(cases);
  not_files(cases);
  train_ranges(cases);
  return cases;
}

}  // namespace poslab::test::probe

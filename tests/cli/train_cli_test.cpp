// `poslab train` as a user runs it: result.json with the keys, the checkpoint with its
// config in __metadata__, the --dump set, the same run twice from one seed, and every bad
// option refused with `poslab: error:` and no file left behind.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "fixtures.hpp"
#include "poslab/io/npy.hpp"
#include "poslab/io/safetensors.hpp"
#include "poslab/train/config.hpp"

namespace poslab::test {
namespace {

class TrainCli : public Cli {};

const std::vector<std::string> kSmall{
    "train", "--task",  "copy", "--train-len",     "3", "--layers",
    "1",     "--width", "16",   "--heads",         "2", "--batch",
    "4",     "--steps", "20",   "--eval-examples", "8", "-q"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST_F(TrainCli, WritesResultAndCheckpoint) {
  const RunResult r =
      run(with(kSmall, {"--position", "t5", "-o", "r.json", "--checkpoint", "m.safetensors"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(read_file(path("r.json")));
  for (const char* key : {"config", "loss_curve", "accuracy_by_length",
                          "token_accuracy_by_position", "wall_time_s", "tokens_per_s", "flops"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["config"]["position"], "t5");
  EXPECT_EQ(j["config"]["test_len"], 12);
  EXPECT_EQ(j["loss_curve"].size(), 20u);
  EXPECT_EQ(j["accuracy_by_length"].size(), 12u);
  const SafetensorsFile ckpt = read_safetensors(path("m.safetensors"));
  EXPECT_TRUE(ckpt.tensors.count("rel_bias.weight"));
  EXPECT_EQ(nlohmann::json::parse(ckpt.metadata.at("config"))["position"], "t5");
}

// POSLAB_TRAIN_MEMORY_LIMIT moves the working-set limit of a native run either way; a value
// that is not a size is refused, not ignored.
TEST_F(TrainCli, MemoryLimitComesFromTheEnvironment) {
  const auto args = with(kSmall, {"--position", "rope", "-o", "r.json"});
  RunResult r = run(args, 60.0, 9, {"POSLAB_TRAIN_MEMORY_LIMIT=64KiB"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("over the limit of 0.1 MiB: lower --layers"), std::string::npos) << r.err;
  r = run(args, 60.0, 9, {"POSLAB_TRAIN_MEMORY_LIMIT=lots"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("POSLAB_TRAIN_MEMORY_LIMIT='lots' is not a size"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("r.json")));
  r = run(args, 60.0, 9, {"POSLAB_TRAIN_MEMORY_LIMIT=8GiB"});
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST_F(TrainCli, SameSeedSameLossCurve) {
  ASSERT_EQ(run(with(kSmall, {"--position", "rope", "--seed", "5", "-o", "a.json"})).status, 0);
  ASSERT_EQ(run(with(kSmall, {"--position", "rope", "--seed", "5", "-o", "b.json"})).status, 0);
  const auto a = nlohmann::json::parse(read_file(path("a.json")));
  const auto b = nlohmann::json::parse(read_file(path("b.json")));
  EXPECT_EQ(a["loss_curve"], b["loss_curve"]);
  EXPECT_EQ(a["accuracy_by_length"], b["accuracy_by_length"]);
}

// --seeds S trains seeds --seed .. --seed+S−1: result.json keeps the first run's fields, adds
// every run under `runs` and each metric's mean, sample sd and values under `summary`; one
// checkpoint per seed. The first run is the run --seeds 1 makes from that seed.
TEST_F(TrainCli, SeedsAreSummarisedMetricByMetric) {
  const RunResult r = run(with(kSmall, {"--position", "alibi", "--seed", "4", "--seeds", "3", "-o",
                                        "r.json", "--checkpoint", "m.safetensors"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(read_file(path("r.json")));
  ASSERT_EQ(j["runs"].size(), 3u);
  std::vector<std::string> checkpoints;
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(j["runs"][k]["config"]["seed"], 4 + k);
    checkpoints.push_back(read_file(path("m-seed" + std::to_string(4 + k) + ".safetensors")));
  }
  EXPECT_NE(checkpoints[0], checkpoints[1]);
  EXPECT_FALSE(std::filesystem::exists(path("m.safetensors")));
  EXPECT_EQ(j["loss_curve"], j["runs"][0]["loss_curve"]);
  EXPECT_NE(j["runs"][0]["loss_curve"], j["runs"][1]["loss_curve"]);
  for (const char* metric : {"exact_match_in_distribution", "exact_match_n_to_2n",
                             "answer_accuracy_n_to_2n", "exact_match_2n_to_4n"}) {
    SCOPED_TRACE(metric);
    const auto& s = j["summary"][metric];
    std::vector<double> values;
    for (const auto& run : j["runs"]) values.push_back(run["metrics"][metric].get<double>());
    EXPECT_EQ(s["values"], nlohmann::json(values));
    const double mean = (values[0] + values[1] + values[2]) / 3;
    double squares = 0;
    for (double v : values) squares += (v - mean) * (v - mean);
    EXPECT_NEAR(s["mean"].get<double>(), mean, 1e-15);
    EXPECT_NEAR(s["sd"].get<double>(), std::sqrt(squares / 2), 1e-15);
  }

  ASSERT_EQ(run(with(kSmall, {"--position", "alibi", "--seed", "4", "-o", "one.json"})).status, 0);
  const auto one = nlohmann::json::parse(read_file(path("one.json")));
  EXPECT_EQ(one["loss_curve"], j["loss_curve"]);
  EXPECT_EQ(one["metrics"], j["metrics"]);
  EXPECT_EQ(one["summary"]["exact_match_n_to_2n"]["sd"], 0.0);  // one seed: written, sd 0
  EXPECT_EQ(one["runs"].size(), 1u);
}

// Without --embed-scale a run takes its method's from the core's defaults table (8 for
// sinusoidal, 4 for the others); --embed-scale sets one for any method.
TEST_F(TrainCli, EmbeddingScaleDefaultsToTheMethods) {
  const auto scale = [&](const std::string& position, std::vector<std::string> more = {}) {
    std::vector<std::string> args{"train",       "--task",  "copy",    "--position", position,
                                  "--train-len", "3",       "--width", "16",         "--heads",
                                  "2",           "--steps", "0",       "--dump",     position};
    args.insert(args.end(), more.begin(), more.end());
    const RunResult r = run(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(read_file(path(position + "/config.json")))["embed_scale"];
  };
  EXPECT_EQ(scale("sinusoidal"), train::default_embed_scale(PositionMethod::kSinusoidal));
  EXPECT_EQ(scale("sinusoidal"), 8.0);
  EXPECT_EQ(scale("rope"), 4.0);
  EXPECT_EQ(scale("none", {"--embed-scale", "2"}), 2.0);
}

// Without --batch a run takes its task's from the same table (text 8 windows, the synthetic
// tasks 32 sequences); --batch sets it for any task. The dump's tokens are (batch, T).
TEST_F(TrainCli, BatchDefaultsToTheTasks) {
  std::string text;
  for (int i = 0; text.size() < 2000; ++i) text += "line " + std::to_string(i % 29) + " of text\n";
  put("t.txt", text);
  const auto batch = [&](const std::string& task, std::vector<std::string> more = {}) {
    std::vector<std::string> args{"train",       "--task",  task,      "--position", "none",
                                  "--train-len", "3",       "--width", "16",         "--heads",
                                  "2",           "--steps", "0",       "--dump",     task + "-d"};
    if (task == "text") args.insert(args.end(), {"--text-file", "t.txt"});
    args.insert(args.end(), more.begin(), more.end());
    const RunResult r = run(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return read_npy(path(task + "-d/loss_mask.npy")).shape[0];
  };
  EXPECT_EQ(batch("text"), train::default_batch(train::Task::kText));
  EXPECT_EQ(batch("text"), 8u);
  EXPECT_EQ(batch("copy"), 32u);
  EXPECT_EQ(batch("copy", {"--batch", "5"}), 5u);
}

TEST_F(TrainCli, DumpWritesTheCheckedFiles) {
  const RunResult r =
      run({"train", "--task", "addition", "--position", "learned", "--train-len", "3", "--width",
           "16", "--heads", "2", "--batch", "4", "--steps", "0", "--dump", "d"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto config = nlohmann::json::parse(read_file(path("d/config.json")));
  for (const char* key : {"n_layer", "n_embd", "n_head", "n_inner", "vocab_size", "n_positions",
                          "layer_norm_epsilon", "position", "base", "embed_scale", "t5_num_buckets",
                          "t5_max_distance", "randomized_positions", "task", "bos_token_id",
                          "sep_token_id", "eos_token_id", "pad_token_id"}) {
    EXPECT_TRUE(config.contains(key)) << key;
  }
  EXPECT_EQ(config["vocab_size"], 15);  // digits, '+', BOS, SEP, EOS, PAD
  const TensorF mask = read_npy(path("d/loss_mask.npy"));
  EXPECT_EQ(mask.shape[0], 4u);  // (B, T): T the batch's longest sequence, at most 3·3 + 5
  EXPECT_LE(mask.shape[1], 14u);
  EXPECT_TRUE(read_safetensors(path("d/grads.safetensors")).tensors.count("wpe.weight"));
  EXPECT_TRUE(nlohmann::json::parse(read_file(path("d/loss.json"))).contains("loss"));
  // After steps, the weights they reached (what -o's run ends on) and the batch after them.
  ASSERT_EQ(run({"train", "--task", "addition", "--position", "learned", "--train-len", "3",
                 "--width", "16", "--heads", "2", "--batch", "4", "--steps", "2", "--dump", "d2",
                 "--checkpoint", "m.safetensors"})
                .status,
            0);
  const auto trained = read_safetensors(path("d2/weights.safetensors")).tensors;
  const auto checkpoint = read_safetensors(path("m.safetensors")).tensors;
  const auto initial = read_safetensors(path("d/weights.safetensors")).tensors;
  EXPECT_EQ(trained.at("wpe.weight").data, checkpoint.at("wpe.weight").data);
  EXPECT_NE(trained.at("wpe.weight").data, initial.at("wpe.weight").data);
}

// Train short, test long: a byte-level model on any file, the loss per byte by context, and RoPE
// again under each inference-time scaling.
TEST_F(TrainCli, TextTaskReportsLossByContext) {
  std::string text;
  for (int i = 0; text.size() < 3000; ++i) text += "line " + std::to_string(i % 37) + " of text\n";
  put("t.txt", text);
  const RunResult r = run({"train", "--task",      "text", "--text-file", "t.txt", "--position",
                           "rope",  "--train-len", "8",    "--test-len",  "32",    "--layers",
                           "1",     "--width",     "16",   "--heads",     "2",     "--batch",
                           "4",     "--steps",     "5",    "--seeds",     "2",     "-q",
                           "-o",    "r.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(read_file(path("r.json")));
  ASSERT_EQ(j["perplexity_by_context"].size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    const auto& row = j["perplexity_by_context"][k];
    EXPECT_EQ(row["context"], 8u << k);
    EXPECT_NEAR(row["perplexity"].get<double>(), std::exp(row["loss"].get<double>()), 1e-9);
  }
  EXPECT_EQ(j["loss_by_position"].size(), 32u);
  for (const char* scaling : {"linear", "ntk", "dynamic", "yarn"}) {
    EXPECT_EQ(j["perplexity_by_context_with_scaling"][scaling].size(), 3u) << scaling;
  }
  EXPECT_EQ(j["summary"]["loss_at_32"]["values"].size(), 2u);
  EXPECT_EQ(j["config"]["task"], "text");
}

// A tiny byte-level text model of t.txt into m.safetensors (the method and the rest to add).
const std::vector<std::string> kTextModel{
    "train", "--task",  "text",         "--text-file",  "t.txt", "--train-len", "16", "--test-len",
    "32",    "--width", "16",           "--heads",      "2",     "--steps",     "3",  "-q",
    "-o",    "r.json",  "--checkpoint", "m.safetensors"};

// The position lens reads a lab checkpoint (F16 here) with a text's bytes as its ids: every
// head's role, the shuffle pass, and the shift check as the method predicts (RoPE unmoved,
// learned refused past its table).
TEST_F(TrainCli, LensReadsALabTextModel) {
  std::string text;
  for (int i = 0; text.size() < 2000; ++i) text += "line " + std::to_string(i % 23) + " of text\n";
  put("t.txt", text);
  put("h.txt", text.substr(0, 16));
  const std::vector<std::string> lens{"lens",        "--weights", "m.safetensors",
                                      "--text-file", "h.txt",     "--period",
                                      "8",           "-o",        "lens.json"};
  for (const char* method : {"rope", "learned"}) {
    SCOPED_TRACE(method);
    const RunResult t =
        run(with(kTextModel, {"--position", method, "--layers", "2", "--checkpoint-dtype", "f16"}));
    ASSERT_EQ(t.status, 0) << t.err;
    const RunResult r = run(with(lens, {"--shift", "0"}));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("4 heads: "), std::string::npos) << r.out;
    const auto j = nlohmann::json::parse(read_file(path("lens.json")));
    ASSERT_EQ(j["heads"].size(), 4u);
    EXPECT_EQ(j["heads"][0]["distance_profile"].size(), 16u);
    // The shuffle pass: the next-token loss at each of the 15 predicted positions, three ways.
    for (const char* pass : {"index", "shuffled", "constant"}) {
      EXPECT_EQ(j["shuffle"]["loss_by_position"][pass].size(), 15u) << pass;
      EXPECT_GT(j["shuffle"]["mean_loss"][pass].get<double>(), 0.0) << pass;
    }
    // RoPE's frequency bands from the trainer's own rotated q and k: d = 8, 4 pairs and the
    // (empty) unrotated term per head, read against the trained context 16.
    if (std::string(method) == "rope") {
      ASSERT_FALSE(j["rope_bands"].is_null());
      EXPECT_EQ(j["rope_bands"]["trained_context"], 16);
      for (const auto& head : j["heads"]) {
        ASSERT_EQ(head["pair_energy"].size(), 5u);
        double sum = 0;
        for (const auto& e : head["pair_energy"]) sum += e.get<double>();
        EXPECT_NEAR(sum, 1.0, 1e-5);
      }
    } else {
      EXPECT_TRUE(j["rope_bands"].is_null());
    }
  }
  EXPECT_EQ(run(with(lens, {"--shift", "1"})).status, 1);  // the learned table has 16 rows
  ASSERT_EQ(run(with(kTextModel, {"--position", "rope", "--layers", "1"})).status, 0);
  ASSERT_EQ(run(lens).status, 0);
  const auto shift = nlohmann::json::parse(read_file(path("lens.json")))["shift"];
  EXPECT_EQ(shift["invariant_expected"], true);
  EXPECT_LT(shift["relative_change"].get<double>(), 1e-4);
  EXPECT_EQ(run(with(lens, {"--precision", "double"})).status, 1);  // the lab's model: float only
}

// A lab model's own NoPE layers (--nope-every) and the surgery's are read against pairs that
// never turn: their heads' turning share is 0, never positional; the rotating layer's is not.
TEST_F(TrainCli, LensReadsALabModelsNopeLayersAsUnturned) {
  std::string text;
  for (int i = 0; text.size() < 2000; ++i) text += "line " + std::to_string(i % 23) + " of text\n";
  put("t.txt", text);
  put("h.txt", text.substr(0, 16));
  const std::vector<std::string> lens{"lens",  "--weights", "m.safetensors", "--text-file",
                                      "h.txt", "-o",        "lens.json"};
  const auto shares = [&](const std::vector<std::string>& extra) {
    const RunResult r = run(with(lens, extra));
    EXPECT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(read_file(path("lens.json")));
    std::vector<double> out;
    for (const auto& head : j["heads"]) out.push_back(head["turning_share"].get<double>());
    EXPECT_EQ(j["rope_bands"]["layers"].size(), 2u);
    return out;
  };
  const RunResult t =
      run(with(kTextModel, {"--position", "rope", "--layers", "2", "--nope-every", "2"}));
  ASSERT_EQ(t.status, 0) << t.err;
  const std::vector<double> own = shares({});  // layer 1 (the 2nd) is NoPE
  ASSERT_EQ(own.size(), 4u);
  EXPECT_GT(own[0] + own[1], 0.0);
  EXPECT_EQ(own[2], 0.0);
  EXPECT_EQ(own[3], 0.0);
  const std::vector<double> both = shares({"--nope-layers", "0"});  // and layer 0 by surgery
  for (const double share : both) EXPECT_EQ(share, 0.0);
}

// Abacus (McLeish et al. 2024): its largest training offset is an option, recorded in the
// result's config and the checkpoint's, and its table has a row per place that offset reaches.
TEST_F(TrainCli, AbacusRecordsItsLargestOffset) {
  std::vector<std::string> args = with(kSmall, {"--position", "abacus", "--abacus-max-offset", "3",
                                                "-o", "r.json", "--checkpoint", "m.safetensors"});
  args[2] = "addition";  // kSmall's task
  const RunResult r = run(args);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(read_file(path("r.json")));
  EXPECT_EQ(j["config"]["abacus_max_offset"], 3);
  EXPECT_EQ(j["config"]["model"]["abacus_max_offset"], 3);
  const SafetensorsFile ckpt = read_safetensors(path("m.safetensors"));
  const auto config = nlohmann::json::parse(ckpt.metadata.at("config"));
  EXPECT_EQ(config["abacus_max_offset"], 3);
  // 3 digits tested to 12: BOS, 12 + 12 digits, '+', SEP, 13, EOS are 41 tokens; + 3 for the
  // offset.
  EXPECT_EQ(ckpt.tensors.at("wpe.weight").shape[0], 41u + 3u);
}

// FoX: the largest decay time its gate biases start at is an option, recorded in the result's
// config (the table's 64 when not given), and it sets the dumped starting biases.
TEST_F(TrainCli, FoxRecordsItsLargestDecayTime) {
  const auto biases = [&](const std::string& decay) {
    std::vector<std::string> args = {"train",       "--task",  "copy",    "--position", "fox",
                                     "--train-len", "3",       "--width", "16",         "--heads",
                                     "2",           "--steps", "0",       "-q",         "-o",
                                     "r.json",      "--dump",  "d"};
    if (!decay.empty()) args.insert(args.end(), {"--fox-decay-max", decay});
    const RunResult r = run(args);
    EXPECT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(read_file(path("r.json")));
    EXPECT_EQ(j["config"]["fox_decay_max"], decay.empty() ? 64.0 : std::stod(decay));
    const SafetensorsFile w = read_safetensors(path("d/weights.safetensors"));
    return w.tensors.at("h.0.attn.fox_b").data;
  };
  const std::vector<float> zero = biases("0"), table = biases("");
  EXPECT_EQ(zero, std::vector<float>(zero.size(), 0.0f));
  ASSERT_EQ(table.size(), zero.size());
  EXPECT_NEAR(table.front(), -std::log(std::expm1(0.5)), 1e-6);      // T = 2
  EXPECT_NEAR(table.back(), -std::log(std::expm1(1.0 / 64)), 1e-5);  // T = 64
}

// --pad-operands is recorded in the result's config and the checkpoint's (absent when off, so
// results from before it read the same), and the run trains on N-digit operands only.
TEST_F(TrainCli, PaddedOperandsAreRecorded) {
  std::vector<std::string> args = with(kSmall, {"--position", "learned", "--pad-operands", "-o",
                                                "r.json", "--checkpoint", "m.safetensors"});
  args[2] = "addition";  // kSmall's task
  const RunResult r = run(args);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(read_file(path("r.json")));
  EXPECT_EQ(j["config"]["pad_operands"], true);
  const auto config =
      nlohmann::json::parse(read_safetensors(path("m.safetensors")).metadata.at("config"));
  EXPECT_EQ(config["pad_operands"], true);
  args = with(kSmall, {"--position", "learned", "-o", "plain.json"});
  args[2] = "addition";
  ASSERT_EQ(run(args).status, 0);
  EXPECT_FALSE(
      nlohmann::json::parse(read_file(path("plain.json")))["config"].contains("pad_operands"));
}

// --index-hints K (Zhou et al. 2024) is recorded in the result's and the checkpoint's config,
// the checkpoint's vocabulary has the K hints; too few hints are refused.
TEST_F(TrainCli, IndexHintsAreRecordedAndTheCheckpointReadsBack) {
  std::vector<std::string> args =
      with(kSmall, {"--position", "fire", "--randomized-positions", "128", "-o", "r.json",
                    "--checkpoint", "m.safetensors", "--index-hints", "13"});
  args[2] = "addition";  // kSmall's task; N = 3 tested to 12: 13 hints at least
  const RunResult r = run(args);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(read_file(path("r.json")));
  EXPECT_EQ(j["config"]["index_hints"], 13);
  const SafetensorsFile ckpt = read_safetensors(path("m.safetensors"));
  const auto config = nlohmann::json::parse(ckpt.metadata.at("config"));
  EXPECT_EQ(config["index_hints"], 13);
  EXPECT_EQ(config["vocab_size"], 11 + 13 + 4);
  args.back() = "12";  // the sum of 12 digits has 13
  const RunResult refused = run(args);
  EXPECT_NE(refused.status, 0);
  EXPECT_NE(refused.err.find("poslab: error: index hints K must be 0 (off) or in [13,"),
            std::string::npos)
      << refused.err;
}

TEST_F(TrainCli, BadOptionsAreRefusedAndLeaveNothing) {
  const std::vector<std::vector<std::string>> bad{
      with(kSmall, {"--position", "spiral", "-o", "r.json"}),
      with(kSmall, {"--position", "rope", "--heads", "3", "-o", "r.json"}),
      with(kSmall, {"--position", "rope", "--width", "12", "--heads", "4", "-o", "r.json"}),
      with(kSmall, {"--position", "none", "--randomized-positions", "64", "-o", "r.json"}),
      with(kSmall, {"--position", "rope", "--randomized-positions", "5", "-o", "r.json"}),
      with(kSmall, {"--position", "none", "--lr", "nan", "-o", "r.json"}),
      with(kSmall, {"--position", "none", "--embed-scale", "0", "-o", "r.json"}),
      with(kSmall, {"--position", "none", "--width", "0", "-o", "r.json"}),
      with(kSmall, {"--position", "none", "--train-len", "100000", "-o", "r.json"}),
      with(kSmall, {"--position", "none", "--batch", "1024", "--width", "1024", "--layers", "16",
                    "--train-len", "128", "-o", "r.json"}),
      with(kSmall, {"--position", "none", "--threads", "0", "-o", "r.json"}),
      with(kSmall, {"--position", "none", "--eval-positions", "random", "-o", "r.json"}),
      with(kSmall, {"--position", "none"}),  // no -o
      with(kSmall, {"--position", "none", "-o", "missing/r.json"}),
      with(kSmall, {"--position", "rope", "--coupled-positions", "64", "-o", "r.json"}),  // copy
      {"train", "--task", "addition", "--position", "fire", "--train-len", "3",
       "--coupled-positions", "64", "-o", "r.json"},  // FIRE's ψ needs rising positions
      with(kSmall, {"--position", "abacus", "--randomized-positions", "64", "-o", "r.json"}),
      with(kSmall, {"--position", "rope", "--abacus-max-offset", "3", "-o", "r.json"}),
      with(kSmall, {"--position", "abacus", "--abacus-max-offset", "5000", "-o", "r.json"}),
      with(kSmall, {"--position", "rope", "--fox-decay-max", "16", "-o", "r.json"}),
      with(kSmall, {"--position", "fox", "--fox-decay-max", "1", "-o", "r.json"}),
      {"train", "--task", "text", "--text-file", "t.txt", "--position", "abacus", "--train-len",
       "8", "-o", "r.json"},  // Abacus numbers digits
      with(kSmall, {"--position", "none", "--seeds", "0", "-o", "r.json"}),
      with(kSmall, {"--position", "none", "--seeds", "101", "-o", "r.json"}),
      with(kSmall, {"--position", "none", "--seed", "18446744073709551615", "--seeds", "2", "-o",
                    "r.json"}),
      {"train", "--task", "copy", "--position", "none", "--train-len", "3", "--steps", "0",
       "--seeds", "2", "--dump", "d"},  // --dump takes one seed
      with(kSmall, {"--position", "none", "--seeds", "2", "-o", "r.json", "--checkpoint",
                    "missing/m.safetensors"}),
      with(kSmall, {"--position", "none", "--text-file", "t.txt", "-o", "r.json"}),  // copy
      {"train", "--task", "text", "--position", "rope", "--train-len", "8", "-o", "r.json"},
      {"train", "--task", "text", "--text-file", "absent.txt", "--position", "rope", "--train-len",
       "8", "-o", "r.json"},
      {"train", "--task", "text", "--text-file", "t.txt", "--position", "rope", "--train-len", "8",
       "--test-len", "4096", "-o", "r.json"},  // the held-out part is 100 bytes
  };
  put("t.txt", std::string(1000, 'x'));
  for (const auto& args : bad) {
    SCOPED_TRACE(testing::PrintToString(args));
    expect_refused(args);
  }
}

}  // namespace
}  // namespace poslab::test

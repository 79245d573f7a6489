// The probe's tables, generated: `poslab train`'s options × bad values and their combinations,
// outputs that name one file, corrupt checkpoints and config.json files for `poslab lm` and
// `poslab gpt2`, and the RoPE scalings' parameters in rope-freqs, rope and lm. Fixtures are
// built with the core's own functions (random weights, encode_safetensors), then broken.
#include "probe_cases.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "poslab/io/npy.hpp"
#include "poslab/io/safetensors.hpp"
#include "poslab/models/gpt2.hpp"
#include "poslab/models/gpt_neox.hpp"
#include "poslab/positions/rope.hpp"

namespace poslab::test::probe {
namespace {

using Json = nlohmann::json;
using Check = std::function<void(const std::string& dir, const RunResult& run)>;
// An option and its value; no value leaves the option out.
using Settings = std::vector<std::pair<std::string, std::optional<std::string>>>;

// `text` as a regex that matches it literally.
std::string literal(const std::string& text) {
  static const std::string special = R"(\^$.|?*+()[]{})";
  std::string out;
  for (char c : text) {
    if (special.find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

// "--train-len" -> "TrainLen", "h.0.attn.c_attn.weight" -> "H0AttnCAttnWeight": a name part.
std::string label(const std::string& text) {
  std::string out;
  bool upper = true;
  for (const char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "_") + p;
  return out;
}

// `base` with each of `changes` replacing the value of its option, or added after them.
std::vector<std::string> command(std::vector<std::string> head, Settings base,
                                 const Settings& changes) {
  for (const auto& change : changes) {
    const auto it = std::find_if(base.begin(), base.end(),
                                 [&](const auto& option) { return option.first == change.first; });
    if (it == base.end()) {
      base.push_back(change);
    } else {
      it->second = change.second;
    }
  }
  for (const auto& [flag, value] : base) {
    if (!value) continue;
    head.push_back(flag);
    head.push_back(*value);
  }
  return head;
}

// The little-endian 8 bytes of `value`.
std::string le64(std::uint64_t value) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((value >> (8 * i)) & 0xff);
  return out;
}

std::uint64_t header_length(const std::string& file) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(file.at(i));
  return n;
}

// A .safetensors file with its header JSON changed by `edit` (the data buffer kept).
std::string edit_header(const std::string& file, const std::function<void(Json&)>& edit) {
  const std::uint64_t n = header_length(file);
  Json header = Json::parse(file.substr(8, n));
  edit(header);
  const std::string text = header.dump();
  return le64(text.size()) + text + file.substr(8 + n);
}

// ---------------------------------------------------------------------------------------------
// Checkpoints and outputs.

using Tensors = std::vector<std::pair<std::string, StoredTensor>>;

std::string encode(const Tensors& tensors) {
  std::vector<std::pair<std::string, const StoredTensor*>> named;
  for (const auto& [name, tensor] : tensors) named.emplace_back(name, &tensor);
  return encode_safetensors(named);
}

// A tiny GPT-NeoX: head width 8, R = 4 rotated dims (so ntk and dynamic scalings apply), the
// trained context (max_position_embeddings) 16.
const char* const kNeoxConfig =
    R"({"model_type": "gpt_neox", "vocab_size": 12, "hidden_size": 16, "num_hidden_layers": 1,
        "num_attention_heads": 2, "intermediate_size": 32, "rotary_pct": 0.5,
        "max_position_embeddings": 16})";
const char* const kGpt2Config =
    R"({"model_type": "gpt2", "vocab_size": 12, "n_positions": 8, "n_embd": 8, "n_layer": 1,
        "n_head": 2})";
constexpr std::size_t kVocab = 12;

template <class Named>
Tensors copies(const Named& named) {
  Tensors out;
  for (const auto& [name, tensor] : named) out.emplace_back(name, *tensor);
  return out;
}

Tensors neox_tensors() {
  const GptNeoxWeights w = lm_random_weights(GptNeoxConfig::from_json(kNeoxConfig, "c.json"), 1);
  return copies(lm_named_tensors(w));
}

Tensors gpt2_tensors() {
  const Gpt2Weights w = lm_random_weights(Gpt2Config::from_json(kGpt2Config, "c.json"), 1);
  return copies(lm_named_tensors(w));
}

const std::vector<std::string>& tensor_names(bool neox) {
  static const auto names = [](const Tensors& tensors) {
    std::vector<std::string> out;
    for (const auto& [name, tensor] : tensors) out.push_back(name);
    return out;
  };
  static const std::vector<std::string> neox_names = names(neox_tensors());
  static const std::vector<std::string> gpt2_names = names(gpt2_tensors());
  return neox ? neox_names : gpt2_names;
}

const std::string& checkpoint(bool neox) {
  static const std::string neox_bytes = encode(neox_tensors());
  static const std::string gpt2_bytes = encode(gpt2_tensors());
  return neox ? neox_bytes : gpt2_bytes;
}

// The .npy at `name` is float32 of `shape`, every element finite.
void expect_finite_npy(const std::string& dir, const std::string& name, const Shape& shape) {
  const TensorF t = parse_npy(read_file(dir + "/" + name), name);
  EXPECT_EQ(t.shape, shape) << name;
  EXPECT_TRUE(std::all_of(t.data.begin(), t.data.end(), [](float x) { return std::isfinite(x); }))
      << name << " holds a value that is not finite";
}

// lm / gpt2 on tokens 1,2,3: out.npy holds finite logits (3, V).
Accepted logits() {
  return Accepted{{"out.npy"}, [](const std::string& dir, const RunResult&) {
                    expect_finite_npy(dir, "out.npy", {3, kVocab});
                  }};
}

// ---------------------------------------------------------------------------------------------
// poslab train.

const Settings kTrainBase = {{"--task", "copy"}, {"--position", "rope"},   {"--train-len", "4"},
                             {"--steps", "2"},   {"--eval-examples", "2"}, {"--batch", "4"},
                             {"-o", "r.json"}};

std::vector<std::string> train(const Settings& changes) {
  return command({"train", "-q"}, kTrainBase, changes);
}

Files train_files(Files more = {}) {
  Files files{{"r.json", kPrevious, ""}, {"c.safetensors", kPrevious, ""}};
  files.insert(files.end(), more.begin(), more.end());
  return files;
}

std::function<Files()> train_sandbox(Files more = {}) {
  return [more] { return train_files(more); };
}

// result.json of a run: config.steps losses, accuracies in [0, 1] for lengths 1..test_len, and
// the config values in `expect`.
Check train_result(Json expect, std::string result = "r.json") {
  return [expect, result](const std::string& dir, const RunResult&) {
    Json r;
    ASSERT_NO_THROW(r = Json::parse(read_file(dir + "/" + result))) << result;
    ASSERT_TRUE(r.contains("config") && r.contains("loss_curve") &&
                r.contains("accuracy_by_length"))
        << r.dump().substr(0, 200);
    for (const auto& [key, value] : expect.items()) {
      EXPECT_EQ(r["config"][key], value) << "config." << key;
    }
    EXPECT_EQ(r["loss_curve"].size(), r["config"]["steps"].get<std::size_t>());
    EXPECT_EQ(r["accuracy_by_length"].size(), r["config"]["test_len"].get<std::size_t>());
    for (const auto& [length, accuracy] : r["accuracy_by_length"].items()) {
      EXPECT_TRUE(accuracy.is_number() && accuracy >= 0.0 && accuracy <= 1.0) << length;
    }
  };
}

Accepted trained(Json expect, std::vector<std::string> outputs = {"r.json"}) {
  return Accepted{std::move(outputs), train_result(std::move(expect))};
}

// --steps 0 --dump DIR: the files the autograd check reads, each parseable.
Check dumped(std::string dir_name) {
  return [dir_name](const std::string& dir, const RunResult&) {
    const std::string d = dir + "/" + dir_name + "/";
    Json config;
    ASSERT_NO_THROW(config = Json::parse(read_file(d + "config.json")));
    EXPECT_TRUE(config.is_object());
    EXPECT_NO_THROW(Json::parse(read_file(d + "loss.json")));
    for (const char* weights : {"weights.safetensors", "grads.safetensors"}) {
      SafetensorsFile f;
      ASSERT_NO_THROW(f = parse_safetensors(read_file(d + weights), weights));
      EXPECT_EQ(f.tensors.count("wte.weight"), 1u) << weights;
    }
    for (const char* npy : {"tokens.npy", "targets.npy", "positions.npy", "loss_mask.npy"}) {
      EXPECT_NO_THROW(parse_npy(read_file(d + npy), npy));
    }
  };
}

struct TrainValue {
  const char* text;
  const char* label;
};
// The values every option is given. Integers beyond 2^64 and in [2^32, 2^64), so a value
// truncated on the way in shows.
const TrainValue kTrainValues[] = {{"0", "Zero"},
                                   {"-1", "MinusOne"},
                                   {"1e308", "Huge1e308"},
                                   {"99999999999999999999", "Huge20Digits"},
                                   {"18446744073709551616", "Two64"},
                                   {"18446744073709551615", "Two64MinusOne"},
                                   {"4294967297", "Two32PlusOne"},
                                   {"nan", "NaN"},
                                   {"inf", "Inf"},
                                   {"-inf", "MinusInf"},
                                   {"abc", "Text"},
                                   {"", "Empty"},
                                   {"1.5", "OneAndAHalf"},
                                   {"1e3", "Exponent"},
                                   {"2abc", "DigitsThenText"},
                                   {" 2", "LeadingSpace"},
                                   {"+2", "PlusSign"},
                                   {"0x10", "Hexadecimal"}};
constexpr std::size_t kTrainValueCount = std::size(kTrainValues);

struct TrainOption {
  const char* flag;
  const char* names;     // regex: the flag, or the words the core's message names it by
  const char* verdicts;  // one per kTrainValues: A accepted, R refused, U refused with status 2,
                         // '-' no case (lr 1e3 and 2^32 + 1 may or may not diverge in 2 steps)
  const char* key;       // its key in result.json's config
  bool integer;
  const char* accepted_as = nullptr;  // what config.key says for every accepted value, if fixed
};

// A careful user's verdicts. Counts of 0 are refused except where 0 means "none": no
// randomised positions, no steps, no warm-up, and seed 0. An integer past 2^64, a sign, a
// fraction, an exponent or a space is not an integer. A number is decimal (no "0x"). The
// learning rate and the embedding scale are positive and finite; a learning rate of 1e19 or more,
// or an embedding scale whose s·wte overflows float32's LayerNorm, is refused naming itself.
const TrainOption kTrainOptions[] = {
    {"--task", "--task", "UUUUUUUUUUUUUUUUUU", "task", false},
    {"--position", "--position", "UUUUUUUUUUUUUUUUUU", "position", false},
    {"--randomized-positions", "--randomized-positions|randomi[sz]ed positions",
     "AUUUURRUUUUUUUUUUU", "randomized_positions", true},
    {"--train-len", "--train-len|training length", "RUUUURRUUUUUUUUUUU", "train_len", true},
    {"--test-len", "--test-len|test length", "RUUUURRUUUUUUUUUUU", "test_len", true},
    {"--layers", "--layers|number of layers", "RUUUURRUUUUUUUUUUU", "layers", true},
    {"--width", "--width|width", "RUUUURRUUUUUUUUUUU", "width", true},
    {"--heads", "--heads|number of heads", "RUUUURRUUUUUUUUUUU", "heads", true},
    {"--batch", "--batch|batch size", "RUUUURRUUUUUUUUUUU", "batch", true},
    {"--steps", "--steps|number of steps", "AUUUURRUUUUUUUUUUU", "steps", true},
    {"--lr", "--lr|learning rate", "RRRRRR-UUUUUA-UU-U", "lr", false},
    {"--warmup-steps", "--warmup-steps", "AUUUUAAUUUUUUUUUUU", "warmup_steps", true, "0"},
    {"--seed", "--seed", "AUUUUAAUUUUUUUUUUU", "seed", true},
    {"--threads", "--threads|threads", "RUUUURRUUUUUUUUUUU", "threads", true},
    {"--embed-scale", "--embed-scale|embedding scale", "RRRRRRAUUUUUAAUUAU", "embed_scale", false},
    {"--eval-positions", "--eval-positions|evaluation positions", "UUUUUUUUUUUUUUUUUU",
     "eval_positions", false},
    {"--eval-examples", "--eval-examples|examples per evaluated length", "RUUUURRUUUUUUUUUUU",
     "eval_examples", true},
};

void add_train_option_values(std::vector<ProbeCase>& cases) {
  for (const TrainOption& option : kTrainOptions) {
    if (std::strlen(option.verdicts) != kTrainValueCount) {
      throw std::logic_error(std::string("verdicts of ") + option.flag + " do not fit the values");
    }
    for (std::size_t i = 0; i < kTrainValueCount; ++i) {
      const TrainValue& v = kTrainValues[i];
      const char verdict = option.verdicts[i];
      if (verdict == '-') continue;
      ProbeCase c{join({label(option.flag), v.label}),
                  train_sandbox(),
                  train({{option.flag, v.text}}),
                  {},
                  Refused{}};
      if (verdict == 'A') {
        Json value;
        if (option.accepted_as) {
          value = Json::parse(option.accepted_as);
        } else if (option.integer) {
          value = std::stoull(v.text);
        } else {
          value = std::stod(v.text);
        }
        c.verdict = trained({{option.key, value}});
      } else {
        c.verdict = refused(verdict == 'U' ? 2 : 0, {option.names});
      }
      cases.push_back(std::move(c));
    }
  }
}

// The output options given names that are not what they write (or nothing).
void add_train_path_values(std::vector<ProbeCase>& cases) {
  const TrainValue names[] = {
      {"0", "Zero"},  {"-1", "MinusOne"}, {"1e308", "Huge1e308"}, {"18446744073709551616", "Two64"},
      {"nan", "NaN"}, {"inf", "Inf"},     {"abc", "Text"},        {"", "Empty"}};
  for (const TrainValue& v : names) {
    // -o writes JSON and --checkpoint safetensors: any other name, or none, is refused.
    cases.push_back({join({"Out", v.label}),
                     train_sandbox(),
                     train({{"-o", v.text}}),
                     {},
                     refused(2, {R"(-o (writes|result))"})});
    cases.push_back({join({"Checkpoint", v.label}),
                     train_sandbox(),
                     train({{"--checkpoint", v.text}}),
                     {},
                     refused(2, {"--checkpoint"})});
    // --dump DIR with --steps 0: any name is a directory name; no name is refused.
    ProbeCase dump{join({"Dump", v.label}),
                   train_sandbox(),
                   train({{"--steps", "0"}, {"-o", std::nullopt}, {"--dump", v.text}}),
                   {},
                   refused(2, {"--dump"})};
    if (*v.text != '\0') dump.verdict = Accepted{{v.text}, dumped(v.text)};
    cases.push_back(std::move(dump));
  }
}

void add_train_combinations(std::vector<ProbeCase>& cases) {
  const auto refuse = [&](const char* name, Settings s, int status, std::string pattern,
                          Files more = {}, std::vector<std::string> env = {}) {
    cases.push_back({name, train_sandbox(std::move(more)), train(s), std::move(env),
                     refused(status, {std::move(pattern)})});
  };
  const auto accept = [&](const char* name, Settings s, Json expect,
                          std::vector<std::string> env = {}) {
    cases.push_back({name, train_sandbox(), train(s), std::move(env), trained(std::move(expect))});
  };

  // Every position method on every task, one small run each.
  for (const auto& [task, task_text] : std::vector<std::pair<const char*, const char*>>{
           {"Copy", "copy"}, {"Reverse", "reverse"}, {"Sort", "sort"}, {"Addition", "addition"}}) {
    for (const char* position : {"learned", "sinusoidal", "rope", "alibi", "t5", "none"}) {
      cases.push_back({join({"Run", task, label(position)}),
                       train_sandbox(),
                       train({{"--task", task_text}, {"--position", position}}),
                       {},
                       trained({{"task", task_text}, {"position", position}})});
    }
  }

  // The model's shape.
  refuse("WidthNotDivisibleByHeads", {{"--width", "10"}, {"--heads", "4"}}, 0,
         R"(divisible by the number of heads|--heads)");
  refuse("OddHeadWidthWithRope", {{"--width", "12"}, {"--heads", "4"}}, 0, R"(head width)");
  accept("OddHeadWidthWithAlibi", {{"--position", "alibi"}, {"--width", "12"}, {"--heads", "4"}},
         {{"width", 12}, {"heads", 4}});
  refuse("HeadWidthOneWithRope", {{"--width", "8"}, {"--heads", "8"}}, 0, R"(head width)");
  accept("HeadWidthOneWithT5", {{"--position", "t5"}, {"--width", "8"}, {"--heads", "8"}},
         {{"heads", 8}});
  refuse("MoreHeadsThanWidth", {{"--width", "8"}, {"--heads", "9"}}, 0,
         R"(--heads|number of heads)");
  refuse("SinusoidalOddWidth", {{"--position", "sinusoidal"}, {"--width", "9"}, {"--heads", "3"}},
         0, R"(width)");
  accept("LearnedOddWidth", {{"--position", "learned"}, {"--width", "9"}, {"--heads", "3"}},
         {{"width", 9}});
  accept("WidthOne", {{"--position", "alibi"}, {"--width", "1"}, {"--heads", "1"}}, {{"width", 1}});
  refuse("LayersPastTheCap", {{"--layers", "17"}}, 0, R"(--layers|number of layers)");
  accept("LayersAtTheCap", {{"--layers", "16"}, {"--width", "8"}, {"--heads", "2"}},
         {{"layers", 16}});
  refuse("WidthPastTheCap", {{"--width", "1025"}}, 0, R"(--width|width)");
  refuse("BatchPastTheCap", {{"--batch", "1025"}}, 0, R"(--batch|batch size)");
  accept("BatchAtTheCap", {{"--batch", "1024"}, {"--train-len", "1"}, {"--test-len", "1"}},
         {{"batch", 1024}});
  refuse("EvalExamplesPastTheCap", {{"--eval-examples", "4097"}}, 0,
         R"(--eval-examples|examples per evaluated length)");
  accept("EvalExamplesAtTheCap",
         {{"--eval-examples", "4096"}, {"--train-len", "1"}, {"--test-len", "1"}},
         {{"eval_examples", 4096}});
  refuse("StepsPastTheCap", {{"--steps", "10000001"}}, 0, R"(--steps|number of steps)");
  accept("StepsZero", {{"--steps", "0"}}, {{"steps", 0}});
  accept("WarmupOneOfTwoSteps", {{"--warmup-steps", "1"}, {"--steps", "20"}},
         {{"warmup_steps", 1}});
  accept("TwoThreads", {{"--threads", "2"}}, {{"threads", 2}});
  accept("MoreThreadsThanSequences", {{"--threads", "64"}}, {{"threads", 64}});

  // Lengths: 512 at most, the test length 4 N when not given.
  refuse("TrainLenPastTheCap", {{"--train-len", "513"}}, 0, R"(--train-len|training length)");
  refuse("TestLenPastTheCap", {{"--test-len", "513"}}, 0, R"(--test-len|test length)");
  refuse("ImpliedTestLenPastTheCap", {{"--train-len", "129"}}, 0, R"(--test-len|test length)");
  accept("TestLenShorterThanTrainLen", {{"--test-len", "2"}}, {{"test_len", 2}, {"train_len", 4}});
  accept("TestLenOne", {{"--test-len", "1"}, {"--train-len", "1"}}, {{"test_len", 1}});

  // Randomised positions: MAX at least the longest sequence (copy of 16: 35 tokens; addition
  // of 16 digits: 53), at most 2^20, and a position method that sees positions.
  refuse("RandomizedPositionsWithNone", {{"--position", "none"}, {"--randomized-positions", "64"}},
         0, R"(randomi[sz]ed positions|--randomized-positions)");
  refuse("RandomizedPositionsBelowTheLongest", {{"--randomized-positions", "34"}}, 0,
         R"(randomi[sz]ed positions|--randomized-positions)");
  accept("RandomizedPositionsAtTheLongest", {{"--randomized-positions", "35"}},
         {{"randomized_positions", 35}, {"eval_positions", "random"}});
  refuse("AdditionRandomizedPositionsBelowTheLongest",
         {{"--task", "addition"}, {"--randomized-positions", "52"}}, 0,
         R"(randomi[sz]ed positions|--randomized-positions)");
  accept("AdditionRandomizedPositionsAtTheLongest",
         {{"--task", "addition"}, {"--randomized-positions", "53"}},
         {{"randomized_positions", 53}});
  accept("RandomizedPositionsAtTheCap", {{"--randomized-positions", "1048576"}},
         {{"randomized_positions", 1048576}});
  refuse("RandomizedPositionsPastTheCap", {{"--randomized-positions", "1048577"}}, 0,
         R"(randomi[sz]ed positions|--randomized-positions)");
  // Position coupling: the addition task only, MAX at least the most digits + 3 (16 + 3: BOS's 0,
  // the start, the sum's 17 digits).
  refuse("CoupledPositionsOnCopy", {{"--coupled-positions", "64"}}, 0,
         R"(position coupling|--coupled-positions)");
  refuse("AdditionCoupledPositionsBelowTheDigits",
         {{"--task", "addition"}, {"--coupled-positions", "18"}}, 0,
         R"(coupled positions|--coupled-positions)");
  accept("AdditionCoupledPositionsAtTheDigits",
         {{"--task", "addition"}, {"--coupled-positions", "19"}}, {{"coupled_positions", 19}});
  refuse("CoupledAndRandomizedPositions",
         {{"--task", "addition"}, {"--coupled-positions", "64"}, {"--randomized-positions", "64"}},
         0, R"(position coupling|--coupled-positions)");
  refuse("RandomEvalPositionsWithoutRandomizedPositions", {{"--eval-positions", "random"}}, 0,
         R"(--randomized-positions)");
  accept("RandomEvalPositions", {{"--eval-positions", "random"}, {"--randomized-positions", "64"}},
         {{"eval_positions", "random"}});
  accept("IndexEvalPositionsWithRandomizedPositions",
         {{"--eval-positions", "index"}, {"--randomized-positions", "64"}},
         {{"eval_positions", "index"}});
  accept("IndexEvalPositions", {{"--eval-positions", "index"}}, {{"eval_positions", "index"}});

  // Learning rate and embedding scale: printed as typed; refused before any step when they
  // cannot work.
  refuse("LrTinyNegative", {{"--lr", "-1e-30"}}, 0, R"((--lr|learning rate).*-1e-30)");
  accept("LrTinyPositive", {{"--lr", "1e-30"}}, {{"lr", 1e-30}});
  refuse("EmbedScaleOverflowingFloat32", {{"--embed-scale", "1e308"}}, 0,
         R"(--embed-scale|embedding scale)");
  refuse("EmbedScaleTinyNegative", {{"--embed-scale", "-1e-30"}}, 0,
         R"((--embed-scale|embedding scale).*-1e-30)");

  // --dump: the weights and their gradients after the run's steps (the initial ones with
  // --steps 0); -o may come along.
  cases.push_back({"DumpWithSteps",
                   train_sandbox(),
                   train({{"--dump", "d"}}),
                   {},
                   Accepted{{"d", "r.json"}, dumped("d")}});
  cases.push_back({"DumpWithStepsZero",
                   train_sandbox(),
                   train({{"--steps", "0"}, {"-o", std::nullopt}, {"--dump", "d"}}),
                   {},
                   Accepted{{"d"}, dumped("d")}});
  cases.push_back({"DumpAndResultWithStepsZero",
                   train_sandbox(),
                   train({{"--steps", "0"}, {"--dump", "d"}}),
                   {},
                   Accepted{{"d", "r.json"}, [](const std::string& dir, const RunResult& r) {
                              dumped("d")(dir, r);
                              train_result({{"steps", 0}})(dir, r);
                            }}});
  cases.push_back({"DumpIntoAnExistingDirectory",
                   train_sandbox({{"d/", "", ""}}),
                   train({{"--steps", "0"}, {"-o", std::nullopt}, {"--dump", "d"}}),
                   {},
                   Accepted{{"d"}, dumped("d")}});
  refuse("NoOutputAtAll", {{"-o", std::nullopt}}, 2, R"(-o)");
  cases.push_back(
      {"CheckpointWritten",
       train_sandbox(),
       train({{"--checkpoint", "c.safetensors"}}),
       {},
       Accepted{{"r.json", "c.safetensors"}, [](const std::string& dir, const RunResult& r) {
                  train_result({{"steps", 2}})(dir, r);
                  SafetensorsFile f;
                  ASSERT_NO_THROW(f = read_safetensors(dir + "/c.safetensors"));
                  EXPECT_EQ(f.tensors.count("wte.weight"), 1u);
                }}});

  // Memory: a working set over the limit (4 GiB, or POSLAB_TRAIN_MEMORY_LIMIT) is refused up
  // front, naming the options to lower; so is a tensor over the element cap.
  const char* lower = R"(--layers.*--width.*--batch.*--train-len.*--test-len)";
  refuse("WorkingSetOverTheLimit",
         {{"--layers", "16"},
          {"--width", "1024"},
          {"--train-len", "512"},
          {"--test-len", "512"},
          {"--batch", "3"},
          {"--eval-examples", "1"}},
         0, lower);
  refuse("LargestRunOfTheIssue",
         {{"--layers", "16"}, {"--width", "1024"}, {"--train-len", "512"}, {"--batch", "3"}}, 0,
         R"(--layers|--width|--batch|--train-len|--test-len|test length)");
  refuse("EvaluationAttentionOverTheElementCap",
         {{"--layers", "16"},
          {"--width", "1024"},
          {"--train-len", "512"},
          {"--test-len", "512"},
          {"--batch", "3"},
          {"--eval-examples", "64"}},
         0, R"(--layers|--batch|--eval-examples|--test-len)");
  refuse("MemoryLimitOneMiB", {}, 0, lower, {}, {"POSLAB_TRAIN_MEMORY_LIMIT=1MiB"});
  refuse("MemoryLimitNotASize", {}, 2, R"(POSLAB_TRAIN_MEMORY_LIMIT)", {},
         {"POSLAB_TRAIN_MEMORY_LIMIT=abc"});
  refuse("MemoryLimitZero", {}, 2, R"(POSLAB_TRAIN_MEMORY_LIMIT)", {},
         {"POSLAB_TRAIN_MEMORY_LIMIT=0"});
  refuse("MemoryLimitNegative", {}, 2, R"(POSLAB_TRAIN_MEMORY_LIMIT)", {},
         {"POSLAB_TRAIN_MEMORY_LIMIT=-8GiB"});
  accept("MemoryLimitRaised", {}, {{"steps", 2}}, {"POSLAB_TRAIN_MEMORY_LIMIT=8GiB"});

  // The command line itself.
  cases.push_back({"NoCommand",
                   train_sandbox(),
                   {"--task", "copy", "--position", "rope", "--train-len", "4", "-o", "r.json"},
                   {},
                   refused(2, {R"(command)", R"(\btrain\b)"})});
  refuse("UnknownOption", {{"--bogus", "1"}}, 2, R"(--bogus)");
  refuse("NoTask", {{"--task", std::nullopt}}, 2, R"(--task)");
  refuse("NoPosition", {{"--position", std::nullopt}}, 2, R"(--position)");
  refuse("NoTrainLen", {{"--train-len", std::nullopt}}, 2, R"(--train-len)");
  cases.push_back({"OptionGivenTwice",
                   train_sandbox(),
                   {"train", "-q", "--task", "copy", "--position", "rope", "--train-len", "4",
                    "--layers", "1", "--layers", "2", "-o", "r.json"},
                   {},
                   refused(2, {R"(--layers)"})});
  refuse("TaskInCapitals", {{"--task", "Copy"}}, 2, R"(--task)");
  refuse("PositionWithSpace", {{"--position", "rope "}}, 2, R"(--position)");
}

}  // namespace

std::vector<ProbeCase> train_cases() {
  std::vector<ProbeCase> cases;
  add_train_option_values(cases);
  add_train_path_values(cases);
  add_train_combinations(cases);
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Two outputs that name one file.

std::vector<ProbeCase> output_cases() {
  std::vector<ProbeCase> cases;
  const std::string same = R"(name the same file)";
  const auto train_case = [&](const char* name, Settings s, Files files) {
    cases.push_back({name, [files] { return files; }, train(s), {}, refused(2, {same})});
  };
  const Files previous{{"r.json", kPrevious, ""}};
  const Files none;
  // -o must end in .json and --checkpoint in .safetensors, so one name is refused either way.
  cases.push_back({"TrainOutAndCheckpointOneName",
                   [previous] { return previous; },
                   train({{"--checkpoint", "r.json"}}),
                   {},
                   refused(2, {"--checkpoint"})});
  train_case("TrainCheckpointLinkedToOut", {{"--checkpoint", "c.safetensors"}},
             {{"r.json", kPrevious, ""}, {"c.safetensors", "", "r.json"}});
  train_case("TrainDumpAndOutOneName", {{"--steps", "0"}, {"--dump", "r.json"}}, previous);
  train_case("TrainDumpAndOutOneNameNew", {{"--steps", "0"}, {"--dump", "r.json"}}, none);
  train_case("TrainDumpDotSlashAndOut", {{"--steps", "0"}, {"--dump", "./r.json"}}, previous);
  train_case("TrainDumpDotSlashAndOutNew", {{"--steps", "0"}, {"--dump", "./r.json"}}, none);
  train_case("TrainDumpAndOutThroughParent", {{"--steps", "0"}, {"--dump", "d/../r.json"}},
             {{"r.json", kPrevious, ""}, {"d/", "", ""}});
  train_case("TrainDumpAndCheckpointOneName",
             {{"--steps", "0"},
              {"-o", std::nullopt},
              {"--dump", "c.safetensors"},
              {"--checkpoint", "c.safetensors"}},
             none);
  cases.push_back({"TrainOutIsADirectory",
                   [] {
                     return Files{{"r.json/", "", ""}};
                   },
                   train({}),
                   {},
                   refused(0, {R"(r\.json.*directory)"})});
  cases.push_back({"TrainCheckpointIsADirectory",
                   [] {
                     return Files{{"c.safetensors/", "", ""}};
                   },
                   train({{"--checkpoint", "c.safetensors"}}),
                   {},
                   refused(0, {R"(c\.safetensors.*directory)"})});
  cases.push_back({"TrainOutInAMissingDirectory",
                   [] { return Files{}; },
                   train({{"-o", "missing/r.json"}}),
                   {},
                   refused(0, {R"(missing)"})});
  cases.push_back({"TrainOutUnderAFile",
                   [] {
                     return Files{{"file", "x", ""}};
                   },
                   train({{"-o", "file/r.json"}}),
                   {},
                   refused(0, {R"(file)"})});
  cases.push_back({"TrainDumpIsAFile",
                   [previous] { return previous; },
                   train({{"--steps", "0"}, {"-o", std::nullopt}, {"--dump", "r.json"}}),
                   {},
                   refused(0, {R"(--dump must name a directory)"})});
  cases.push_back({"TrainOutNpy",
                   [previous] { return previous; },
                   train({{"-o", "r.npy"}}),
                   {},
                   refused(2, {R"(-o .*\.json)"})});
  cases.push_back({"TrainCheckpointJson",
                   [previous] { return previous; },
                   train({{"--checkpoint", "c.json"}}),
                   {},
                   refused(2, {R"(--checkpoint .*\.safetensors)"})});

  // --trace DIR and -o FILE of lm and gpt2; --weights and -o of attention.
  const auto neox_files = [](bool previous_out) {
    Files f{{"c.json", kNeoxConfig, ""}, {"m.safetensors", checkpoint(true), ""}};
    if (previous_out) f.push_back({"out.npy", kPrevious, ""});
    return f;
  };
  const auto gpt2_files = [](bool previous_out) {
    Files f{{"c.json", kGpt2Config, ""}, {"m.safetensors", checkpoint(false), ""}};
    if (previous_out) f.push_back({"out.npy", kPrevious, ""});
    return f;
  };
  for (const bool neox : {true, false}) {
    for (const bool lm : {true, false}) {
      if (neox && !lm) continue;  // gpt2 runs GPT-2 only
      const std::string who = std::string(lm ? "Lm" : "Gpt2") + (neox ? "Neox" : "");
      for (const auto& [spelling, trace] : std::vector<std::pair<const char*, const char*>>{
               {"OneName", "out.npy"}, {"DotSlash", "./out.npy"}}) {
        for (const bool previous_out : {true, false}) {
          std::vector<std::string> args{
              lm ? "lm" : "gpt2", "--weights", "m.safetensors", "--config", "c.json",
              "--tokens",         "1,2,3",     "--trace",       trace,      "-o",
              "out.npy"};
          cases.push_back(
              {join({who, "TraceAndOut", spelling, previous_out ? "Existing" : "New"}),
               [=] { return neox ? neox_files(previous_out) : gpt2_files(previous_out); },
               args,
               {},
               refused(2, {same})});
        }
      }
    }
  }
  const std::string q = npy_f4(4, 8, std::vector<float>(32, 0.25f));
  for (const auto& [spelling, weights] : std::vector<std::pair<const char*, const char*>>{
           {"OneName", "w.npy"}, {"DotSlash", "./w.npy"}, {"ThroughParent", "d/../w.npy"}}) {
    for (const bool previous_out : {true, false}) {
      cases.push_back(
          {join({"AttentionWeightsAndOut", spelling, previous_out ? "Existing" : "New"}),
           [q, previous_out] {
             Files f{{"q.npy", q, ""}, {"d/", "", ""}};
             if (previous_out) f.push_back({"w.npy", kPrevious, ""});
             return f;
           },
           {"attention", "--q", "q.npy", "--k", "q.npy", "--v", "q.npy", "--weights", weights, "-o",
            "w.npy"},
           {},
           refused(2, {same})});
    }
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------
// poslab lm and poslab gpt2: corrupt checkpoints and configs.

namespace {

// One way to run a checkpoint: which model, which command.
struct LmTarget {
  const char* label;
  bool neox;
  const char* command;
};
const LmTarget kLmTargets[] = {
    {"LmNeox", true, "lm"}, {"LmGpt2", false, "lm"}, {"Gpt2", false, "gpt2"}};

std::vector<std::string> lm_args(const LmTarget& t, std::vector<std::string> more = {}) {
  std::vector<std::string> args{t.command,  "--weights", "m.safetensors",
                                "--config", "c.json",    "--tokens",
                                "1,2,3",    "-o",        "out.npy"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// The sandbox of a target: its config and checkpoint (either replaced), a previous out.npy.
std::function<Files()> lm_sandbox(bool neox, std::function<std::string()> weights,
                                  std::optional<std::string> config = std::nullopt) {
  return [=] {
    Files f{{"out.npy", kPrevious, ""}};
    f.push_back({"c.json", config ? *config : (neox ? kNeoxConfig : kGpt2Config), ""});
    const std::string w = weights ? weights() : checkpoint(neox);
    if (w != "<none>") f.push_back({"m.safetensors", w, ""});
    return f;
  };
}

// A file-level corruption of the checkpoint's bytes.
struct FileDamage {
  const char* label;
  std::string (*damage)(const std::string& good);
  const char* pattern;  // after "m.safetensors"
};

const FileDamage kFileDamages[] = {
    {"Empty", [](const std::string&) { return std::string(); }, R"(too short|0 bytes)"},
    {"FourBytes", [](const std::string& g) { return g.substr(0, 4); }, R"(too short|4 bytes)"},
    {"HeaderLengthOnly", [](const std::string& g) { return g.substr(0, 8); },
     R"(runs past|truncated)"},
    {"HalfTheHeader", [](const std::string& g) { return g.substr(0, 8 + header_length(g) / 2); },
     R"(runs past|truncated)"},
    {"HeaderWithoutData", [](const std::string& g) { return g.substr(0, 8 + header_length(g)); },
     R"(run past|truncated)"},
    {"HalfTheData",
     [](const std::string& g) {
       const std::size_t data = 8 + header_length(g);
       return g.substr(0, data + (g.size() - data) / 2);
     },
     R"(run past|truncated)"},
    {"LastByteCut", [](const std::string& g) { return g.substr(0, g.size() - 1); },
     R"(run past|truncated)"},
    {"TrailingBytes", [](const std::string& g) { return g + "junk"; }, R"(bytes|data)"},
    {"HeaderLengthZero", [](const std::string& g) { return le64(0) + g.substr(8); },
     R"(header length 0)"},
    {"HeaderLengthMinusOne",
     [](const std::string& g) { return le64(header_length(g) - 1) + g.substr(8); },
     R"(header|JSON|tensor)"},
    {"HeaderLengthPlusOne",
     [](const std::string& g) { return le64(header_length(g) + 1) + g.substr(8); }, R"(header)"},
    {"HeaderLengthTheWholeFile", [](const std::string& g) { return le64(g.size()) + g.substr(8); },
     R"(header length \d+ runs past)"},
    {"HeaderLengthOverTheCap", [](const std::string& g) { return le64(100'000'001) + g.substr(8); },
     R"(header length 100000001 is over the limit)"},
    {"HeaderLengthTwo63",
     [](const std::string& g) { return le64(std::uint64_t(1) << 63) + g.substr(8); },
     R"(header length 9223372036854775808)"},
    {"HeaderLengthMax", [](const std::string& g) { return le64(~std::uint64_t(0)) + g.substr(8); },
     R"(header length 18446744073709551615)"},
    {"HeaderNotJson", [](const std::string&) { return le64(5) + "hello"; }, R"(JSON)"},
    {"HeaderArray", [](const std::string&) { return le64(2) + "[]"; }, R"(JSON object)"},
    {"HeaderNull", [](const std::string&) { return le64(4) + "null"; }, R"(JSON object)"},
    {"HeaderWithNul",
     [](const std::string& g) {
       std::string bad = g;
       bad[8 + header_length(g) / 2] = '\0';
       return bad;
     },
     R"(JSON)"},
    {"MetadataNotStrings",
     [](const std::string& g) {
       return edit_header(g, [](Json& h) { h["__metadata__"] = {{"format", 1}}; });
     },
     R"(__metadata__)"},
    {"MetadataArray",
     [](const std::string& g) {
       return edit_header(g, [](Json& h) { h["__metadata__"] = Json::array({1}); });
     },
     R"(__metadata__)"},
    {"NpyFile", [](const std::string&) { return npy_f4(2, 2, std::vector<float>(4, 1.0f)); },
     R"(header length|not a safetensors)"},
    {"JsonFile", [](const std::string&) { return std::string(kNeoxConfig); },
     R"(header length|not a safetensors)"},
};

// A change to the header entry of one tensor (a matrix of the model).
struct EntryDamage {
  const char* label;
  void (*damage)(Json& entry, std::uint64_t data_size);
  const char* pattern;  // after the tensor's name
};

const EntryDamage kEntryDamages[] = {
    {"DtypeBF16", [](Json& e, std::uint64_t) { e["dtype"] = "BF16"; }, R"(BF16)"},
    {"DtypeF64", [](Json& e, std::uint64_t) { e["dtype"] = "F64"; }, R"(F64)"},
    {"DtypeF16", [](Json& e, std::uint64_t) { e["dtype"] = "F16"; }, R"(F16)"},
    {"DtypeI32", [](Json& e, std::uint64_t) { e["dtype"] = "I32"; }, R"(I32)"},
    {"DtypeI64", [](Json& e, std::uint64_t) { e["dtype"] = "I64"; }, R"(I64)"},
    {"DtypeBool", [](Json& e, std::uint64_t) { e["dtype"] = "BOOL"; }, R"(BOOL)"},
    {"DtypeUnknown", [](Json& e, std::uint64_t) { e["dtype"] = "Q4_0"; }, R"(Q4_0)"},
    {"DtypeLowercase", [](Json& e, std::uint64_t) { e["dtype"] = "f32"; }, R"(f32)"},
    {"DtypeNumber", [](Json& e, std::uint64_t) { e["dtype"] = 32; }, R"(dtype)"},
    {"DtypeMissing", [](Json& e, std::uint64_t) { e.erase("dtype"); }, R"(dtype)"},
    {"ShapeNegative",
     [](Json& e, std::uint64_t) {
       for (Json& d : e["shape"]) d = -d.get<long long>();
     },
     R"(shape)"},
    {"ShapeString", [](Json& e, std::uint64_t) { e["shape"] = "8,8"; }, R"(shape)"},
    {"ShapeMissing", [](Json& e, std::uint64_t) { e.erase("shape"); }, R"(shape)"},
    {"ShapeHuge",
     [](Json& e, std::uint64_t) {
       e["shape"] = {1099511627776LL, 0};
     },
     R"(1099511627776)"},
    {"ShapeOneMoreColumn",
     [](Json& e, std::uint64_t) { e["shape"].back() = e["shape"].back().get<long long>() + 1; },
     R"(shape|bytes)"},
    {"ShapeTransposed",
     [](Json& e, std::uint64_t) {
       Json& s = e["shape"];
       std::swap(s[0], s[1]);
     },
     R"(shape)"},
    {"ShapeExtraAxis", [](Json& e, std::uint64_t) { e["shape"].push_back(1); }, R"(shape)"},
    {"ShapeFlat",
     [](Json& e, std::uint64_t) {
       e["shape"] = {e["shape"][0].get<long long>() * e["shape"][1].get<long long>()};
     },
     R"(shape)"},
    {"OffsetsReversed",
     [](Json& e, std::uint64_t) {
       Json& o = e["data_offsets"];
       std::swap(o[0], o[1]);
     },
     R"(data_offsets|before)"},
    {"OffsetsPastTheEnd",
     [](Json& e, std::uint64_t size) {
       const auto span =
           e["data_offsets"][1].get<std::uint64_t>() - e["data_offsets"][0].get<std::uint64_t>();
       e["data_offsets"] = {size, size + span};
     },
     R"(run past|truncated)"},
    {"OffsetsOverlapping",
     [](Json& e, std::uint64_t) {
       const auto begin = e["data_offsets"][0].get<std::uint64_t>();
       const auto end = e["data_offsets"][1].get<std::uint64_t>();
       e["data_offsets"] = {begin + 4, end + 4};
     },
     R"(overlaps)"},
    {"OffsetsMissing", [](Json& e, std::uint64_t) { e.erase("data_offsets"); }, R"(data_offsets)"},
    {"OffsetsNegative", [](Json& e, std::uint64_t) { e["data_offsets"][0] = -256; },
     R"(data_offsets)"},
    {"OffsetsFraction", [](Json& e, std::uint64_t) { e["data_offsets"][1] = 0.5; },
     R"(data_offsets)"},
    {"OffsetsThree", [](Json& e, std::uint64_t) { e["data_offsets"].push_back(0); },
     R"(data_offsets)"},
    {"EntryNotAnObject", [](Json& e, std::uint64_t) { e = 5; }, R"(object)"},
};

// The matrix of the model whose entry is damaged.
const char* damaged_matrix(bool neox) {
  return neox ? "gpt_neox.layers.0.attention.query_key_value.weight" : "h.0.attn.c_attn.weight";
}

std::uint64_t data_size(const std::string& file) { return file.size() - 8 - header_length(file); }

void add_checkpoint_cases(std::vector<ProbeCase>& cases) {
  for (const LmTarget& t : kLmTargets) {
    for (const FileDamage& d : kFileDamages) {
      const auto damage = d.damage;
      const bool neox = t.neox;
      cases.push_back({join({t.label, d.label}),
                       lm_sandbox(neox, [=] { return damage(checkpoint(neox)); }),
                       lm_args(t),
                       {},
                       refused(1, {std::string(R"(m\.safetensors)"), d.pattern})});
    }
    const bool neox = t.neox;
    cases.push_back({join({t.label, "WeightsMissing"}),
                     lm_sandbox(neox, [] { return std::string("<none>"); }),
                     lm_args(t),
                     {},
                     refused(0, {R"(m\.safetensors.*(No such file|cannot open|not found))"})});
    cases.push_back({join({t.label, "WeightsAreADirectory"}),
                     [neox] {
                       Files f = lm_sandbox(neox, [] { return std::string("<none>"); })();
                       f.push_back({"m.safetensors/", "", ""});
                       return f;
                     },
                     lm_args(t),
                     {},
                     refused(0, {R"(m\.safetensors)"})});

    // One matrix's header entry.
    const std::string matrix = damaged_matrix(neox);
    for (const EntryDamage& d : kEntryDamages) {
      const auto damage = d.damage;
      cases.push_back({join({t.label, "Entry", d.label}),
                       lm_sandbox(neox,
                                  [=] {
                                    const std::string& good = checkpoint(neox);
                                    const std::uint64_t size = data_size(good);
                                    return edit_header(good,
                                                       [&](Json& h) { damage(h[matrix], size); });
                                  }),
                       lm_args(t),
                       {},
                       refused(1, {std::string(R"(m\.safetensors)"), literal(matrix), d.pattern})});
    }

    // Every tensor: missing, one more axis, an integer dtype of the same width, a NaN, an inf.
    for (const std::string& name : tensor_names(neox)) {
      std::string short_name = name;
      if (short_name.rfind("gpt_neox.", 0) == 0) short_name = short_name.substr(9);
      const auto add = [&](const char* what, std::function<std::string()> weights,
                           std::string pattern) {
        cases.push_back({join({t.label, label(short_name), what}),
                         lm_sandbox(neox, weights),
                         lm_args(t),
                         {},
                         refused(1, {literal(name), std::move(pattern)})});
      };
      // Without wte.weight, lm cannot tell a GPT-2 checkpoint from anything else: it says so.
      add(
          "Missing", [=] { return edit_header(checkpoint(neox), [&](Json& h) { h.erase(name); }); },
          R"(missing|no )");
      add(
          "ExtraAxis",
          [=] {
            return edit_header(checkpoint(neox), [&](Json& h) { h[name]["shape"].push_back(1); });
          },
          R"(shape)");
      add(
          "DtypeI32",
          [=] { return edit_header(checkpoint(neox), [&](Json& h) { h[name]["dtype"] = "I32"; }); },
          R"(I32)");
      for (const auto& [what, value] : std::vector<std::pair<const char*, float>>{
               {"NaN", std::numeric_limits<float>::quiet_NaN()},
               {"Inf", -std::numeric_limits<float>::infinity()}}) {
        const float v = value;
        add(
            what,
            [=] {
              Tensors tensors = neox ? neox_tensors() : gpt2_tensors();
              for (auto& [n, tensor] : tensors) {
                if (n == name) tensor.f32.back() = v;
              }
              return encode(tensors);
            },
            R"(NaN|inf)");
      }
    }

    // Accepted: the same weights stored as F16, and the buffers checkpoints carry (skipped).
    cases.push_back({join({t.label, "HalfPrecision"}),
                     lm_sandbox(neox,
                                [neox] {
                                  Tensors tensors = neox ? neox_tensors() : gpt2_tensors();
                                  for (auto& [name, tensor] : tensors) {
                                    tensor =
                                        StoredTensor::from(tensor.to_float(), StoredDType::kF16);
                                  }
                                  return encode(tensors);
                                }),
                     lm_args(t),
                     {},
                     logits()});
    cases.push_back(
        {join({t.label, "Buffers"}),
         lm_sandbox(neox,
                    [neox] {
                      Tensors tensors = neox ? neox_tensors() : gpt2_tensors();
                      const std::string layer = neox ? "gpt_neox.layers.0.attention." : "h.0.attn.";
                      tensors.emplace_back(layer + "bias",
                                           StoredTensor({1, 1, 8, 8}, StoredDType::kF32, "bias"));
                      tensors.emplace_back(layer + "masked_bias",
                                           StoredTensor({}, StoredDType::kF32, "masked_bias"));
                      if (neox) {
                        tensors.emplace_back(layer + "rotary_emb.inv_freq",
                                             StoredTensor({2}, StoredDType::kF32, "inv_freq"));
                      }
                      return encode(tensors);
                    }),
         lm_args(t),
         {},
         logits()});
    cases.push_back({join({t.label, "UnknownTensor"}),
                     lm_sandbox(neox,
                                [neox] {
                                  Tensors tensors = neox ? neox_tensors() : gpt2_tensors();
                                  tensors.emplace_back(
                                      "lm_head.extra",
                                      StoredTensor({2}, StoredDType::kF32, "extra"));
                                  return encode(tensors);
                                }),
                     lm_args(t),
                     {},
                     refused(1, {R"(lm_head\.extra)"})});
  }
}

// config.json of the GPT-NeoX: `base` with `key` set to the JSON `value` (or removed).
std::string neox_config_with(const std::string& key, const std::optional<std::string>& value) {
  Json config = Json::parse(kNeoxConfig);
  if (value) {
    config[key] = Json::parse(*value);
  } else {
    config.erase(key);
  }
  return config.dump();
}

std::string gpt2_config_with(const std::string& key, const std::string& value) {
  Json config = Json::parse(kGpt2Config);
  config[key] = Json::parse(value);
  return config.dump();
}

void add_config_cases(std::vector<ProbeCase>& cases) {
  const LmTarget& neox = kLmTargets[0];
  const auto refuse = [&](std::string name, std::string config, std::vector<std::string> patterns) {
    patterns.insert(patterns.begin(), R"(c\.json)");
    cases.push_back({"NeoxConfig_" + name,
                     lm_sandbox(true, nullptr, std::move(config)),
                     lm_args(neox),
                     {},
                     refused(1, std::move(patterns))});
  };
  const auto accept = [&](std::string name, std::string config) {
    cases.push_back({"NeoxConfig_" + name,
                     lm_sandbox(true, nullptr, std::move(config)),
                     lm_args(neox),
                     {},
                     logits()});
  };

  refuse("NotJson", "{", {R"(JSON)"});
  refuse("EmptyFile", "", {R"(JSON)"});
  refuse("Array", "[]", {R"(object)"});
  refuse("Null", "null", {R"(object)"});
  refuse("Number", "5", {R"(object)"});
  refuse("TrailingComma", R"({"vocab_size": 12,})", {R"(JSON)"});

  // The required sizes: missing, not a positive integer, or too large.
  const std::vector<std::pair<const char*, std::optional<std::string>>> size_values = {
      {"Missing", std::nullopt}, {"Zero", "0"},         {"Negative", "-1"},
      {"Fraction", "2.5"},       {"String", R"("8")"},  {"Null", "null"},
      {"True", "true"},          {"Float1e30", "1e30"}, {"Two64MinusOne", "18446744073709551615"}};
  for (const char* key : {"vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
                          "intermediate_size"}) {
    for (const auto& [what, value] : size_values) {
      refuse(join({label(key), what}), neox_config_with(key, value), {literal(key)});
    }
  }
  for (const auto& [what, value] : std::vector<std::pair<const char*, std::string>>{
           {"Zero", "0"}, {"Negative", "-1"}, {"Fraction", "2.5"}, {"String", R"("16")"}}) {
    refuse(join({"MaxPositionEmbeddings", what}),
           neox_config_with("max_position_embeddings", value), {"max_position_embeddings"});
  }

  // Valid configs the checkpoint does not fit: refused naming the tensor.
  const auto mismatch = [&](std::string name, const char* key, const char* value,
                            const char* tensor) {
    cases.push_back({"NeoxConfig_" + name,
                     lm_sandbox(true, nullptr, neox_config_with(key, value)),
                     lm_args(neox),
                     {},
                     refused(1, {R"(m\.safetensors)", tensor, "shape|missing"})});
  };
  mismatch("VocabDisagreesWithCheckpoint", "vocab_size", "13", R"(embed_(in|out)\.weight)");
  mismatch("HiddenDisagreesWithCheckpoint", "hidden_size", "32", R"(')");
  mismatch("MoreLayersThanCheckpoint", "num_hidden_layers", "2", R"(gpt_neox\.layers\.1\.)");
  mismatch("IntermediateDisagreesWithCheckpoint", "intermediate_size", "64",
           R"(dense_(h_to_4h|4h_to_h))");

  refuse("HeadsNotDividingHidden", neox_config_with("num_attention_heads", "3"),
         {"num_attention_heads"});
  refuse("HeadWidthOne", neox_config_with("num_attention_heads", "16"), {"rotary"});
  for (const auto& [what, value] :
       std::vector<std::pair<const char*, std::string>>{{"Zero", "0"},
                                                        {"Negative", "-0.5"},
                                                        {"AboveOne", "1.5"},
                                                        {"String", R"("half")"},
                                                        {"OddRotaryDim", "0.2"}}) {
    refuse(join({"RotaryPct", what}), neox_config_with("rotary_pct", value), {"rotary"});
  }
  accept("RotaryPctOne", neox_config_with("rotary_pct", "1.0"));
  accept("PartialRotaryFactorAgrees", [] {
    Json c = Json::parse(kNeoxConfig);
    c["partial_rotary_factor"] = 0.5;
    return c.dump();
  }());
  refuse("PartialRotaryFactorDisagrees",
         [] {
           Json c = Json::parse(kNeoxConfig);
           c["partial_rotary_factor"] = 0.25;
           return c.dump();
         }(),
         {"rotary_pct", "partial_rotary_factor"});
  for (const auto& [what, value] : std::vector<std::pair<const char*, std::string>>{
           {"Zero", "0"}, {"One", "1"}, {"Negative", "-10000"}, {"String", R"("1e4")"}}) {
    refuse(join({"RotaryEmbBase", what}), neox_config_with("rotary_emb_base", value),
           {"rotary_emb_base|RoPE base"});
  }
  accept("RopeTheta", neox_config_with("rope_theta", "500000"));
  refuse("LayerNormEpsNegative", neox_config_with("layer_norm_eps", "-1"), {"layer_norm_eps"});
  refuse("LayerNormEpsString", neox_config_with("layer_norm_eps", R"("1e-5")"), {"layer_norm_eps"});
  accept("LayerNormEpsZero", neox_config_with("layer_norm_eps", "0"));
  refuse("ParallelResidualString", neox_config_with("use_parallel_residual", R"("yes")"),
         {"use_parallel_residual"});
  accept("SequentialResidual", neox_config_with("use_parallel_residual", "false"));
  refuse("HiddenActRelu", neox_config_with("hidden_act", R"("relu")"), {"hidden_act"});
  accept("HiddenActGelu", neox_config_with("hidden_act", R"("gelu")"));
  refuse("TiedEmbeddings", neox_config_with("tie_word_embeddings", "true"),
         {"tie_word_embeddings"});
  refuse("NoAttentionBias", neox_config_with("attention_bias", "false"), {"attention_bias"});
  refuse("ModelTypeLlama", neox_config_with("model_type", R"("llama")"), {"model_type|llama"});
  refuse("ModelTypeNumber", neox_config_with("model_type", "5"), {"model_type"});
  refuse("ModelTypeGpt2", neox_config_with("model_type", R"("gpt2")"), {"gpt2"});
  accept("NoModelType", neox_config_with("model_type", std::nullopt));
  accept("UnknownKeyIgnored", neox_config_with("bos_token_id", "0"));

  // rope_scaling: what transformers writes, and what it would refuse.
  const auto scaling = [](const std::string& value) {
    return neox_config_with("rope_scaling", value);
  };
  refuse("RopeScalingNumber", scaling("5"), {"rope_scaling"});
  refuse("RopeScalingString", scaling(R"("linear")"), {"rope_scaling"});
  refuse("RopeScalingArray", scaling("[]"), {"rope_scaling"});
  accept("RopeScalingNull", scaling("null"));
  refuse("RopeScalingEmpty", scaling("{}"), {"rope_type"});
  refuse("RopeScalingTypeNumber", scaling(R"({"type": 5, "factor": 2})"), {"type"});
  refuse("RopeScalingTypesDisagree",
         scaling(R"({"type": "linear", "rope_type": "ntk", "factor": 2})"), {"disagree"});
  accept("RopeScalingTypesAgree", scaling(R"({"type": "linear", "rope_type": "linear",
                                              "factor": 2})"));
  refuse("RopeScalingUnknownType", scaling(R"({"type": "bogus", "factor": 2})"), {"bogus"});
  refuse("RopeScalingLongrope", scaling(R"({"rope_type": "longrope", "factor": 2})"), {"longrope"});
  accept("RopeScalingDefault", scaling(R"({"rope_type": "default"})"));
  refuse("RopeScalingUnsupportedKey", scaling(R"({"type": "linear", "factor": 2, "mscale": 1})"),
         {"mscale"});
  for (const char* type : {"linear", "ntk", "dynamic", "yarn", "llama3"}) {
    // llama3 also needs its frequency factors and original length, as transformers does.
    const bool llama3 = std::string(type) == "llama3";
    const std::string t = std::string(R"({"rope_type": ")") + type + "\"" +
                          (llama3 ? R"(, "low_freq_factor": 1, "high_freq_factor": 4)" : "");
    const std::string f = t + (llama3 ? R"(, "original_max_position_embeddings": 8)" : "");
    const std::string name = "RopeScaling" + label(type);
    refuse(name + "_NoFactor", scaling(f + "}"), {R"("factor")"});
    refuse(name + "_FactorBelowOne", scaling(f + R"(, "factor": 0.5})"), {R"(factor)", R"(0\.5)"});
    refuse(name + "_FactorNearlyOne", scaling(f + R"(, "factor": 0.9999999})"),
           {R"(factor)", R"(0\.9999999\b)"});
    refuse(name + "_FactorString", scaling(f + R"(, "factor": "2"})"), {R"(factor)"});
    refuse(name + "_FactorNull", scaling(f + R"(, "factor": null})"), {R"(factor)"});
    accept(name + "_FactorTwo", scaling(f + R"(, "factor": 2})"));
    accept(name + "_FactorOne", scaling(f + R"(, "factor": 1})"));
    for (const auto& [what, value] : std::vector<std::pair<const char*, const char*>>{
             {"Zero", "0"}, {"Negative", "-1"}, {"Fraction", "2.5"}, {"String", R"("16")"}}) {
      refuse(name + "_OriginalLength" + what,
             scaling(t + R"(, "factor": 2, "original_max_position_embeddings": )" + value + "}"),
             {"original_max_position_embeddings"});
    }
    accept(name + "_OriginalLength",
           scaling(t + R"(, "factor": 2, "original_max_position_embeddings": 8})"));
  }
  refuse("RopeScalingYarnFastBelowSlow",
         scaling(R"({"rope_type": "yarn", "factor": 2, "beta_fast": 1, "beta_slow": 32})"),
         {"beta_fast"});
  refuse("RopeScalingYarnFastZero",
         scaling(R"({"rope_type": "yarn", "factor": 2, "beta_fast": 0})"), {"beta_fast"});
  refuse("RopeScalingYarnSlowNegative",
         scaling(R"({"rope_type": "yarn", "factor": 2, "beta_slow": -1})"), {"beta_slow"});
  refuse("RopeScalingYarnBetaString",
         scaling(R"({"rope_type": "yarn", "factor": 2, "beta_fast": "32"})"), {"beta_fast"});
  accept("RopeScalingYarnFastEqualsSlow",
         scaling(R"({"rope_type": "yarn", "factor": 2, "beta_fast": 4, "beta_slow": 4})"));
  refuse("RopeScalingLlama3LowAboveHigh",
         scaling(
             R"({"rope_type": "llama3", "factor": 2, "low_freq_factor": 4, "high_freq_factor": 1,
                 "original_max_position_embeddings": 8})"),
         {"low_freq_factor"});
  // Equal factors leave no medium band, as Hugging Face accepts (Llama 4 Scout's 1 and 1).
  accept("RopeScalingLlama3LowEqualsHigh",
         scaling(
             R"({"rope_type": "llama3", "factor": 2, "low_freq_factor": 2, "high_freq_factor": 2,
                 "original_max_position_embeddings": 8})"));
  refuse(
      "RopeScalingLlama3LowZero",
      scaling(R"({"rope_type": "llama3", "factor": 2, "low_freq_factor": 0, "high_freq_factor": 4,
                     "original_max_position_embeddings": 8})"),
      {"low_freq_factor"});
  accept("RopeScalingLlama3",
         scaling(
             R"({"rope_type": "llama3", "factor": 8, "low_freq_factor": 1, "high_freq_factor": 4,
                 "original_max_position_embeddings": 8})"));

  // GPT-2's config.json, through lm and through gpt2.
  for (const LmTarget* t : {&kLmTargets[1], &kLmTargets[2]}) {
    const auto gpt2_refuse = [&](const char* name, std::string config,
                                 std::vector<std::string> patterns) {
      cases.push_back({join({t->label, "Config", name}),
                       lm_sandbox(false, nullptr, config),
                       lm_args(*t),
                       {},
                       refused(1, std::move(patterns))});
    };
    gpt2_refuse("NotJson", "{", {R"(c\.json)", "JSON"});
    gpt2_refuse("Array", "[1]", {R"(c\.json)", "object"});
    for (const char* key : {"vocab_size", "n_positions", "n_embd", "n_layer", "n_head"}) {
      gpt2_refuse((label(key) + "Zero").c_str(), gpt2_config_with(key, "0"), {literal(key)});
      gpt2_refuse((label(key) + "Negative").c_str(), gpt2_config_with(key, "-1"), {literal(key)});
      gpt2_refuse((label(key) + "String").c_str(), gpt2_config_with(key, R"("8")"),
                  {R"(c\.json)", literal(key)});
    }
    gpt2_refuse("HeadsNotDividingWidth", gpt2_config_with("n_head", "3"), {"n_head"});
    gpt2_refuse("MoreLayersThanCheckpoint", gpt2_config_with("n_layer", "2"),
                {R"(m\.safetensors)", R"(h\.1\.)"});
    gpt2_refuse("PositionsDisagreeWithCheckpoint", gpt2_config_with("n_positions", "16"),
                {R"(m\.safetensors)", R"(wpe\.weight)"});
    gpt2_refuse("ActivationRelu", gpt2_config_with("activation_function", R"("relu")"),
                {"activation_function"});
    gpt2_refuse("ScaleByLayerIndex", gpt2_config_with("scale_attn_by_inverse_layer_idx", "true"),
                {"scale_attn_by_inverse_layer_idx"});
    gpt2_refuse("LayerNormEpsilonString", gpt2_config_with("layer_norm_epsilon", R"("x")"),
                {"layer_norm_epsilon"});
    gpt2_refuse("LayerNormEpsilonNegative", gpt2_config_with("layer_norm_epsilon", "-1"),
                {"layer_norm_epsilon"});
  }

  // Token ids against a vocabulary of 12.
  for (const auto& [name, tokens, pattern] :
       std::vector<std::tuple<const char*, const char*, const char*>>{
           {"TokenPastTheVocabulary", "1,12", R"(12)"},
           {"TokenNegative", "1,-1", R"(token)"},
           {"TokensEmpty", "", R"(token)"},
           {"TokensDoubleComma", "1,,2", R"(token)"},
           {"TokenHuge", "1,99999999999999999999", R"(token|99999999999999999999)"}}) {
    std::vector<std::string> args{"lm",       "--weights", "m.safetensors",
                                  "--config", "c.json",    "--tokens",
                                  tokens,     "-o",        "out.npy"};
    cases.push_back(
        {join({"LmNeox", name}), lm_sandbox(true, nullptr), args, {}, refused(0, {pattern})});
  }
}

}  // namespace

std::vector<ProbeCase> lm_cases() {
  std::vector<ProbeCase> cases;
  add_checkpoint_cases(cases);
  add_config_cases(cases);
  return cases;
}

// ---------------------------------------------------------------------------------------------
// The RoPE scalings' parameters.

namespace {

struct ScalingParam {
  const char* name;   // the option without its "--" (or "--rope-") prefix
  const char* names;  // regex: the option or the words the core's message names it by
  void (*set)(RopeOptions& o, const std::string& value);
  bool lm;  // poslab lm has it as --rope-NAME (base and fraction come from config.json)
};

const ScalingParam kScalingParams[] = {
    {"factor", R"(--(rope-)?factor|scaling needs a factor)",
     [](RopeOptions& o, const std::string& v) { o.factor = std::stod(v); }, true},
    {"original-len", R"(--(rope-)?original-len)",
     [](RopeOptions& o, const std::string& v) { o.original_length = std::stoll(v); }, true},
    {"low-freq-factor", R"(--(rope-)?low-freq-factor|low_freq_factor)",
     [](RopeOptions& o, const std::string& v) { o.low_freq_factor = std::stod(v); }, true},
    {"high-freq-factor", R"(--(rope-)?high-freq-factor|high_freq_factor)",
     [](RopeOptions& o, const std::string& v) { o.high_freq_factor = std::stod(v); }, true},
    {"beta-fast", R"(--(rope-)?beta-fast|beta_fast)",
     [](RopeOptions& o, const std::string& v) { o.beta_fast = std::stod(v); }, true},
    {"beta-slow", R"(--(rope-)?beta-slow|beta_slow)",
     [](RopeOptions& o, const std::string& v) { o.beta_slow = std::stod(v); }, true},
    {"base", R"(--base|RoPE base)",
     [](RopeOptions& o, const std::string& v) { o.base = std::stod(v); }, false},
    {"rotary-fraction", R"(--rotary-fraction|rotary (fraction|dim))",
     [](RopeOptions& o, const std::string& v) { o.rotary_fraction = std::stod(v); }, false},
};

struct ScalingValue {
  const char* text;
  const char* label;
  const char* shown;  // regex: the value as a refusal must print it
};
const ScalingValue kScalingValues[] = {
    {"0", "Zero", nullptr},          {"-1", "MinusOne", nullptr},
    {"0.5", "Half", R"(0\.5\b)"},    {"0.9999999", "NearlyOne", R"(0\.9999999\b)"},
    {"1e-9", "Tiny", R"(1e-0?9\b)"}, {"nan", "NaN", nullptr},
    {"inf", "Inf", nullptr},         {"abc", "Text", nullptr}};

// Whether the scaling reads the parameter (the rope and lm tables keep only those).
bool reads(RopeScaling s, const std::string& param) {
  if (param == "factor") return s != RopeScaling::kNone;
  if (param == "base" || param == "rotary-fraction") return true;
  if (param == "original-len") {
    return s == RopeScaling::kDynamic || s == RopeScaling::kYarn || s == RopeScaling::kLlama3;
  }
  if (param == "low-freq-factor" || param == "high-freq-factor") return s == RopeScaling::kLlama3;
  return s == RopeScaling::kYarn;  // beta-fast, beta-slow
}

// The verdicts of a parameter under a scaling, one per kScalingValues (A, R, U as for train).
// A factor is >= 1; the original length a positive integer (checked under every scaling);
// llama3's factors 0 < low < high (default 1 and 4), yarn's betas positive with fast >= slow
// (default 32 and 1); the base positive and not 1; the rotary fraction in (0, 1] with an
// even R = int(8·F) >= 2. A parameter the scaling does not read is refused as a usage error,
// whatever its value.
std::string scaling_verdicts(RopeScaling s, const std::string& param) {
  if (!reads(s, param)) return "UUUUUUUU";
  if (param == "original-len") return "UUUUUUUU";
  if (param == "base") return "RRAAAUUU";
  if (param == "rotary-fraction") return "RRARRUUU";
  if (param == "factor") return "RRRRRUUU";
  if (s == RopeScaling::kLlama3 && param == "low-freq-factor") return "RRAAAUUU";
  if (s == RopeScaling::kLlama3 && param == "high-freq-factor") return "RRRRRUUU";
  if (s == RopeScaling::kYarn && param == "beta-fast") return "RRRRRUUU";
  if (s == RopeScaling::kYarn && param == "beta-slow") return "RRAAAUUU";
  return "AAAAAUUU";
}

bool needs_length(RopeScaling s) {
  return s == RopeScaling::kDynamic || s == RopeScaling::kYarn || s == RopeScaling::kLlama3;
}

enum class ScalingCommand { kRopeFreqs, kRope, kLm };

// A (4, 8) input for rope: distinct values, so every pair's rotation shows.
TensorF rope_input() {
  TensorF x({4, 8});
  for (std::size_t i = 0; i < x.data.size(); ++i) x.data[i] = 0.1f * float(i % 7) - 0.3f;
  return x;
}

// The command, its sandbox and the check of an accepted run, for a scaling with `changes` to
// its parameters (prefix-less names) and `options` the core's matching RopeOptions.
struct ScalingRun {
  std::vector<std::string> args;
  std::function<Files()> files;
};

ScalingRun scaling_run(ScalingCommand which, RopeScaling s, const Settings& changes) {
  const bool lm = which == ScalingCommand::kLm;
  const std::string prefix = lm ? "--rope-" : "--";
  Settings base{{prefix + "scaling", to_string(s)}};
  if (s != RopeScaling::kNone) base.push_back({prefix + "factor", "2"});
  if (!lm && needs_length(s)) base.push_back({prefix + "original-len", "16"});
  Settings prefixed;
  for (const auto& [name, value] : changes) prefixed.push_back({prefix + name, value});
  switch (which) {
    case ScalingCommand::kRopeFreqs:
      return {command({"rope-freqs", "--dim", "8", "-o", "f.npy"}, base, prefixed), [] {
                return Files{{"f.npy", kPrevious, ""}};
              }};
    case ScalingCommand::kRope:
      return {command({"rope", "--in", "x.npy", "-o", "out.npy"}, base, prefixed), [] {
                return Files{{"x.npy", encode_npy(rope_input()), ""}, {"out.npy", kPrevious, ""}};
              }};
    case ScalingCommand::kLm:
      break;
  }
  return {command({"lm", "--weights", "m.safetensors", "--config", "c.json", "--tokens", "1,2,3",
                   "-o", "out.npy"},
                  base, prefixed),
          lm_sandbox(true, nullptr)};
}

RopeOptions scaling_options(RopeScaling s) {
  RopeOptions o;
  o.scaling = s;
  if (s != RopeScaling::kNone) o.factor = 2;
  if (needs_length(s)) o.original_length = 16;
  return o;
}

// What an accepted run wrote, against the core given the same options.
Accepted scaling_accepted(ScalingCommand command, const RopeOptions& o) {
  switch (command) {
    case ScalingCommand::kRopeFreqs:
      return Accepted{{"f.npy"}, [o](const std::string& dir, const RunResult& r) {
                        const RopeFrequencies f = rope_frequencies(8, o);
                        const TensorF got = parse_npy(read_file(dir + "/f.npy"), "f.npy");
                        ASSERT_EQ(got.shape, Shape{f.inv_freq.size()});
                        for (std::size_t i = 0; i < f.inv_freq.size(); ++i) {
                          EXPECT_TRUE(std::isfinite(got.data[i])) << "theta_" << i;
                          EXPECT_FLOAT_EQ(got.data[i], float(f.inv_freq[i])) << "theta_" << i;
                        }
                        char line[64];
                        std::snprintf(line, sizeof line, "attention_factor %.17g\n",
                                      f.attention_factor);
                        EXPECT_EQ(r.out, line);
                      }};
    case ScalingCommand::kRope:
      return Accepted{{"out.npy"}, [o](const std::string& dir, const RunResult&) {
                        const TensorF want = rope_apply(rope_input(), o);
                        const TensorF got = parse_npy(read_file(dir + "/out.npy"), "out.npy");
                        ASSERT_EQ(got.shape, want.shape);
                        for (std::size_t i = 0; i < want.data.size(); ++i) {
                          EXPECT_TRUE(std::isfinite(got.data[i])) << "element " << i;
                          EXPECT_NEAR(got.data[i], want.data[i], 1e-6) << "element " << i;
                        }
                      }};
    case ScalingCommand::kLm:
      break;
  }
  return logits();
}

const char* command_label(ScalingCommand c) {
  return c == ScalingCommand::kRopeFreqs ? "RopeFreqs" : c == ScalingCommand::kRope ? "Rope" : "Lm";
}

void add_scaling_values(std::vector<ProbeCase>& cases, ScalingCommand command) {
  const bool lm = command == ScalingCommand::kLm;
  for (const Named<RopeScaling>& scaling : kRopeScalingNames) {
    const RopeScaling s = scaling.value;
    const char* scaling_name = scaling.name;
    if (lm && s == RopeScaling::kNone) continue;
    for (const ScalingParam& p : kScalingParams) {
      if (lm && !p.lm) continue;
      // rope-freqs takes every parameter under every scaling; rope and lm those it reads.
      if (command != ScalingCommand::kRopeFreqs && !reads(s, p.name)) continue;
      // lm's original length defaults to the config's: no --rope-original-len in its base.
      const std::string verdicts = scaling_verdicts(s, p.name);
      for (std::size_t i = 0; i < std::size(kScalingValues); ++i) {
        const ScalingValue& v = kScalingValues[i];
        const ScalingRun run = scaling_run(command, s, {{p.name, v.text}});
        ProbeCase c{join({command_label(command), label(scaling_name), label(p.name), v.label}),
                    run.files,
                    run.args,
                    {},
                    Refused{}};
        if (verdicts[i] == 'A') {
          RopeOptions o = scaling_options(s);
          p.set(o, v.text);
          c.verdict = scaling_accepted(command, o);
        } else {
          std::vector<std::string> patterns{p.names};
          const std::string param = p.name;
          if (verdicts[i] == 'R' && v.shown && (param == "factor" || param == "beta-fast")) {
            patterns.push_back(v.shown);
          }
          c.verdict = refused(verdicts[i] == 'U' ? 2 : 0, std::move(patterns));
        }
        cases.push_back(std::move(c));
      }
    }
  }
}

// The order rules and the edges of each range, by name.
void add_scaling_rules(std::vector<ProbeCase>& cases, ScalingCommand command) {
  const bool lm = command == ScalingCommand::kLm;
  // `same_as`: the scaling whose output an accepted run must equal (its own by default).
  const auto add = [&](const char* name, RopeScaling s, Settings changes,
                       std::optional<std::string> refusal,
                       std::optional<RopeScaling> same_as = std::nullopt) {
    const ScalingRun run = scaling_run(command, s, changes);
    ProbeCase c{join({command_label(command), name}), run.files, run.args, {}, Refused{}};
    if (refusal) {
      c.verdict = refused(0, {*refusal});
    } else if (same_as) {
      c.verdict = scaling_accepted(command, scaling_options(*same_as));
    } else {
      RopeOptions o = scaling_options(s);
      for (const auto& [param, value] : changes) {
        for (const ScalingParam& p : kScalingParams) {
          if (p.name == param && value) p.set(o, *value);
        }
      }
      c.verdict = scaling_accepted(command, o);
    }
    cases.push_back(std::move(c));
  };
  const std::string fast = R"(--(rope-)?beta-fast|beta_fast)";
  const std::string low = R"(--(rope-)?low-freq-factor|low_freq_factor)";
  add("YarnFastBelowSlow", RopeScaling::kYarn, {{"beta-fast", "1"}, {"beta-slow", "32"}}, fast);
  add("YarnFastJustBelowSlow", RopeScaling::kYarn, {{"beta-fast", "1.9999999"}, {"beta-slow", "2"}},
      fast + R"(.*1\.9999999\b)");
  add("YarnSlowAboveTheDefaultFast", RopeScaling::kYarn, {{"beta-slow", "33"}}, fast);
  add("YarnFastEqualsSlow", RopeScaling::kYarn, {{"beta-fast", "4"}, {"beta-slow", "4"}}, {});
  add("YarnFastAboveSlow", RopeScaling::kYarn, {{"beta-fast", "2"}, {"beta-slow", "1"}}, {});
  add("Llama3LowAboveHigh", RopeScaling::kLlama3,
      {{"low-freq-factor", "4"}, {"high-freq-factor", "1"}}, low);
  add("Llama3LowEqualsHigh", RopeScaling::kLlama3,
      {{"low-freq-factor", "2"}, {"high-freq-factor", "2"}}, {});
  add("Llama3LowAboveTheDefaultHigh", RopeScaling::kLlama3, {{"low-freq-factor", "5"}}, low);
  add("Llama3LowJustBelowHigh", RopeScaling::kLlama3,
      {{"low-freq-factor", "3.9999999"}, {"high-freq-factor", "4"}}, {});
  add("Llama3HighJustAboveLow", RopeScaling::kLlama3, {{"high-freq-factor", "1.0000001"}}, {});
  for (const Named<RopeScaling>& scaling : kRopeScalingNames) {
    const RopeScaling s = scaling.value;
    if (s == RopeScaling::kNone) continue;
    add(("FactorOne" + label(scaling.name)).c_str(), s, {{"factor", "1"}}, {});
    // NTK raises the base to f^(R/(R-2)): 1e300 makes it infinite and every frequency but
    // the first 0, which is refused rather than computed. The others divide by f, a valid
    // (if extreme) interpolation; dynamic leaves sequences no longer than N unscaled, so
    // these (S = 0, 4 or 3 positions, N = 16) equal no scaling at all.
    const std::string huge = "FactorHuge" + label(scaling.name);
    if (s == RopeScaling::kNtk) {
      add(huge.c_str(), s, {{"factor", "1e300"}}, R"(--(rope-)?factor|factor)");
    } else if (s == RopeScaling::kDynamic) {
      add(huge.c_str(), s, {{"factor", "1e300"}}, {}, RopeScaling::kNone);
      add("Factor1e16Dynamic", s, {{"factor", "1e16"}}, {}, RopeScaling::kNone);
    } else {
      add(huge.c_str(), s, {{"factor", "1e300"}}, {});
    }
  }
  if (!lm) {
    for (const RopeScaling s : {RopeScaling::kDynamic, RopeScaling::kYarn, RopeScaling::kLlama3}) {
      add(("NoOriginalLen" + label(to_string(s))).c_str(), s, {{"original-len", std::nullopt}},
          R"(--original-len|original \(trained\) length)");
    }
    add("BaseOne", RopeScaling::kNone, {{"base", "1"}}, R"(--base|RoPE base)");
    add("RotaryFractionJustAboveOne", RopeScaling::kNone, {{"rotary-fraction", "1.0000001"}},
        R"((--rotary-fraction|rotary fraction).*1\.0000001\b)");
    add("RotaryFractionQuarterWithNtk", RopeScaling::kNtk, {{"rotary-fraction", "0.25"}},
        R"(--rotary-fraction|rotary (fraction|dim))");
    add("RotaryFractionQuarterWithLinear", RopeScaling::kLinear, {{"rotary-fraction", "0.25"}}, {});
  }
  // The scaling's name, and its parameters without it.
  const ScalingRun bogus = scaling_run(command, RopeScaling::kNone, {{"scaling", "bogus"}});
  cases.push_back({join({command_label(command), "UnknownScaling"}),
                   bogus.files,
                   bogus.args,
                   {},
                   refused(2, {R"(--(rope-)?scaling)", "bogus"})});
  if (lm) {
    ScalingRun no_scaling = scaling_run(command, RopeScaling::kLinear, {{"scaling", std::nullopt}});
    cases.push_back({"LmFactorWithoutScaling",
                     no_scaling.files,
                     no_scaling.args,
                     {},
                     refused(2, {R"(--rope-scaling)"})});
  }
}

}  // namespace

std::vector<ProbeCase> scaling_cases() {
  std::vector<ProbeCase> cases;
  for (const ScalingCommand c :
       {ScalingCommand::kRopeFreqs, ScalingCommand::kRope, ScalingCommand::kLm}) {
    add_scaling_values(cases, c);
    add_scaling_rules(cases, c);
  }
  return cases;
}

}  // namespace poslab::test::probe

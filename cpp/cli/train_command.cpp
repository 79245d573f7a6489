// `poslab train`: trains the length-generalisation lab's model on one task with one position
// method, for one seed or several, and writes result.json (loss curve, accuracy by length,
// throughput, the lab's metrics and their summary over seeds), optionally the checkpoints; `--dump
// DIR` writes the files an independent autograd checks (tests/acceptance/train_vs_autograd.py),
// at the weights the run's steps reached (the initial ones with --steps 0).
#include "train_command.hpp"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <utility>

#include "commands.hpp"
#include "model_input.hpp"
#include "options.hpp"
#include "output_files.hpp"
#include "poslab/base/format.hpp"
#include "poslab/train/metrics.hpp"
#include "poslab/train/trainer.hpp"

namespace poslab::cli {
namespace {

// The text task reads its whole file into memory; 64 MiB is far past what it trains on.
constexpr std::size_t kMaxTextFile = std::size_t(64) << 20;

constexpr Named<StoredDType> kCheckpointDTypes[] = {{StoredDType::kF32, "f32"},
                                                    {StoredDType::kF16, "f16"}};

struct TrainArgs {
  train::TrainConfig config;
  std::string task, position, eval_positions, out, checkpoint, dump, text_file;
  std::string checkpoint_dtype = "f32";
  std::size_t test_len = 0;
  std::size_t seeds = 1;
  std::optional<std::size_t> steps;              // unset: the task's (train::default_steps)
  std::optional<std::size_t> batch;              // unset: the task's (train::default_batch)
  std::optional<double> embed_scale;             // unset: the method's (train::default_embed_scale)
  std::optional<double> keep_fraction;           // unset: the method's table default
  std::optional<std::size_t> npos_max;           // unset: the method's table default
  std::optional<std::size_t> abacus_max_offset;  // unset: the method's table default
  std::optional<double> fox_decay_max;           // unset: the method's table default
  std::string attn_temperature;                  // "FLOOR,SCALE"; empty: off
  CLI::Option* test_len_option = nullptr;
  bool quiet = false;
};

// Refuses an output whose extension is not the format written there ("-o writes the result as
// JSON: give a name ending in .json (got 'r.npy')"); an empty path is not given.
void require_extension(const std::string& path, const char* option, const char* extension,
                       const char* what) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (path.empty() || ext == extension) return;
  throw UsageError(std::string(option) + " writes " + what + ": give a name ending in " +
                   extension + " (got '" + path + "')");
}

// "m.safetensors" → "m-seed3.safetensors": one checkpoint per seed.
std::string seed_path(const std::string& path, std::uint64_t seed) {
  std::filesystem::path p(path);
  const std::string stem = p.stem().string() + "-seed" + std::to_string(seed);
  return (p.parent_path() / (stem + p.extension().string())).string();
}

// --attn-temperature FLOOR,SCALE: two finite numbers (validate() checks their ranges).
std::pair<double, double> parse_temperature(const std::string& text) {
  const std::size_t comma = text.find(',');
  const auto number = [&](const std::string& part) {
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(part.c_str(), &end);
    if (part.empty() || end != part.c_str() + part.size() || errno != 0 || !std::isfinite(v)) {
      throw UsageError(
          "--attn-temperature takes FLOOR,SCALE, two numbers (Llama 4's floor_scale "
          "and attn_scale, e.g. 8192,0.1), got '" +
          text + "'");
    }
    return v;
  };
  if (comma == std::string::npos) number("");  // throws
  return {number(text.substr(0, comma)), number(text.substr(comma + 1))};
}

// The --dump set of `trainer` (at its weights now) into the directory `dir`.
void dump_into(OutputFiles& files, const std::string& dir, train::Trainer& trainer) {
  std::error_code error;
  require(!std::filesystem::exists(dir, error) || std::filesystem::is_directory(dir, error),
          dir + ": --dump must name a directory");
  files.add_directory(dir);
  for (const auto& [name, bytes] : trainer.dump()) {
    files.add((std::filesystem::path(dir) / name).string(), bytes, "--dump");
  }
}

// The run's settings from the parsed options, with the checks that need no output named;
// reads --text-file.
train::TrainConfig settings_of(TrainArgs& a) {
  train::TrainConfig c = a.config;
  c.task = parse_name(train::kTaskNames, a.task, "task", "task");
  c.position = parse_position_method(a.position, kSupportTrainer, "position method", "position");
  c.steps = a.steps.value_or(train::default_steps(c.task));
  c.batch = a.batch.value_or(train::default_batch(c.task));
  c.embed_scale = a.embed_scale.value_or(train::default_embed_scale(c.position));
  c.keep_fraction = a.keep_fraction;
  c.npos_max = a.npos_max;
  c.abacus_max_offset = a.abacus_max_offset;
  c.fox_decay_max = a.fox_decay_max;
  if (!a.attn_temperature.empty()) {
    const auto [floor_scale, scale] = parse_temperature(a.attn_temperature);
    c.attn_floor_scale = floor_scale;
    c.attn_scale = scale;
  }
  if (!a.eval_positions.empty()) {
    c.eval_positions = parse_name(train::kEvalPositionsNames, a.eval_positions,
                                  "evaluation positions", "evalPositions");
  }
  if (a.test_len_option->count() > 0) c.test_len = a.test_len;
  if (c.task == train::Task::kText && a.text_file.empty())
    throw UsageError("--task text needs --text-file F (any bytes; the last 10% are held out)");
  if (c.task != train::Task::kText && !a.text_file.empty())
    throw UsageError("--text-file is for --task text");
  if (!a.text_file.empty()) {
    c.text = std::make_shared<const std::string>(
        read_whole_file(a.text_file, kMaxTextFile, "the text task's text"));
    require(!c.text->empty(), "textFile",
            a.text_file + " (--text-file) is empty: the text task needs a text to train on");
  }
  if (!a.dump.empty() && a.seeds != 1) throw UsageError("--dump takes one seed: drop --seeds");
  if (c.seed > std::numeric_limits<std::uint64_t>::max() - (a.seeds - 1)) {
    throw UsageError("--seed + --seeds - 1 must fit in 64 bits");
  }
  return c;
}

// -o, --checkpoint and --dump: given, of the right kind, distinct, and writable.
void check_outputs(const TrainArgs& a) {
  if (a.dump.empty() && a.out.empty()) throw UsageError("give -o result.json (or --dump DIR)");
  require_extension(a.out, "-o", ".json", "the result as JSON");
  require_extension(a.checkpoint, "--checkpoint", ".safetensors", "the weights as safetensors");
  require_distinct_outputs({{"-o", a.out}, {"--checkpoint", a.checkpoint}, {"--dump", a.dump}});
  if (!a.out.empty()) check_output_target(a.out);
  for (std::size_t k = 0; k < a.seeds && !a.checkpoint.empty(); ++k) {
    check_output_target(a.seeds > 1 ? seed_path(a.checkpoint, a.config.seed + k) : a.checkpoint);
  }
}

// The trainer's own checks of the settings, before anything is allocated.
void check_settings(train::TrainConfig& c) {
  c.memory_limit =
      memory_limit_from_environment("POSLAB_TRAIN_MEMORY_LIMIT", train::kDefaultTrainMemoryLimit);
  train::validate(c);
  train::check_memory(c,
                      "--layers, --width, --batch, --eval-examples, --train-len or --test-len (or "
                      "raise the limit with POSLAB_TRAIN_MEMORY_LIMIT, e.g. 8GiB)");
}

void run_train(TrainArgs& a) {
  train::TrainConfig c = settings_of(a);
  check_outputs(a);
  check_settings(c);

  OutputFiles files;
  std::vector<std::string> runs;
  for (std::size_t k = 0; k < a.seeds; ++k) {
    train::TrainConfig run = c;
    run.seed = c.seed + k;
    const std::string label = a.seeds > 1 ? "seed " + std::to_string(run.seed) + "  " : "";
    train::Trainer trainer(run);
    const auto start = std::chrono::steady_clock::now();
    const std::size_t every = std::max<std::size_t>(1, run.steps / 20);
    for (std::size_t s = 0; s < run.steps; ++s) {
      const double loss = trainer.step();
      if (!a.quiet && ((s + 1) % every == 0 || s + 1 == run.steps)) {
        std::fprintf(stderr, "%sstep %zu/%zu  loss %.4f\n", label.c_str(), s + 1, run.steps, loss);
      }
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!a.dump.empty()) dump_into(files, a.dump, trainer);
    if (!a.out.empty()) runs.push_back(trainer.result_json(trainer.evaluate(), wall));
    if (!a.checkpoint.empty()) {
      files.add(a.seeds > 1 ? seed_path(a.checkpoint, run.seed) : a.checkpoint,
                trainer.checkpoint(parse_name(kCheckpointDTypes, a.checkpoint_dtype,
                                              "checkpoint dtype", "checkpointDtype")),
                "--checkpoint");
    }
  }
  if (!a.out.empty()) files.add(a.out, train::seeds_result_json(runs) + "\n", "-o");
  files.commit();
}

// The core's defaults table in words, for the help: "copy 2500, reverse 2500, ...", and
// "sinusoidal 8, the others 4".
// "copy 2500, reverse 2500, …": one column of the defaults table, for an option's help.
std::string by_task(std::size_t train::TaskDefaults::*column) {
  std::string text;
  for (const train::TaskDefaults& d : train::kTaskDefaults) {
    text += (text.empty() ? "" : ", ") + std::string(name_of(train::kTaskNames, d.task)) + " " +
            std::to_string(d.*column);
  }
  return text;
}
std::string method_scales() {
  std::string text;
  for (const train::MethodDefaults& d : train::kMethodDefaults) {
    text += std::string(name_of(train::kPositionMethodNames, d.method)) + " " +
            format_number(d.embed_scale) + ", ";
  }
  return text + "the others " + format_number(train::kDefaultEmbedScale);
}

void declare_train(CLI::App* cmd, TrainArgs& a) {
  train::TrainConfig& c = a.config;
  cmd->add_option("--task", a.task,
                  "copy, reverse, sort, addition, or text (a byte-level language model on "
                  "--text-file)")
      ->required()
      ->check(one_of(train::kTaskNames, "task"));
  cmd->add_option("--position", a.position, name_list(train::kPositionMethodNames))
      ->required()
      ->check(parsed_by(
          [](const std::string& text) {
            return parse_position_method(text, kSupportTrainer, "position method", "position");
          },
          choices(train::kPositionMethodNames)));
  cmd->add_option("--randomized-positions", c.randomized_positions,
                  "MAX: train on sorted random positions from [0, MAX) (Ruoss et al. 2023); MAX "
                  "is at least the longest sequence, 0 (the default) is off")
      ->check(unsigned_integer());
  cmd->add_option("--coupled-positions", c.coupled_positions,
                  "MAX: addition only; digits of the same significance share a position, from a "
                  "start drawn in [0, MAX) (Cho et al. 2024); MAX is at least the most digits + "
                  "2, 0 (the default) is off")
      ->check(unsigned_integer());
  cmd->add_flag("--pad-operands", c.pad_operands,
                "addition only: operands of fewer than N digits are zero-padded to N (one layout "
                "for lengths 1..N, Lee et al. 2023); longer ones are written as drawn");
  cmd->add_option("--index-hints", c.index_hints,
                  "K: addition only; each digit follows a hint symbol naming its significance, "
                  "from a start drawn in training so that the hints stay below K (Zhou et al. "
                  "2024); K is at least the most digits + 1, 0 (the default) is off")
      ->check(unsigned_integer());
  cmd->add_option("--text-file", a.text_file,
                  "the text task's text, any bytes (at most 64 MiB): the first 90% train, the "
                  "last 10% are held out")
      ->type_name("FILE")
      ->check(input_file())
      ->check(non_empty_path());
  cmd->add_option("--train-len", c.train_len,
                  "N: training lengths are uniform in [1, N] (text: windows of N bytes)")
      ->required()
      ->check(unsigned_integer());
  a.test_len_option =
      cmd->add_option("--test-len", a.test_len, "M: evaluate lengths 1..M (default 4N)")
          ->check(integer_at_least(1));
  cmd->add_option("--layers", c.layers, "blocks")->capture_default_str()->check(unsigned_integer());
  cmd->add_option("--width", c.width, "model width")
      ->capture_default_str()
      ->check(unsigned_integer());
  cmd->add_option("--heads", c.heads, "attention heads")
      ->capture_default_str()
      ->check(unsigned_integer());
  cmd->add_option(
         "--batch", a.batch,
         "sequences per step (default: the task's, " + by_task(&train::TaskDefaults::batch) + ")")
      ->check(unsigned_integer());
  cmd->add_option(
         "--steps", a.steps,
         "optimizer steps (default: the task's, " + by_task(&train::TaskDefaults::steps) + ")")
      ->check(unsigned_integer());
  cmd->add_option("--lr", c.lr, "peak learning rate (warm-up, then cosine decay)")
      ->capture_default_str()
      ->check(finite_number());
  cmd->add_option("--warmup-steps", c.warmup_steps, "linear warm-up (at most steps / 10)")
      ->capture_default_str()
      ->check(unsigned_integer());
  add_seed(cmd, c.seed, "seed of the weights, data and evaluation set");
  cmd->add_option("--seeds", a.seeds,
                  "S: train seeds --seed .. --seed+S-1 and summarise each metric over them "
                  "(mean, sample sd, values); --checkpoint then writes one file per seed "
                  "(name-seedK.safetensors)")
      ->capture_default_str()
      ->check(integer_in(1, 100));
  cmd->add_option("--threads", c.threads, "threads (native only)")
      ->capture_default_str()
      ->check(integer_in(1, 4096));
  cmd->add_option("--embed-scale", a.embed_scale,
                  "x = s·wte[token] (the tied head is unscaled; default: the method's, " +
                      method_scales() + ")")
      ->check(finite_number());
  cmd->add_option("--keep-fraction", a.keep_fraction,
                  "the fraction of RoPE's frequencies kept, the highest, for a method with the "
                  "option keepFraction (default: the method's)")
      ->check(finite_number());
  cmd->add_option("--npos-max", a.npos_max,
                  "CoPE's npos_max: its contextual positions are clipped at P - 1 (default: the "
                  "method's, 64)")
      ->check(unsigned_integer());
  cmd->add_option("--abacus-max-offset", a.abacus_max_offset,
                  "abacus: training moves each sequence's digit places by k in [0, K] (default: "
                  "the method's, 99)")
      ->check(unsigned_integer());
  cmd->add_option("--fox-decay-max", a.fox_decay_max,
                  "fox: the gates' biases start at decay times from 2 to T tokens over the "
                  "heads, 0 every bias 0 (default: the method's, 64)")
      ->check(finite_number());
  cmd->add_flag("--sinks", c.sinks,
                "attention sinks (gpt-oss): one learned logit per layer and head in every "
                "softmax's denominator, with any method");
  cmd->add_option("--nope-every", c.nope_every,
                  "K: layers K, 2K, ... (1-based) of a rotation method do not rotate (SmolLM3, "
                  "Llama 4's NoPE layers); 0 (the default) is off")
      ->check(unsigned_integer());
  cmd->add_option("--attn-temperature", a.attn_temperature,
                  "FLOOR,SCALE: Llama 4's attention temperature on the NoPE layers, queries "
                  "times log(floor((p + 1) / FLOOR) + 1) * SCALE + 1 (needs --nope-every)")
      ->type_name("FLOOR,SCALE");
  cmd->add_option("--eval-positions", a.eval_positions,
                  "index or random (default: random when --randomized-positions is set)")
      ->check(one_of(train::kEvalPositionsNames, "evaluation positions"));
  cmd->add_option("--eval-examples", c.eval_examples, "test examples per length")
      ->capture_default_str()
      ->check(unsigned_integer());
  cmd->add_option("-o,--out", a.out, "result.json")->type_name("FILE");
  cmd->add_option("--checkpoint", a.checkpoint, "also write the trained weights (.safetensors)")
      ->type_name("FILE")
      ->check(non_empty_path());
  cmd->add_option("--checkpoint-dtype", a.checkpoint_dtype,
                  "f32 or f16 (half the size, rounded to nearest even)")
      ->capture_default_str()
      ->check(one_of(kCheckpointDTypes, "checkpoint dtype"));
  cmd->add_option("--dump", a.dump,
                  "write config.json, the weights after the steps (--steps 0: the initial "
                  "ones), the next batch, its loss and gradients into DIR")
      ->type_name("DIR")
      ->check(non_empty_path());
  cmd->add_flag("-q,--quiet", a.quiet, "no progress on stderr");
}

}  // namespace

TrainOption train_option(const std::string& name) {
  TrainArgs args;
  CLI::App app;
  declare_train(&app, args);
  const CLI::Option* option = app.get_option_no_throw("--" + name);
  if (option == nullptr) return TrainOption::kUnknown;
  return option->get_expected_max() == 0 ? TrainOption::kFlag : TrainOption::kValue;
}

void check_train_args(const std::vector<std::string>& args) {
  TrainArgs a;
  CLI::App app;
  declare_train(&app, a);
  std::vector<const char*> argv{"train"};
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  app.parse(int(argv.size()), argv.data());
  train::TrainConfig c = settings_of(a);
  check_settings(c);
}

void add_train_command(Commands& commands) {
  add_command<TrainArgs>(commands, "train",
                         "train the lab's tiny transformer with one position method and measure "
                         "exact match by length",
                         declare_train, run_train);
}

}  // namespace poslab::cli

// `poslab train`: trains the length-generalisation lab's model on one task with one position
// method and writes result.json (loss curve, accuracy by length, throughput), optionally the
// checkpoint; `--steps 0 --dump DIR` writes the files an independent autograd checks
// (tests/acceptance/train_vs_autograd.py).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "options.hpp"
#include "output_files.hpp"
#include "poslab/train/trainer.hpp"

namespace poslab::cli {
namespace {

struct TrainArgs {
  train::TrainConfig config;
  std::string task, position, eval_positions, out, checkpoint, dump;
  bool quiet = false;
};

void run_train(TrainArgs& a) {
  train::TrainConfig& c = a.config;
  c.task = parse_name(train::kTaskNames, a.task, "task", "task");
  c.position = parse_name(train::kPositionMethodNames, a.position, "position method", "position");
  if (!a.eval_positions.empty()) {
    c.eval_positions = parse_name(train::kEvalPositionsNames, a.eval_positions,
                                  "evaluation positions", "evalPositions");
  }
  if (!a.dump.empty() && c.steps != 0) throw UsageError("--dump needs --steps 0");
  if (a.dump.empty() && a.out.empty())
    throw UsageError("give -o result.json (or --steps 0 --dump DIR)");
  if (!a.out.empty()) check_output_target(a.out);
  if (!a.checkpoint.empty()) check_output_target(a.checkpoint);

  train::Trainer trainer(c);
  OutputFiles files;
  if (!a.dump.empty()) {
    std::error_code error;
    require(!std::filesystem::exists(a.dump, error) || std::filesystem::is_directory(a.dump, error),
            a.dump + ": --dump must name a directory");
    files.add_directory(a.dump);
    for (const auto& [name, bytes] : trainer.dump()) {
      files.add((std::filesystem::path(a.dump) / name).string(), bytes);
    }
  }
  const auto start = std::chrono::steady_clock::now();
  const std::size_t every = std::max<std::size_t>(1, c.steps / 20);
  for (std::size_t s = 0; s < c.steps; ++s) {
    const double loss = trainer.step();
    if (!a.quiet && ((s + 1) % every == 0 || s + 1 == c.steps)) {
      std::fprintf(stderr, "step %zu/%zu  loss %.4f\n", s + 1, c.steps, loss);
    }
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!a.out.empty()) files.add(a.out, trainer.result_json(trainer.evaluate(), wall) + "\n");
  if (!a.checkpoint.empty()) files.add(a.checkpoint, trainer.checkpoint());
  files.commit();
}

void declare_train(CLI::App* cmd, TrainArgs& a) {
  train::TrainConfig& c = a.config;
  cmd->add_option("--task", a.task, "copy, reverse, sort or addition")
      ->required()
      ->check(one_of(train::kTaskNames, "task"));
  cmd->add_option("--position", a.position, "learned, sinusoidal, rope, alibi, t5 or none")
      ->required()
      ->check(one_of(train::kPositionMethodNames, "position method"));
  cmd->add_option("--randomized-positions", c.randomized_positions,
                  "MAX: train on sorted random positions from [0, MAX) (Ruoss et al. 2023)")
      ->check(unsigned_integer());
  cmd->add_option("--train-len", c.train_len, "N: training lengths are uniform in [1, N]")
      ->required()
      ->check(unsigned_integer());
  cmd->add_option("--test-len", c.test_len, "M: evaluate lengths 1..M (default 4N)")
      ->check(unsigned_integer());
  cmd->add_option("--layers", c.layers, "blocks")->capture_default_str()->check(unsigned_integer());
  cmd->add_option("--width", c.width, "model width")
      ->capture_default_str()
      ->check(unsigned_integer());
  cmd->add_option("--heads", c.heads, "attention heads")
      ->capture_default_str()
      ->check(unsigned_integer());
  cmd->add_option("--batch", c.batch, "sequences per step")
      ->capture_default_str()
      ->check(unsigned_integer());
  cmd->add_option("--steps", c.steps, "optimizer steps")
      ->capture_default_str()
      ->check(unsigned_integer());
  cmd->add_option("--lr", c.lr, "peak learning rate (warm-up, then cosine decay)")
      ->capture_default_str()
      ->check(finite_number());
  cmd->add_option("--warmup-steps", c.warmup_steps, "linear warm-up (at most steps / 10)")
      ->capture_default_str()
      ->check(unsigned_integer());
  cmd->add_option("--seed", c.seed, "seed of the weights, data and evaluation set")
      ->capture_default_str()
      ->check(unsigned_integer());
  cmd->add_option("--threads", c.threads, "threads (native only)")
      ->capture_default_str()
      ->check(unsigned_integer());
  cmd->add_option("--embed-scale", c.embed_scale, "x = s·wte[token] (the tied head is unscaled)")
      ->capture_default_str()
      ->check(finite_number());
  cmd->add_option("--eval-positions", a.eval_positions,
                  "index or random (default: random when --randomized-positions is set)")
      ->check(one_of(train::kEvalPositionsNames, "evaluation positions"));
  cmd->add_option("--eval-examples", c.eval_examples, "test examples per length")
      ->capture_default_str()
      ->check(unsigned_integer());
  cmd->add_option("-o,--out", a.out, "result.json")->type_name("FILE");
  cmd->add_option("--checkpoint", a.checkpoint, "also write the trained weights (.safetensors)")
      ->type_name("FILE");
  cmd->add_option("--dump", a.dump,
                  "with --steps 0: write config.json, weights, one batch, its loss and "
                  "gradients into DIR")
      ->type_name("DIR");
  cmd->add_flag("-q,--quiet", a.quiet, "no progress on stderr");
}

}  // namespace

void add_train_command(Commands& commands) {
  add_command<TrainArgs>(commands, "train",
                         "train the lab's tiny transformer with one position method and measure "
                         "exact match by length",
                         declare_train, run_train);
}

}  // namespace poslab::cli

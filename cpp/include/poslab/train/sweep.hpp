// A sweep of `poslab train` runs (docs/cli.md, "Sweeps"): a plan of tasks × methods × option
// grids × seeds, expanded into runs with stable ids, and the run list a sweep directory holds,
// which the local pool and a Slurm job array both execute run by run.
//
// A plan (JSON):
//   {"name": "quick", "tasks": ["copy"], "methods": ["learned", "rope"] or "all",
//    "seeds": [0, 1, 2] or 3, "options": {"train-len": [5], "sinks": [false, true]},
//    "resources": {"cpus": 1, "mem": "1G", "time": "00:30:00", "partition": "debug"}}
// Options are `poslab train` flags without "--", each a list of values (numbers, strings, or
// booleans for a flag); the runs are their cartesian product.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace poslab::train {

// The most runs one plan may expand to, checked before any is made.
inline constexpr std::uint64_t kMaxSweepRuns = 100000;
// The longest run id: with ".json" and a writer's temporary suffix, within a file name's 255.
inline constexpr std::size_t kMaxSweepIdLength = 200;

// One option's grid: `name` is a poslab train flag without "--"; `values` as the command line
// takes them ("8", "0.003", "index"), "true"/"false" for a flag given or left out.
struct SweepOption {
  std::string name;
  bool boolean = false;
  std::vector<std::string> values;
};

// The Slurm job's resources per run (`--cpus-per-task`, `--mem`, `--time`, `--partition`).
struct SweepResources {
  std::uint64_t cpus = 1;
  std::string mem = "1G";
  std::string time = "01:00:00";
  std::string partition;  // empty: the cluster's default
};

struct SweepPlan {
  std::string name = "sweep";
  std::vector<std::string> tasks;
  std::vector<std::string> methods;  // canonical names of the trainer's methods
  std::vector<std::uint64_t> seeds;  // ascending, distinct
  std::vector<SweepOption> options;  // by name
  SweepResources resources;
};

// The plan in `text`; Error naming the field at fault ("options.layers", "seeds[2]") for a
// key it does not know, an empty list, a value of the wrong type, a duplicate, a task or method
// the trainer does not have, an option the sweep sets itself (task, position, seed, -o ...), or
// more than kMaxSweepRuns runs. `source` names the plan in messages.
SweepPlan parse_sweep_plan(const std::string& text, const std::string& source);

// One run: `poslab train` with `train_args` (from "train" on, without -o) for one task, method,
// option combination and seed.
struct SweepRun {
  // "copy.rope.layers=4.s0": the task, method, options that vary in the plan and seed;
  // filename-safe, unique in the plan
  std::string id;
  std::string task, method;
  std::vector<std::pair<std::string, std::string>> options;  // the combination, by name
  std::uint64_t seed = 0;
  std::vector<std::string> train_args;
  std::string refusal;  // why poslab train refuses the run (it is skipped); empty: it runs
};

// Why poslab train would refuse the run (its train_args); empty when it would run.
using SweepRunCheck = std::function<std::string(const SweepRun& run)>;

// Every run of `plan`, task by task, then method, option combination (the first option's values
// outermost) and seed; each refusal from `check`. Error when two runs' ids coincide or one is
// longer than kMaxSweepIdLength.
std::vector<SweepRun> expand_sweep(const SweepPlan& plan, const SweepRunCheck& check);

// The run list of a sweep directory (runs.json): the plan's name and resources and every run
// in the plan's order, the skipped ones with their refusal.
struct SweepRunList {
  std::string name;
  SweepResources resources;
  std::vector<SweepRun> runs;
  // The runs that run, in order: the k-th is `poslab sweep one DIR k`, the Slurm array's task k.
  std::vector<const SweepRun*> runnable() const;
};
std::string sweep_run_list_json(const SweepRunList& list);
// runs.json read back; Error naming `source` when it is not one.
SweepRunList parse_sweep_run_list(const std::string& text, const std::string& source);

}  // namespace poslab::train

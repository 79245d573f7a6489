// `poslab sweep`: many `poslab train` runs from one plan (docs/cli.md, "Sweeps"). `run` executes
// them in a local process pool, `emit --slurm` writes a Slurm job array, and both run each one
// through `one DIR INDEX`, so a run is the same process whichever way it is started; `merge`
// summarises the results over seeds and ranks the methods.
//
// A sweep directory DIR holds runs.json (the run list), runs/<id>.json (each finished run's
// result.json, renamed into place whole by poslab train, so a killed run leaves none), logs/
// and, from emit, sweep.sbatch.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>

#include "commands.hpp"
#include "model_input.hpp"
#include "output_files.hpp"
#include "poslab/train/sweep.hpp"
#include "poslab/train/sweep_merge.hpp"
#include "poslab/train/sweep_slurm.hpp"
#include "sweep_pool.hpp"
#include "train_command.hpp"

namespace poslab::cli {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxPlanBytes = std::size_t(1) << 20;
constexpr std::size_t kMaxRunListBytes = std::size_t(256) << 20;
constexpr std::size_t kMaxResultBytes = std::size_t(64) << 20;

std::string run_list_path(const std::string& dir) { return (fs::path(dir) / "runs.json").string(); }
std::string result_path(const std::string& dir, const std::string& id) {
  return (fs::path(dir) / "runs" / (id + ".json")).string();
}

// This binary, by its absolute path: what the pool spawns and the batch script runs.
std::string self_path() { return fs::read_symlink("/proc/self/exe").string(); }

std::string command_text(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& w : words) text += (text.empty() ? "" : " ") + w;
  return text;
}

// Every option of the plan is one poslab train takes, booleans exactly for its flags, and each
// value alone parses as poslab train parses it.
void check_plan_options(const train::SweepPlan& plan, const std::string& source) {
  for (const train::SweepOption& o : plan.options) {
    const std::string field = source + ": options." + o.name;
    const TrainOption kind = train_option(o.name);
    require(kind != TrainOption::kUnknown, "options",
            field + ": poslab train has no --" + o.name + " (see poslab train --help)");
    require(o.boolean == (kind == TrainOption::kFlag), "options",
            field + (o.boolean ? ": --" + o.name + " takes a value, not true or false"
                               : ": --" + o.name + " is a flag: give true and/or false"));
    for (std::size_t i = 0; i < o.values.size() && !o.boolean; ++i) {
      std::vector<std::string> args{"--task", plan.tasks[0], "--position", plan.methods[0],
                                    "--" + o.name + "=" + o.values[i]};
      if (o.name != "train-len") args.insert(args.end(), {"--train-len", "1"});
      try {
        check_train_args(args);
      } catch (const CLI::ParseError& e) {
        throw Error(field + "[" + std::to_string(i) + "]: " + e.what(), "options");
      } catch (const std::exception&) {
        // refused in combination with the stand-in settings: the run's own check decides
      }
    }
  }
}

// Why poslab train refuses `run`; a command line it cannot parse is the plan's error.
std::string train_refusal(const train::SweepRun& run, const std::string& source) {
  try {
    check_train_args({run.train_args.begin() + 1, run.train_args.end()});
    return {};
  } catch (const CLI::ParseError& e) {
    throw Error(source + ": run " + run.id + ": " + e.what(), "options");
  } catch (const std::exception& e) {
    return e.what();
  }
}

// The plan at `path`, expanded, each run checked as poslab train checks it.
train::SweepRunList load_plan(const std::string& path) {
  const train::SweepPlan plan =
      train::parse_sweep_plan(read_whole_file(path, kMaxPlanBytes, "the sweep's plan"), path);
  check_plan_options(plan, path);
  return {plan.name, plan.resources, train::expand_sweep(plan, [&](const train::SweepRun& run) {
            return train_refusal(run, path);
          })};
}

train::SweepRunList read_run_list(const std::string& dir) {
  const std::string path = run_list_path(dir);
  require(fs::is_regular_file(path), path + " is missing: " + dir +
                                         " is not a sweep directory (poslab sweep run or emit "
                                         "makes one)");
  return train::parse_sweep_run_list(read_whole_file(path, kMaxRunListBytes, "the run list"), path);
}

// DIR with runs/ and logs/ and the run list; a DIR that holds another plan's runs is refused
// before anything there changes, so results of two plans never mix.
void prepare_directory(const std::string& dir, const train::SweepRunList& list) {
  const std::string path = run_list_path(dir), text = train::sweep_run_list_json(list);
  if (fs::exists(path)) {
    require(read_whole_file(path, kMaxRunListBytes, "the run list") == text,
            dir +
                " holds another plan's sweep (its runs.json differs from this plan's runs): "
                "give another --out, or remove " +
                dir);
  }
  fs::create_directories(fs::path(dir) / "runs");
  fs::create_directories(fs::path(dir) / "logs");
  OutputFiles files;
  files.add(path, text, "runs.json");
  files.commit();
}

// --------------------------------------------------------------------------------------------
// sweep run PLAN --out DIR [--jobs N] [--dry-run]

struct RunArgs {
  std::string plan, dir;
  std::size_t jobs = 1;
  bool dry_run = false;
};

void print_run_list(const train::SweepRunList& list, const std::string& dir) {
  const std::string poslab = self_path();
  for (const train::SweepRun& run : list.runs) {
    if (!run.refusal.empty()) {
      std::printf("%s  skipped: %s\n", run.id.c_str(), run.refusal.c_str());
      continue;
    }
    std::vector<std::string> words{poslab};
    words.insert(words.end(), run.train_args.begin(), run.train_args.end());
    words.insert(words.end(), {"-o", result_path(dir, run.id)});
    std::printf("%s\n  %s\n", run.id.c_str(), command_text(words).c_str());
  }
  const std::size_t runnable = list.runnable().size();
  std::printf("%zu runs, %zu skipped (poslab train refuses them)\n", runnable,
              list.runs.size() - runnable);
}

void report_failures(const std::vector<PoolFailure>& failures, std::size_t ran,
                     const std::string& dir) {
  if (failures.empty()) return;
  for (const PoolFailure& f : failures) {
    std::fprintf(stderr, "sweep: %s failed (%s):\n%s\n", f.name.c_str(), f.status.c_str(),
                 f.tail.c_str());
  }
  throw Error(std::to_string(failures.size()) + " of " + std::to_string(ran) +
              " runs failed (their logs: " + (fs::path(dir) / "logs").string() +
              "); run the sweep again to retry them");
}

void run_sweep(const RunArgs& a) {
  const train::SweepRunList list = load_plan(a.plan);
  if (a.dry_run) return print_run_list(list, a.dir);
  prepare_directory(a.dir, list);
  const std::vector<const train::SweepRun*> runnable = list.runnable();
  std::vector<PoolJob> jobs;
  for (std::size_t k = 0; k < runnable.size(); ++k) {
    if (fs::exists(result_path(a.dir, runnable[k]->id))) continue;
    jobs.push_back({runnable[k]->id,
                    {self_path(), "sweep", "one", a.dir, std::to_string(k)},
                    (fs::path(a.dir) / "logs" / (runnable[k]->id + ".log")).string()});
  }
  std::printf(
      "sweep %s: %zu runs: %zu done before, %zu to run, %zu skipped (poslab train "
      "refuses them)\n",
      list.name.c_str(), runnable.size(), runnable.size() - jobs.size(), jobs.size(),
      list.runs.size() - runnable.size());
  std::fflush(stdout);
  const std::vector<PoolFailure> failures = run_pool(jobs, a.jobs);
  std::printf("sweep %s: %zu ran, %zu failed\n", list.name.c_str(), jobs.size(), failures.size());
  std::fflush(stdout);
  report_failures(failures, jobs.size(), a.dir);
}

// --------------------------------------------------------------------------------------------
// sweep emit PLAN --out DIR --slurm

struct EmitArgs {
  std::string plan, dir;
  bool slurm = false;
};

void emit_sweep(const EmitArgs& a) {
  const train::SweepRunList list = load_plan(a.plan);
  const std::size_t runnable = list.runnable().size();
  require(runnable > 0, "every run of " + a.plan +
                            " is refused by poslab train (poslab sweep run --dry-run says why): "
                            "nothing to submit");
  const std::string dir = fs::absolute(a.dir).lexically_normal().string();
  const std::string script = (fs::path(dir) / "sweep.sbatch").string();
  const std::string text = train::slurm_script(list, self_path(), dir);
  prepare_directory(dir, list);
  OutputFiles files;
  files.add(script, text, "sweep.sbatch");
  files.commit();
  std::printf(
      "sweep %s: %zu runs as a Slurm job array, %zu skipped (poslab train refuses "
      "them); submit it with\n  sbatch %s\nthen merge the results with\n  %s sweep "
      "merge %s -o summary.json\n",
      list.name.c_str(), runnable, list.runs.size() - runnable, script.c_str(), self_path().c_str(),
      dir.c_str());
}

// --------------------------------------------------------------------------------------------
// sweep one DIR INDEX

struct OneArgs {
  std::string dir;
  std::size_t index = 0;
};

// Becomes `poslab train <the run's options> -o DIR/runs/<id>.json`, unless the result exists.
void run_one(const OneArgs& a) {
  const train::SweepRunList list = read_run_list(a.dir);
  const std::vector<const train::SweepRun*> runnable = list.runnable();
  if (a.index >= runnable.size()) {
    throw UsageError("INDEX " + std::to_string(a.index) + " is past the last of the sweep's " +
                     std::to_string(runnable.size()) + " runs (they count from 0)");
  }
  const train::SweepRun& run = *runnable[a.index];
  const std::string out = result_path(a.dir, run.id);
  if (fs::exists(out)) {
    std::printf("%s: done before\n", run.id.c_str());
    return;
  }
  fs::create_directories(fs::path(out).parent_path());
  std::vector<std::string> words{self_path()};
  words.insert(words.end(), run.train_args.begin(), run.train_args.end());
  words.insert(words.end(), {"-o", out});
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  ::execv(argv[0], argv.data());
  throw Error("cannot run " + words[0] + ": " + std::strerror(errno));
}

// --------------------------------------------------------------------------------------------
// sweep merge DIR -o summary.json

struct MergeArgs {
  std::string dir, out;
};

void merge_results(const MergeArgs& a) {
  if (fs::path(a.out).extension() != ".json") {
    throw UsageError("-o writes the summary as JSON: give a name ending in .json (got '" + a.out +
                     "')");
  }
  check_output_target(a.out);
  const train::SweepRunList list = read_run_list(a.dir);
  train::SweepResults results;
  for (const train::SweepRun* run : list.runnable()) {
    const std::string path = result_path(a.dir, run->id);
    if (fs::is_regular_file(path)) {
      results[run->id] = read_whole_file(path, kMaxResultBytes, "a run's result");
    }
  }
  const std::string summary = train::merge_sweep(list, results);
  OutputFiles files;
  files.add(a.out, summary, "-o");
  files.commit();
  std::printf("%s", train::sweep_summary_markdown(summary).c_str());
}

// --------------------------------------------------------------------------------------------

void declare_plan(CLI::App* cmd, std::string& plan, std::string& dir) {
  cmd->add_option("plan", plan, "the plan (JSON: tasks, methods, seeds, options, resources)")
      ->required()
      ->type_name("FILE")
      ->check(input_file());
  cmd->add_option("--out", dir, "the sweep directory: runs.json, runs/<id>.json, logs/")
      ->required()
      ->type_name("DIR")
      ->check(non_empty_path());
}

void declare_run(CLI::App* cmd, RunArgs& a) {
  declare_plan(cmd, a.plan, a.dir);
  cmd->add_option("--jobs", a.jobs, "runs at a time, one process each")
      ->capture_default_str()
      ->check(integer_in(1, 1024));
  cmd->add_flag("--dry-run", a.dry_run, "print each run's id and command (or why it is skipped)");
}

void declare_emit(CLI::App* cmd, EmitArgs& a) {
  declare_plan(cmd, a.plan, a.dir);
  cmd->add_flag("--slurm", a.slurm, "a Slurm job array, DIR/sweep.sbatch (the one format)")
      ->required();
}

void declare_one(CLI::App* cmd, OneArgs& a) {
  cmd->add_option("dir", a.dir, "the sweep directory")->required()->type_name("DIR");
  cmd->add_option("index", a.index, "which run: 0 .. runs - 1, the Slurm array's task id")
      ->required()
      ->type_name("INDEX")
      ->check(unsigned_integer());
}

void declare_merge(CLI::App* cmd, MergeArgs& a) {
  cmd->add_option("dir", a.dir, "the sweep directory")->required()->type_name("DIR");
  cmd->add_option("-o,--out", a.out, "summary.json")->required()->type_name("FILE");
}

}  // namespace

void add_sweep_command(Commands& commands) {
  auto subcommands = std::make_shared<std::optional<Commands>>();
  CLI::App* sweep = commands.add("sweep",
                                 "many poslab train runs from one plan: run them here, emit a "
                                 "Slurm job array, merge their results",
                                 [subcommands] { (*subcommands)->run_selected(); });
  subcommands->emplace(*sweep);
  // CLI11's own words for a missing subcommand ("A subcommand is required") name none.
  sweep->require_subcommand(0, 1)->callback([sweep] {
    if (sweep->get_subcommands().empty()) {
      throw UsageError(
          "poslab sweep needs one of run, emit, one or merge (see poslab sweep --help)");
    }
  });
  Commands& sub = **subcommands;
  add_command<RunArgs>(sub, "run", "run the plan's runs here, --jobs at a time", declare_run,
                       run_sweep);
  add_command<EmitArgs>(sub, "emit", "write the plan as a Slurm job array", declare_emit,
                        emit_sweep);
  add_command<OneArgs>(sub, "one", "run one run of a sweep directory", declare_one, run_one);
  add_command<MergeArgs>(sub, "merge", "summarise a sweep's results over seeds and rank them",
                         declare_merge, merge_results);
}

}  // namespace poslab::cli

// `poslab sweep` as a user runs it, on tiny runs (a fraction of a second each): the dry run, the
// local pool and its counts, skipped and failed runs, one run of a directory, the Slurm job
// array it emits, the merge against `poslab train --seeds`, and a pool killed mid-way that
// resumes without running a finished run again and merges to the same bytes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "fixtures.hpp"

namespace poslab::test {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// The model of every run: a fraction of a second at 20 steps.
const char* const kTinyOptions =
    R"("train-len": [2], "width": [16], "heads": [2], "layers": [1], "eval-examples": [4])";

class SweepCli : public Sandbox {
 protected:
  // plan.json (or `file`) with `members` besides the tiny model's options.
  void plan(const std::string& methods, const std::string& seeds, const std::string& options,
            const std::string& file = "plan.json") {
    put(file, R"({"name": "t", "tasks": ["copy"], "methods": )" + methods + R"(, "seeds": )" +
                  seeds + R"(, "options": {)" + kTinyOptions +
                  (options.empty() ? "" : ", " + options) + "}}");
  }

  RunResult ok(const std::vector<std::string>& args) const {
    const RunResult r = run(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return r;
  }

  // The result files of sweep directory `dir`, by name.
  // The finished results in dir/runs: a result is written to a dot-file and renamed, so a
  // name that starts with '.' is a write in progress (or one a kill interrupted).
  std::vector<std::string> results(const std::string& dir) const {
    std::vector<std::string> names;
    if (!fs::exists(path(dir + "/runs"))) return names;
    for (const auto& entry : fs::directory_iterator(path(dir + "/runs"))) {
      const std::string name = entry.path().filename().string();
      if (name.front() != '.') names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
  }
};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_F(SweepCli, DryRunListsEveryRunAndRunsNothing) {
  plan(R"(["rope", "none"])", "2", R"("steps": [20], "randomized-positions": [0, 64])");
  const std::set<std::string> before = listing();
  const RunResult r = ok({"sweep", "run", "plan.json", "--out", "d", "--dry-run"});
  EXPECT_EQ(listing(), before);
  EXPECT_TRUE(contains(r.out, "copy.rope.randomized-positions=64.s1\n  ")) << r.out;
  EXPECT_TRUE(contains(r.out,
                       " train --task copy --position rope --eval-examples=4 --heads=2 "
                       "--layers=1 --randomized-positions=64 --steps=20 --train-len=2 "
                       "--width=16 --seed 1 -q -o d/runs/"
                       "copy.rope.randomized-positions=64.s1.json\n"))
      << r.out;
  // poslab train's own refusal, word for word.
  EXPECT_TRUE(contains(r.out,
                       "copy.none.randomized-positions=64.s0  skipped: randomised "
                       "positions need a position method that reads them"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "6 runs, 2 skipped (poslab train refuses them)\n")) << r.out;
}

TEST_F(SweepCli, PoolRunsEachRunOnceAndSkipsWhatIsDone) {
  plan(R"(["rope", "alibi"])", "[0, 1]", R"("steps": [20])");
  RunResult r = ok({"sweep", "run", "plan.json", "--out", "d", "--jobs", "2"});
  EXPECT_TRUE(contains(r.out, "4 runs: 0 done before, 4 to run, 0 skipped")) << r.out;
  EXPECT_TRUE(contains(r.out, "4 ran, 0 failed")) << r.out;
  EXPECT_EQ(results("d"), (std::vector<std::string>{"copy.alibi.s0.json", "copy.alibi.s1.json",
                                                    "copy.rope.s0.json", "copy.rope.s1.json"}));
  const Json rope1 = Json::parse(read_file(path("d/runs/copy.rope.s1.json")));
  EXPECT_EQ(rope1["config"]["position"], "rope");
  EXPECT_EQ(rope1["config"]["seed"], 1);
  EXPECT_EQ(rope1["config"]["steps"], 20);
  EXPECT_TRUE(fs::is_regular_file(path("d/runs.json")));
  EXPECT_TRUE(fs::is_regular_file(path("d/logs/copy.rope.s1.log")));

  const std::string before = read_file(path("d/runs/copy.rope.s1.json"));
  r = ok({"sweep", "run", "plan.json", "--out", "d", "--jobs", "2"});
  EXPECT_TRUE(contains(r.out, "4 runs: 4 done before, 0 to run")) << r.out;
  EXPECT_EQ(read_file(path("d/runs/copy.rope.s1.json")), before);
}

// A run's result is the one `poslab train` writes from the same options, and merge's summary of a
// method is the one `poslab train --seeds` writes over the same seeds.
TEST_F(SweepCli, RunsAreTrainRunsAndMergeIsTheSeedsSummary) {
  plan(R"(["alibi"])", "3", R"("steps": [30])");
  ok({"sweep", "run", "plan.json", "--out", "d", "--jobs", "3"});
  ok({"train", "--task",   "copy", "--position", "alibi", "--eval-examples", "4", "--heads",
      "2",     "--layers", "1",    "--steps",    "30",    "--train-len",     "2", "--width",
      "16",    "--seeds",  "3",    "-q",         "-o",    "seeds.json"});
  const Json seeds = Json::parse(read_file(path("seeds.json")));
  const Json one = Json::parse(read_file(path("d/runs/copy.alibi.s2.json")));
  EXPECT_EQ(one["loss_curve"], seeds["runs"][2]["loss_curve"]);
  EXPECT_EQ(one["accuracy_by_length"], seeds["runs"][2]["accuracy_by_length"]);

  const RunResult r = ok({"sweep", "merge", "d", "-o", "summary.json"});
  const Json summary = Json::parse(read_file(path("summary.json")));
  const Json& alibi = summary["groups"][0]["methods"][0];
  EXPECT_EQ(alibi["seeds"], Json({0, 1, 2}));
  EXPECT_EQ(alibi["summary"], seeds["summary"]);
  EXPECT_TRUE(contains(r.out, "| method | in distribution | exact N+1..2N |")) << r.out;
  EXPECT_TRUE(contains(r.out, "| alibi")) << r.out;
}

TEST_F(SweepCli, AFailedRunIsReportedAfterTheOthersFinish) {
  // An enormous learning rate passes train's checks and makes the loss overflow at step 1.
  plan(R"(["rope"])", "1", R"("steps": [20], "warmup-steps": [0], "lr": [0.003, 1e30])");
  const RunResult r = run({"sweep", "run", "plan.json", "--out", "d", "--jobs", "2"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err,
                       "sweep: copy.rope.lr=1e+30.s0 failed (exit status 1):\n"
                       "poslab: error: the loss is no longer finite at step 1"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "poslab: error: 1 of 2 runs failed (their logs: d/logs)")) << r.err;
  EXPECT_EQ(results("d"), (std::vector<std::string>{"copy.rope.lr=0.003.s0.json"}));
}

TEST_F(SweepCli, OneRunsARunOfTheDirectoryOnce) {
  plan(R"(["rope", "none"])", "2", R"("steps": [20])");
  ok({"sweep", "emit", "plan.json", "--out", "d", "--slurm"});
  EXPECT_TRUE(results("d").empty());
  RunResult r = ok({"sweep", "one", "d", "3"});
  EXPECT_EQ(results("d"), (std::vector<std::string>{"copy.none.s1.json"}));
  r = ok({"sweep", "one", "d", "3"});
  EXPECT_EQ(r.out, "copy.none.s1: done before\n");
  r = run({"sweep", "one", "d", "4"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "INDEX 4 is past the last of the sweep's 4 runs")) << r.err;
}

TEST_F(SweepCli, EmitWritesASlurmJobArrayOverTheRunsThatRun) {
  plan(R"(["rope", "none"])", "3", R"("steps": [20], "randomized-positions": [0, 64])");
  const RunResult r = ok({"sweep", "emit", "plan.json", "--out", "d", "--slurm"});
  const std::string dir = fs::canonical(path("d")).string();
  const std::string script = read_file(path("d/sweep.sbatch"));
  EXPECT_TRUE(contains(script, "#SBATCH --array=0-8\n")) << script;  // 12 runs, 3 refused
  EXPECT_TRUE(contains(script, "#SBATCH --job-name=poslab-t\n")) << script;
  EXPECT_TRUE(contains(script, "#SBATCH --cpus-per-task=1\n#SBATCH --mem=1G\n")) << script;
  EXPECT_TRUE(contains(script, "#SBATCH --output=" + dir + "/logs/%A_%a.out\n")) << script;
  EXPECT_TRUE(contains(script, "exec " + fs::canonical(binary_under_test()).string() +
                                   " sweep one " + dir + " \"$SLURM_ARRAY_TASK_ID\"\n"))
      << script;
  EXPECT_TRUE(contains(r.out, "  sbatch " + dir + "/sweep.sbatch\n")) << r.out;
  const Json list = Json::parse(read_file(path("d/runs.json")));
  EXPECT_EQ(list["runs"].size(), 12u);
}

TEST_F(SweepCli, ADirectoryOfAnotherPlanIsRefused) {
  plan(R"(["rope"])", "1", R"("steps": [20])");
  plan(R"(["alibi"])", "1", R"("steps": [20])", "other.json");
  ok({"sweep", "run", "plan.json", "--out", "d"});
  const std::string list = read_file(path("d/runs.json"));
  const RunResult r = run({"sweep", "run", "other.json", "--out", "d"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err, "d holds another plan's sweep")) << r.err;
  EXPECT_EQ(read_file(path("d/runs.json")), list);
  EXPECT_EQ(results("d"), (std::vector<std::string>{"copy.rope.s0.json"}));
}

// Starts `poslab args...` in `dir` as the leader of a process group of its own, its output
// discarded; returns its pid.
pid_t start_group(const std::vector<std::string>& args, const std::string& dir) {
  std::vector<std::string> words{binary_under_test()};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    const int null = ::open("/dev/null", O_WRONLY);
    if (null < 0 || ::chdir(dir.c_str()) != 0) ::_exit(127);
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here, so the group exists before the parent signals it
  return pid;
}

struct FileStamp {
  ino_t inode;
  std::int64_t mtime_ns;
  bool operator==(const FileStamp& o) const { return inode == o.inode && mtime_ns == o.mtime_ns; }
};
FileStamp stamp(const std::string& file) {
  struct stat st {};
  EXPECT_EQ(::stat(file.c_str(), &st), 0) << file;
  return {st.st_ino, std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

// SIGKILL to the pool's whole process group once a result exists and before all do: every
// result file there is whole, the rerun runs only what was missing (the others keep their
// inode and mtime), and the merge is byte for byte an uninterrupted sweep's. A kill that lands
// between a result's write and its rename leaves that write's dot-file, which the rerun and the
// merge pass over (it once stopped the wait below before any result was whole). LongRunning:
// about a dozen real training runs (4 s here), which a sanitizer only slows down.
TEST_F(SweepCli, LongRunningKilledSweepResumesAndMergesToTheSameBytes) {
  plan(R"(["rope", "alibi"])", "3", R"("steps": [1500])");
  // The killed pool's runs are reparented to this process, which can then wait for them.
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  const pid_t pool =
      start_group({"sweep", "run", "plan.json", "--out", "a", "--jobs", "1"}, path(""));
  const auto start = std::chrono::steady_clock::now();
  while (results("a").empty() &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(60)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_EQ(::kill(-pool, SIGKILL), 0);
  while (::waitpid(-1, nullptr, 0) > 0 || errno == EINTR) {
  }
  const std::vector<std::string> done = results("a");
  ASSERT_GE(done.size(), 1u);
  ASSERT_LT(done.size(), 6u) << "every run finished before the kill";
  std::map<std::string, FileStamp> stamps;
  for (const std::string& name : done) {
    EXPECT_TRUE(Json::parse(read_file(path("a/runs/" + name))).contains("metrics")) << name;
    stamps.emplace(name, stamp(path("a/runs/" + name)));
  }

  const RunResult r = ok({"sweep", "run", "plan.json", "--out", "a", "--jobs", "1"});
  EXPECT_TRUE(contains(r.out, "6 runs: " + std::to_string(done.size()) + " done before, " +
                                  std::to_string(6 - done.size()) + " to run"))
      << r.out;
  EXPECT_EQ(results("a").size(), 6u);
  for (const auto& [name, before] : stamps) {
    EXPECT_TRUE(stamp(path("a/runs/" + name)) == before) << name << " was run again";
  }

  ok({"sweep", "run", "plan.json", "--out", "b", "--jobs", "2"});
  ok({"sweep", "merge", "a", "-o", "a.json"});
  ok({"sweep", "merge", "b", "-o", "b.json"});
  EXPECT_EQ(read_file(path("a.json")), read_file(path("b.json")));
  EXPECT_EQ(Json::parse(read_file(path("a.json")))["missing"], Json::array());
}

}  // namespace
}  // namespace poslab::test

// The sweep's plan, runs, run list, Slurm script and merge (train/sweep*.hpp) on plans and
// results written by hand: what a plan may say and what it is refused for (naming the field),
// the runs' order, ids and command lines, skipped runs, and the summary and verdicts a merge
// gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "poslab/base/errors.hpp"
#include "poslab/train/config.hpp"
#include "poslab/train/metrics.hpp"
#include "poslab/train/sweep.hpp"
#include "poslab/train/sweep_merge.hpp"
#include "poslab/train/sweep_slurm.hpp"

namespace poslab::train {
namespace {

using Json = nlohmann::ordered_json;

SweepPlan plan_of(const std::string& text) { return parse_sweep_plan(text, "plan.json"); }

const SweepRunCheck kRunsAll = [](const SweepRun&) { return std::string(); };

std::vector<std::string> ids_of(const std::vector<SweepRun>& runs) {
  std::vector<std::string> ids;
  for (const SweepRun& run : runs) ids.push_back(run.id);
  return ids;
}

TEST(SweepPlan, ReadsTasksMethodsSeedsOptionsAndResources) {
  const SweepPlan p = plan_of(R"({
    "name": "quick", "tasks": ["copy", "reverse"], "methods": ["rope", "nope"], "seeds": 3,
    "options": {"train-len": [5], "sinks": [false, true], "lr": [0.003, 1e-3]},
    "resources": {"cpus": 2, "mem": "500M", "time": "00:30:00", "partition": "debug"}})");
  EXPECT_EQ(p.name, "quick");
  EXPECT_EQ(p.tasks, (std::vector<std::string>{"copy", "reverse"}));
  EXPECT_EQ(p.methods, (std::vector<std::string>{"rope", "none"}));  // the alias, canonical
  EXPECT_EQ(p.seeds, (std::vector<std::uint64_t>{0, 1, 2}));
  ASSERT_EQ(p.options.size(), 3u);  // by name
  EXPECT_EQ(p.options[0].name, "lr");
  EXPECT_EQ(p.options[0].values, (std::vector<std::string>{"0.003", "0.001"}));
  EXPECT_EQ(p.options[1].name, "sinks");
  EXPECT_TRUE(p.options[1].boolean);
  EXPECT_EQ(p.options[1].values, (std::vector<std::string>{"false", "true"}));
  EXPECT_EQ(p.options[2].values, (std::vector<std::string>{"5"}));
  EXPECT_EQ(p.resources.cpus, 2u);
  EXPECT_EQ(p.resources.mem, "500M");
  EXPECT_EQ(p.resources.time, "00:30:00");
  EXPECT_EQ(p.resources.partition, "debug");
}

TEST(SweepPlan, AllIsEveryTrainerMethodAndSeedsComeAscending) {
  const SweepPlan p = plan_of(R"({"tasks": ["copy"], "methods": "all", "seeds": [7, 0, 3]})");
  std::vector<std::string> all;
  for (const auto& entry : kPositionMethodNames) all.emplace_back(entry.name);
  EXPECT_EQ(p.methods, all);
  EXPECT_EQ(p.seeds, (std::vector<std::uint64_t>{0, 3, 7}));
  EXPECT_EQ(p.name, "sweep");
  EXPECT_EQ(p.resources.cpus, 1u);
}

struct BadPlan {
  std::string text;
  const char* field;
  const char* says;
};

TEST(SweepPlan, BadPlansAreRefusedNamingTheField) {
  // A plan that is right but for `more`.
  const auto with = [](const std::string& more) {
    return R"({"tasks": ["copy"], "methods": ["rope"], "seeds": 1, )" + more + "}";
  };
  const BadPlan cases[] = {
      {R"({"tasks": ["copy"],)", "", "plan.json: not valid JSON"},
      {R"(["copy"])", "plan", "must be a JSON object"},
      {R"({"taks": ["copy"], "methods": ["rope"], "seeds": 1})", "taks", "unknown key"},
      {R"({"methods": ["rope"], "seeds": 1})", "tasks", "missing"},
      {R"({"tasks": [], "methods": ["rope"], "seeds": 1})", "tasks", "an empty list"},
      {R"({"tasks": ["cpy"], "methods": ["rope"], "seeds": 1})", "tasks[0]", "unknown task 'cpy'"},
      {R"({"tasks": ["copy", "copy"], "methods": ["rope"], "seeds": 1})", "tasks[1]",
       "already in the list"},
      {R"({"tasks": ["copy"], "methods": ["ropey"], "seeds": 1})", "methods[0]", "ropey"},
      {R"({"tasks": ["copy"], "methods": "some", "seeds": 1})", "methods", "\"all\""},
      {R"({"tasks": ["copy"], "methods": ["rope", "rotary"], "seeds": 1})", "methods[1]",
       "'rope' is already in the list"},
      {R"({"tasks": ["copy"], "methods": ["rope"], "seeds": 0})", "seeds", "from 1 to"},
      {R"({"tasks": ["copy"], "methods": ["rope"], "seeds": [1, -2]})", "seeds[1]", "got -2"},
      {R"({"tasks": ["copy"], "methods": ["rope"], "seeds": [1.5]})", "seeds[0]", "got 1.5"},
      {R"({"tasks": ["copy"], "methods": ["rope"], "seeds": [1, 1]})", "seeds[1]", "already"},
      {with(R"("options": {"layers": []})"), "options.layers", "an empty list"},
      {with(R"("options": {"layers": 4})"), "options.layers", "must be a list"},
      {with(R"("options": {"seed": [1]})"), "options.seed", "the plan's \"seeds\""},
      {with(R"("options": {"--layers": [1]})"), "options.--layers", "without its dashes"},
      {with(R"("options": {"sinks": [true, 4]})"), "options.sinks[1]", "booleans"},
      {with(R"("options": {"layers": [4, true]})"), "options.layers[1]", "a number or a string"},
      {with(R"("options": {"layers": [null]})"), "options.layers[0]", "got null"},
      {with(R"("options": {"layers": [4, 4]})"), "options.layers[1]", "already"},
      {with(R"("resources": {"gpus": 1})"), "resources.gpus", "unknown key"},
      {with(R"("resources": {"mem": "lots"})"), "resources.mem", "got 'lots'"},
      {with(R"("resources": {"time": "soon"})"), "resources.time", "soon"},
      {with(R"("resources": {"cpus": 0})"), "resources.cpus", "got 0"},
      {with(R"("name": "my sweep")"), "name", "letters, digits"},
      {R"({"tasks": ["copy"], "methods": "all", "seeds": 100000})", "seeds",
       "more than 100000 runs"},
  };
  for (const BadPlan& c : cases) {
    SCOPED_TRACE(c.text);
    try {
      plan_of(c.text);
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_EQ(e.field(), c.field) << message;
      EXPECT_EQ(message.rfind("plan.json: ", 0), 0u) << message;
      EXPECT_NE(message.find(c.says), std::string::npos) << message;
    }
  }
}

TEST(SweepRuns, ComeTaskMethodOptionsSeedWithIdsAndCommandLines) {
  const SweepPlan p = plan_of(R"({"tasks": ["copy"], "methods": ["rope", "alibi"],
    "seeds": [0, 1], "options": {"layers": [1, 2], "train-len": [4], "sinks": [true]}})");
  const std::vector<SweepRun> runs = expand_sweep(p, kRunsAll);
  // Options by name (layers, sinks, train-len); only layers varies, so only it is in the id.
  EXPECT_EQ(ids_of(runs),
            (std::vector<std::string>{"copy.rope.layers=1.s0", "copy.rope.layers=1.s1",
                                      "copy.rope.layers=2.s0", "copy.rope.layers=2.s1",
                                      "copy.alibi.layers=1.s0", "copy.alibi.layers=1.s1",
                                      "copy.alibi.layers=2.s0", "copy.alibi.layers=2.s1"}));
  EXPECT_EQ(runs[3].train_args,
            (std::vector<std::string>{"train", "--task", "copy", "--position", "rope", "--layers=2",
                                      "--sinks", "--train-len=4", "--seed", "1", "-q"}));
  EXPECT_EQ(runs[3].options, (std::vector<std::pair<std::string, std::string>>{
                                 {"layers", "2"}, {"sinks", "true"}, {"train-len", "4"}}));
  EXPECT_EQ(runs[3].seed, 1u);
}

TEST(SweepRuns, AFlagOffIsLeftOutOfTheCommandLine) {
  const SweepPlan p = plan_of(
      R"({"tasks": ["copy"], "methods": ["rope"], "seeds": 1, "options": {"sinks": [false, true]}})");
  const std::vector<SweepRun> runs = expand_sweep(p, kRunsAll);
  EXPECT_EQ(ids_of(runs),
            (std::vector<std::string>{"copy.rope.sinks=false.s0", "copy.rope.sinks=true.s0"}));
  const auto has_sinks = [](const SweepRun& r) {
    return std::count(r.train_args.begin(), r.train_args.end(), "--sinks") == 1;
  };
  EXPECT_FALSE(has_sinks(runs[0]));
  EXPECT_TRUE(has_sinks(runs[1]));
}

TEST(SweepRuns, RefusedRunsAreSkippedWithTheirReason) {
  const SweepPlan p = plan_of(R"({"tasks": ["copy"], "methods": ["rope", "none"], "seeds": 2,
    "options": {"randomized-positions": [0, 64]}})");
  const SweepRunCheck check = [](const SweepRun& run) {
    const bool random = run.options[0].second != "0";
    return run.method == "none" && random ? std::string("'none' sees no positions") : "";
  };
  const SweepRunList list{p.name, p.resources, expand_sweep(p, check)};
  ASSERT_EQ(list.runs.size(), 8u);
  EXPECT_EQ(list.runs[6].id, "copy.none.randomized-positions=64.s0");
  EXPECT_EQ(list.runs[6].refusal, "'none' sees no positions");
  std::vector<std::string> runnable;
  for (const SweepRun* run : list.runnable()) runnable.push_back(run->id);
  EXPECT_EQ(runnable, (std::vector<std::string>{
                          "copy.rope.randomized-positions=0.s0",
                          "copy.rope.randomized-positions=0.s1",
                          "copy.rope.randomized-positions=64.s0",
                          "copy.rope.randomized-positions=64.s1",
                          "copy.none.randomized-positions=0.s0",
                          "copy.none.randomized-positions=0.s1",
                      }));
}

TEST(SweepRuns, IdsAreFileNamesAndUnique) {
  const auto plan_with = [](const std::string& values) {
    return plan_of(R"({"tasks": ["copy"], "methods": ["rope"], "seeds": 1, "options":
      {"eval-positions": )" +
                   values + "}}");
  };
  EXPECT_EQ(expand_sweep(plan_with(R"(["a/b c", "x"])"), kRunsAll)[0].id,
            "copy.rope.eval-positions=a_b_c.s0");
  // Two values that differ only where a file name cannot hold them would share a file.
  try {
    expand_sweep(plan_with(R"(["a/b", "a_b"])"), kRunsAll);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("two runs of the plan have the id"), std::string::npos);
  }
  EXPECT_THROW(expand_sweep(plan_with("[\"" + std::string(300, 'x') + "\", \"y\"]"), kRunsAll),
               Error);
}

TEST(SweepRuns, TheRunListReadsBackAsWritten) {
  const SweepPlan p = plan_of(R"({"name": "q", "tasks": ["copy"], "methods": ["rope", "none"],
    "seeds": [4], "options": {"steps": [10], "sinks": [false, true]},
    "resources": {"mem": "2G"}})");
  const SweepRunCheck check = [](const SweepRun& run) {
    return run.method == "none" ? std::string("refused") : "";
  };
  const SweepRunList list{p.name, p.resources, expand_sweep(p, check)};
  const std::string text = sweep_run_list_json(list);
  const SweepRunList back = parse_sweep_run_list(text, "runs.json");
  EXPECT_EQ(sweep_run_list_json(back), text);
  EXPECT_EQ(back.name, "q");
  EXPECT_EQ(back.resources.mem, "2G");
  ASSERT_EQ(back.runs.size(), 4u);
  EXPECT_EQ(back.runs[3].refusal, "refused");
  EXPECT_EQ(back.runs[1].train_args, list.runs[1].train_args);
  EXPECT_EQ(back.runnable().size(), 2u);
  EXPECT_THROW(parse_sweep_run_list(R"({"name": "q"})", "runs.json"), Error);
  Json tampered = Json::parse(text);
  tampered["runs"][0]["id"] = "../../etc/x";
  EXPECT_THROW(parse_sweep_run_list(tampered.dump(), "runs.json"), Error);
}

TEST(SweepSlurmScript, IsAnArrayOverTheRunsThatRun) {
  const SweepPlan p = plan_of(R"({"name": "quick", "tasks": ["copy"], "methods": ["rope",
    "none"], "seeds": 3, "resources": {"cpus": 2, "mem": "2G", "time": "00:10:00",
    "partition": "debug"}})");
  const SweepRunCheck check = [](const SweepRun& run) {
    return run.method == "none" ? std::string("refused") : "";
  };
  const SweepRunList list{p.name, p.resources, expand_sweep(p, check)};
  const std::string s = slurm_script(list, "/opt/poslab/bin/poslab", "/scratch/sweep");
  EXPECT_EQ(s.rfind("#!/bin/bash\n", 0), 0u);
  for (const char* line :
       {"#SBATCH --job-name=poslab-quick\n", "#SBATCH --array=0-2\n", "#SBATCH --cpus-per-task=2\n",
        "#SBATCH --mem=2G\n", "#SBATCH --time=00:10:00\n", "#SBATCH --partition=debug\n",
        "#SBATCH --output=/scratch/sweep/logs/%A_%a.out\n",
        "exec /opt/poslab/bin/poslab sweep one /scratch/sweep \"$SLURM_ARRAY_TASK_ID\"\n"}) {
    EXPECT_NE(s.find(line), std::string::npos) << line << "\nin\n" << s;
  }
  EXPECT_THROW(slurm_script(list, "/opt/poslab", "/scratch/my sweep"), Error);
  EXPECT_THROW(slurm_script(list, "poslab", "/scratch/sweep"), Error);
  EXPECT_THROW(slurm_script(list, "/opt/poslab", "/scratch/100%"), Error);
}

// A hand-made result.json of one run: its config and the four metrics, primary `primary`.
std::string result(const SweepRun& run, double inside, double primary) {
  const Json r = {{"config", {{"task", run.task}, {"position", run.method}, {"seed", run.seed}}},
                  {"metrics",
                   {{"exact_match_in_distribution", inside},
                    {"exact_match_n_to_2n", primary},
                    {"answer_accuracy_n_to_2n", primary / 2},
                    {"exact_match_2n_to_4n", nullptr}}}};
  return r.dump();
}

// Methods a..d over seeds 0..2: in distribution and the primary metric by method and seed.
struct MergeFixture {
  SweepRunList list;
  SweepResults results;
  MergeFixture() {
    const SweepPlan p = plan_of(R"({"name": "m", "tasks": ["copy"],
      "methods": ["rope", "alibi", "t5", "none"], "seeds": 3, "options": {"steps": [5]}})");
    list = {p.name, p.resources, expand_sweep(p, kRunsAll)};
    const std::map<std::string, std::vector<double>> primary = {
        {"rope", {0.1, 0.1, 0.1}},   // behind alibi and t5
        {"alibi", {0.5, 0.5, 0.5}},  // mean 0.5, sd 0
        {"t5", {0.4, 0.6, 0.5}},     // mean 0.5, sd 0.1: ties alibi, above rope
        {"none", {0.9, 0.9, 0.9}}};  // did not train: never ranked
    for (const SweepRun& run : list.runs) {
      const double inside = run.method == "none" ? 0.5 : 1.0;
      results[run.id] = result(run, inside, primary.at(run.method)[run.seed]);
    }
  }
};

TEST(SweepMerge, SummarisesEachMethodAsTrainSeedsDoes) {
  const MergeFixture f;
  const Json s = Json::parse(merge_sweep(f.list, f.results));
  EXPECT_EQ(s["sweep"], "m");
  EXPECT_EQ(s["primary"], "exact_match_n_to_2n");
  ASSERT_EQ(s["groups"].size(), 1u);
  const Json& g = s["groups"][0];
  EXPECT_EQ(g["task"], "copy");
  EXPECT_EQ(g["options"], Json({{"steps", "5"}}));
  ASSERT_EQ(g["methods"].size(), 4u);
  const Json& t5 = g["methods"][2];
  EXPECT_EQ(t5["method"], "t5");
  EXPECT_EQ(t5["seeds"], Json({0, 1, 2}));
  EXPECT_EQ(t5["trained"], true);
  // The same summary poslab train --seeds 3 writes for these three runs.
  std::vector<std::string> runs;
  for (const SweepRun& run : f.list.runs) {
    if (run.method == "t5") runs.push_back(f.results.at(run.id));
  }
  EXPECT_EQ(t5["summary"], Json::parse(seeds_result_json(runs))["summary"]);
  EXPECT_NEAR(t5["summary"]["exact_match_n_to_2n"]["sd"].get<double>(), 0.1, 1e-12);
  EXPECT_TRUE(t5["summary"]["exact_match_2n_to_4n"]["mean"].is_null());
  EXPECT_EQ(g["methods"][3]["trained"], false);
  EXPECT_EQ(s["missing"], Json::array());
}

TEST(SweepMerge, VerdictsFollowTheRankingRule) {
  const MergeFixture f;
  const Json s = Json::parse(merge_sweep(f.list, f.results));
  // Pairs of trained methods in the plan's order; none did not train.
  const Json expected = Json::parse(R"([
    {"a": "rope", "b": "alibi", "verdict": "below"},
    {"a": "rope", "b": "t5", "verdict": "below"},
    {"a": "alibi", "b": "t5", "verdict": "tie"}])");
  EXPECT_EQ(s["groups"][0]["verdicts"], expected);
  const std::string table = sweep_summary_markdown(merge_sweep(f.list, f.results));
  EXPECT_NE(table.find("| method | in distribution | exact N+1..2N |"), std::string::npos);
  EXPECT_NE(table.find("| none (did not train) | 0.50 ± 0.00 | 0.90 ± 0.00 |"), std::string::npos)
      << table;
  EXPECT_NE(table.find("rope < alibi, rope < t5, alibi = t5"), std::string::npos) << table;
}

TEST(SweepMerge, MissingRunsAreListedAndTheRestSummarised) {
  MergeFixture f;
  f.results.erase("copy.t5.s1");
  for (const SweepRun& run : f.list.runs) {
    if (run.method == "none") f.results.erase(run.id);
  }
  const Json s = Json::parse(merge_sweep(f.list, f.results));
  const Json& t5 = s["groups"][0]["methods"][2];
  EXPECT_EQ(t5["seeds"], Json({0, 2}));
  EXPECT_EQ(t5["missing_seeds"], Json({1}));
  EXPECT_EQ(t5["summary"]["exact_match_n_to_2n"]["values"], Json({0.4, 0.5}));
  const Json& none = s["groups"][0]["methods"][3];
  EXPECT_TRUE(none["summary"].is_null());
  EXPECT_TRUE(none["trained"].is_null());
  EXPECT_EQ(s["missing"], Json({"copy.t5.s1", "copy.none.s0", "copy.none.s1", "copy.none.s2"}));
}

// A method whose runs poslab train refuses keeps its row, and the row keeps the table's columns.
TEST(SweepMerge, ASkippedMethodsRowHasEveryColumn) {
  const SweepPlan p = plan_of(R"({"name": "m", "tasks": ["copy"], "methods": ["rope", "none"],
    "seeds": 1, "options": {"steps": [5], "randomized-positions": [64]}})");
  SweepRunList list{p.name, p.resources, expand_sweep(p, kRunsAll)};
  SweepResults results;
  for (SweepRun& run : list.runs) {
    if (run.method == "none") run.refusal = "'none' sees no positions";  // as train refuses it
    if (run.refusal.empty()) results[run.id] = result(run, 1.0, 0.5);
  }
  const std::string table = sweep_summary_markdown(merge_sweep(list, results));
  std::size_t header = std::string::npos;
  for (std::size_t at = 0, end; (end = table.find('\n', at)) != std::string::npos; at = end + 1) {
    const std::string line = table.substr(at, end - at);
    if (line.rfind("| ", 0) != 0) continue;
    const std::size_t bars = std::count(line.begin(), line.end(), '|');
    if (header == std::string::npos) header = bars;
    EXPECT_EQ(bars, header) << line;
  }
  EXPECT_NE(table.find("| none (skipped: "), std::string::npos) << table;
}

TEST(SweepMerge, AResultOfAnotherRunIsRefused) {
  MergeFixture f;
  f.results["copy.t5.s1"] = f.results.at("copy.t5.s0");  // seed 0's result under seed 1's id
  try {
    merge_sweep(f.list, f.results);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("runs/copy.t5.s1.json is not the result of this run"),
              std::string::npos)
        << e.what();
  }
  f.results["copy.t5.s1"] = "{\"config\":";
  EXPECT_THROW(merge_sweep(f.list, f.results), Error);
}

}  // namespace
}  // namespace poslab::train

// A sweep's results merged into the summary over seeds and the ranking rule's verdicts
// (poslab/train/sweep_merge.hpp).
#include "poslab/train/sweep_merge.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "metrics_json.hpp"
#include "poslab/base/errors.hpp"
#include "poslab/train/metrics.hpp"

namespace poslab::train {
namespace {

using Json = nlohmann::ordered_json;

// One method's runs in one group (task × option combination), seeds ascending.
struct MethodRuns {
  std::string method, refusal;
  std::vector<const SweepRun*> runs;
};
struct Group {
  const SweepRun* first;  // its task and options
  std::vector<MethodRuns> methods;
};

// The runs by task × option combination, then by method, each in the plan's order.
std::vector<Group> groups_of(const SweepRunList& list) {
  std::vector<Group> groups;
  for (const SweepRun& run : list.runs) {
    auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& group) {
      return group.first->task == run.task && group.first->options == run.options;
    });
    if (g == groups.end()) g = groups.insert(groups.end(), Group{&run, {}});
    auto m = std::find_if(g->methods.begin(), g->methods.end(),
                          [&](const MethodRuns& mr) { return mr.method == run.method; });
    if (m == g->methods.end()) m = g->methods.insert(g->methods.end(), {run.method, "", {}});
    if (!run.refusal.empty()) m->refusal = run.refusal;
    m->runs.push_back(&run);
  }
  return groups;
}

// A run's result object, held to be that run's: a file of another plan's run would otherwise
// be counted silently.
Json result_of(const SweepRun& run, const std::string& text) {
  const std::string name = "runs/" + run.id + ".json";
  Json result;
  try {
    result = Json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(name + ": not valid JSON (" + e.what() + "): delete it to run it again");
  }
  const auto is = [&](const char* key, const Json& value) {
    return result.contains("config") && result["config"].contains(key) &&
           result["config"][key] == value;
  };
  require(result.is_object() && result.contains("metrics") && result["metrics"].is_object() &&
              is("task", run.task) && is("position", run.method) && is("seed", run.seed),
          name + " is not the result of this run (" + run.task + ", " + run.method + ", seed " +
              std::to_string(run.seed) + "): delete it to run it again");
  return result;
}

SeedSummary seed_summary(const Json& summary, const char* metric) {
  SeedSummary s;
  if (summary.is_null() || !summary.contains(metric)) return s;
  const Json& m = summary[metric];
  if (!m["mean"].is_null()) s.mean = m["mean"].get<double>();
  if (!m["sd"].is_null()) s.sd = m["sd"].get<double>();
  return s;
}

// One method's entry; `missing` gathers the ids of its runs without a result.
Json method_json(const MethodRuns& m, const SweepResults& results, Json& missing) {
  Json seeds = Json::array(), missing_seeds = Json::array(), found = Json::array();
  for (const SweepRun* run : m.runs) {
    const auto result = results.find(run->id);
    if (!run->refusal.empty()) continue;
    if (result == results.end()) {
      missing_seeds.push_back(run->seed);
      missing.push_back(run->id);
      continue;
    }
    seeds.push_back(run->seed);
    found.push_back(result_of(*run, result->second));
  }
  const Json summary = found.empty() ? Json(nullptr) : metrics_summary(found);
  Json trained = nullptr;
  if (!summary.is_null() && summary.contains(kInDistributionMetric)) {
    const SeedSummary inside = seed_summary(summary, kInDistributionMetric);
    trained = inside.mean.has_value() && *inside.mean >= kTrainedThreshold;
  }
  Json out = {{"method", m.method},
              {"seeds", seeds},
              {"missing_seeds", missing_seeds},
              {"trained", trained},
              {"summary", summary}};
  if (!m.refusal.empty()) out["refusal"] = m.refusal;
  return out;
}

// Each pair of trained methods with a primary metric, in the plan's order.
Json verdicts_json(const Json& methods) {
  Json verdicts = Json::array();
  const auto ranked = [](const Json& m) {
    return m["trained"] == true && seed_summary(m["summary"], kPrimaryMetric).mean.has_value();
  };
  for (std::size_t i = 0; i < methods.size(); ++i) {
    for (std::size_t j = i + 1; j < methods.size(); ++j) {
      if (!ranked(methods[i]) || !ranked(methods[j])) continue;
      const SeedSummary a = seed_summary(methods[i]["summary"], kPrimaryMetric);
      const SeedSummary b = seed_summary(methods[j]["summary"], kPrimaryMetric);
      const char* verdict = ranks_above(a, b) ? "above" : ranks_above(b, a) ? "below" : "tie";
      verdicts.push_back(
          {{"a", methods[i]["method"]}, {"b", methods[j]["method"]}, {"verdict", verdict}});
    }
  }
  return verdicts;
}

}  // namespace

std::string merge_sweep(const SweepRunList& list, const SweepResults& results) {
  Json groups = Json::array(), missing = Json::array(), skipped = Json::array();
  for (const Group& g : groups_of(list)) {
    Json options = Json::object();
    for (const auto& [name, value] : g.first->options) options[name] = value;
    Json methods = Json::array();
    for (const MethodRuns& m : g.methods) methods.push_back(method_json(m, results, missing));
    groups.push_back({{"task", g.first->task},
                      {"options", options},
                      {"methods", methods},
                      {"verdicts", verdicts_json(methods)}});
  }
  for (const SweepRun& run : list.runs) {
    if (!run.refusal.empty()) skipped.push_back({{"id", run.id}, {"refusal", run.refusal}});
  }
  const Json out = {
      {"sweep", list.name}, {"primary", kPrimaryMetric}, {"trained_threshold", kTrainedThreshold},
      {"groups", groups},   {"missing", missing},        {"skipped", skipped}};
  return out.dump(1) + "\n";
}

namespace {

// bench/lab/seeds.py's column labels; another metric (the text task's) is shown by its key.
struct MetricLabel {
  const char* key;
  const char* label;
};
constexpr MetricLabel kMetricLabels[] = {
    {"exact_match_in_distribution", "in distribution"},
    {"exact_match_n_to_2n", "exact N+1..2N"},
    {"answer_accuracy_n_to_2n", "answer tokens N+1..2N"},
    {"exact_match_2n_to_4n", "exact 2N+1..4N"},
};

std::string label_of(const std::string& key) {
  for (const MetricLabel& m : kMetricLabels) {
    if (key == m.key) return m.label;
  }
  return key;
}

std::string cell(const Json& s) {
  if (s["mean"].is_null()) return "n/a";
  char text[64];
  std::snprintf(text, sizeof text, "%.2f ± %.2f", s["mean"].get<double>(), s["sd"].get<double>());
  return text;
}

std::string group_heading(const Json& g) {
  std::string heading = "### " + g["task"].get<std::string>();
  for (const auto& [name, value] : g["options"].items()) {
    heading += ", " + name + " " + value.get<std::string>();
  }
  return heading + "\n\n";
}

// The group's metrics: those of its first method with a summary.
std::vector<std::string> metric_keys(const Json& g) {
  std::vector<std::string> keys;
  for (const Json& m : g["methods"]) {
    if (m["summary"].is_null()) continue;
    for (const auto& [key, s] : m["summary"].items()) keys.push_back(key);
    break;
  }
  return keys;
}

std::string method_row(const Json& m, const std::vector<std::string>& keys) {
  std::string row = "| " + m["method"].get<std::string>();
  if (m.contains("refusal")) {
    // Every cell empty but the first, so the table keeps its columns.
    row += " (skipped: " + m["refusal"].get<std::string>() + ") |";
    for (std::size_t k = 0; k <= keys.size(); ++k) row += " |";
    return row + "\n";
  }
  if (m["trained"] == false) row += " (did not train)";
  row += " |";
  for (const std::string& key : keys) {
    const bool has = !m["summary"].is_null() && m["summary"].contains(key);
    row += " " + (has ? cell(m["summary"][key]) : std::string("n/a")) + " |";
  }
  return row + " " + std::to_string(m["seeds"].size()) + " |\n";
}

}  // namespace

std::string sweep_summary_markdown(const std::string& summary) {
  const Json s = Json::parse(summary);
  std::string out;
  for (const Json& g : s["groups"]) {
    const std::vector<std::string> keys = metric_keys(g);
    out += group_heading(g) + "| method |";
    for (const std::string& key : keys) out += " " + label_of(key) + " |";
    out += " seeds |\n| --- |";
    for (std::size_t k = 0; k <= keys.size(); ++k) out += " --: |";
    out += "\n";
    for (const Json& m : g["methods"]) out += method_row(m, keys);
    std::string verdicts;
    for (const Json& v : g["verdicts"]) {
      const std::string word = v["verdict"] == "above"   ? " > "
                               : v["verdict"] == "below" ? " < "
                                                         : " = ";
      verdicts += (verdicts.empty() ? "" : ", ") + v["a"].get<std::string>() + word +
                  v["b"].get<std::string>();
    }
    if (!verdicts.empty()) out += "\nOn " + std::string(kPrimaryMetric) + ": " + verdicts + "\n";
    out += "\n";
  }
  if (!s["missing"].empty()) {
    out += std::to_string(s["missing"].size()) + " runs have no result yet.\n";
  }
  return out;
}

}  // namespace poslab::train
